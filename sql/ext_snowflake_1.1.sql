
-- a snowflake at a glance (1.1)
CREATE FUNCTION snowflake_fields(int8) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_fields(int8) IS
    'every field and the time (UTC, ISO 8601) with the epoch flakeid.snowflake_epoch_ms, as jsonb';
CREATE FUNCTION snowflake_fields(int8, epoch timestamptz) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_fields(int8, timestamptz) IS
    'every field and the time (UTC, ISO 8601) with the given epoch, as jsonb';
