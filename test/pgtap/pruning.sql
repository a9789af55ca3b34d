-- Time ranges prune monthly partitions when the range is known only when the
-- query runs: a now()-relative range, and a parameter of a generic plan.
-- For every type with <@: the plan removes exactly the partitions the range
-- cannot touch, and the rows equal the same range as a constant and a
-- filter on the extracted time.
\ir preamble.psql

SELECT plan(35);

CREATE TEMP TABLE typed (type text, new_at text);
INSERT INTO typed VALUES ('sno', 'sno_new_at(%s)'), ('flax', 'flax_new_at(%s)'), ('siq', 'siq_new_at(%s, ''event'')'),
                         ('kuid', 'kuid_new_at(%s)'), ('kuid96', 'kuid96_new_at(%s)');

-- Six monthly partitions around now(): four months back to two ahead.  Rows
-- every 6 hours for 100 days, half an hour off the hour, so that a range
-- starting at now() - n hours holds a number of rows that does not depend
-- on when the test runs.
SELECT format($$CREATE TEMP TABLE %1$s_events (id %1$s NOT NULL, at timestamptz) PARTITION BY RANGE (id)$$, type)
FROM typed \gexec
SELECT format($$CREATE TEMP TABLE %1$s_events_m%2$s PARTITION OF %1$s_events FOR VALUES FROM (%1$s_lower_bound(%3$L)) TO (%1$s_lower_bound(%4$L))$$,
              type, m + 4, date_trunc('month', now()) + m * interval '1 month', date_trunc('month', now()) + (m + 1) * interval '1 month')
FROM typed, generate_series(-4, 1) m \gexec
SELECT format($$INSERT INTO %1$s_events SELECT %2$s, t FROM (SELECT now() - interval '30 min' - k * interval '6 hours' AS t FROM generate_series(0, 399) k) s$$,
              type, format(new_at, 't')) FROM typed \gexec
SELECT format('ANALYZE %s_events', type) FROM typed \gexec

-- Each partition's IDs [lo, hi), as bytes, which order as the IDs do.  The
-- partitions a range can touch are those that meet its ID bounds, which for
-- kuid96 reach out to whole 256-second windows.
CREATE TEMP TABLE partition_ids (type text, m int, lo bytea, hi bytea);
SELECT format($$INSERT INTO partition_ids SELECT %1$L, m + 4, %1$s_lower_bound(date_trunc('month', now()) + m * interval '1 month')::bytea,
                     %1$s_lower_bound(date_trunc('month', now()) + (m + 1) * interval '1 month')::bytea FROM generate_series(-4, 1) m$$, type)
FROM typed \gexec
CREATE FUNCTION pg_temp.expected(type text, r tstzrange) RETURNS text LANGUAGE plpgsql AS $$
DECLARE lb bytea; ub bytea; result text;
BEGIN
    EXECUTE format('SELECT %1$s_range_lower_bound($1)::bytea, %1$s_range_upper_bound($1)::bytea', type) INTO lb, ub USING r;
    SELECT count(*) FILTER (WHERE NOT (lo <= ub AND hi > lb)) || ' removed, scanned '
           || coalesce(string_agg('m' || m, ',' ORDER BY m) FILTER (WHERE lo <= ub AND hi > lb), '')
    INTO result FROM partition_ids p WHERE p.type = expected.type;
    RETURN result;
END $$;

-- EXPLAIN (ANALYZE) of a query: 'Subplans Removed: n' as n (0 when absent), and the partitions scanned
CREATE FUNCTION pg_temp.pruned(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    line text; removed int := 0; scanned text[] := '{}';
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
        IF line ~ 'Subplans Removed: \d+' THEN
            removed := removed + substring(line from 'Subplans Removed: (\d+)')::int;
        ELSIF line ~ ' on \w+_events_m\d' AND line !~ 'never executed' THEN
            scanned := scanned || substring(line from ' on \w+_events_(m\d)');
        END IF;
    END LOOP;
    RETURN removed || ' removed, scanned ' || array_to_string(scanned, ',');
END $$;
-- the rows of a query, run with the range as a constant
CREATE FUNCTION pg_temp.rows_of(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
    EXECUTE query INTO n;
    RETURN n;
END $$;

-- 1. the last day, relative to now(): 4 rows, from the current month (and the last one on a 1st)
SELECT is(pg_temp.pruned(format($$SELECT count(*) FROM %s_events WHERE id <@ tstzrange(now() - interval '1 day', NULL)$$, type)),
          pg_temp.expected(type, tstzrange(now() - interval '1 day', NULL)),
          type || ': id <@ tstzrange(now() - interval ''1 day'', NULL) prunes at executor start')
FROM typed ORDER BY type;
SELECT is(pg_temp.rows_of(format($$SELECT count(*) FROM %s_events WHERE id <@ tstzrange(now() - interval '1 day', NULL)$$, type))
          || '/' || pg_temp.rows_of(format($$SELECT count(*) FROM %s_events WHERE id <@ %L::tstzrange$$, type, tstzrange(now() - interval '1 day', NULL)))
          || '/' || pg_temp.rows_of(format($$SELECT count(*) FROM %s_events WHERE %s_time(id) >= now() - interval '1 day'$$, type, type)),
          '4/4/4', type || ': the last day holds 4 rows through now(), a constant range and the time filter')
FROM typed ORDER BY type;

-- 2. a window 40 to 30 days back, relative to now()
SELECT is(pg_temp.pruned(format($$SELECT count(*) FROM %s_events WHERE tstzrange(now() - interval '40 days', now() - interval '30 days') @> id$$, type)),
          pg_temp.expected(type, tstzrange(now() - interval '40 days', now() - interval '30 days')),
          type || ': a window 40 to 30 days back, written range @> id, prunes at executor start')
FROM typed ORDER BY type;
SELECT is(pg_temp.rows_of(format($$SELECT count(*) FROM %s_events WHERE tstzrange(now() - interval '40 days', now() - interval '30 days') @> id$$, type)),
          pg_temp.rows_of(format($$SELECT count(*) FROM %s_events WHERE %s_time(id) <@ tstzrange(now() - interval '40 days', now() - interval '30 days')$$, type, type)),
          type || ': and holds the rows the time filter finds (40)')
FROM typed ORDER BY type;

-- 3. a parameter of a generic plan
SET plan_cache_mode = force_generic_plan;
SELECT format($$PREPARE %1$s_since(tstzrange) AS SELECT count(*) FROM %1$s_events WHERE id <@ $1$$, type) FROM typed \gexec
SELECT is(pg_temp.pruned(format($$EXECUTE %s_since(tstzrange(now() - interval '3 days', now() - interval '2 days'))$$, type)),
          pg_temp.expected(type, tstzrange(now() - interval '3 days', now() - interval '2 days')),
          type || ': a generic plan of id <@ $1 prunes at executor start')
FROM typed ORDER BY type;
SELECT is(pg_temp.rows_of(format($$EXECUTE %s_since(tstzrange(now() - interval '3 days', now() - interval '2 days'))$$, type)),
          4::bigint, type || ': and finds the 4 rows of that day')
FROM typed ORDER BY type;
-- an empty range and an unbounded one, through the same generic plan
SELECT is(pg_temp.rows_of(format($$EXECUTE %s_since('empty')$$, type)) || '/' || pg_temp.rows_of(format($$EXECUTE %s_since('(,)')$$, type)),
          '0/400', type || ': the generic plan finds no row for an empty range and all 400 for an unbounded one')
FROM typed ORDER BY type;
RESET plan_cache_mode;

SELECT * FROM finish();
ROLLBACK;
