-- sno constructors, extractors, bounds and generators
SET timezone = 'UTC';

-- exact construction and extraction
SELECT x, sno_time(x), sno_meta(x), sno_partition(x), sno_sequence(x), sno_ticktock(x)
FROM (VALUES (sno_from_parts('2031-05-08 23:03:34.976+00', 255, 39434, 4147)),
             (sno_from_parts('2010-01-01 00:00:00+00', 0, 0, 0)),
             (sno_from_parts('2079-09-07 15:47:35.551999+00', 255, 65535, 65535, 1)),
             (sno_from_parts('2020-02-29 12:34:56.789+00', 3, 258, 10))) AS t(x);
-- times are floored to the 4 ms unit
SELECT sno_time(sno_from_parts(t, 0, 0, 0))
FROM (VALUES ('2020-01-01 00:00:00.003999+00'::timestamptz), ('2020-01-01 00:00:00.004+00'),
             ('2020-01-01 00:00:00.007999+00')) AS v(t);

-- field ranges (22003)
SELECT call, sqlstate_of('SELECT ' || call) AS sqlstate
FROM (VALUES ('sno_from_parts(now(), 256, 0, 0)'), ('sno_from_parts(now(), -1, 0, 0)'),
             ('sno_from_parts(now(), 0, 65536, 0)'), ('sno_from_parts(now(), 0, -1, 0)'),
             ('sno_from_parts(now(), 0, 0, 65536)'), ('sno_from_parts(now(), 0, 0, -1)'),
             ('sno_from_parts(now(), 0, 0, 0, 2)'), ('sno_from_parts(now(), 0, 0, 0, -1)'),
             ('sno_new(256)'), ('sno_new(-1)'), ('sno_new_at(now(), 256)')) AS t(call);
SELECT sno_from_parts(now(), 256, 0, 0);
SELECT sno_new(-1);

-- time range [2010-01-01, 2079-09-07 15:47:35.552) and infinities (22008)
SELECT call, sqlstate_of('SELECT ' || call) AS sqlstate
FROM (VALUES ($$sno_from_parts('2009-12-31 23:59:59.999999+00', 0, 0, 0)$$),
             ($$sno_from_parts('2010-01-01 00:00:00+00', 0, 0, 0)$$),
             ($$sno_from_parts('2079-09-07 15:47:35.551999+00', 0, 0, 0)$$),
             ($$sno_from_parts('2079-09-07 15:47:35.552+00', 0, 0, 0)$$),
             ($$sno_from_parts('infinity', 0, 0, 0)$$),
             ($$sno_from_parts('-infinity', 0, 0, 0)$$),
             ($$sno_new_at('1970-01-01+00')$$),
             ($$sno_lower_bound('2100-01-01+00')$$),
             ($$sno_upper_bound('-infinity')$$)) AS t(call);
SELECT sno_from_parts('2079-09-07 15:47:35.552+00', 0, 0, 0);
SELECT sno_lower_bound('infinity');

-- bounds: the smallest and largest IDs of the unit
SELECT sno_lower_bound('2020-01-01 00:00:00.005+00'), sno_upper_bound('2020-01-01 00:00:00.005+00');
SELECT sno_time(sno_lower_bound(t)) = sno_time(sno_upper_bound(t)) AS same_unit,
       sno_lower_bound(t) <= sno_from_parts(t, 7, 7, 7, 1) AND sno_from_parts(t, 7, 7, 7, 1) <= sno_upper_bound(t) AS inside,
       sno_upper_bound(t) < sno_lower_bound(t + interval '4 ms') AS next_unit_after
FROM (VALUES ('2024-06-30 12:00:00.001+00'::timestamptz)) AS v(t);

-- the generator: now, this server's partition, increasing within one backend
SELECT abs(extract(epoch FROM sno_time(sno_new()) - clock_timestamp())) < 1 AS near_now,
       sno_meta(sno_new(42)) AS meta,
       sno_partition(sno_new()) = sno_partition(sno_new(7)) AS one_partition;
SELECT bool_and(prev < id) AS increasing, count(DISTINCT id) AS distinct_ids
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev
      FROM (SELECT n, sno_new(1) AS id FROM generate_series(1, 100000) n) s) w;
-- the time read: the precise clock, or the coarse one where it ticks at least every
-- 4 ms; then an ID's unit starts a unit, a tick and the kernel's update delay before
-- the call at most (the bound here is loose, for busy machines)
SELECT generator, clock = 'precise' OR clock ~ '^coarse \(\d+ us\)$' AND generator = 'sno'
       AND substring(clock FROM '\d+')::int <= 4000 AS clock_as_documented
FROM flakeid_generators WHERE generator IN ('sno', 'siq user', 'kuid', 'snowflake') ORDER BY generator;
CREATE FUNCTION sno_time_lags(calls int) RETURNS TABLE (too_early int, too_late int) LANGUAGE plpgsql AS $$
DECLARE
    before timestamptz;
    id sno;
BEGIN
    too_early := 0;
    too_late := 0;
    FOR i IN 1 .. calls LOOP
        before := clock_timestamp();
        id := sno_new();
        too_early := too_early + (sno_time(id) < before - interval '100 ms')::int;
        too_late := too_late + (sno_time(id) > clock_timestamp())::int;
    END LOOP;
    RETURN NEXT;
END $$;
SELECT * FROM sno_time_lags(20000);
DROP FUNCTION sno_time_lags(int);
-- back-fill: the given time's unit, tick-tock 0, sequences from the server's ledger, counted down from the top of the pool
SELECT sno_time(x) AS time, sno_ticktock(x) AS ticktock, sno_meta(x) AS meta,
       max(sno_sequence(x)) OVER () - sno_sequence(x) AS sequence_offset
FROM (SELECT sno_new_at('2020-02-29 12:34:56.789+00', 3) AS x FROM generate_series(1, 3)) s;
-- NULL in, NULL out
SELECT sno_new(NULL) IS NULL AS new_null, sno_time(NULL) IS NULL AS time_null;

-- labels: volatility, strictness, parallel safety, leakproofness
SELECT p.oid::regprocedure AS function, provolatile, proisstrict, proparallel, proleakproof
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'flakeid'
WHERE p.proname LIKE 'sno\_%' ORDER BY p.oid::regprocedure::text;
