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
