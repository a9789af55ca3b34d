-- Creates the extension for the pg_regress suite, and the shared test helpers.
CREATE EXTENSION flakeid;
\i test/helpers.sql
SELECT extname, extversion FROM pg_extension WHERE extname = 'flakeid';
