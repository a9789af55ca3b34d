
-- kuid96: generators, constructors and extractors (spec/kuid.md §3, interval 8)

CREATE FUNCTION kuid96_new() RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_new() IS
    'new kuid96: the fingerprint of flakeid.kuid_node, and time and sequence from the generator kuid shares';
CREATE FUNCTION kuid96_new_at(ts timestamptz) RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_new_at(timestamptz) IS
    'back-fill: kuid96 for the given time, sequence from the counter kuid_new_at shares';

CREATE FUNCTION kuid96_time(kuid96) RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_time(kuid96) IS
    'start of the tick: (Mega*10^6 + Sec)*10^6 + Tick*1024 microseconds since 1970';
CREATE FUNCTION kuid96_seq(kuid96) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_seq(kuid96) IS 'the 14-bit sequence';
CREATE FUNCTION kuid96_node(kuid96) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_node(kuid96) IS 'the 32-bit node fingerprint';

-- between the two: attach a node, or drop it (the library's gtol)
CREATE FUNCTION kuid96(kuid) RETURNS kuid96
    AS 'MODULE_PATHNAME', 'kuid96_from_kuid' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96(kuid) IS
    'the same time and sequence with this server''s node (flakeid.kuid_node)';
CREATE FUNCTION kuid96(kuid, node int8) RETURNS kuid96
    AS 'MODULE_PATHNAME', 'kuid96_from_kuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96(kuid, int8) IS
    'the same time and sequence with the given node fingerprint (0 .. 2^32-1)';
CREATE FUNCTION kuid(kuid96) RETURNS kuid
    AS 'MODULE_PATHNAME', 'kuid_from_kuid96' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid(kuid96) IS 'drops the node (the library''s gtol): uniqueness is not kept';
CREATE CAST (kuid AS kuid96) WITH FUNCTION kuid96(kuid);
CREATE CAST (kuid96 AS kuid) WITH FUNCTION kuid(kuid96);

CREATE FUNCTION kuid96_lower_bound(ts timestamptz) RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_lower_bound(timestamptz) IS
    'smallest kuid96 of the 256-second window containing ts (inside a window the node outranks time)';
CREATE FUNCTION kuid96_upper_bound(ts timestamptz) RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_upper_bound(timestamptz) IS
    'largest kuid96 of the 256-second window containing ts';
