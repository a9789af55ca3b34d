
-- =====================================================================
-- who holds the horizon back (1.3)
-- =====================================================================

-- An open transaction that issued IDs holds its generators' horizon at the
-- unit of its first ID until it ends, and a prepared one until COMMIT
-- PREPARED or ROLLBACK PREPARED, across restarts: one row per holder and
-- generator.
CREATE FUNCTION flakeid_horizon_holders(
    OUT generator text, OUT pid int4, OUT transaction xid, OUT held_from timestamptz, OUT prepared boolean)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
CREATE VIEW flakeid_horizon_holders AS
    SELECT h.generator, h.pid, h.transaction, p.gid, h.held_from, h.prepared
    FROM flakeid_horizon_holders() h
    LEFT JOIN pg_catalog.pg_prepared_xacts p ON h.prepared AND p.transaction OPERATOR(pg_catalog.=) h.transaction;
COMMENT ON FUNCTION flakeid_horizon_holders() IS 'the rows of the view flakeid_horizon_holders, less the prepared transactions'' gid (superusers and pg_monitor)';
COMMENT ON VIEW flakeid_horizon_holders IS
    'one row per transaction and generator whose horizon it holds back: the backend''s pid (NULL for a prepared transaction, which has its gid), the top transaction ID (NULL if none was assigned), and the start of the unit held; join pg_stat_activity on pid for the session';
-- like flakeid_generators: superusers and monitoring roles only
REVOKE ALL ON FUNCTION flakeid_horizon_holders() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION flakeid_horizon_holders() TO pg_monitor;
REVOKE ALL ON flakeid_horizon_holders FROM PUBLIC;
GRANT SELECT ON flakeid_horizon_holders TO pg_monitor;
