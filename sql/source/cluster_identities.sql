-- flakeid_cluster_identities() (1.2), in a file of its own: 1.5 replaces it
-- (a node whose identity cannot be had shares nothing), so the 1.4 -> 1.5
-- upgrade takes it in from here; CREATE OR REPLACE, which PostgreSQL refuses
-- in an extension's script for an object the extension does not own.  Its
-- privileges are set in cluster_identities_acl.sql, which a fresh install
-- alone runs: the replacement keeps the ACL a DBA gave it, and run in the
-- upgrade they reset it and recorded it as the extension's own, so that
-- pg_dump left a DBA's grant out (1.5's twenty-eighth reviewer and auditor).

-- On a Citus coordinator: every node's identities (run_command_on_all_nodes),
-- with a flag on each one two nodes share.  A node that cannot answer is an
-- error: a listing without it could hide a shared identity.
CREATE OR REPLACE FUNCTION flakeid_cluster_identities(
    OUT nodeid int4, OUT groupid int4, OUT nodename text, OUT nodeport int4,
    OUT generator text, OUT identity text, OUT source text, OUT shared boolean)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    answers json;
    failed record;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'flakeid_cluster_identities() needs Citus in this database'
            USING ERRCODE = '55000',
                  HINT = 'On a single server, flakeid_identities() lists its identities.';
    END IF;
    -- Citus's functions are reached by EXECUTE: the extension does not depend on Citus
    EXECUTE format('SELECT json_agg(a) FROM run_command_on_all_nodes(%L) a',
                   format('SELECT coalesce(json_agg(i), %L) FROM %I.flakeid_identities() i', '[]',
                          (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                           WHERE e.extname = 'flakeid')))
        INTO answers;
    SELECT a.nodeid, a.result INTO failed
        FROM json_to_recordset(answers) AS a(nodeid int4, success boolean, result text)
        WHERE NOT a.success LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'node % could not list its flakeid identities', failed.nodeid
            USING ERRCODE = '55000', DETAIL = failed.result;
    END IF;
    RETURN QUERY EXECUTE $q$
        SELECT n.nodeid, n.groupid, n.nodename::text, n.nodeport, i.generator, i.identity, i.source,
               -- (a node whose identity cannot be had, its source says why, shares
               -- nothing: NULL, not the other such nodes' "shared"; kuid carries
               -- none, and is shared whenever there are two nodes)
               CASE WHEN i.identity_value IS NOT NULL OR i.generator = 'kuid'
                    THEN count(*) OVER (PARTITION BY i.generator, i.identity_value) > 1 END
        FROM json_to_recordset($1) AS a(nodeid int4, success boolean, result text)
        JOIN pg_dist_node n ON n.nodeid = a.nodeid
        CROSS JOIN LATERAL json_to_recordset(a.result::json)
            AS i(generator text, identity text, identity_value int8, source text)
        ORDER BY i.generator, n.groupid, n.nodeid$q$ USING answers;
END
$fn$;
COMMENT ON FUNCTION flakeid_cluster_identities() IS
    'on a Citus coordinator: one row per node and ID type with the identity in force and where it came from; shared flags an identity two nodes share (kuid, which carries none, is shared whenever there are two nodes; NULL for a node whose identity cannot be had, its source says why)';
