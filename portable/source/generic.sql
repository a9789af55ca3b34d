
-- =====================================================================
-- The generic layer: every type's text, bytes, time and generator goes
-- through these; the per-type files only say where their fields lie.
-- =====================================================================

-- An instant as Unix microseconds, exactly (extract gives numeric); the
-- infinities are 22008, as in the C edition.
CREATE FUNCTION flakeid_unix_us(ts timestamptz, type_name text) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
BEGIN
    IF NOT isfinite(ts) THEN
        RAISE EXCEPTION 'timestamp out of range for type %', type_name USING ERRCODE = '22008';
    END IF;
    RETURN (extract(epoch FROM ts) * 1000000)::bigint;
END
$fn$;

-- Unix microseconds as an instant, exactly: whole days and the rest, in
-- UTC (a timestamp without time zone, so no zone's rules apply to the
-- days), since float8 seconds times an interval is not exact past 2^53 µs
-- (about year 2255) and siq runs to year 36812.
CREATE FUNCTION flakeid_timestamptz(unix_us bigint) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (timestamp 'epoch' + make_interval(days => (unix_us / 86400000000)::int4)
            + make_interval(secs => (unix_us % 86400000000)::float8 / 1000000)) AT TIME ZONE 'UTC';

-- n (1..8) big-endian bytes of v, and back (unsigned but for n = 8)
CREATE FUNCTION flakeid_be_bytes(v bigint, n int) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN substr(int8send(v), 9 - n);
CREATE FUNCTION flakeid_be_int(b bytea, offs int, n int) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN ('x' || lpad(encode(substr(b, offs + 1, n), 'hex'), 16, '0'))::bit(64)::bigint;

-- Every text form is the bytes read most significant bit first in groups of
-- `bits` (5 or 6), one symbol of `alphabet` a group (src/format/codec.h):
-- `spare` zero bits lead (a numeral, siq) or trail (padding, kuid).
CREATE FUNCTION flakeid_encode(b bytea, alphabet text, bits int, nchars int, spare_first bool) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
    acc bigint := 0;
    nbits int := CASE WHEN spare_first THEN nchars * bits - 8 * length(b) ELSE 0 END;
    mask bigint := (1::bigint << bits) - 1;
    result text := '';
BEGIN
    FOR i IN 0 .. length(b) - 1 LOOP
        acc := (acc << 8) | get_byte(b, i);
        nbits := nbits + 8;
        WHILE nbits >= bits LOOP
            nbits := nbits - bits;
            result := result || substr(alphabet, (((acc >> nbits) & mask) + 1)::int, 1);
        END LOOP;
        acc := acc & ((1::bigint << nbits) - 1);
    END LOOP;
    IF nbits > 0 THEN
        result := result || substr(alphabet, (((acc << (bits - nbits)) & mask) + 1)::int, 1);
    END IF;
    RETURN result;
END
$fn$;

-- The inverse: exactly nchars symbols of the alphabet (case as given), the
-- spare bits zero, so that every accepted text is the canonical form of its
-- bytes; anything else is 22P02 in PostgreSQL's words, as the C edition says.
CREATE FUNCTION flakeid_decode(t text, type_name text, alphabet text, bits int, nchars int, spare_first bool)
    RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
    nbytes int := (nchars * bits) / 8;
    spare int := nchars * bits - 8 * ((nchars * bits) / 8);
    acc bigint := 0;
    nbits int := 0;
    v int;
    hex text := '';
