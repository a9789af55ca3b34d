-- Every row of the public siq vectors, and our verdict for every siq_invalid.tsv
-- input, through SQL (run from the project root).
\ir preamble.psql


CREATE TEMP TABLE vectors (bytes14_hex text, dec text, hex text, oct text, base64 text, cb32 text,
    cb32_0c text, b32l text, u text, did text, ts56 text, ts_seconds40 text, ts_frac16 text,
    timestamp_lib text, unix_us_floor text, unix_us_ceil text, shard text, domain_hash_hex text,
    domain_name_lib text, low16_hex text, qual_width text, qual_bits text, serial text, type text, note text);
\copy vectors FROM 'test/vectors/siq.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01', FORCE_NOT_NULL (cb32))
CREATE TEMP TABLE domains (domain text, local_id text, sha256_hex text, last4_hex text,
    make_domain_hash_dec text, make_domain_hash_hex text, note text);
\copy domains FROM 'test/vectors/siq_domains.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01', FORCE_NOT_NULL (domain, local_id))
CREATE TEMP TABLE verdicts (function text, input text, form text, verdict text, value_hex text);
CREATE TEMP TABLE migrations (snowflake int8, epoch_arg int8, epoch_unit text, domain text, target_type text,
    siq_hex28 text, siq_ts56 int8, siq_timestamp_seconds text);
\copy migrations FROM 'test/vectors/snowflake_to_siq.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01')
\copy verdicts FROM 'test/vectors/siq_invalid_verdicts.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01', FORCE_NOT_NULL (input))

SELECT plan(21);

SELECT ok((SELECT count(*) FROM vectors) > 0, 'siq.tsv loaded');
SELECT is_empty($$
    SELECT bytes14_hex FROM vectors
    WHERE decode(bytes14_hex, 'hex')::siq::text IS DISTINCT FROM lpad(cb32, 23, '0') $$,
    'output: the library''s Crockford numeral, zero-padded to 23');
SELECT is_empty($$
    SELECT bytes14_hex FROM vectors
    WHERE cb32_0c::siq::bytea IS DISTINCT FROM decode(bytes14_hex, 'hex')
       OR (cb32 <> '' AND cb32::siq::bytea IS DISTINCT FROM decode(bytes14_hex, 'hex'))
       OR did::siq::bytea IS DISTINCT FROM decode(bytes14_hex, 'hex') $$,
    'input: the cb32, 0c and DID forms give the vector''s bytes');
SELECT is_empty($$
    SELECT bytes14_hex FROM vectors WHERE siq_did(decode(bytes14_hex, 'hex')::siq) IS DISTINCT FROM did $$,
    'siq_did gives the library''s DID');
SELECT is_empty($$
    SELECT bytes14_hex FROM vectors, LATERAL (SELECT decode(bytes14_hex, 'hex')::siq AS x) s
    WHERE siq_shard(x) IS DISTINCT FROM shard::int
       OR siq_domain(x) IS DISTINCT FROM ('x' || domain_hash_hex)::bit(32)::bigint & 4294967295
       OR siq_serial(x) IS DISTINCT FROM serial::int
       OR siq_kind(x) IS DISTINCT FROM CASE WHEN type LIKE 'unassigned%' THEN NULL ELSE lower(type) END $$,
    'shard, domain, kind and serial extracted');
SELECT is_empty($$
    SELECT bytes14_hex FROM vectors, LATERAL (SELECT decode(bytes14_hex, 'hex')::siq AS x) s
    WHERE extract(epoch FROM siq_time(x)) * 1000000 IS DISTINCT FROM unix_us_ceil::numeric $$,
    'siq_time is the tick rounded up to the microsecond');
SELECT is_empty($$
    SELECT bytes14_hex FROM vectors, LATERAL (SELECT decode(bytes14_hex, 'hex')::siq AS x) s
    WHERE siq_kind(x) IS NOT NULL
      AND siq_from_parts(siq_time(x), siq_shard(x), siq_domain(x), siq_kind(x), siq_serial(x)) IS DISTINCT FROM x $$,
    'siq_from_parts(siq_time(x), ...) rebuilds every ID of a named kind: the time lands in its tick');

