-- flakeid_cluster_identities()'s privileges, for a fresh install only
-- (cluster_identities.sql says why the upgrade leaves them as they are).
REVOKE ALL ON FUNCTION flakeid_cluster_identities() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION flakeid_cluster_identities() TO pg_monitor;
