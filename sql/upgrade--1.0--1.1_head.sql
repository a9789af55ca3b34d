-- flakeid 1.0 -> 1.1

\echo Use "ALTER EXTENSION flakeid UPDATE TO '1.1'" to load this file. \quit

-- flakeid_generators and the function behind it follow one rule: superusers
-- and members of pg_monitor (1.0 left the function executable by PUBLIC)
REVOKE ALL ON FUNCTION flakeid_generators() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION flakeid_generators() TO pg_monitor;
REVOKE ALL ON flakeid_generators FROM PUBLIC;
GRANT SELECT ON flakeid_generators TO pg_monitor;
