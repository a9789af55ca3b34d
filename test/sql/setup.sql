-- Creates the extension for the pg_regress suite (unless upgrade.t made and
-- updated it already), and the shared test helpers.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS flakeid;
RESET client_min_messages;
\i test/helpers.sql
SELECT extname, extversion FROM pg_extension WHERE extname = 'flakeid';
