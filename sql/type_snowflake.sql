-- snowflake on bigint: construction, extraction, both epochs, errors, the generator
SET timezone = 'UTC';

-- Discord's documentation example, with the default epoch and with it given explicitly
SELECT snowflake_time(175928847299117063) AS discord_time,
       snowflake_time(175928847299117063, '2015-01-01 00:00:00+00') AS explicit_epoch,
       snowflake_worker(175928847299117063) AS worker, snowflake_process(175928847299117063) AS process,
       snowflake_sequence(175928847299117063) AS sequence;
SELECT snowflake_from_parts('2016-04-30 11:18:25.796+00', 1, 0, 7) AS rebuilt,
       snowflake_from_parts('2016-04-30 11:18:25.796999+00', 1, 0, 7, '2015-01-01+00') AS floored_explicit;
-- another epoch (suou's JAN_1_2020 is a CET midnight)
SELECT snowflake_from_parts('2024-05-01 12:00:00.5+00', 31, 31, 4095, '2019-12-31 23:00:00+00') AS x,
       snowflake_time(snowflake_from_parts('2024-05-01 12:00:00.5+00', 31, 31, 4095, '2019-12-31 23:00:00+00'),
                      '2019-12-31 23:00:00+00') AS back;
-- extractors read all 64 bits unsigned: negative bigints have the top time bit set
SELECT v, snowflake_time(v), snowflake_worker(v), snowflake_process(v), snowflake_sequence(v)
FROM (VALUES (0::int8), (9223372036854775807), (-9223372036854775808), (-1)) AS t(v);

-- bounds: one millisecond; a range scan from them
SELECT snowflake_lower_bound('2024-01-01 00:00:00.0005+00') AS lower, snowflake_upper_bound('2024-01-01 00:00:00.0005+00') AS upper,
       snowflake_upper_bound('2024-01-01 00:00:00.0005+00') - snowflake_lower_bound('2024-01-01 00:00:00.0005+00') AS width,
       snowflake_lower_bound('2024-01-01', '2024-01-01') AS at_own_epoch;
CREATE TEMP TABLE sf AS
SELECT snowflake_from_parts(timestamptz '2024-01-01+00' + n * interval '1 s', n % 32, 0, 0) AS id, n
FROM generate_series(0, 19999) n;
CREATE INDEX ON sf (id);
ANALYZE sf;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sf
WHERE id >= snowflake_lower_bound('2024-01-01 02:00+00', '2015-01-01+00') AND id < snowflake_lower_bound('2024-01-01 02:10+00', '2015-01-01+00');
SELECT count(*) FROM sf
WHERE id >= snowflake_lower_bound('2024-01-01 02:00+00', '2015-01-01+00') AND id < snowflake_lower_bound('2024-01-01 02:10+00', '2015-01-01+00');
DROP TABLE sf;

-- errors: fields 22003; times before the epoch, from 2^41 ms after it, or infinite 22008
SELECT call, sqlstate_of('SELECT ' || call) AS sqlstate
FROM (VALUES ($$snowflake_from_parts('2024-01-01', 32, 0, 0)$$), ($$snowflake_from_parts('2024-01-01', 0, -1, 0)$$),
             ($$snowflake_from_parts('2024-01-01', 0, 0, 4096)$$), ($$snowflake_from_parts('2024-01-01', 31, 31, 4095)$$),
             ($$snowflake_from_parts('2014-12-31 23:59:59.999999+00', 0, 0, 0)$$),
             ($$snowflake_from_parts('2084-09-06 15:47:35.551999+00', 0, 0, 0)$$),
             ($$snowflake_from_parts('2084-09-06 15:47:35.552+00', 0, 0, 0)$$),
             ($$snowflake_new_at('infinity')$$), ($$snowflake_lower_bound('-infinity')$$),
             ($$snowflake_upper_bound('2024-01-01', 'infinity')$$),
             ($$snowflake_time(-1, '294276-01-01+00')$$)) AS t(call);
SELECT snowflake_from_parts('2084-09-06 15:47:35.551999+00', 31, 31, 4095) AS largest;
SELECT snowflake_from_parts('2084-09-06 15:47:35.552+00', 0, 0, 0);
SELECT snowflake_from_parts('2024-01-01', 32, 0, 0);

-- the generator: now, the configured (here derived) worker and process, strictly increasing
SELECT abs(extract(epoch FROM snowflake_time(snowflake_new()) - clock_timestamp())) < 1 AS near_now,
       snowflake_time(snowflake_new_at('2024-02-29 12:00:00.5678+00')) AS at,
       snowflake_worker(snowflake_new()) = snowflake_worker(snowflake_new_at(now())) AS same_worker,
       snowflake_process(snowflake_new()) = snowflake_process(snowflake_new_at(now())) AS same_process;
CREATE TEMP TABLE sf_sample AS SELECT n, snowflake_new() AS id FROM generate_series(1, 50000) n;
SELECT count(*) = count(DISTINCT id) AS distinct_ids, count(*) FILTER (WHERE prev >= id) AS not_increasing,
       min(id) > 0 AS positive
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM sf_sample) s;
-- 4096 IDs per millisecond at most; each millisecond starts at sequence 0
SELECT max(per_ms) <= 4096 AS at_most_4096, count(*) FILTER (WHERE first <> 0) AS ms_not_starting_at_0
FROM (SELECT snowflake_time(id), count(*) AS per_ms, min(snowflake_sequence(id)) AS first FROM sf_sample GROUP BY 1) t;
DROP TABLE sf_sample;
-- a whole unit's pool, of a unit this run alone uses (the ledger is the server's: upgrade.t runs this file once per release)
SELECT (SELECT count(DISTINCT snowflake_new_at(t)) FROM (SELECT clock_timestamp() - interval '1 day' AS t) u, generate_series(1, 4096)) AS backfill_distinct;

-- labels: STABLE where the epoch setting is read, IMMUTABLE with the epoch given
SELECT p.oid::regprocedure AS function, provolatile, proisstrict, proparallel
FROM pg_proc p WHERE p.proname LIKE 'snowflake\_%' ORDER BY p.oid::regprocedure::text;