BEGIN
    IF length(t) <> nchars OR octet_length(t) <> nchars THEN
        RAISE EXCEPTION 'invalid input syntax for type %: "%"', type_name, t USING ERRCODE = '22P02',
            DETAIL = format('%s text is %s characters of "%s".', type_name, nchars, alphabet);
    END IF;
    FOR i IN 1 .. nchars LOOP
        v := strpos(alphabet, substr(t, i, 1)) - 1;
        IF v < 0 OR (i = 1 AND spare_first AND v >> (bits - spare) <> 0) THEN
            RAISE EXCEPTION 'invalid input syntax for type %: "%"', type_name, t USING ERRCODE = '22P02',
                DETAIL = format('%s text is %s characters of "%s".', type_name, nchars, alphabet);
        END IF;
        IF i = 1 AND spare_first THEN
            acc := v; nbits := bits - spare;
        ELSE
            acc := (acc << bits) | v; nbits := nbits + bits;
        END IF;
        IF nbits >= 8 THEN
            nbits := nbits - 8;
            hex := hex || lpad(to_hex((acc >> nbits) & 255), 2, '0');
            acc := acc & ((1::bigint << nbits) - 1);
        END IF;
    END LOOP;
    IF acc <> 0 THEN   -- trailing padding bits set: not the canonical form of any bytes
        RAISE EXCEPTION 'invalid input syntax for type %: "%"', type_name, t USING ERRCODE = '22P02',
            DETAIL = 'Its last character sets padding bits, which must be zero.';
    END IF;
    RETURN decode(hex, 'hex');
END
$fn$;

