
-- sno: generators, constructors and extractors (docs/spec/sno.md)

COMMENT ON TYPE sno IS 'sno (Go''s muyo/sno), 10 bytes: a 4 ms unit since 2010, a tick-tock bit, a meta byte, a 16-bit partition and a 16-bit sequence; 16 lowercase characters as text';

CREATE FUNCTION sno_new(meta int4 DEFAULT 0) RETURNS sno
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_new(int4) IS
    'new sno from the server''s generator (flakeid.sno_partition, tick-tock on clock regressions)';

CREATE FUNCTION sno_new_at(ts timestamptz, meta int4 DEFAULT 0) RETURNS sno
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_new_at(timestamptz, int4) IS
    'back-fill: sno for the given time, tick-tock 0, sequence from a shared counter';

CREATE FUNCTION sno_from_parts(ts timestamptz, meta int4, partition int4, sequence int4,
                               ticktock int4 DEFAULT 0) RETURNS sno
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_from_parts(timestamptz, int4, int4, int4, int4) IS 'the sno of the given time, meta byte, partition, sequence and tick-tock bit';

CREATE FUNCTION sno_time(sno) RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_time(sno) IS 'start of the ID''s 4 ms time unit';
CREATE FUNCTION sno_meta(sno) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_meta(sno) IS 'the meta byte (0-255) the ID was minted with';
CREATE FUNCTION sno_partition(sno) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_partition(sno) IS 'the 16-bit partition: the identity of the server that minted it (flakeid.sno_partition)';
CREATE FUNCTION sno_sequence(sno) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_sequence(sno) IS 'the 16-bit sequence within the 4 ms unit';
CREATE FUNCTION sno_ticktock(sno) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_ticktock(sno) IS 'the tick-tock bit: 1 for IDs minted after the clock stepped back';

CREATE FUNCTION sno_lower_bound(ts timestamptz) RETURNS sno
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_lower_bound(timestamptz) IS 'smallest sno whose 4 ms unit contains ts';
CREATE FUNCTION sno_upper_bound(ts timestamptz) RETURNS sno
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_upper_bound(timestamptz) IS 'largest sno whose 4 ms unit contains ts';

-- readers by ID: every ID sno_new() issued below it belongs to an ended
-- transaction, and every one it issues after the call is at or above it (1.2)
CREATE FUNCTION sno_horizon() RETURNS sno
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION sno_horizon() IS
    'the horizon of sno_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';
