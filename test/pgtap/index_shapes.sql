-- The index and query shapes of issue 20, for every type: GiST, GIN and BRIN
-- minmax-multi give what a sequential scan gives, for every strategy, on
-- random data with mixed identities; GiST serves exclusion constraints
-- mixed with ranges and nearest-in-time ORDER BY; window RANGE frames with
-- interval offsets over ORDER BY id equal the frames over the ID's time.
\ir preamble.psql

-- per type: an ID from a time t and two random numbers, with mixed identities
CREATE TEMP TABLE types (name text, make text, order_time text);
INSERT INTO types VALUES
    ('sno', 'sno_from_parts(t, r1 % 256, r2 % 65536, (r1 + r2) % 65536, r2 % 2)', 'sno_time(%s)'),
    ('flax', 'flax_from_parts(t, (r1::int8 << 24) + r2)', 'flax_time(%s)'),
    ('siq', 'siq_from_parts(t, r1 % 256, r2 % 7, ''user'', r1 % 2048)', 'siq_time(%s)'),
    ('kuid', 'overlay(kuid_lower_bound(t)::bytea placing int2send((r1 % 16384)::int2) from 7)::kuid', 'kuid_time(%s)'),
    ('kuid96', 'kuid96(overlay(kuid_lower_bound(t)::bytea placing int2send((r1 % 16384)::int2) from 7)::kuid, r2 % 5)',
     'kuid96_time(kuid96_lower_bound(kuid96_time(%s)))');   -- the 256-second window: inside it the node comes first

-- 3,000 rows per type over 10 days, every 10th a repeat, with a tenant, a period and a document
CREATE FUNCTION pg_temp.fill(type text, make text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE TEMP TABLE data_%s (n int, id %s, tenant int, during tstzrange, doc jsonb)', type, type);
    EXECUTE format($q$
        INSERT INTO data_%s
        SELECT n, %s, n %% 7, tstzrange(t, t + interval '1 hour'), jsonb_build_object('k', n %% 3)
        FROM (SELECT n, timestamptz '2026-01-01 00:00+00' + test_random(11, seed) * interval '10 days' AS t,
                     floor(test_random(12, seed) * 1000000)::int AS r1, floor(test_random(13, seed) * 1000000)::int AS r2
              FROM generate_series(1, 3000) n, LATERAL (SELECT CASE WHEN n %% 10 = 0 THEN n - 1 ELSE n END AS seed) r) s $q$,
        type, make);
    -- one copy per index method, so that each query can only use the index it tests
    EXECUTE format('CREATE TEMP TABLE data_%1$s_gist AS SELECT * FROM data_%1$s', type);
    EXECUTE format('CREATE TEMP TABLE data_%1$s_gin AS SELECT * FROM data_%1$s', type);
    EXECUTE format('CREATE TEMP TABLE data_%1$s_brin AS SELECT * FROM data_%1$s', type);
    EXECUTE format('ANALYZE data_%1$s; ANALYZE data_%1$s_gist; ANALYZE data_%1$s_gin; ANALYZE data_%1$s_brin', type);
END $$;
SELECT pg_temp.fill(name, make) FROM types;

-- the same query through an index and through a sequential scan: the rows found, in order of n
CREATE FUNCTION pg_temp.found(query text, through_index boolean) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    result text;
BEGIN
    PERFORM set_config('enable_seqscan', (NOT through_index)::text, true);
    PERFORM set_config('enable_indexscan', through_index::text, true);
    PERFORM set_config('enable_bitmapscan', through_index::text, true);
    EXECUTE format('SELECT string_agg(q::text, '','' ORDER BY q.n) FROM (%s) q', query) INTO result;
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'on', true);
    PERFORM set_config('enable_bitmapscan', 'on', true);
    RETURN coalesce(result, '');