-- A value of the wrong width: 22P03, as the C edition's bytea casts and recv
-- say (a domain's own CHECK would say 23514).
CREATE FUNCTION flakeid_width_error(type_name text, b bytea, width int) RETURNS bool
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
BEGIN
    RAISE EXCEPTION 'invalid binary length for type %: % bytes', type_name, octet_length(b)
        USING ERRCODE = '22P03', DETAIL = format('A %s value is exactly %s bytes.', type_name, width),
              HINT = format('In the portable edition %s is a domain over bytea: read its text with %s_from_text(''...''), write it with %s_to_text(id).',
                            type_name, type_name, type_name);
END
$fn$;

-- The UUIDv8 embedding of src/format/uuid8.h: ID bits 0..47, version 1000,
-- ID bits 48..59, variant 10, ID bits 60.. (then zeros), and the type's tag
-- in the last byte; the ID's bits keep their order, so UUIDs sort as IDs.
CREATE FUNCTION flakeid_bits_hex(bits bit(128)) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN lpad(to_hex(substring(bits FROM 1 FOR 64)::bit(64)::bigint), 16, '0')
        || lpad(to_hex(substring(bits FROM 65 FOR 64)::bit(64)::bigint), 16, '0');
CREATE FUNCTION flakeid_to_uuid(b bytea, tag int) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT flakeid_bits_hex((substring(id FROM 1 FOR 48) || B'1000' || substring(id FROM 49 FOR 12) || B'10'
                             || substring(id FROM 61 FOR 54) || tag::bit(8))::bit(128))::uuid
    FROM (SELECT (('x' || encode(b, 'hex'))::varbit || repeat('0', 128)::varbit) AS id) i;
END;
CREATE FUNCTION flakeid_from_uuid(u uuid, type_name text, width int, tag int) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
DECLARE
    bits bit(128) := ('x' || replace(u::text, '-', ''))::bit(128);
    b bytea := substr(decode(flakeid_bits_hex((substring(bits FROM 1 FOR 48) || substring(bits FROM 53 FOR 12)
                                               || substring(bits FROM 67 FOR 54) || B'0000000000000000')::bit(128)),
                             'hex'), 1, width);
BEGIN
    IF flakeid_to_uuid(b, tag) <> u THEN   -- only our encoding of this type gives the input back
        RAISE EXCEPTION 'uuid "%" is no % (not flakeid''s UUIDv8 of one)', u, type_name USING ERRCODE = '22P03';
    END IF;
    RETURN b;
END
$fn$;

-- An identity or pool setting (flakeid.*, the C edition's names), read with
-- current_setting(name, true): a managed server lets a role SET, ALTER ROLE
-- or ALTER DATABASE ... SET a dotted name.  Unset, empty or -1: `fallback`
-- (the C edition derives identities from the system identifier, which a
-- role without pg_read_all_settings cannot read: portable/README.md).  A
-- value out of [lo, hi] is 22023 naming the setting, as the C edition's
-- generation is refused after a bad setting.
CREATE FUNCTION flakeid_setting_checked(name text, lo bigint, hi bigint, fallback bigint) RETURNS bigint
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
    raw text := current_setting(name, true);
    v bigint;
BEGIN
    IF raw IS NULL OR raw = '' OR raw = '-1' THEN
        RETURN fallback;
    END IF;
    IF raw !~ '^\s*-?[0-9]{1,18}\s*$' THEN
        RAISE EXCEPTION 'invalid value for setting %: "%"', name, raw USING ERRCODE = '22023';
    END IF;
    v := raw::bigint;
    IF v < lo OR v > hi THEN
        RAISE EXCEPTION '% = % is out of range (-1 or % .. %)', name, v, lo, hi USING ERRCODE = '22023';
    END IF;
    RETURN v;
END
$fn$;
-- (the setting unset, the usual case, without a PL/pgSQL call: an SQL
-- function the planner inlines into the generator's expression; a value
-- set is read and checked by flakeid_setting_checked)
CREATE FUNCTION flakeid_setting(name text, lo bigint, hi bigint, fallback bigint) RETURNS bigint
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN CASE WHEN coalesce(current_setting(name, true), '') IN ('', '-1') THEN fallback
                ELSE flakeid_setting_checked(name, lo, hi, fallback) END;

-- The generators' one rule.  A generator's state is a SEQUENCE holding
-- v = unit << bits | counter: nextval is the primitive PostgreSQL itself
-- makes crash-safe (WAL), replicates, and never gives twice while the
-- sequence is not moved back.  A call takes v := nextval(state); if v's unit
-- is behind the clock's it moves the sequence to the clock (setval(now_unit
-- << bits | 0)); if v's counter has passed the pool's top (a unit's pool is
-- used up), to the next unit, ahead of the clock (the C edition waits there;
-- a PL/pgSQL caller minting faster than 2^bits a unit does not exist, so the
-- ahead path serves a clock that stepped back: the units then count on from
-- the last one, as the C edition's monotonic rule does, and the clock
-- catches up).  The end of the format's range (or of what fits 63 bits) is
-- refused, 22008, before any setval.
--
-- setval is the one move that can go backward: a session that read v, then
-- lost the CPU while others took values past its setval target, would set
-- the sequence back under them, and the values between would come again.
-- So every nextval/setval runs under a lock on a table of the generator's
-- own (flakeid_<generator>_lock) that only the role which installed this
-- edition may lock, taken in a block whose subtransaction is then ended by
-- an error of its own (FL001): its end releases the lock, and the sequence
-- keeps its moves (sequences are not transactional).  A cancel, a timeout
-- or any error at any statement ends the subtransaction too: no path
-- leaves the lock held, and no other role can take it (an advisory lock,
-- the first design, was open to any role, and a session-level one could
-- outlive a second cancel).  A transaction-level lock would serialize whole
-- transactions instead; a row lock would spend a transaction ID a call.
--
-- This function is the one SECURITY DEFINER function of the edition, and
-- what it moves it computes itself: the unit from the clock, the pool from
-- the generator's format (siq's from its kind's width, 3 to 5 bits).  So a
-- role that may call it (every role, as every role may mint) can take IDs
-- and nothing else: no unit of its choosing, no pool that would carry the
-- shared state ahead of the clock.  Its body calls only pg_catalog (searched
-- first) and flakeid_snowflake_epoch_ms(), fixed when the edition was
-- installed.
--
-- Crashes: nextval logs 32 values ahead, and its WAL reaches disk with the
-- next commit that flushes (a transaction that only takes values logged
-- before may not flush at all), so an ID a client read can be issued again
-- after a crash; it is not, because the restart takes longer than a unit and
-- the first call after it jumps to the clock.  That holds unless the counter
-- had run ahead of the clock or the clock stepped back across the crash
-- (portable/README.md).  A promoted standby is the same case, on the
-- standby's clock.
CREATE TABLE flakeid_sno_lock ();
CREATE TABLE flakeid_siq_lock ();
CREATE TABLE flakeid_kuid_lock ();
CREATE TABLE flakeid_snowflake_lock ();
COMMENT ON TABLE flakeid_sno_lock IS 'locked (never read or written) while sno_new moves its state; the other three alike';
CREATE FUNCTION flakeid_next(generator text, siq_width int4 DEFAULT 3) RETURNS int8
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER SET search_path FROM CURRENT AS $fn$
DECLARE
    us int8 := (extract(epoch FROM clock_timestamp()) * 1000000)::int8;
    now_unit int8;
    bits int4;
    top int8;
    max_unit int8;
    state regclass;
    v int8;
    unit int8;
    counter int8;
