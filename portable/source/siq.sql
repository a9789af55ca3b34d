
-- siq (spec/siq-and-snowflake.md Part A): t56 (40 bits of seconds, 16 of
-- 1/65536 s) | shard (8) | domain hash (32) | serial and kind qualifier (16)
CREATE FUNCTION siq_t56(ts timestamptz) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
DECLARE
    us bigint := flakeid_unix_us(ts, 'siq');
BEGIN
    IF us < 0 OR us / 1000000 >= (1::bigint << 40) THEN
        RAISE EXCEPTION 'timestamp out of range for type siq' USING ERRCODE = '22008',
            DETAIL = 'siq holds times in [1970-01-01 00:00:00+00, 36812-02-20 00:36:16+00).';
    END IF;
    RETURN ((us / 1000000) << 16) | ((us % 1000000) * 65536 / 1000000);
END
$fn$;
-- the kinds, read from the C edition's table (src/format/siq.c), not copied
CREATE FUNCTION siq_kind_value(kind text) RETURNS int4
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
    v int := (SELECT k.v FROM (VALUES @SIQ_KINDS@) k(name, v)
              WHERE k.name = translate(kind, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'));
BEGIN
    IF v IS NULL THEN
        RAISE EXCEPTION 'unknown siq kind: "%"', kind USING ERRCODE = '22023',
            HINT = 'The kinds are @SIQ_KIND_NAMES@.';
    END IF;
    RETURN v;
END
$fn$;
-- the qualifier's width: floor(log2(value)), the marker bit's position
CREATE FUNCTION siq_kind_width(value int4) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN CASE WHEN value >= 32 THEN 5 WHEN value >= 16 THEN 4 ELSE 3 END;
CREATE FUNCTION siq_pack(t56 bigint, shard int8, domain int8, low int8) RETURNS siq
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (flakeid_be_bytes(t56, 7) || flakeid_be_bytes(shard, 1) || flakeid_be_bytes(domain, 4)
            || flakeid_be_bytes(low, 2))::siq;
CREATE FUNCTION siq_from_parts(ts timestamptz, shard int4, domain int8, kind text, serial int4) RETURNS siq
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
DECLARE
    value int := siq_kind_value(kind);
    w int := siq_kind_width(siq_kind_value(kind));
BEGIN
    IF shard NOT BETWEEN 0 AND 255 OR domain NOT BETWEEN 0 AND 4294967295 OR serial NOT BETWEEN 0 AND (1 << (16 - w)) - 1 THEN
        RAISE EXCEPTION 'siq field out of range: shard %, domain %, serial % (kind %)', shard, domain, serial, kind
            USING ERRCODE = '22003',
            DETAIL = format('shard is 0 .. 255, domain 0 .. 4294967295, serial 0 .. %s for this kind.', (1 << (16 - w)) - 1);
    END IF;
    RETURN siq_pack(siq_t56(ts), shard, domain, (serial << w) | (value & ((1 << w) - 1)));
END
$fn$;
-- the tick rounded up to the microsecond
CREATE FUNCTION siq_time(id siq) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN flakeid_timestamptz((flakeid_be_int(id, 0, 7) >> 16) * 1000000
                               + ((flakeid_be_int(id, 0, 7) & 65535) * 1000000 + 65535) / 65536);
CREATE FUNCTION siq_shard(id siq) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN get_byte(id, 7);
CREATE FUNCTION siq_domain(id siq) RETURNS int8
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN flakeid_be_int(id, 8, 4);
-- the qualifier suffixes are prefix-free read from the right (spec A5)
CREATE FUNCTION siq_low_width(low int4) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN CASE WHEN low & 1 = 1 THEN 3 WHEN low & 6 = 6 THEN 4 ELSE 5 END;
CREATE FUNCTION siq_serial(id siq) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN flakeid_be_int(id, 12, 2)::int4 >> siq_low_width(flakeid_be_int(id, 12, 2)::int4);
CREATE FUNCTION siq_kind(id siq) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT k.name FROM (VALUES @SIQ_KINDS@) k(name, v), (SELECT flakeid_be_int(id, 12, 2)::int4 AS low) l
    WHERE k.v = (l.low & ((1 << siq_low_width(l.low)) - 1)) | (1 << siq_low_width(l.low));
END;
CREATE FUNCTION siq_lower_bound(ts timestamptz) RETURNS siq
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN siq_pack(siq_t56(ts), 0, 0, 0);
CREATE FUNCTION siq_upper_bound(ts timestamptz) RETURNS siq
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN siq_pack(siq_t56(ts), 255, 4294967295, 65535);
-- spec A4: the last 4 bytes of SHA-256 (core's sha256) of the ASCII domain
CREATE FUNCTION siq_domain_hash(domain text) RETURNS int8
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
BEGIN
    IF domain ~ '[^\x01-\x7f]' THEN
        RAISE EXCEPTION 'siq domain "%" is not ASCII', domain USING ERRCODE = '22021';
    END IF;
    IF domain IN ('', '0') THEN
        RETURN 0;
    END IF;
    RETURN flakeid_be_int(sha256(convert_to(domain, 'UTF8')), 28, 4);
END
$fn$;

-- The DID form (siq_forms.c): 'did:siq:', then base32 (RFC 4648, lowercase
-- out, either case in) of 1 zero bit, the CRC-32 (zlib's) and the 14 bytes
CREATE FUNCTION flakeid_crc32(b bytea) RETURNS int8
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
    crc bigint := 4294967295;
BEGIN
    FOR i IN 0 .. length(b) - 1 LOOP
        crc := crc # get_byte(b, i);
        FOR j IN 1 .. 8 LOOP
            crc := CASE WHEN crc & 1 = 1 THEN (crc >> 1) # 3988292384 ELSE crc >> 1 END;
        END LOOP;
    END LOOP;
    RETURN crc # 4294967295;
END
$fn$;
CREATE FUNCTION siq_did(id siq) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN 'did:siq:' || flakeid_encode(flakeid_be_bytes(flakeid_crc32(id), 4) || id, '@DID_ALPHABET@', 5, 29, true);
COMMENT ON FUNCTION siq_did(siq) IS 'the did:siq: form (CRC-32 checked on input)';

-- Text input (API.md): a Crockford numeral of 1 to 24 characters, either
-- case, I and L read as 1 and O as 0, whose value fits in 112 bits; or the
-- DID form.  Replaces the template's canonical-only reader.
CREATE OR REPLACE FUNCTION siq_from_text(t text) RETURNS siq
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
DECLARE
    numeral text := translate(t, 'abcdefghjkmnpqrstvwxyzIiLlOo', 'ABCDEFGHJKMNPQRSTVWXYZ111100');
    body bytea;
BEGIN
    IF starts_with(t, 'did:siq:') THEN
        BEGIN
            body := flakeid_decode(translate(substr(t, 9), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'),
                                   'siq', '@DID_ALPHABET@', 5, 29, true);
        EXCEPTION WHEN invalid_text_representation THEN
            body := NULL;
        END;
        IF body IS NULL OR flakeid_be_int(body, 0, 4) <> flakeid_crc32(substr(body, 5)) THEN
            RAISE EXCEPTION 'invalid input syntax for type siq: "%"', t USING ERRCODE = '22P02',
                DETAIL = 'A did:siq: body is 29 base32 characters whose CRC-32 matches the 14 bytes.';
        END IF;
        RETURN substr(body, 5)::siq;
    END IF;
    IF length(t) NOT BETWEEN 1 AND 24 OR (length(t) = 24 AND left(numeral, 1) <> '0') THEN
        RAISE EXCEPTION 'invalid input syntax for type siq: "%"', t USING ERRCODE = '22P02',
            DETAIL = 'siq text is a Crockford numeral of 1 to 24 characters whose value fits in 112 bits, or a did:siq: form.';
    END IF;
    BEGIN
        RETURN flakeid_decode(lpad(right(numeral, 23), 23, '0'), 'siq', '@ALPHABET_siq@', 5, 23, true)::siq;
    EXCEPTION WHEN invalid_text_representation THEN
        RAISE EXCEPTION 'invalid input syntax for type siq: "%"', t USING ERRCODE = '22P02',
            DETAIL = 'siq text is a Crockford numeral of 1 to 24 characters whose value fits in 112 bits, or a did:siq: form.';
    END;
END
$fn$;

-- the generator: unit = the tick (t56), counter = the serial (13 bits: the
-- widest kind's; each kind's own maximum is the pool), shared by every kind
-- (their qualifiers differ, so kinds never meet); shard from
-- flakeid.siq_shard (unset: 0), domain the hash of flakeid.siq_domain
CREATE SEQUENCE flakeid_siq_state MINVALUE 0 START 0;
CREATE FUNCTION siq_new(kind text) RETURNS siq
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SET search_path FROM CURRENT AS $fn$
DECLARE
    value int := siq_kind_value(kind);
    w int := siq_kind_width(siq_kind_value(kind));
    shard int := flakeid_setting('flakeid.siq_shard', 0, 255, 0);
    domain bigint := siq_domain_hash(coalesce(current_setting('flakeid.siq_domain', true), ''));
    v bigint;
BEGIN
    v := flakeid_next('siq', w);
    RETURN siq_pack(v >> 13, shard, domain, ((v & 8191) << w) | (value & ((1 << w) - 1)));
END
$fn$;
