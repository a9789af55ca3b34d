-- Creates the extension for the pg_regress suite (unless upgrade.t made and
-- updated it already), and the shared test helpers.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS flakeid;
RESET client_min_messages;
\i test/helpers.sql
-- the control file's default version (upgrade.t checks which one that is)
SELECT e.extname, e.extversion = a.default_version AS default_version
  FROM pg_extension e JOIN pg_available_extensions a ON a.name = e.extname WHERE e.extname = 'flakeid';
