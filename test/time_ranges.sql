-- id <@ tstzrange, included by each type's pg_regress file with :type and
-- :lower (its *_lower_bound) set.  The operator must mean exactly
-- <type>_time(id) <@ range: checked on IDs made of a random tail after a
-- prefix of an ID of 2024-06-01 12:00 (every scale from the same unit to
-- decades away; for kuid and kuid96 with out-of-range fields too), against
-- ranges with bounds at those IDs' times, a microsecond either side, in the
-- middle of units, of every kind.
SELECT typlen AS width FROM pg_type WHERE oid = :'type'::regtype \gset
SELECT format($$CREATE TABLE range_ids AS
SELECT n, overlay(focus placing decode(string_agg(lpad(to_hex(floor(test_random(75, n, i) * 256)::int), 2, '0'), '' ORDER BY i), 'hex')
                  from 1 + keep)::%1$s AS id
FROM (SELECT n, %2$s('2024-06-01 12:00+00')::bytea AS focus, 1 + floor(test_random(75, n) * (%3$s - 1))::int AS keep
      FROM generate_series(1, 2000) n) f, generate_series(1, %3$s) i
WHERE i > keep GROUP BY n, focus, keep$$, :'type', :'lower', :width) \gexec
SELECT format('ALTER TABLE range_ids ADD t timestamptz; UPDATE range_ids SET t = %s_time(id)', :'type') \gexec
CREATE INDEX range_ids_id ON range_ids (id);
ANALYZE range_ids;

CREATE TABLE range_cases (k serial, r tstzrange);
INSERT INTO range_cases (r)
SELECT tstzrange(least(a, b), greatest(a, b), (ARRAY['[)', '(]', '[]', '()'])[1 + floor(test_random(76, g) * 4)::int])
FROM (SELECT g, (SELECT t FROM range_ids WHERE n = 1 + floor(test_random(76, g, 1) * 2000)::int) + (floor(test_random(76, g, 2) * 5) - 2) * interval '1 us' AS a,
             (SELECT t FROM range_ids WHERE n = 1 + floor(test_random(76, g, 3) * 2000)::int) + (floor(test_random(76, g, 4) * 5) - 2) * interval '1 us' AS b
      FROM generate_series(1, 150) g) s
ORDER BY g;
INSERT INTO range_cases (r) VALUES
    ('empty'), ('(,)'), ('[-infinity,infinity]'), ('(-infinity,infinity)'),
    ('[infinity,infinity]'), ('[-infinity,-infinity]'),
    ('[2024-06-01 12:00:00.0015+00,2024-06-01 12:00:00.0105+00)'),
    ('(2024-06-01 12:00:00.0015+00,)'), ('(,2024-06-01 12:00:00.0015+00]'),
    ('[1970-01-01,2000-01-01)'), ('[2200-01-01,)'), ('(,1900-01-01)'), ('[40000-01-01,)');

-- what a filter on the extracted time gives, per range
CREATE TEMP TABLE range_want AS
SELECT c.k, coalesce((SELECT array_agg(n ORDER BY n) FROM range_ids WHERE t <@ c.r), '{}') AS ns FROM range_cases c;
-- a constant range (rewritten by the support function), by filter and by index;
-- temporary tables: 500 commits without a WAL flush each
CREATE TEMP TABLE range_results (k int, path text, same bool);
SELECT format($$INSERT INTO range_results SELECT %1$s, 'constant', coalesce((SELECT array_agg(n ORDER BY n) FROM range_ids WHERE id <@ %2$L::tstzrange), '{}')
    = (SELECT ns FROM range_want WHERE k = %1$s)$$, k, r) FROM range_cases \gexec
-- (no JIT: disabled scans cost 10^10, which would compile every query)
SET jit = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT format($$INSERT INTO range_results SELECT %1$s, 'constant, index', coalesce((SELECT array_agg(n ORDER BY n) FROM range_ids WHERE %2$L::tstzrange @> id), '{}')
    = (SELECT ns FROM range_want WHERE k = %1$s)$$, k, r) FROM range_cases \gexec
-- a range known at run time: a parameterized index scan per case
INSERT INTO range_results
SELECT c.k, 'run time', coalesce((SELECT array_agg(n ORDER BY n) FROM range_ids WHERE id <@ c.r), '{}') = w.ns
FROM range_cases c JOIN range_want w USING (k);
-- a range fixed per execution (a parameter of a generic plan), which the
-- support function rewrites into stable bound comparisons: by index here,
-- then by filter
CREATE FUNCTION pg_temp.ids_in(r tstzrange) RETURNS int[] LANGUAGE plpgsql AS $f$
BEGIN
    RETURN (SELECT coalesce(array_agg(n ORDER BY n), '{}') FROM range_ids WHERE id <@ r);
END $f$;
SET plan_cache_mode = force_generic_plan;
INSERT INTO range_results SELECT c.k, 'per execution, index', pg_temp.ids_in(c.r) = w.ns
FROM range_cases c JOIN range_want w USING (k);
RESET enable_bitmapscan;
RESET enable_seqscan;
DROP FUNCTION pg_temp.ids_in(tstzrange);
CREATE FUNCTION pg_temp.ids_in(r tstzrange) RETURNS int[] LANGUAGE plpgsql AS $f$
BEGIN
    RETURN (SELECT coalesce(array_agg(n ORDER BY n), '{}') FROM range_ids WHERE id <@ r);
END $f$;
INSERT INTO range_results SELECT c.k, 'per execution', pg_temp.ids_in(c.r) = w.ns
FROM range_cases c JOIN range_want w USING (k);
RESET plan_cache_mode;
RESET jit;
DROP FUNCTION pg_temp.ids_in(tstzrange);
SELECT path, count(*) AS ranges, count(*) FILTER (WHERE NOT same) AS differ FROM range_results GROUP BY path ORDER BY path;
SELECT count(*) FILTER (WHERE cardinality(ns) > 0) AS ranges_with_rows, max(cardinality(ns)) AS most_rows FROM range_want;

-- NULL in, NULL out, whatever the range; the operator's commutator
SELECT format($$SELECT NULL::%1$s <@ '[2024-01-01,2024-02-01)'::tstzrange AS bounded,
       NULL::%1$s <@ 'empty'::tstzrange AS empty, NULL::%1$s <@ '(,)'::tstzrange AS unbounded,
       %2$s('2024-06-01+00') <@ '[2024-06-01+00,2024-06-02+00)'::tstzrange AS at_lower,
       '[2024-06-01+00,2024-06-02+00)'::tstzrange @> %2$s('2024-06-02+00') AS at_upper$$, :'type', :'lower') \gexec
DROP TABLE range_ids, range_cases, range_want, range_results;
