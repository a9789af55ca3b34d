
-- flax (spec/flax.md): ms since 2015 (40) | random (56); no state
CREATE FUNCTION flax_ms(ts timestamptz) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
DECLARE
    us bigint := flakeid_unix_us(ts, 'flax');
BEGIN
    IF us < 1420070400000000 OR (us - 1420070400000000) / 1000 >= (1::bigint << 40) THEN
        RAISE EXCEPTION 'timestamp out of range for type flax' USING ERRCODE = '22008',
            DETAIL = 'flax holds times in [2015-01-01 00:00:00+00, 2049-11-03 19:53:47.776+00).';
    END IF;
    RETURN (us - 1420070400000000) / 1000;
END
$fn$;
CREATE FUNCTION flax_from_parts(ts timestamptz, random int8) RETURNS flax
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
BEGIN
    IF random NOT BETWEEN 0 AND (1::bigint << 56) - 1 THEN
        RAISE EXCEPTION 'random % is out of range for type flax', random USING ERRCODE = '22003',
            DETAIL = 'The random part is 0 .. 2^56-1.';
    END IF;
    RETURN (flakeid_be_bytes(flax_ms(ts), 5) || flakeid_be_bytes(random, 7))::flax;
END
$fn$;
CREATE FUNCTION flax_time(id flax) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN flakeid_timestamptz((1420070400000 + flakeid_be_int(id, 0, 5)) * 1000);
COMMENT ON FUNCTION flax_time(flax) IS 'the ID''s millisecond';
CREATE FUNCTION flax_random(id flax) RETURNS int8
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN flakeid_be_int(id, 5, 7);
CREATE FUNCTION flax_lower_bound(ts timestamptz) RETURNS flax
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (flakeid_be_bytes(flax_ms(ts), 5) || '\x00000000000000'::bytea)::flax;
CREATE FUNCTION flax_upper_bound(ts timestamptz) RETURNS flax
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (flakeid_be_bytes(flax_ms(ts), 5) || '\xffffffffffffff'::bytea)::flax;
-- random: 56 bits of gen_random_uuid() (core's, a secure source; pgcrypto
-- may be absent), its bytes 9 .. 15, which carry no version or variant bit
CREATE FUNCTION flax_new_at(ts timestamptz) RETURNS flax
    LANGUAGE sql VOLATILE STRICT PARALLEL SAFE
    RETURN (flakeid_be_bytes(flax_ms(ts), 5) || substr(uuid_send(gen_random_uuid()), 10, 7))::flax;
CREATE FUNCTION flax_new() RETURNS flax
    LANGUAGE sql VOLATILE PARALLEL SAFE
    RETURN flax_new_at(clock_timestamp());
