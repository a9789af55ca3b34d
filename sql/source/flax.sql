
-- flax: constructors, extractors and a stateless generator (docs/spec/flax.md)

CREATE FUNCTION flax_new() RETURNS flax
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_new() IS 'new flax: now and 56 bits from a cryptographically secure source';
CREATE FUNCTION flax_new_at(ts timestamptz) RETURNS flax
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_from_parts(ts timestamptz, random int8) RETURNS flax
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_time(flax) RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_time(flax) IS 'the ID''s millisecond';
CREATE FUNCTION flax_random(flax) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_lower_bound(ts timestamptz) RETURNS flax
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_lower_bound(timestamptz) IS 'smallest flax of the millisecond containing ts';
CREATE FUNCTION flax_upper_bound(ts timestamptz) RETURNS flax
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_upper_bound(timestamptz) IS 'largest flax of the millisecond containing ts';
