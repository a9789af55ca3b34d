-- flax: I/O, functions, errors, the secure generator, and the shared type checks
SET timezone = 'UTC';

-- canonical values (case-sensitive 16 characters of the ASCII-ordered alphabet)
SELECT v::flax, v::flax::bytea, flax_time(v::flax), flax_random(v::flax)
FROM (VALUES ('----------------'), ('zzzzzzzzzzzzzzzz'), ('0RdKJcxqVBiAiQr0'), ('0rDkjCXQvbIaIqR0')) AS t(v);
SELECT input, sqlstate_of(format('SELECT %L::flax', input)) AS sqlstate
FROM (VALUES (''), ('0RdKJcxqVBiAiQr'), ('0RdKJcxqVBiAiQr00'), ('0RdKJcxqVBiAiQr+'), ('0RdKJcxqVBiAiQ=='),
             (' 0RdKJcxqVBiAiQr0'), ('0RdKJcxq.BiAiQr0'), ('0RdKJcxqéBiAiQr0'), ('0RdKJcxqVBiAiQr/')) AS t(input);
SELECT '0RdKJcxqVBiAiQr+'::flax;
SELECT '\x05ca55528f7680cb8bb9bdc1'::bytea::flax, sqlstate_of($$SELECT '\x05ca55528f7680cb8bb9bd'::bytea::flax$$) AS short_bytea;

-- construction, extraction, bounds
SELECT flax_from_parts('2015-10-15 20:10:25.807+00', x'7680cb8bb9bdc1'::int8) AS readme_example;
SELECT flax_time(x), flax_random(x) FROM (VALUES (flax_from_parts('2030-06-01 12:00:00.123999+00', 42))) AS t(x);
SELECT flax_lower_bound('2024-01-01 00:00:00.0005+00'), flax_upper_bound('2024-01-01 00:00:00.0005+00');
SELECT call, sqlstate_of('SELECT ' || call) AS sqlstate
FROM (VALUES ($$flax_from_parts('2024-01-01', -1)$$), ($$flax_from_parts('2024-01-01', 72057594037927936)$$),
             ($$flax_from_parts('2024-01-01', 72057594037927935)$$),
             ($$flax_from_parts('2014-12-31 23:59:59.999999+00', 0)$$), ($$flax_from_parts('2015-01-01 00:00:00+00', 0)$$),
             ($$flax_from_parts('2049-11-03 19:53:47.775999+00', 0)$$), ($$flax_from_parts('2049-11-03 19:53:47.776+00', 0)$$),
             ($$flax_new_at('1970-01-01+00')$$), ($$flax_new_at('infinity')$$),
             ($$flax_lower_bound('-infinity')$$), ($$flax_upper_bound('2050-01-01')$$)) AS t(call);
SELECT flax_from_parts('2049-11-03 19:53:47.776+00', 0);
SELECT flax_from_parts('2024-01-01', -1);

-- the generator: now, 56 random bits that are distinct and balanced
SELECT abs(extract(epoch FROM flax_time(flax_new()) - clock_timestamp())) < 1 AS near_now,
       flax_time(flax_new_at('2024-02-29 12:00:00.5+00')) AS at;
CREATE TEMP TABLE flax_sample AS SELECT flax_new() AS id FROM generate_series(1, 100000);
SELECT count(DISTINCT id) AS distinct_ids, count(DISTINCT flax_random(id)) AS distinct_random,
       max(flax_random(id)) < 72057594037927936 AS within_56_bits
FROM flax_sample;
-- every one of the 56 bits is set in 50 % +- 1 % of the IDs (5 sigma is 0.8 %)
SELECT count(*) AS unbalanced_bits FROM generate_series(0, 55) b
WHERE abs((SELECT avg(((flax_random(id) >> b) & 1)::float8) FROM flax_sample) - 0.5) > 0.01;
DROP TABLE flax_sample;

-- labels
SELECT p.oid::regprocedure AS function, provolatile, proisstrict, proparallel
FROM pg_proc p WHERE p.proname IN ('flax_new', 'flax_new_at', 'flax_from_parts', 'flax_time', 'flax_random',
                                   'flax_lower_bound', 'flax_upper_bound') ORDER BY p.oid::regprocedure::text;

\set type flax
\set lower flax_lower_bound
\i test/generic_type.sql
