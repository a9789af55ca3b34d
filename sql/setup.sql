-- Creates the extension for the pg_regress suite, and a helper that runs a
-- statement and returns its SQLSTATE ('ok' if it succeeds), so that error
-- paths are checked by code rather than by message text alone.
CREATE EXTENSION flakeid;
CREATE FUNCTION sqlstate_of(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
SELECT extname, extversion FROM pg_extension WHERE extname = 'flakeid';
