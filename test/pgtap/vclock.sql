-- The uid library's vector clocks on kuid96[] (spec/kuid.md §8): the laws
-- users rely on and the library's definitions, each over 10,000 random
-- clocks, the empty-clock rules, and every refusal with its SQLSTATE.
\ir preamble.psql

-- Random clocks over 6 nodes, one of them this server's, with 3 seconds and 3
-- sequences per entry (in 2020, behind this server's clock), so that
-- shared nodes, ties and both orders are all common.  test_random keeps them
-- the same on every PostgreSQL version.
CREATE TEMP TABLE nodes AS
SELECT n, CASE WHEN n = 6 THEN kuid96_node(kuid96_new()) ELSE n END AS node FROM generate_series(1, 6) n;
CREATE FUNCTION pg_temp.entry(node bigint, sec int, seq int) RETURNS kuid96 LANGUAGE sql IMMUTABLE AS $$
    SELECT kuid96(('\x' || lpad(to_hex((1600::int8 << 44) | (sec::int8 << 24) | seq), 16, '0'))::bytea::kuid, node) $$;
CREATE TEMP TABLE clocks AS
SELECT i, coalesce((SELECT array_agg(pg_temp.entry(node, floor(test_random(1, i, n) * 3)::int, floor(test_random(2, i, n) * 3)::int)
                                     ORDER BY test_random(3, i, n))
                    FROM nodes WHERE test_random(4, i, n) < 0.5), '{}') AS vc
FROM generate_series(1, 30000) i;
CREATE TEMP TABLE cases AS
SELECT a.i, a.vc AS a, b.vc AS b, c.vc AS c, 1 + floor(test_random(5, a.i) * 6)::int AS pick
FROM clocks a JOIN clocks b ON b.i = a.i + 10000 JOIN clocks c ON c.i = a.i + 20000 WHERE a.i <= 10000;

-- the library's definitions, written out in SQL
CREATE FUNCTION pg_temp.model_join(a kuid96[], b kuid96[]) RETURNS kuid96[] LANGUAGE sql AS $$
    SELECT coalesce(array_agg(e ORDER BY node), '{}')
    FROM (SELECT kuid96_node(e) AS node, max(e) AS e FROM unnest(a || b) e GROUP BY 1) s $$;
CREATE FUNCTION pg_temp.model_descends(a kuid96[], b kuid96[], ignored bigint) RETURNS bool LANGUAGE sql AS $$
    SELECT NOT EXISTS (SELECT FROM unnest(b) y
                       WHERE kuid96_node(y) IS DISTINCT FROM ignored
                         AND NOT EXISTS (SELECT FROM unnest(a) x WHERE kuid96_node(x) = kuid96_node(y) AND x >= y)) $$;

SELECT plan(23);

SELECT ok((SELECT count(*) FROM cases) = 10000 AND (SELECT count(*) FROM cases WHERE a = '{}') > 0
      AND (SELECT count(*) FROM cases WHERE cardinality(a) = 6) > 0
      AND (SELECT count(*) FROM cases WHERE kuid96_vclock_descends(a, b)) > 100
      AND (SELECT count(*) FROM cases WHERE NOT kuid96_vclock_descends(a, b)) > 100,
    '10,000 random triples of clocks, empty to full, with both outcomes of descends common');

-- the laws
SELECT is_empty($$ SELECT i FROM cases WHERE kuid96_vclock_join(a, b) <> kuid96_vclock_join(b, a) $$,
    'join is commutative (10,000 pairs)');
SELECT is_empty($$ SELECT i FROM cases
    WHERE kuid96_vclock_join(kuid96_vclock_join(a, b), c) <> kuid96_vclock_join(a, kuid96_vclock_join(b, c)) $$,
    'join is associative (10,000 triples)');
SELECT is_empty($$ SELECT i FROM cases
    WHERE kuid96_vclock_join(a, a) <> coalesce((SELECT array_agg(e ORDER BY kuid96_node(e)) FROM unnest(a) e), '{}')
       OR kuid96_vclock_join(kuid96_vclock_join(a, b), b) <> kuid96_vclock_join(a, b) $$,
    'join is idempotent: join(a, a) is a (sorted by node), and joining b again changes nothing (10,000 clocks)');
SELECT is_empty($$ SELECT i FROM cases
    WHERE NOT kuid96_vclock_descends(kuid96_vclock_join(a, b), a) OR NOT kuid96_vclock_descends(kuid96_vclock_join(a, b), b) $$,
    'a join descends both of its inputs (10,000 pairs)');
SELECT is_empty($$ SELECT i FROM cases WHERE NOT kuid96_vclock_descends(kuid96_vclock(a), a) $$,
    'a tick descends its input (10,000 clocks)');
SELECT is_empty($$ SELECT i FROM cases WHERE NOT kuid96_vclock_descends(a, a) $$,
    'descends is reflexive (10,000 clocks)');
SELECT is_empty($$ SELECT i FROM cases
    WHERE (NOT EXISTS (SELECT FROM kuid96_vclock_diff(a, b))) <> kuid96_vclock_descends(a, b) $$,
    'diff is empty exactly when descends holds (10,000 pairs)');

-- the library's definitions
SELECT is_empty($$ SELECT i FROM cases WHERE kuid96_vclock_join(a, b) <> pg_temp.model_join(a, b) $$,
    'join: per node the larger entry by time then sequence, sorted by node (10,000 pairs)');
SELECT is_empty($$ SELECT i FROM cases WHERE kuid96_vclock_descends(a, b) <> pg_temp.model_descends(a, b, NULL) $$,
    'descends: every entry of b has an entry of its node in a at least as large (10,000 pairs)');
SELECT is_empty($$ SELECT i FROM cases, nodes WHERE nodes.n = pick
      AND kuid96_vclock_descends(a, b, node) <> pg_temp.model_descends(a, b, node) $$,
    'descends with ignore_node leaves that node''s entries out (10,000 pairs)');
SELECT is_empty($$
    SELECT i FROM cases,
        LATERAL (SELECT coalesce(array_agg(ROW(d.node, d.entry, d.time_ahead, d.seq_ahead)::text ORDER BY ord), '{}') AS got
                 FROM kuid96_vclock_diff(a, b) WITH ORDINALITY d(node, entry, time_ahead, seq_ahead, ord)) g,
        LATERAL (SELECT coalesce(array_agg(ROW(kuid96_node(y), y, kuid96_time(y) - kuid96_time(x), kuid96_seq(y) - kuid96_seq(x))::text
                                           ORDER BY ord), '{}') AS want
                 FROM unnest(b) WITH ORDINALITY u(y, ord)
                 LEFT JOIN LATERAL (SELECT x FROM unnest(a) x WHERE kuid96_node(x) = kuid96_node(y)) m ON true
                 WHERE x IS NULL OR y > x) w
    WHERE got <> want $$,
    'diff: b''s entries a does not descend, in b''s order, with time and sequence ahead, NULL for an unknown node (10,000 pairs)');
SELECT is_empty($$
    SELECT i FROM cases, LATERAL (SELECT kuid96_vclock(a) AS t) s
    WHERE kuid96_node(t[1]) <> (SELECT node FROM nodes WHERE n = 6)
       OR t[2:] <> coalesce((SELECT array_agg(e ORDER BY ord) FROM unnest(a) WITH ORDINALITY u(e, ord)
                             WHERE kuid96_node(e) <> (SELECT node FROM nodes WHERE n = 6)), '{}')
       OR EXISTS (SELECT FROM unnest(a) e WHERE e >= t[1] AND kuid96_node(e) = kuid96_node(t[1])) $$,
    'tick: a fresh entry of this server first, its old entry dropped, the others kept in order (10,000 clocks)');

-- a new clock and the empty clock
SELECT ok(cardinality(v) = 1 AND kuid96_node(v[1]) = (SELECT node FROM nodes WHERE n = 6), 'kuid96_vclock() is ARRAY[kuid96_new()]')
FROM (SELECT kuid96_vclock() AS v) s;
SELECT ok(kuid96_vclock_descends('{}', '{}') AND kuid96_vclock_descends(kuid96_vclock(), '{}')
      AND NOT kuid96_vclock_descends('{}', kuid96_vclock()),
    'anything descends the empty clock; the empty clock descends nothing else');
SELECT ok(kuid96_vclock_join('{}', '{}') = '{}' AND cardinality(kuid96_vclock('{}')) = 1
      AND NOT EXISTS (SELECT FROM kuid96_vclock_diff(kuid96_vclock(), '{}')),
    'the empty clock: join gives it back, a tick gives one entry, diff against it is empty');

-- refusals
SELECT results_eq($$
    SELECT sqlstate_of(q) FROM unnest(ARRAY[
        'SELECT kuid96_vclock(NULL)', 'SELECT kuid96_vclock_join(NULL, ''{}'')', 'SELECT kuid96_vclock_join(''{}'', NULL)',
        'SELECT kuid96_vclock_descends(NULL, ''{}'')', 'SELECT kuid96_vclock_descends(''{}'', ''{}'', NULL)',
        'SELECT * FROM kuid96_vclock_diff(''{}'', NULL)']) q $$,
    $$ SELECT '22004' FROM generate_series(1, 6) $$,
    'a NULL clock (or ignore_node) is refused with 22004, never a NULL answer');
SELECT results_eq($$
    SELECT sqlstate_of(format(q, 'ARRAY[kuid96_new(), NULL]')) FROM unnest(ARRAY[
        'SELECT kuid96_vclock(%s)', 'SELECT kuid96_vclock_join(%s, ''{}'')', 'SELECT kuid96_vclock_descends(''{}'', %s)',
        'SELECT * FROM kuid96_vclock_diff(%s, ''{}'')']) q $$,
    $$ SELECT '22023' FROM generate_series(1, 4) $$,
    'a NULL entry is refused with 22023 by every function');
SELECT results_eq($$
    SELECT sqlstate_of(format(q, 'ARRAY[pg_temp.entry(7, 1, 0), pg_temp.entry(8, 1, 0), pg_temp.entry(7, 2, 0)]')) FROM unnest(ARRAY[
        'SELECT kuid96_vclock(%s)', 'SELECT kuid96_vclock_join(''{}'', %s)', 'SELECT kuid96_vclock_descends(%s, ''{}'')',
        'SELECT * FROM kuid96_vclock_diff(''{}'', %s)']) q $$,
    $$ SELECT '22023' FROM generate_series(1, 4) $$,
    'two entries of one node are refused with 22023 by every function');
SELECT is(message_of($$ SELECT kuid96_vclock_join(ARRAY[pg_temp.entry(7, 1, 0), pg_temp.entry(7, 2, 0)], '{}') $$),
    'vector clock a has two entries for node 7', 'the message names the clock and the node');
SELECT is(sqlstate_of($$ SELECT kuid96_vclock_join(ARRAY[[pg_temp.entry(7, 1, 0)], [pg_temp.entry(8, 1, 0)]], '{}') $$), '22023',
    'a two-dimensional array is refused with 22023');
SELECT results_eq($$
    SELECT sqlstate_of(format('SELECT kuid96_vclock_descends(''{}'', ''{}'', %s)', n)) FROM unnest(ARRAY[-1, 4294967296, 0, 4294967295]) n $$,
    $$ VALUES ('22003'), ('22003'), ('ok'), ('ok') $$,
    'ignore_node is a node fingerprint, 0 .. 2^32 - 1 (22003 otherwise)');
SELECT is(
    (SELECT string_agg(proname || ':' || provolatile::text || ':' || proisstrict::text, ' ' ORDER BY proname, pronargs)
     FROM pg_proc WHERE proname LIKE 'kuid96_vclock%'),
    'kuid96_vclock:v:false kuid96_vclock:v:false kuid96_vclock_descends:i:false kuid96_vclock_descends:i:false kuid96_vclock_diff:i:false kuid96_vclock_join:i:false',
    'the tick and the new clock are VOLATILE, the rest IMMUTABLE; none is STRICT');

SELECT * FROM finish();
ROLLBACK;
