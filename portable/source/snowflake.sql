
-- =====================================================================
-- snowflake (spec/siq-and-snowflake.md Part B), plain bigint: ms since the
-- epoch (42, generators stop at 2^41) | worker (5) | process (5) | sequence
-- (12).  The epoch: flakeid.snowflake_epoch_ms at install (default 1420070400000,
-- Discord's); the functions that read it are STABLE, each with an IMMUTABLE
-- overload taking the epoch, as in the C edition.
-- =====================================================================
-- The epoch is fixed when the edition is installed, from the installer's
-- flakeid.snowflake_epoch_ms then (as the C edition's is fixed at the
-- server's start): read per session, any role's SET would shift its IDs
-- onto others' (an ID at m ms under epoch e + 1 is the one at m - 1 under
-- e).  To change it, install the edition afresh.
DO $epoch$ BEGIN
    EXECUTE format('CREATE FUNCTION flakeid_snowflake_epoch_ms() RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN %s',
                   flakeid_setting('flakeid.snowflake_epoch_ms', 0, 253402300799999, 1420070400000));
END $epoch$;
COMMENT ON FUNCTION flakeid_snowflake_epoch_ms() IS 'the snowflake epoch, ms since 1970, fixed when the edition was installed';
CREATE FUNCTION snowflake_epoch() RETURNS timestamptz
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN flakeid_timestamptz(flakeid_snowflake_epoch_ms() * 1000);
CREATE FUNCTION snowflake_ms(ts timestamptz, epoch timestamptz) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
DECLARE
    us bigint := flakeid_unix_us(ts, 'snowflake') - flakeid_unix_us(epoch, 'snowflake');
BEGIN
    IF us < 0 OR us / 1000 >= (1::bigint << 41) THEN
        RAISE EXCEPTION 'timestamp out of range for snowflakes' USING ERRCODE = '22008',
            DETAIL = format('Snowflakes with epoch %s hold times from the epoch to 2^41 milliseconds after it.', epoch);
    END IF;
    RETURN us / 1000;
END
$fn$;
CREATE FUNCTION snowflake_from_parts(ts timestamptz, worker int4, process int4, sequence int4, epoch timestamptz)
    RETURNS int8
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
BEGIN
    IF worker NOT BETWEEN 0 AND 31 OR process NOT BETWEEN 0 AND 31 OR sequence NOT BETWEEN 0 AND 4095 THEN
        RAISE EXCEPTION 'snowflake field out of range: worker %, process %, sequence %', worker, process, sequence
            USING ERRCODE = '22003', DETAIL = 'worker and process are 0 .. 31, sequence 0 .. 4095.';
    END IF;
    RETURN (snowflake_ms(ts, epoch) << 22) | (worker << 17) | (process << 12) | sequence;
END
$fn$;
CREATE FUNCTION snowflake_from_parts(ts timestamptz, worker int4, process int4, sequence int4) RETURNS int8
    LANGUAGE sql STABLE STRICT PARALLEL SAFE RETURN snowflake_from_parts(ts, worker, process, sequence, snowflake_epoch());
-- the top 42 bits read unsigned
CREATE FUNCTION snowflake_time(id int8, epoch timestamptz) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN epoch + ((((id >> 22) & ((1::bigint << 42) - 1))::float8) * interval '1 millisecond');
CREATE FUNCTION snowflake_time(id int8) RETURNS timestamptz
    LANGUAGE sql STABLE STRICT PARALLEL SAFE RETURN snowflake_time(id, snowflake_epoch());
CREATE FUNCTION snowflake_worker(id int8) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN ((id >> 17) & 31)::int4;
CREATE FUNCTION snowflake_process(id int8) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN ((id >> 12) & 31)::int4;
CREATE FUNCTION snowflake_sequence(id int8) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN (id & 4095)::int4;
CREATE FUNCTION snowflake_lower_bound(ts timestamptz, epoch timestamptz) RETURNS int8
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN snowflake_ms(ts, epoch) << 22;
CREATE FUNCTION snowflake_lower_bound(ts timestamptz) RETURNS int8
    LANGUAGE sql STABLE STRICT PARALLEL SAFE RETURN snowflake_lower_bound(ts, snowflake_epoch());
CREATE FUNCTION snowflake_upper_bound(ts timestamptz, epoch timestamptz) RETURNS int8
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN (snowflake_ms(ts, epoch) << 22) | 4194303;
CREATE FUNCTION snowflake_upper_bound(ts timestamptz) RETURNS int8
    LANGUAGE sql STABLE STRICT PARALLEL SAFE RETURN snowflake_upper_bound(ts, snowflake_epoch());
-- the decimal form, as in the C edition
CREATE FUNCTION snowflake_to_text(id bigint) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN id::text;
CREATE FUNCTION snowflake_from_text(t text) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN t::bigint;
-- the generator: unit = the Unix millisecond, counter = the sequence (12 bits)
CREATE SEQUENCE flakeid_snowflake_state MINVALUE 0 START 0;
CREATE FUNCTION snowflake_new() RETURNS int8
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path FROM CURRENT AS $fn$
DECLARE
    epoch_ms bigint := flakeid_snowflake_epoch_ms();
    worker int := flakeid_setting('flakeid.snowflake_worker', 0, 31, 0);
    process int := flakeid_setting('flakeid.snowflake_process', 0, 31, 0);
    v bigint;
BEGIN
    v := flakeid_next('snowflake');
    RETURN (((v >> 12) - epoch_ms) << 22) | (worker << 17) | (process << 12) | (v & 4095);
END
$fn$;
