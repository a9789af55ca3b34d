
-- kuid (spec/kuid.md): Mega (20) | Sec (20) | Tick (10, 1.024 ms) | Seq (14)
CREATE FUNCTION kuid_fields(ts timestamptz, OUT mega int8, OUT sec int8, OUT tick int8)
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
DECLARE
    us bigint := flakeid_unix_us(ts, 'kuid');
BEGIN
    IF us < 0 OR us / 1000000 / 1000000 >= (1 << 20) THEN
        RAISE EXCEPTION 'timestamp out of range for type kuid' USING ERRCODE = '22008',
            DETAIL = 'kuid holds times in [1970-01-01 00:00:00+00, 35198-01-19 07:06:40+00).';
    END IF;
    mega := us / 1000000 / 1000000;
    sec := (us / 1000000) % 1000000;
    tick := (us % 1000000) / 1024;
END
$fn$;
CREATE FUNCTION kuid_pack(mega int8, sec int8, tick int8, seq int8) RETURNS kuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN flakeid_be_bytes((mega << 44) | (sec << 24) | (tick << 14) | seq, 8)::kuid;
CREATE FUNCTION kuid_time(id kuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN flakeid_timestamptz(((flakeid_be_int(id, 0, 8) >> 44 & 1048575) * 1000000
                                + (flakeid_be_int(id, 0, 8) >> 24 & 1048575)) * 1000000
                               + (flakeid_be_int(id, 0, 8) >> 14 & 1023) * 1024);
CREATE FUNCTION kuid_seq(id kuid) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN (flakeid_be_int(id, 6, 2) & 16383)::int4;
CREATE FUNCTION kuid_lower_bound(ts timestamptz) RETURNS kuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT kuid_pack(f.mega, f.sec, f.tick, 0) FROM kuid_fields(ts) f;
END;
CREATE FUNCTION kuid_upper_bound(ts timestamptz) RETURNS kuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT kuid_pack(f.mega, f.sec, f.tick, 16383) FROM kuid_fields(ts) f;
END;
-- the Erlang fingerprint of a node name (spec §5): Latin-1 atoms' UTF-8 as
-- their bytes, then PJW's hash, as kuid_node_fingerprint in src/format/kuid.c
CREATE FUNCTION kuid_node_hash(name text) RETURNS int8
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
    p bytea := convert_to(name, 'UTF8');
    h bigint := 0;
    g bigint;
    v int;
    i int := 0;
BEGIN
    WHILE i < length(p) LOOP
        v := get_byte(p, i);
        IF v IN (194, 195) AND i + 1 < length(p) AND get_byte(p, i + 1) & 192 = 128 THEN
            i := i + 1;
            v := ((v << 6) | (get_byte(p, i) & 63)) & 255;
        END IF;
        h := ((h << 4) + v) & 4294967295;
        g := h & 4026531840;
        IF g <> 0 THEN
            h := h # (g >> 24);
            h := h # g;
        END IF;
        i := i + 1;
    END LOOP;
    RETURN h;
END
$fn$;
-- the generator, shared with kuid96: unit = the tick counted linearly
-- ((Mega * 10^6 + Sec) * 977 + Tick: ticks 977 .. 1023 never come from a
-- clock), counter = Seq (14 bits)
CREATE SEQUENCE flakeid_kuid_state MINVALUE 0 START 0;
CREATE FUNCTION kuid_new() RETURNS kuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
    SELECT kuid_pack((v >> 14) / 977 / 1000000, (v >> 14) / 977 % 1000000, (v >> 14) % 977, v & 16383)
    FROM (SELECT flakeid_next('kuid') AS v) x;
END;
