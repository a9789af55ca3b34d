
-- =====================================================================
-- snowflake: Discord-style IDs on plain bigint (docs/spec/siq-and-snowflake.md Part B)
-- 42-bit ms since the epoch | 5 worker | 5 process | 12 sequence.
-- Functions that read flakeid.snowflake_epoch_ms are STABLE; each has an
-- IMMUTABLE overload whose last argument is the epoch.
-- =====================================================================

CREATE FUNCTION snowflake_new() RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_new() IS
    'new snowflake: now, flakeid.snowflake_worker and _process, the next sequence of the millisecond';
CREATE FUNCTION snowflake_new_at(ts timestamptz) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_new_at(timestamptz) IS
    'back-fill: snowflake for the given time, sequence from a shared counter';

CREATE FUNCTION snowflake_from_parts(ts timestamptz, worker int4, process int4, sequence int4) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_from_parts(timestamptz, int4, int4, int4) IS
    'exact construction with the epoch flakeid.snowflake_epoch_ms';
CREATE FUNCTION snowflake_from_parts(ts timestamptz, worker int4, process int4, sequence int4, epoch timestamptz) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_from_parts(timestamptz, int4, int4, int4, timestamptz) IS
    'exact construction with the given epoch';

CREATE FUNCTION snowflake_time(int8) RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_time(int8) IS
    'the millisecond (the top 42 bits, read unsigned) after the epoch flakeid.snowflake_epoch_ms';
CREATE FUNCTION snowflake_time(int8, epoch timestamptz) RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_time(int8, timestamptz) IS
    'the millisecond (the top 42 bits, read unsigned) after the given epoch';
CREATE FUNCTION snowflake_worker(int8) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_worker(int8) IS 'the 5-bit worker of a snowflake (flakeid.snowflake_worker where it was minted)';
CREATE FUNCTION snowflake_process(int8) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_process(int8) IS 'the 5-bit process of a snowflake (flakeid.snowflake_process where it was minted)';
CREATE FUNCTION snowflake_sequence(int8) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_sequence(int8) IS 'the 12-bit sequence of a snowflake within its millisecond';

CREATE FUNCTION snowflake_lower_bound(ts timestamptz) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_lower_bound(timestamptz) IS
    'smallest snowflake whose millisecond contains ts (epoch flakeid.snowflake_epoch_ms)';
CREATE FUNCTION snowflake_lower_bound(ts timestamptz, epoch timestamptz) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_lower_bound(timestamptz, timestamptz) IS
    'smallest snowflake whose millisecond contains ts (the given epoch)';
CREATE FUNCTION snowflake_upper_bound(ts timestamptz) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_upper_bound(timestamptz) IS
    'largest snowflake whose millisecond contains ts (epoch flakeid.snowflake_epoch_ms)';
CREATE FUNCTION snowflake_upper_bound(ts timestamptz, epoch timestamptz) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_upper_bound(timestamptz, timestamptz) IS
    'largest snowflake whose millisecond contains ts (the given epoch)';

-- a snowflake at a glance (1.1)
CREATE FUNCTION snowflake_fields(int8) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_fields(int8) IS
    'every field and the time (UTC, ISO 8601) with the epoch flakeid.snowflake_epoch_ms, as jsonb';
CREATE FUNCTION snowflake_fields(int8, epoch timestamptz) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_fields(int8, timestamptz) IS
    'every field and the time (UTC, ISO 8601) with the given epoch, as jsonb';

-- readers by ID: every ID snowflake_new() (under the epoch in force) issued below it belongs to an ended
-- transaction, and every one it issues after the call is at or above it (1.2)
CREATE FUNCTION snowflake_horizon() RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION snowflake_horizon() IS
    'the horizon of snowflake_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';
