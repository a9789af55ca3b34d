-- flakeid 1.1 -> 1.2 (written by hand: every SQL change of 1.2, in the
-- order a reviewer reads it; test/in_cluster/upgrade.t proves that 1.1
-- updated equals a fresh 1.2, privileges included)

\echo Use "ALTER EXTENSION flakeid UPDATE TO '1.2'" to load this file. \quit

-- =====================================================================
-- readers by ID: the horizon of each generator, and of a Citus cluster
-- =====================================================================

-- readers by ID: every ID sno_new() issued below it belongs to an ended
-- transaction, and every one it issues after the call is at or above it (1.2)
CREATE FUNCTION sno_horizon() RETURNS sno
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION sno_horizon() IS
    'the horizon of sno_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';

-- readers by ID: every ID siq_new() (any kind) issued below it belongs to an ended
-- transaction, and every one it issues after the call is at or above it (1.2)
CREATE FUNCTION siq_horizon() RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION siq_horizon() IS
    'the horizon of siq_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';

-- readers by ID: every ID kuid_new() issued below it belongs to an ended
-- transaction, and every one it issues after the call is at or above it (1.2)
CREATE FUNCTION kuid_horizon() RETURNS kuid
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid_horizon() IS
    'the horizon of kuid_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';

-- readers by ID: every ID kuid96_new() issued below it belongs to an ended
-- transaction, and every one it issues after the call is at or above it (1.2)
CREATE FUNCTION kuid96_horizon() RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid96_horizon() IS
    'the horizon of kuid96_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';

-- readers by ID: every ID snowflake_new() (under the epoch in force) issued below it belongs to an ended
-- transaction, and every one it issues after the call is at or above it (1.2)
CREATE FUNCTION snowflake_horizon() RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION snowflake_horizon() IS
    'the horizon of snowflake_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';

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
