
-- =====================================================================
-- generators: what the server's stateful generators are doing
-- =====================================================================

CREATE FUNCTION flakeid_generators(
    OUT generator text, OUT identity text, OUT issued int8, OUT exhausted_waits int8,
    OUT clock_regressions int8, OUT ticktock int4, OUT last_time timestamptz, OUT clock text)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
CREATE VIEW flakeid_generators AS SELECT * FROM flakeid_generators();
COMMENT ON VIEW flakeid_generators IS
    'one row per stateful generator (siq: one per kind; kuid and kuid96 share one): identity, IDs issued since start, calls that waited for an exhausted unit, IDs issued with the clock behind the last used unit, sno''s tick-tock, the last used unit''s time, and the clock read (precise, or coarse with its tick)';
-- what the generators are doing is for superusers and monitoring roles only
-- (the view runs its function with its owner's rights)
REVOKE ALL ON FUNCTION flakeid_generators() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION flakeid_generators() TO pg_monitor;
REVOKE ALL ON flakeid_generators FROM PUBLIC;
GRANT SELECT ON flakeid_generators TO pg_monitor;
