-- Every row of the public sno vectors, through SQL.  Run from the project
-- root (the \copy paths are relative to it) with the extension installed.
\ir preamble.psql
-- the bytes as text, or NULL when PostgreSQL text cannot hold them (NUL, invalid UTF-8)
CREATE FUNCTION pg_temp.as_text(b bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    IF position('\x00'::bytea IN b) > 0 THEN RETURN NULL; END IF;
    RETURN convert_from(b, 'UTF8');
EXCEPTION WHEN OTHERS THEN
    RETURN NULL;
END $$;
CREATE FUNCTION pg_temp.unix_ms(ms text) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS
    $$ SELECT 'epoch'::timestamptz + ms::bigint * interval '1 millisecond' $$;

CREATE TEMP TABLE codec (label text, hex text, encoded text, units39 text, ticktock text,
    time_unix_ms text, time_rfc3339nano_utc text, timestamp_ns text, meta text,
    partition_u16 text, partition_hex text, sequence text);
\copy codec FROM 'test/vectors/sno_codec.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01')
CREATE TEMP TABLE times (label text, input_rfc3339nano_utc text, input_unix_ns text, in_range text,
    units39 text, time_block_hex text, id_hex text, encoded text, time_unix_ms text,
    time_rfc3339nano_utc text, timestamp_ns text);
\copy times FROM 'test/vectors/sno_time.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01')
CREATE TEMP TABLE invalid (api text, label text, input_go_quoted text, input_hex text, byte_len text,
    rune_len text, go_accepts text, go_error text, result_hex_amd64_simd text,
    result_hex_amd64_scalar text, result_hex_purego_non_amd64 text,
    result_reencoded_amd64_simd text, strict_reimplementation text);
\copy invalid FROM 'test/vectors/sno_invalid.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01', FORCE_NOT_NULL (input_hex))

SELECT plan(14);

-- sno_codec.tsv: every row, both directions and every field
SELECT ok((SELECT count(*) FROM codec) > 0, 'sno_codec.tsv loaded');
SELECT is_empty($$ SELECT label FROM codec WHERE encoded::sno::bytea IS DISTINCT FROM decode(hex, 'hex') $$,
    'codec: text input gives the vector''s bytes');
SELECT is_empty($$ SELECT label FROM codec WHERE decode(hex, 'hex')::sno::text IS DISTINCT FROM encoded $$,
    'codec: bytes give the vector''s canonical text');
SELECT is_empty($$
    SELECT label FROM codec, LATERAL (SELECT encoded::sno AS x) s
    WHERE sno_meta(x) IS DISTINCT FROM meta::int OR sno_partition(x) IS DISTINCT FROM partition_u16::int
       OR sno_sequence(x) IS DISTINCT FROM sequence::int OR sno_ticktock(x) IS DISTINCT FROM ticktock::int
       OR sno_time(x) IS DISTINCT FROM pg_temp.unix_ms(time_unix_ms) $$,
    'codec: time, meta, partition, sequence and tick-tock extracted');
SELECT is_empty($$
    SELECT label FROM codec, LATERAL (SELECT encoded::sno AS x) s
    WHERE sno_from_parts(sno_time(x), sno_meta(x), sno_partition(x), sno_sequence(x), sno_ticktock(x)) IS DISTINCT FROM x $$,
    'codec: sno_from_parts rebuilds every ID from its fields');

-- sno_time.tsv: the instant floored to PostgreSQL's microsecond
CREATE TEMP VIEW instants AS
SELECT *, 'epoch'::timestamptz + floor(input_unix_ns::numeric / 1000)::bigint * interval '1 microsecond' AS ts
FROM times;
SELECT ok((SELECT count(*) FROM times WHERE in_range = 'yes') > 0
      AND (SELECT count(*) FROM times WHERE in_range = 'no') > 0, 'sno_time.tsv loaded');
SELECT is_empty($$
    SELECT label FROM instants, LATERAL (SELECT sno_from_parts(ts, 0, 0, 0) AS x) s
    WHERE in_range = 'yes'
      AND (x::bytea IS DISTINCT FROM decode(id_hex, 'hex') OR x::text IS DISTINCT FROM encoded OR sno_time(x) IS DISTINCT FROM pg_temp.unix_ms(time_unix_ms)) $$,
    'time: in-range instants encode as the library does and read back as the unit start');
SELECT is_empty($$
    SELECT label FROM instants
    WHERE in_range = 'yes' AND (sno_lower_bound(ts)::bytea IS DISTINCT FROM decode(id_hex, 'hex')
                                OR sno_time(sno_upper_bound(ts)) IS DISTINCT FROM pg_temp.unix_ms(time_unix_ms)) $$,
    'time: bounds of every in-range instant''s unit');
SELECT is_empty($$
    SELECT label FROM instants
    WHERE in_range = 'no' AND sqlstate_of(format('SELECT sno_from_parts(%L, 0, 0, 0)', ts)) IS DISTINCT FROM '22008' $$,
    'time: out-of-range instants are ERROR 22008, not a wrapped ID');

-- sno_invalid.tsv: the strict verdicts PostgreSQL text can carry; binary ones through bytea
SELECT ok((SELECT count(*) FROM invalid WHERE api LIKE 'FromEncoded%' AND pg_temp.as_text(decode(input_hex, 'hex')) IS NOT NULL) > 0,
    'sno_invalid.tsv loaded');
SELECT is_empty($$
    SELECT label FROM invalid, LATERAL (SELECT pg_temp.as_text(decode(input_hex, 'hex')) AS input) s
    WHERE api LIKE 'FromEncoded%' AND input IS NOT NULL
      AND sqlstate_of(format('SELECT %L::sno', input))
          IS DISTINCT FROM CASE WHEN strict_reimplementation LIKE 'accept%' THEN 'ok' ELSE '22P02' END $$,
    'invalid: text inputs accepted or rejected (22P02) per the strict verdict');
SELECT is_empty($$
    SELECT label FROM invalid
    WHERE api = 'FromBinaryBytes'
      AND sqlstate_of(format('SELECT %L::bytea::sno', decode(input_hex, 'hex')))
          IS DISTINCT FROM CASE WHEN strict_reimplementation LIKE 'accept%' THEN 'ok' ELSE '22P03' END $$,
    'invalid: binary inputs accepted or rejected (22P03) through the bytea cast');
SELECT ok((SELECT count(*) FROM invalid WHERE api = 'FromBinaryBytes') > 0, 'binary rows present');
SELECT diag(format('%s text rows hold NUL or invalid UTF-8: checked by the C tests only',
    (SELECT count(*) FROM invalid WHERE api LIKE 'FromEncoded%' AND pg_temp.as_text(decode(input_hex, 'hex')) IS NULL)));

-- at a glance
SELECT is_empty($$
    SELECT label FROM codec, LATERAL (SELECT sno_fields(encoded::sno) AS f) s
    WHERE (f->>'meta')::int IS DISTINCT FROM meta::int OR (f->>'partition')::int IS DISTINCT FROM partition_u16::int
       OR (f->>'sequence')::int IS DISTINCT FROM sequence::int OR (f->>'ticktock')::int IS DISTINCT FROM ticktock::int
       OR (f->>'time')::timestamptz IS DISTINCT FROM to_timestamp(time_unix_ms::numeric / 1000)
       OR (SELECT count(*) FROM jsonb_object_keys(f)) <> 5 $$,
    'sno_fields: meta, partition, sequence, tick-tock and the time of every sno_codec.tsv row');

SELECT * FROM finish();
ROLLBACK;
