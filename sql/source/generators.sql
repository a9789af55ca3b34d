
-- =====================================================================
-- generators: what the server's stateful generators are doing
-- =====================================================================

CREATE FUNCTION flakeid_generators(
    OUT generator text, OUT identity text, OUT issued int8, OUT exhausted_waits int8,
    OUT clock_regressions int8, OUT ticktock int4, OUT last_time timestamptz, OUT clock text)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
CREATE VIEW flakeid_generators AS SELECT * FROM flakeid_generators();
COMMENT ON FUNCTION flakeid_generators() IS 'the rows of the view flakeid_generators (superusers and pg_monitor)';
COMMENT ON VIEW flakeid_generators IS
    'one row per stateful generator (siq: one per kind; kuid and kuid96 share one): identity, IDs issued since start, calls that waited for an exhausted unit, IDs issued with the clock behind the last used unit, sno''s tick-tock, the last used unit''s time, and the clock read (precise, or coarse with its tick)';
-- what the generators are doing is for superusers and monitoring roles only
-- (the view runs its function with its owner's rights)
REVOKE ALL ON FUNCTION flakeid_generators() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION flakeid_generators() TO pg_monitor;
REVOKE ALL ON flakeid_generators FROM PUBLIC;
GRANT SELECT ON flakeid_generators TO pg_monitor;

-- =====================================================================
-- identities: what tells this server's IDs from another's
-- =====================================================================

CREATE FUNCTION flakeid_identities(
    OUT generator text, OUT identity text, OUT identity_value int8, OUT source text)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION flakeid_identities() IS
    'this server''s identity per ID type (sno, siq, kuid, kuid96, snowflake), derived ones resolved: its text, the bits it puts into every ID as one number, and where it came from (a setting, the Citus group, or the system identifier); kuid carries none';
REVOKE ALL ON FUNCTION flakeid_identities() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION flakeid_identities() TO pg_monitor;

-- =====================================================================
-- the horizon over a Citus cluster (1.2)
-- =====================================================================
CREATE FUNCTION flakeid_cluster_horizon(id_type regtype) RETURNS text
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    generator text;
    answers json;
    failed record;
    least_horizon text;
BEGIN
    generator := CASE id_type
        WHEN to_regtype(quote_ident(schema) || '.sno') THEN 'sno'
        WHEN to_regtype(quote_ident(schema) || '.siq') THEN 'siq'
        WHEN to_regtype(quote_ident(schema) || '.kuid') THEN 'kuid'
        WHEN to_regtype(quote_ident(schema) || '.kuid96') THEN 'kuid96'
        WHEN 'bigint'::regtype THEN 'snowflake' END;
    IF generator IS NULL THEN
        RAISE EXCEPTION 'no horizon for type %', id_type
            USING ERRCODE = '22023',
                  HINT = 'The horizon exists for sno, siq, kuid, kuid96 and bigint (snowflakes).';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'flakeid_cluster_horizon() needs Citus in this database'
            USING ERRCODE = '55000',
                  HINT = format('On a single server, %s_horizon() gives the horizon.', generator);
    END IF;
    -- every node answers, or there is no horizon: a node that cannot be asked may hold one lower
    EXECUTE format('SELECT json_agg(a) FROM run_command_on_all_nodes(%L) a',
                   format('SELECT %I.%I()::text', schema, generator || '_horizon'))
        INTO answers;
    SELECT a.nodeid, a.result INTO failed
        FROM json_to_recordset(answers) AS a(nodeid int4, success boolean, result text)
        WHERE NOT a.success LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'node % could not give its % horizon', failed.nodeid, generator
            USING ERRCODE = '55000', DETAIL = failed.result;
    END IF;
    -- the least in the type's own order (text order is not the order of every type)
    EXECUTE format('SELECT a.result FROM json_to_recordset($1) AS a(result text) ORDER BY a.result::%s LIMIT 1',
                   CASE generator WHEN 'snowflake' THEN 'bigint' ELSE format('%I.%I', schema, generator) END)
        INTO least_horizon USING answers;
    RETURN least_horizon;
END
$fn$;
COMMENT ON FUNCTION flakeid_cluster_horizon(regtype) IS
    'on a Citus coordinator: the least horizon of the type''s generator over every node, as text';
