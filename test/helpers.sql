-- Helpers shared by the pg_regress and pgTAP suites.

-- The SQLSTATE a statement fails with, or 'ok': error paths are checked by
-- code, not only by message text.
CREATE OR REPLACE FUNCTION sqlstate_of(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;

-- The message a statement fails with, or 'ok'.
CREATE OR REPLACE FUNCTION message_of(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLERRM;
END $$;

-- Vector text written with Python escapes (\xNN, \uNNNN, \n) as the string it
-- stands for; NULL where PostgreSQL text cannot hold it (NUL).
CREATE OR REPLACE FUNCTION unescape_vector(s text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    m text[];
BEGIN
    IF s ~ '\\x00' THEN RETURN NULL; END IF;
    LOOP
        m := regexp_match(s, '\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4}))');
        EXIT WHEN m IS NULL;
        s := replace(s, CASE WHEN m[1] IS NOT NULL THEN '\x' || m[1] ELSE '\u' || m[2] END,
                     chr(('x' || lpad(coalesce(m[1], m[2]), 8, '0'))::bit(32)::int));
    END LOOP;
    RETURN replace(s, '\n', chr(10));
END $$;

-- A reproducible random number in [0, 1) for (seed, n, i).  Unlike random()
-- after setseed(), it does not depend on the order in which a plan feeds rows
-- to it, which differs between PostgreSQL versions.  (Core's extended hash
-- functions are stable across versions: hash partitioning relies on it.)
CREATE OR REPLACE FUNCTION test_random(seed int, n int, i int DEFAULT 0) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT (hashint8extended(n::int8 * 65536 + i, seed) & 4503599627370495) / 4503599627370496.0 $$;

-- EXPLAIN (COSTS OFF) of a statement, without what PostgreSQL versions print
-- differently for the same plan: 17 dropped the "(returns $n)" of an InitPlan
-- and the "IS NOT NULL" index condition on a NOT NULL column, and 18 names
-- the window of a WindowAgg, and 19 what a node replaced.
CREATE OR REPLACE FUNCTION plan_of(statement text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || statement LOOP
        -- 19 names what a node replaced ("Replaces: MinMaxAggregate") and
        -- its init plans ("InitPlan minmax_1"); earlier majors do neither
        CONTINUE WHEN line ~ '^\s*Index Cond: \(\w+ IS NOT NULL\)$' OR line ~ '^\s*Window: \w+ AS \(.*\)$'
            OR line ~ '^\s*Replaces: ';
        line := regexp_replace(line, '^(\s*InitPlan )minmax_(\d+)$', '\1\2');
        RETURN NEXT regexp_replace(line, '^(\s*InitPlan \d+) \(returns \$\d+\)$', '\1');
    END LOOP;
END $$;
