
-- flax: constructors, extractors and a stateless generator (docs/spec/flax.md)

COMMENT ON TYPE flax IS 'flax (Python''s python-flax-id), 12 bytes: a millisecond since 2015 and 56 random bits; 16 case-sensitive characters as text';

CREATE FUNCTION flax_new() RETURNS flax
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_new() IS 'new flax: now and 56 bits from a cryptographically secure source';
CREATE FUNCTION flax_new_at(ts timestamptz) RETURNS flax
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_new_at(timestamptz) IS 'back-fill: flax for the given time, with 56 random bits';
CREATE FUNCTION flax_from_parts(ts timestamptz, random int8) RETURNS flax
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_from_parts(timestamptz, int8) IS 'the flax of the given millisecond and 56-bit random part';
CREATE FUNCTION flax_time(flax) RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_time(flax) IS 'the ID''s millisecond';
CREATE FUNCTION flax_random(flax) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_random(flax) IS 'the 56-bit random part';
CREATE FUNCTION flax_lower_bound(ts timestamptz) RETURNS flax
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_lower_bound(timestamptz) IS 'smallest flax of the millisecond containing ts';
CREATE FUNCTION flax_upper_bound(ts timestamptz) RETURNS flax
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_upper_bound(timestamptz) IS 'largest flax of the millisecond containing ts';