SELECT is_empty($$
    SELECT domain, local_id FROM domains
    WHERE make_domain_hash_hex <> 'UnicodeEncodeError'
      AND CASE WHEN local_id IN ('', '0') THEN siq_domain_hash(domain)
               ELSE siq_domain_hash(domain, local_id::int % 256) END  -- the library's local id is taken mod 256
          IS DISTINCT FROM ('x' || make_domain_hash_hex)::bit(32)::bigint & 4294967295 $$,
    'siq_domains.tsv: every domain hash, with and without a local id');
SELECT is_empty($$
    SELECT domain FROM domains
    WHERE make_domain_hash_hex = 'UnicodeEncodeError'
      AND sqlstate_of(format('SELECT siq_domain_hash(%L)', domain)) IS DISTINCT FROM '22021' $$,
    'a non-ASCII domain is ERROR 22021');

SELECT is_empty($$
    SELECT function, input FROM verdicts, LATERAL (SELECT unescape_vector(input) AS text_input) s
    WHERE form = 'text' AND text_input IS NOT NULL
      AND (sqlstate_of(format('SELECT %L::siq', text_input))
               IS DISTINCT FROM CASE verdict WHEN 'accept' THEN 'ok' ELSE '22P02' END
           OR (verdict = 'accept' AND text_input::siq::bytea IS DISTINCT FROM decode(value_hex, 'hex'))) $$,
    'siq_invalid.tsv text inputs: accepted with the right value, or 22P02, as API.md says');
SELECT is_empty($$
    SELECT function, input FROM verdicts
    WHERE form = 'binary'
      AND sqlstate_of(format('SELECT %L::bytea::siq', decode(substr(input, 7), 'hex')))
          IS DISTINCT FROM CASE verdict WHEN 'accept' THEN 'ok' ELSE '22P03' END $$,
    'siq_invalid.tsv binary inputs: exactly 14 bytes, else 22P03');

-- the library's text forms, every row both ways
CREATE TEMP VIEW forms AS
SELECT bytes14_hex, decode(bytes14_hex, 'hex')::siq AS x, form, text
FROM vectors, LATERAL (VALUES ('dec', dec), ('hex', hex), ('oct', oct), ('base64', base64), ('cb32', cb32),
                              ('0c', cb32_0c), ('b32l', b32l), ('u', u), ('did', did)) f(form, text);
SELECT is_empty($$ SELECT bytes14_hex, form FROM forms WHERE siq_format(x, form) IS DISTINCT FROM text $$,
    'siq_format writes every form of every siq.tsv row as the library prints it');
SELECT is_empty($$ SELECT bytes14_hex, form FROM forms WHERE siq_parse(text, form) IS DISTINCT FROM x $$,
    'siq_parse reads every form of every siq.tsv row back');
SELECT results_eq($$
    SELECT sqlstate_of(format('SELECT siq_parse(%L, %L)', t, f)) FROM (VALUES
        ('007', 'dec'), ('', 'dec'), (' 42', 'dec'), ('+5', 'dec'), ('5192296858534827628530496329220096', 'dec'),
        ('05e', 'hex'), ('0x5e', 'hex'), ('37777777777777777777777777777777777777', 'oct'),
        ('aabeC9LwAAAAAAAAAAAH', 'base64'), ('AQAAAAAAAAAAAAAAAAAA', 'base64'), ('AABeC9LwAAAAAAAAAAAH=', 'base64'),
        ('0', 'cb32'), ('O5W2YJY000000000000007', 'cb32'), ('00', '0c'), ('eaaaaaaaaaaaaaaaaaaaaaaa', 'b32l'),
        ('iuxvojaaf4c6s6aaaaaaaaaaaaaab', 'u'), ('DID:SIQ:iuxvojaaf4c6s6aaaaaaaaaaaaaah', 'did'),
        ('iuxvojaaf4c6s6aaaaaaaaaaaaaah', 'did'), ('did:siq:iuxvojaaf4é6s6aaaaaaaaaaaaaah', 'did'), ('٣', 'dec')) v(t, f) $$,
    $$ SELECT '22P02' FROM generate_series(1, 20) $$,
    'siq_parse refuses leading zeros, signs, spaces, padding, values past 112 bits, bad checksums, prefixes and non-ASCII (22P02)');
