
-- sno: generators, constructors and extractors (docs/spec/sno.md)

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

CREATE FUNCTION sno_time(sno) RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_time(sno) IS 'start of the ID''s 4 ms time unit';
CREATE FUNCTION sno_meta(sno) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_partition(sno) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_sequence(sno) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_ticktock(sno) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

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