BEGIN
    CASE generator
    WHEN 'sno' THEN          -- 4 ms units since 2010; sequence 0 .. 65535
        now_unit := (us - 1262304000000000::int8) / 4000::int8;
        bits := 16; top := 65535; max_unit := (1::int8 << 39) - 1::int8; state := 'flakeid_sno_state';
    WHEN 'siq' THEN          -- t56 (seconds << 16 | 1/65536 s); serial of a kind of width 3 to 5
        IF siq_width NOT BETWEEN 3 AND 5 THEN
            RAISE EXCEPTION 'no siq kind is % bits wide', siq_width USING ERRCODE = '22023';
        END IF;
        now_unit := ((us / 1000000::int8) << 16) | ((us % 1000000::int8) * 65536::int8 / 1000000::int8);
        bits := 13; top := (1::int8 << (16 - siq_width)) - 1::int8; max_unit := (1::int8 << 50) - 1::int8;
        state := 'flakeid_siq_state';
    WHEN 'kuid' THEN         -- ticks counted linearly, (Mega * 10^6 + Sec) * 977 + Tick; Seq 0 .. 16383
        now_unit := ((us / 1000000000000::int8) * 1000000::int8 + (us / 1000000::int8) % 1000000::int8) * 977::int8
                    + (us % 1000000::int8) / 1024::int8;
        bits := 14; top := 16383; max_unit := (1::int8 << 48) - 1::int8; state := 'flakeid_kuid_state';
    WHEN 'snowflake' THEN    -- Unix milliseconds; sequence 0 .. 4095; the epoch fixed at install
        now_unit := us / 1000::int8;
        IF now_unit < flakeid_snowflake_epoch_ms() THEN
            RAISE EXCEPTION 'the clock is before the snowflake epoch' USING ERRCODE = '22008';
        END IF;
        bits := 12; top := 4095; max_unit := flakeid_snowflake_epoch_ms() + (1::int8 << 41) - 1::int8;
        state := 'flakeid_snowflake_state';
    ELSE
        RAISE EXCEPTION 'no generator "%"', generator USING ERRCODE = '22023';
    END CASE;
    IF now_unit < 0 THEN
        RAISE EXCEPTION 'the clock is before the % generator''s time range', generator USING ERRCODE = '22008';
    END IF;
    BEGIN
        CASE generator
        WHEN 'sno' THEN LOCK TABLE flakeid_sno_lock IN SHARE UPDATE EXCLUSIVE MODE;
        WHEN 'siq' THEN LOCK TABLE flakeid_siq_lock IN SHARE UPDATE EXCLUSIVE MODE;
        WHEN 'kuid' THEN LOCK TABLE flakeid_kuid_lock IN SHARE UPDATE EXCLUSIVE MODE;
        ELSE LOCK TABLE flakeid_snowflake_lock IN SHARE UPDATE EXCLUSIVE MODE;
        END CASE;
        v := nextval(state);
        unit := v >> bits;
        counter := v & ((1::int8 << bits) - 1::int8);
        IF unit < now_unit THEN
            unit := now_unit; counter := 0;
        ELSIF counter > top THEN
            unit := unit + 1::int8; counter := 0;
        END IF;
        IF unit > max_unit THEN
            RAISE EXCEPTION 'the % generator has used up the last time unit it can issue in', generator
                USING ERRCODE = '22008';
        END IF;
        IF ((unit << bits) | counter) <> v THEN
            -- (an assignment, not PERFORM: PL/pgSQL's simple-expression path)
            v := setval(state, (unit << bits) | counter);
        END IF;
        RAISE SQLSTATE 'FL001';   -- ends the block: the lock goes with its subtransaction
    EXCEPTION WHEN SQLSTATE 'FL001' THEN
        NULL;
    END;
    RETURN v;
END
$fn$;
COMMENT ON FUNCTION flakeid_next(text, int4) IS
    'the next value of a generator''s state (a unit and its counter); the generators'' one rule';
