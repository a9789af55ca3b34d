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
