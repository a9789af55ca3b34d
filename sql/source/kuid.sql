
-- kuid: generators, constructors and extractors (docs/spec/kuid.md)

COMMENT ON TYPE kuid IS 'kuid (Erlang uid''s local ID), 8 bytes: an Erlang timestamp cut to 1.024 ms ticks and a 14-bit sequence, no server identity; 11 characters as text';

CREATE FUNCTION kuid_new() RETURNS kuid
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION kuid_new() IS
    'new kuid: the current 1.024 ms tick and the next sequence of the generator kuid and kuid96 share';
CREATE FUNCTION kuid_new_at(ts timestamptz) RETURNS kuid
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid_new_at(timestamptz) IS
    'back-fill: kuid for the given time, sequence from a shared counter';

CREATE FUNCTION kuid_time(kuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid_time(kuid) IS
    'start of the tick: (Mega*10^6 + Sec)*10^6 + Tick*1024 microseconds since 1970';
CREATE FUNCTION kuid_seq(kuid) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid_seq(kuid) IS 'the 14-bit sequence';

CREATE FUNCTION kuid_node_hash(name text) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid_node_hash(text) IS
    'the fingerprint the Erlang uid library (1.3.5) gives a node name: erlang:phash2 of the atom';

CREATE FUNCTION kuid_lower_bound(ts timestamptz) RETURNS kuid
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid_lower_bound(timestamptz) IS 'smallest kuid whose 1.024 ms tick contains ts';
CREATE FUNCTION kuid_upper_bound(ts timestamptz) RETURNS kuid
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid_upper_bound(timestamptz) IS 'largest kuid whose 1.024 ms tick contains ts';

-- readers by ID: every ID kuid_new() issued below it belongs to an ended
-- transaction, and every one it issues after the call is at or above it (1.2)
CREATE FUNCTION kuid_horizon() RETURNS kuid
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid_horizon() IS
    'the horizon of kuid_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';
