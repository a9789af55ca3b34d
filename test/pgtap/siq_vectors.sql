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
\copy verdicts FROM 'test/vectors/siq_invalid_verdicts.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01', FORCE_NOT_NULL (input))

SELECT plan(11);

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

SELECT * FROM finish();
ROLLBACK;