END $$;
CREATE FUNCTION pg_temp.plan(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    result text;
BEGIN
    PERFORM set_config('enable_seqscan', 'off', true);
    SELECT string_agg(p, ' ') INTO result FROM plan_of(query) p;
    PERFORM set_config('enable_seqscan', 'on', true);
    RETURN result;
END $$;

-- every strategy of every index method, with query values from the data and between it
CREATE TEMP TABLE probes AS
SELECT t.name AS type, m.method, op, k
FROM types t
CROSS JOIN (VALUES ('gist'), ('gin'), ('brin')) m(method)
CROSS JOIN unnest(ARRAY['<', '<=', '=', '>=', '>', '<>']) op
CROSS JOIN generate_series(1, 6) k
WHERE NOT (m.method IN ('gin', 'brin') AND op = '<>');    -- btree_gin and BRIN have no <> either
CREATE TEMP TABLE outcomes (type text, method text, op text, k int, by_index text, by_seqscan text, plan text);
DO $$
DECLARE
    p record;
    query text;
    value text;
BEGIN
    FOR p IN SELECT DISTINCT type, method FROM probes LOOP
        EXECUTE format('CREATE INDEX data_%1$s_%2$s_id ON data_%1$s_%2$s USING %2$s (id %3$s)', p.type, p.method,
                       CASE p.method WHEN 'brin' THEN p.type || '_minmax_multi_ops' ELSE '' END)
            || CASE p.method WHEN 'brin' THEN ' WITH (pages_per_range = 1)' ELSE '' END;
    END LOOP;
    FOR p IN SELECT * FROM probes LOOP
        -- k = 1..4: IDs of the data (some repeated); 5, 6: the first and last possible IDs of a time
        EXECUTE format(CASE WHEN p.k <= 4 THEN 'SELECT quote_literal(id) FROM data_%1$s WHERE n = %2$s'
                            ELSE 'SELECT quote_literal(%1$s_%3$s_bound(timestamptz ''2026-01-05 12:00+00''))' END,
                       p.type, p.k * 700, CASE p.k WHEN 5 THEN 'lower' ELSE 'upper' END) INTO value;
        query := format('SELECT n FROM data_%s_%s WHERE id %s %s::%s', p.type, p.method, p.op, value, p.type);
        INSERT INTO outcomes VALUES (p.type, p.method, p.op, p.k, pg_temp.found(query, true), pg_temp.found(query, false),
                                     pg_temp.plan(query));
    END LOOP;
END $$;

SELECT plan(25);

SELECT ok((SELECT count(*) FROM outcomes) = 5 * (6 + 5 + 5) * 6
      AND (SELECT count(*) FROM outcomes WHERE by_seqscan <> '') > 300
      AND (SELECT count(*) FROM outcomes WHERE by_seqscan = '') > 0,
    'every strategy of GiST, GIN and BRIN minmax-multi probed 6 times per type (found rows, and none)');
SELECT is_empty($$ SELECT type, op, k FROM outcomes WHERE method = 'gist' AND by_index <> by_seqscan $$,
    'GiST: < <= = >= > <> find what a sequential scan finds, for every type');
SELECT is_empty($$ SELECT type, op, k FROM outcomes WHERE method = 'gin' AND by_index <> by_seqscan $$,
    'GIN: < <= = >= > find what a sequential scan finds, for every type');
SELECT is_empty($$ SELECT type, op, k FROM outcomes WHERE method = 'brin' AND by_index <> by_seqscan $$,
    'BRIN minmax-multi: < <= = >= > find what a sequential scan finds, for every type');
SELECT is_empty($$ SELECT type, method, op, k, plan FROM outcomes
                   WHERE plan NOT LIKE '%data_' || type || '_' || method || '_id%' $$,
    'each of those queries was planned on the index it tests');

-- multicolumn GIN mixing the ID with jsonb, as btree_gin allows for core types
SELECT is_empty($$
    SELECT t.name FROM types t,
        LATERAL (SELECT sqlstate_of(format('DROP INDEX data_%1$s_gin_id; CREATE INDEX data_%1$s_gin_doc ON data_%1$s_gin USING gin (id, doc)', t.name)) AS made) m,
        LATERAL (SELECT format('SELECT n FROM data_%1$s_gin WHERE id >= (SELECT id FROM data_%1$s WHERE n = 1200)
                               AND doc @> ''{"k": 1}''', t.name) AS query) q
    WHERE made <> 'ok' OR pg_temp.found(query, true) <> pg_temp.found(query, false)
       OR pg_temp.plan(query) NOT LIKE '%data_' || t.name || '_gin_doc%' $$,
    'a GIN index on (id, doc jsonb) serves id >= x AND doc @> ..., as a sequential scan finds, for every type');

-- nearest in time: ORDER BY id <-> x through GiST gives the distances a sort gives
SELECT is_empty($$
    SELECT t.name FROM types t,
        LATERAL (SELECT pg_temp.found(format(
            'SELECT row_number() OVER () AS n, d FROM (SELECT id <-> (SELECT id FROM data_%1$s WHERE n = 1500) AS d
             FROM data_%1$s_gist ORDER BY id <-> (SELECT id FROM data_%1$s WHERE n = 1500) LIMIT 50) s', t.name), true) AS a,
                        pg_temp.found(format(
            'SELECT row_number() OVER () AS n, d FROM (SELECT id <-> (SELECT id FROM data_%1$s WHERE n = 1500) AS d
             FROM data_%1$s ORDER BY id <-> (SELECT id FROM data_%1$s WHERE n = 1500) LIMIT 50) s', t.name), false) AS b) r
    WHERE a <> b $$,
    'GiST ORDER BY id <-> x: the 50 nearest in time, as a sort finds them, for every type');
SELECT ok(pg_temp.plan('SELECT n FROM data_sno_gist ORDER BY id <-> sno_lower_bound(''2026-01-05'') LIMIT 5') LIKE '%Index Scan using data_sno_gist_id%Order By%',
    'nearest-in-time is an ordered GiST index scan');
SELECT is(sno_lower_bound('2026-01-01 00:00:01+00') <-> sno_lower_bound('2026-01-01 00:00:00+00'), interval '1 second',
    '<-> is the time between the IDs, as an interval');

-- the exclusion constraint users write for bookings, per type
SELECT is_empty($$
    SELECT t.name FROM types t
    WHERE sqlstate_of(format('CREATE TEMP TABLE bookings_%1$s (account %1$s, during tstzrange,
                                  EXCLUDE USING gist (account WITH =, during WITH &&))', t.name)) <> 'ok'
       OR sqlstate_of(format('INSERT INTO bookings_%1$s SELECT id, during FROM data_%1$s WHERE n IN (1, 2)', t.name)) <> 'ok'
       OR sqlstate_of(format('INSERT INTO bookings_%1$s SELECT id, tstzrange(lower(during) + interval ''30 min'', NULL)
                              FROM data_%1$s WHERE n = 1', t.name)) <> '23P01'
       OR sqlstate_of(format('INSERT INTO bookings_%1$s SELECT id, tstzrange(upper(during), NULL)
                              FROM data_%1$s WHERE n = 1', t.name)) <> 'ok' $$,
    'EXCLUDE USING gist (account WITH =, during WITH &&): an overlap is 23P01, the rest is taken, for every type');

-- window frames by time over ORDER BY id
CREATE TEMP TABLE frames (frame text);
INSERT INTO frames VALUES ('1 hour PRECEDING AND 0 FOLLOWING'), ('30 min PRECEDING AND 10 min FOLLOWING'),
    ('2 hours PRECEDING AND 1 hour PRECEDING'), ('0 PRECEDING AND 1 day FOLLOWING'), ('1 mon PRECEDING AND 1 min FOLLOWING');
SELECT is_empty($$
    SELECT t.name, f.frame FROM types t, frames f,
        LATERAL (SELECT pg_temp.found(format(
            'SELECT n, count(*) OVER (ORDER BY id RANGE BETWEEN interval %2$s) AS c FROM data_%1$s',
            t.name, regexp_replace(f.frame, '(\d+ \w+|0) (PRECEDING|FOLLOWING)', '''\1'' \2', 'g')), false) || ';' ||
            pg_temp.found(format(
            'SELECT n, sum(n) OVER (ORDER BY id RANGE BETWEEN interval %2$s) AS c FROM data_%1$s',
            t.name, regexp_replace(f.frame, '(\d+ \w+|0) (PRECEDING|FOLLOWING)', '''\1'' \2', 'g')), false) AS by_id) a,
        LATERAL (SELECT pg_temp.found(format(
            'SELECT n, count(*) OVER (ORDER BY %3$s RANGE BETWEEN interval %2$s) AS c FROM data_%1$s',
            t.name, regexp_replace(f.frame, '(\d+ \w+|0) (PRECEDING|FOLLOWING)', '''\1'' \2', 'g'), format(t.order_time, 'id')), false)
            || ';' || pg_temp.found(format(
            'SELECT n, sum(n) OVER (ORDER BY %3$s RANGE BETWEEN interval %2$s) AS c FROM data_%1$s',
            t.name, regexp_replace(f.frame, '(\d+ \w+|0) (PRECEDING|FOLLOWING)', '''\1'' \2', 'g'), format(t.order_time, 'id')), false) AS by_time) b
    WHERE by_id IS DISTINCT FROM by_time $$,
    'window RANGE frames with interval offsets over ORDER BY id are the frames over the ID''s time (kuid96: its window), for every type and 5 frames');
SELECT is(sqlstate_of($$ SELECT count(*) OVER (ORDER BY id RANGE BETWEEN interval '-1 hour' PRECEDING AND CURRENT ROW) FROM data_sno $$),
    '22013', 'a negative offset is 22013, as for timestamptz');
SELECT is(sqlstate_of($$ SELECT count(*) OVER (ORDER BY id RANGE BETWEEN interval '100 years' PRECEDING AND CURRENT ROW) FROM data_sno $$),
    '22008', 'an offset that reaches outside sno''s time range (from 2010) is 22008');
SELECT is(message_of($$ SELECT count(*) OVER (ORDER BY id RANGE BETWEEN CURRENT ROW AND interval '30000 years' FOLLOWING) FROM data_flax $$),
    'window frame offset reaches outside the time range of type flax', 'the message names the type');
SELECT is(sqlstate_of($$ SELECT count(*) OVER (ORDER BY id RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM data_sno $$),
    'ok', 'UNBOUNDED frames need no offset');

-- GiST pages of every type: every key prints as its two bounds of the
-- type's width, lower <= upper, and each child's keys lie within its
-- downlink's (pageinspect, where installed).  amcheck's GiST check
-- (gist_index_check) runs too where the server has it.
CREATE FUNCTION pg_temp.gist_pages() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    t record;
    index_name text;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_available_extensions WHERE name = 'pageinspect') THEN
        RETURN NEXT skip('pageinspect is not installed for this PostgreSQL', (SELECT count(*)::int FROM types));
    ELSE
        CREATE EXTENSION IF NOT EXISTS pageinspect;
        FOR t IN SELECT name, typlen FROM types JOIN pg_type ON typname = name ORDER BY name LOOP
            index_name := format('data_%s_gist_id', t.name);
            CREATE TEMP TABLE gist_items AS
            WITH root AS (
                SELECT (ctid::text::point)[0]::int AS child, keys FROM gist_page_items(get_raw_page(index_name, 0), index_name::regclass)),
            parsed AS (
                SELECT r.keys AS parent, c.keys AS item,
                       regexp_match(r.keys, '\[\\+x([0-9a-f]+), \\+x([0-9a-f]+)\]') AS p,
                       regexp_match(c.keys, '\[\\+x([0-9a-f]+), \\+x([0-9a-f]+)\]') AS c
                FROM root r, gist_page_items(get_raw_page(index_name, r.child), index_name::regclass) c)
            SELECT * FROM parsed;
            RETURN NEXT ok((SELECT count(DISTINCT parent) FROM gist_items) > 1 AND (SELECT count(*) FROM gist_items) > 100
                           AND NOT EXISTS (SELECT FROM gist_items WHERE c IS NULL OR p IS NULL OR length(c[1]) <> 2 * t.typlen
                                              OR c[1] > c[2] OR p[1] > p[2] OR c[1] < p[1] OR c[2] > p[2]),
                format('%s: gist_page_items shows every key as [lower, upper] in hex, lower <= upper, within its downlink''s key', t.name));
            DROP TABLE gist_items;
        END LOOP;
    END IF;
    IF EXISTS (SELECT FROM pg_available_extensions WHERE name = 'amcheck') THEN
        CREATE EXTENSION IF NOT EXISTS amcheck;
    END IF;
    IF to_regproc('gist_index_check') IS NULL THEN
        RETURN NEXT skip('amcheck has no GiST check (gist_index_check) in this PostgreSQL', 1);
    ELSE
        FOR t IN SELECT name FROM types ORDER BY name LOOP
            EXECUTE format('SELECT gist_index_check(%L::regclass, true)', format('data_%s_gist_id', t.name));
        END LOOP;
        RETURN NEXT pass('amcheck''s gist_index_check finds nothing wrong in any type''s GiST index');
    END IF;
END $$;
SELECT * FROM pg_temp.gist_pages();

-- skip scans (PostgreSQL 18): btree support function 6 for every type, and an
-- index on (tenant, id) serves a condition on id alone by skipping tenants
CREATE FUNCTION pg_temp.skip_scans() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    t record;
    line text;
    plan text;
    searches int;
    plans text := '';
    wrong text := '';
BEGIN
    IF current_setting('server_version_num')::int < 180000 THEN
        RETURN NEXT skip('btree skip scans arrive in PostgreSQL 18', 2);
        RETURN;
    END IF;
    RETURN NEXT is((SELECT count(*) FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
                    JOIN pg_am a ON a.oid = f.opfmethod AND a.amname = 'btree'
                    WHERE p.amprocnum = 6 AND p.amproc::regproc::text IN (SELECT name || '_skipsupport' FROM types)), 5::bigint,
        'every type''s btree operator family has skip support');
    FOR t IN SELECT name FROM types LOOP
        EXECUTE format('CREATE INDEX data_%1$s_tenant_id ON data_%1$s (tenant, id)', t.name);
        SET LOCAL enable_seqscan = off;
        SET LOCAL enable_bitmapscan = off;
        -- the scan on the (tenant, id) index, and how many descents it made
        plan := NULL;
        searches := NULL;
        FOR line IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
                                    SELECT n FROM data_%1$s WHERE id >= (SELECT id FROM data_%1$s WHERE n = 1000)', t.name) LOOP
            IF line ~ ('Index (Only )?Scan using data_' || t.name || '_tenant_id') THEN
                plan := line;
            ELSIF plan IS NOT NULL AND searches IS NULL AND line ~ 'Index Searches: \d+' THEN
                searches := (regexp_match(line, 'Index Searches: (\d+)'))[1]::int;
            END IF;
        END LOOP;
        RESET enable_seqscan;
        RESET enable_bitmapscan;
        plans := plans || t.name || ':' || coalesce(searches, 0) || ' ';
        IF coalesce(searches, 0) < 2 OR pg_temp.found(format('SELECT n FROM data_%1$s WHERE id >= (SELECT id FROM data_%1$s WHERE n = 1000)', t.name), true)
               <> pg_temp.found(format('SELECT n FROM data_%1$s WHERE id >= (SELECT id FROM data_%1$s WHERE n = 1000)', t.name), false) THEN
            wrong := wrong || t.name || ' ';
        END IF;
    END LOOP;
    RETURN NEXT is(wrong, '', 'WHERE id >= x on an index over (tenant, id) is a skip scan (Index Searches: ' || plans
                               || 'for 7 tenants) and finds what a sequential scan finds');
END $$;
SELECT * FROM pg_temp.skip_scans();

-- the GiST key prints as its two bounds
SELECT is((SELECT count(*) FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
           WHERE c.opcname IN ('sno_ops', 'flax_ops', 'siq_ops', 'kuid_ops', 'kuid96_ops') AND a.amname IN ('gist', 'gin')
             AND c.opcdefault), 10::bigint, 'every type has a default GiST and a default GIN operator class');
SELECT is(sqlstate_of($$ SELECT '[]'::flakeid_gist_key $$), '0A000', 'the GiST key type has no text input');

SELECT * FROM finish();
ROLLBACK;
