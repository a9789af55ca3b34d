-- Every row of the suou snowflake vectors whose value is non-negative and
-- below 2^64, through SQL: the 64 bits as a bigint, fields read unsigned,
-- the time with the explicit-epoch overloads (run from the project root).
\ir preamble.psql

CREATE TEMP TABLE vectors (value numeric, bytes8_hex text, dec text, hex text, oct text, b32l text, cb32 text,
    cb32_0c text, base64 text, ts_ms_since_epoch bigint, unix_ms_2015 bigint, unix_ms_2020 bigint,
    unix_ms_2025 bigint, worker int, shard int, sequence int, note text);
\copy vectors FROM 'test/vectors/snowflake.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01', FORCE_NOT_NULL (b32l))
DELETE FROM vectors WHERE value < 0;
-- the bits as PostgreSQL's bigint (values from 2^63 on are negative there)
CREATE TEMP VIEW flakes AS SELECT v.*, ('x' || bytes8_hex)::bit(64)::bigint AS x FROM vectors v;

SELECT plan(11);

SELECT ok((SELECT count(*) FROM vectors WHERE value >= 9223372036854775808) > 0
      AND (SELECT count(*) FROM vectors WHERE value < 9223372036854775808) > 1000,
    'snowflake.tsv loaded, with rows past 2^63');
SELECT is_empty($$
    SELECT value FROM flakes WHERE value < 9223372036854775808 AND x::numeric IS DISTINCT FROM value $$,
    'below 2^63 the bigint is the value itself');
SELECT is_empty($$
    SELECT value FROM flakes
    WHERE snowflake_worker(x) IS DISTINCT FROM worker OR snowflake_process(x) IS DISTINCT FROM shard
       OR snowflake_sequence(x) IS DISTINCT FROM sequence $$,
    'worker, process (suou''s shard) and sequence');
-- ts_ms_since_epoch, read through each epoch: Discord's, an arbitrary one, and suou's CET constants
SELECT is_empty($$
    SELECT value FROM flakes, (VALUES (timestamptz '2015-01-01 00:00:00+00'), ('1970-01-01+00'), ('2001-02-03 04:05:06.789+00')) e(epoch)
    WHERE extract(epoch FROM snowflake_time(x, epoch) - epoch) * 1000 IS DISTINCT FROM ts_ms_since_epoch $$,
    'snowflake_time(x, epoch) is ts_ms_since_epoch milliseconds after any epoch (read unsigned)');
SELECT is_empty($$
    SELECT value FROM flakes
    WHERE extract(epoch FROM snowflake_time(x, to_timestamp(1420066800))) * 1000 IS DISTINCT FROM unix_ms_2015
       OR extract(epoch FROM snowflake_time(x, to_timestamp(1577833200))) * 1000 IS DISTINCT FROM unix_ms_2020
       OR extract(epoch FROM snowflake_time(x, to_timestamp(1735686000))) * 1000 IS DISTINCT FROM unix_ms_2025 $$,
    'the unix_ms columns of suou''s three epochs');
SELECT is_empty($$
    SELECT value FROM flakes WHERE x >= 0
      AND snowflake_from_parts(snowflake_time(x, to_timestamp(1420066800)), worker, shard, sequence, to_timestamp(1420066800))
          IS DISTINCT FROM x $$,
    'snowflake_from_parts rebuilds every non-negative value from its fields');
SELECT is_empty($$
    SELECT value FROM flakes WHERE x < 0
      AND sqlstate_of(format('SELECT snowflake_from_parts(%L, 0, 0, 0, %L)',
                             snowflake_time(x, to_timestamp(1420066800)), to_timestamp(1420066800))) IS DISTINCT FROM '22008' $$,
    'times of values past 2^63 (2^41 ms after the epoch) cannot be constructed: 22008');

-- at a glance: the STABLE form reads the epoch setting, the IMMUTABLE one takes it
SELECT is_empty($$
    SELECT value FROM flakes, LATERAL (SELECT snowflake_fields(x, to_timestamp(1420066800)) AS f) s
    WHERE (f->>'ms_since_epoch')::bigint IS DISTINCT FROM ts_ms_since_epoch
       OR (f->>'worker')::int IS DISTINCT FROM worker OR (f->>'process')::int IS DISTINCT FROM shard
       OR (f->>'sequence')::int IS DISTINCT FROM sequence
       OR (f->>'time')::timestamptz IS DISTINCT FROM to_timestamp(unix_ms_2015::numeric / 1000)
       OR (SELECT count(*) FROM jsonb_object_keys(f)) <> 5 $$,
    'snowflake_fields(x, epoch): every field and the time of every row, with suou''s 2015 epoch');
SELECT is_empty($$
    SELECT value FROM flakes WHERE snowflake_fields(x) IS DISTINCT FROM snowflake_fields(x, timestamptz '2015-01-01 00:00:00+00') $$,
    'snowflake_fields(x) reads the epoch setting (Discord''s by default)');
SELECT is(snowflake_fields(175928847299117063)->>'time', '2016-04-30T11:18:25.796+00:00',
    'snowflake_fields of Discord''s example: its time in UTC');
SET LOCAL timezone = 'Asia/Kolkata';
SELECT is(snowflake_fields(175928847299117063)->>'time', '2016-04-30T11:18:25.796+00:00',
    'the time is written in UTC whatever the session''s time zone (so the functions can be IMMUTABLE)');
RESET timezone;

SELECT * FROM finish();
ROLLBACK;
