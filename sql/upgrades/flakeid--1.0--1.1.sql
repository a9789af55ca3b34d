-- flakeid 1.0 -> 1.1

\echo Use "ALTER EXTENSION flakeid UPDATE TO '1.1'" to load this file. \quit

-- flakeid_generators and the function behind it follow one rule: superusers
-- and members of pg_monitor (1.0 left the function executable by PUBLIC)
REVOKE ALL ON FUNCTION flakeid_generators() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION flakeid_generators() TO pg_monitor;
REVOKE ALL ON flakeid_generators FROM PUBLIC;
GRANT SELECT ON flakeid_generators TO pg_monitor;

-- sno: what 1.1 adds (generated into both the install and the 1.0 -> 1.1 scripts)

-- an ID at a glance: every field and the time (in UTC), as jsonb (1.1)
CREATE FUNCTION sno_fields(sno) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_fields(sno) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';

-- flax: what 1.1 adds (generated into both the install and the 1.0 -> 1.1 scripts)

-- an ID at a glance: every field and the time (in UTC), as jsonb (1.1)
CREATE FUNCTION flax_fields(flax) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_fields(flax) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';

-- siq: what 1.1 adds (generated into both the install and the 1.0 -> 1.1 scripts)

-- an ID at a glance: every field and the time (in UTC), as jsonb (1.1)
CREATE FUNCTION siq_fields(siq) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_fields(siq) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';

-- the library's other text forms, and its snowflake migrator (1.1)
CREATE FUNCTION siq_format(id siq, form text) RETURNS text
    AS 'MODULE_PATHNAME', 'siq_to_form' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_format(siq, text) IS
    'the ID in one of the library''s forms: dec, hex, oct, base64, cb32, 0c, b32l, u or did';
CREATE FUNCTION siq_parse(input text, form text) RETURNS siq
    AS 'MODULE_PATHNAME', 'siq_from_form' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_parse(text, text) IS
    'the inverse of siq_format: exactly the text that form writes (22P02 otherwise)';
CREATE FUNCTION siq_from_snowflake(id int8, domain text, kind text, epoch timestamptz) RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_from_snowflake(int8, text, text, timestamptz) IS
    'the library''s SnowflakeSiqMigrator: the siq a snowflake with the given epoch becomes, with the domain''s hash and the kind';

-- kuid: what 1.1 adds (generated into both the install and the 1.0 -> 1.1 scripts)

-- an ID at a glance: every field and the time (in UTC), as jsonb (1.1)
CREATE FUNCTION kuid_fields(kuid) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid_fields(kuid) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';

-- kuid96: what 1.1 adds (generated into both the install and the 1.0 -> 1.1 scripts)

-- an ID at a glance: every field and the time (in UTC), as jsonb (1.1)
CREATE FUNCTION kuid96_fields(kuid96) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_fields(kuid96) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';

-- the library's checked l(Id), and encode/2 and decode/2 at other intervals (1.1)
CREATE FUNCTION kuid96_local(kuid96) RETURNS kuid
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_local(kuid96) IS
    'the kuid of a kuid96 of this server''s node (flakeid.kuid_node); another node''s is refused (22023), as the library''s l/1 refuses it';
CREATE FUNCTION kuid96_encode(id kuid96, "interval" int4) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_encode(kuid96, int4) IS
    'the 12 bytes the uid library''s encode/2 writes for neighbourhood interval 5 .. 10 (8 is the type''s own bytes)';
CREATE FUNCTION kuid96_decode(b bytea, "interval" int4) RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_decode(bytea, int4) IS
    'the kuid96 of 12 bytes the uid library wrote with neighbourhood interval 5 .. 10';

-- the uid library's vector clocks (spec/kuid.md §8) on kuid96[], one entry
-- per node (1.1).  Not STRICT: a NULL clock or entry is an error, not NULL.
CREATE FUNCTION kuid96_vclock() RETURNS kuid96[]
    AS 'MODULE_PATHNAME', 'kuid96_vclock_new' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_vclock() IS 'a new vector clock: ARRAY[kuid96_new()]';
CREATE FUNCTION kuid96_vclock(vc kuid96[]) RETURNS kuid96[]
    AS 'MODULE_PATHNAME', 'kuid96_vclock_tick' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_vclock(kuid96[]) IS
    'the tick: drops this server''s entry and puts a fresh kuid96_new() first';
CREATE FUNCTION kuid96_vclock_join(a kuid96[], b kuid96[]) RETURNS kuid96[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_vclock_join(kuid96[], kuid96[]) IS
    'per node the larger entry (time, then sequence), sorted by node';
CREATE FUNCTION kuid96_vclock_descends(a kuid96[], b kuid96[]) RETURNS bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_vclock_descends(kuid96[], kuid96[]) IS
    'every entry of b has an entry of its node in a that is at least as large; true when b is empty';
CREATE FUNCTION kuid96_vclock_descends(a kuid96[], b kuid96[], ignore_node int8) RETURNS bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_vclock_descends(kuid96[], kuid96[], int8) IS
    'the same, the entries of node ignore_node left out of both';
CREATE FUNCTION kuid96_vclock_diff(a kuid96[], b kuid96[],
    OUT node int8, OUT entry kuid96, OUT time_ahead interval, OUT seq_ahead int4)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 4;
COMMENT ON FUNCTION kuid96_vclock_diff(kuid96[], kuid96[]) IS
    'the entries of b that a does not descend, in b''s order, with how far each is ahead of a''s entry of its node (NULL when a has none)';

-- a snowflake at a glance (1.1)
CREATE FUNCTION snowflake_fields(int8) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_fields(int8) IS
    'every field and the time (UTC, ISO 8601) with the epoch flakeid.snowflake_epoch_ms, as jsonb';
CREATE FUNCTION snowflake_fields(int8, epoch timestamptz) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_fields(int8, timestamptz) IS
    'every field and the time (UTC, ISO 8601) with the given epoch, as jsonb';

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

-- On a Citus coordinator: every node's identities (run_command_on_all_nodes),
-- with a flag on each one two nodes share.  A node that cannot answer is an
-- error: a listing without it could hide a shared identity.
CREATE FUNCTION flakeid_cluster_identities(
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
               count(*) OVER (PARTITION BY i.generator, i.identity_value) > 1
        FROM json_to_recordset($1) AS a(nodeid int4, success boolean, result text)
        JOIN pg_dist_node n ON n.nodeid = a.nodeid
        CROSS JOIN LATERAL json_to_recordset(a.result::json)
            AS i(generator text, identity text, identity_value int8, source text)
        ORDER BY i.generator, n.groupid, n.nodeid$q$ USING answers;
END
$fn$;
COMMENT ON FUNCTION flakeid_cluster_identities() IS
    'on a Citus coordinator: one row per node and ID type with the identity in force and where it came from; shared flags an identity two nodes share (kuid, which carries none, is shared whenever there are two nodes)';
REVOKE ALL ON FUNCTION flakeid_cluster_identities() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION flakeid_cluster_identities() TO pg_monitor;