SELECT results_eq($$
    SELECT sqlstate_of(q) FROM unnest(ARRAY[
        'SELECT siq_format(siq_lower_bound(now()), ''DEC'')', 'SELECT siq_format(siq_lower_bound(now()), ''x'')',
        'SELECT siq_parse(''42'', ''mastodon'')', 'SELECT siq_parse(''42'', '''')']) q $$,
    $$ SELECT '22023' FROM generate_series(1, 4) $$,
    'an unknown form is 22023, in either direction (form names are exact)');
SELECT is(siq_parse('', 'cb32'), siq_parse('0', 'dec'), 'the library''s cb32 form of zero is the empty string, and it reads back');
SELECT is(siq_parse('5E0BD2F0000000000000000007', 'hex'), siq_parse('5e0bd2f0000000000000000007', 'hex'),
    'hex, base32 and Crockford read either case');

-- the library's SnowflakeSiqMigrator, its epoch as a time
SELECT ok((SELECT count(*) FROM migrations WHERE epoch_unit = 'milliseconds') > 0, 'snowflake_to_siq.tsv has millisecond-epoch rows');
SELECT is_empty($$
    SELECT snowflake, target_type FROM migrations
    WHERE epoch_unit = 'milliseconds'
      AND siq_from_snowflake(snowflake, domain, target_type, to_timestamp(0) + epoch_arg * interval '1 ms')::bytea
          IS DISTINCT FROM decode(siq_hex28, 'hex') $$,
    'siq_from_snowflake gives every millisecond-epoch row of snowflake_to_siq.tsv');
SELECT results_eq($$
    SELECT sqlstate_of(q) FROM unnest(ARRAY[
        'SELECT siq_from_snowflake(1, ''example.com'', ''usr'', ''2015-01-01'')',
        'SELECT siq_from_snowflake(1, ''exämple.com'', ''user'', ''2015-01-01'')',
        'SELECT siq_from_snowflake(1, ''example.com'', ''user'', ''1969-12-31'')',
        'SELECT siq_from_snowflake(1, ''example.com'', ''user'', ''infinity'')',
        'SELECT siq_from_snowflake(-1, ''example.com'', ''user'', ''36800-01-01'')',
        'SELECT siq_from_snowflake(-1, '''', ''user'', ''2015-01-01'')']) q $$,
    $$ VALUES ('22023'), ('22021'), ('22008'), ('22008'), ('22008'), ('ok') $$,
    'siq_from_snowflake: an unknown kind 22023, a non-ASCII domain 22021, a time outside siq''s range 22008; every 64-bit pattern reads');

-- at a glance
SELECT is_empty($$
    SELECT bytes14_hex FROM vectors, LATERAL (SELECT siq_fields(decode(bytes14_hex, 'hex')::siq) AS f) s
    WHERE (f->>'shard')::int IS DISTINCT FROM shard::int
       OR (f->>'domain')::bigint IS DISTINCT FROM ('x' || domain_hash_hex)::bit(32)::bigint & 4294967295
       OR (f->>'serial')::int IS DISTINCT FROM serial::int
       OR f->>'kind' IS DISTINCT FROM CASE WHEN type LIKE 'unassigned%' THEN NULL ELSE lower(type) END
       OR NOT (f ? 'kind')
       OR (f->>'kind_value')::int IS DISTINCT FROM (('x' || low16_hex)::bit(16)::int & ((1 << qual_width::int) - 1)) | (1 << qual_width::int)
       OR (f->>'time')::timestamptz IS DISTINCT FROM siq_time(decode(bytes14_hex, 'hex')::siq)
       OR (SELECT count(*) FROM jsonb_object_keys(f)) <> 6 $$,
    'siq_fields: shard, domain, kind (null when unassigned), kind value, serial and the time');

SELECT * FROM finish();
ROLLBACK;
