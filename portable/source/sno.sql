
-- sno (spec/sno.md): units (39, 4 ms since 2010) | tick-tock (1) | meta (8)
-- | partition (16) | sequence (16)
CREATE FUNCTION sno_units(ts timestamptz) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
DECLARE
    us bigint := flakeid_unix_us(ts, 'sno');
BEGIN
    IF us < 1262304000000000 OR (us - 1262304000000000) / 4000 >= (1::bigint << 39) THEN
        RAISE EXCEPTION 'timestamp out of range for type sno' USING ERRCODE = '22008',
            DETAIL = 'sno holds times in [2010-01-01 00:00:00+00, 2079-09-07 15:47:35.552+00).';
    END IF;
    RETURN (us - 1262304000000000) / 4000;
END
$fn$;
CREATE FUNCTION sno_pack(units bigint, ticktock int, meta int, partition int, sequence int) RETURNS sno
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (flakeid_be_bytes((units << 1) | ticktock, 5) || flakeid_be_bytes(meta, 1)
            || flakeid_be_bytes(partition, 2) || flakeid_be_bytes(sequence, 2))::sno;
CREATE FUNCTION sno_from_parts(ts timestamptz, meta int4, partition int4, sequence int4, ticktock int4 DEFAULT 0)
    RETURNS sno
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
BEGIN
    IF meta NOT BETWEEN 0 AND 255 OR partition NOT BETWEEN 0 AND 65535 OR sequence NOT BETWEEN 0 AND 65535
       OR ticktock NOT BETWEEN 0 AND 1 THEN
        RAISE EXCEPTION 'sno field out of range: meta %, partition %, sequence %, ticktock %',
            meta, partition, sequence, ticktock USING ERRCODE = '22003',
            DETAIL = 'meta is 0 .. 255, partition and sequence 0 .. 65535, ticktock 0 or 1.';
    END IF;
    RETURN sno_pack(sno_units(ts), ticktock, meta, partition, sequence);
END
$fn$;
CREATE FUNCTION sno_time(id sno) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN flakeid_timestamptz(1262304000000000 + (flakeid_be_int(id, 0, 5) >> 1) * 4000);
COMMENT ON FUNCTION sno_time(sno) IS 'start of the ID''s 4 ms time unit';
CREATE FUNCTION sno_meta(id sno) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN get_byte(id, 5);
CREATE FUNCTION sno_partition(id sno) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN flakeid_be_int(id, 6, 2)::int4;
CREATE FUNCTION sno_sequence(id sno) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN flakeid_be_int(id, 8, 2)::int4;
CREATE FUNCTION sno_ticktock(id sno) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN get_byte(id, 4) & 1;
CREATE FUNCTION sno_lower_bound(ts timestamptz) RETURNS sno
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN sno_pack(sno_units(ts), 0, 0, 0, 0);
COMMENT ON FUNCTION sno_lower_bound(timestamptz) IS 'smallest sno whose 4 ms unit contains ts';
CREATE FUNCTION sno_upper_bound(ts timestamptz) RETURNS sno
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN sno_pack(sno_units(ts), 1, 255, 65535, 65535);
COMMENT ON FUNCTION sno_upper_bound(timestamptz) IS 'largest sno whose 4 ms unit contains ts';

-- the generator: unit = the 4 ms unit, counter = the sequence, the whole
-- of 0 .. 65535; the partition from flakeid.sno_partition (unset: 0).
-- The C edition's pool settings (flakeid.sno_sequence_min/_max) are not
-- read: here any role may SET them, and a pool of a few values would move
-- the one state every session shares a unit ahead each few calls, ahead of
-- the clock for everyone.  Tick-tock stays 0: a clock step back counts on
-- from the last unit instead of toggling (portable/README.md).
CREATE SEQUENCE flakeid_sno_state MINVALUE 0 START 0;
CREATE FUNCTION sno_new(meta int4 DEFAULT 0) RETURNS sno
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SET search_path FROM CURRENT AS $fn$
DECLARE
    partition int := flakeid_setting('flakeid.sno_partition', 0, 65535, 0);
    v bigint;
BEGIN
    IF meta NOT BETWEEN 0 AND 255 THEN
        RAISE EXCEPTION 'meta % is out of range for type sno', meta USING ERRCODE = '22003';
    END IF;
    v := flakeid_next('sno');
    RETURN sno_pack(v >> 16, 0, meta, partition, (v & 65535)::int);
END
$fn$;
COMMENT ON FUNCTION sno_new(int4) IS 'new sno from this database''s generator (a sequence; portable/README.md)';
