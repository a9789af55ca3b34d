
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

-- Unix microseconds as an instant: whole seconds and the rest apart, so that
-- interval arithmetic (in float8) stays exact up to siq's year 36812.
CREATE FUNCTION flakeid_timestamptz(unix_us bigint) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN timestamptz 'epoch' + (div(unix_us, 1000000)::float8 * interval '1 second')
                               + (mod(unix_us, 1000000)::float8 * interval '1 microsecond');

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
        USING ERRCODE = '22P03', DETAIL = format('A %s value is exactly %s bytes.', type_name, width);
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
CREATE FUNCTION flakeid_setting(name text, lo bigint, hi bigint, fallback bigint) RETURNS bigint
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

-- The generators' one rule.  A generator's state is a SEQUENCE holding
-- v = unit << bits | counter: nextval is the primitive PostgreSQL itself
-- makes crash-safe (WAL), replicates, and never gives twice while the
-- sequence is not moved back.  A call takes v := nextval(state); if v's unit
-- is behind the clock's (`now_unit`) it moves the sequence to the clock
-- (setval(now_unit << bits | counter_min)); if v's counter has passed
-- counter_max (the pool of a unit is used up), to the next unit, ahead of
-- the clock (the C edition waits there; a PL/pgSQL caller minting faster
-- than 2^bits a unit does not exist, so the ahead path serves a clock that
-- stepped back: the units then count on from the last one, as the C
-- edition's monotonic rule does, and the clock catches up).
--
-- setval is the one move that can go backward: a session that read v, then
-- lost the CPU while others took values past its setval target, would set
-- the sequence back under them, and the values between would come again.
-- So every nextval/setval pair runs under one session-level advisory lock
-- per generator (key: 'flkp' and the sequence's oid); it is released before
-- the call returns, and an error or cancel between (statement_timeout,
-- pg_cancel_backend, a refusal) releases it in the handler before it is
-- raised again: a lock left held would stop every other session.  A
-- transaction-level lock would serialize whole transactions instead.
-- (No cheaper scheme found is provably safe: without the lock the safety of
-- setval rests on how many values others take during one preemption.)
--
-- Crashes: nextval's WAL record reaches disk with the commit of the
-- transaction that took it (PostgreSQL logs sequences 32 values ahead), so
-- an ID read by a client before that commit can be issued again after a
-- crash; it is not, because the restart takes longer than a unit and the
-- first call after it jumps to the clock.  That holds unless the counter
-- had run ahead of the clock or the clock stepped back across the crash
-- (portable/README.md, "What holds after a crash").  A promoted standby is
-- the same case: its sequences are what it replayed, and the clock covers
-- what it did not receive.
--
-- Refused: a unit past max_unit (the end of the format's time range, or of
-- what fits the sequence's 63 bits): 22008, as the C edition's generator.
CREATE FUNCTION flakeid_next(state regclass, now_unit bigint, bits int, counter_min bigint, counter_max bigint,
                             max_unit bigint, generator text) RETURNS bigint
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $fn$
DECLARE
    key bigint := (x'666c6b70'::bigint << 32) | state::oid::bigint;
    v bigint;
    unit bigint;
    counter bigint;
BEGIN
    BEGIN
        -- (taken inside the block: PL/pgSQL checks for a cancel before each
        -- statement, so one between the lock and the block would leave it held)
        PERFORM pg_advisory_lock(key);
        v := nextval(state);
        unit := v >> bits;
        counter := v & ((1::bigint << bits) - 1);
        IF unit < now_unit THEN
            unit := now_unit;
            v := (unit << bits) | counter_min;
            PERFORM setval(state, v);
        ELSIF counter > counter_max OR counter < counter_min THEN
            unit := unit + 1;
            v := (unit << bits) | counter_min;
            PERFORM setval(state, v);
        END IF;
        IF unit > max_unit THEN
            RAISE EXCEPTION 'the % generator has used up the last time unit it can issue in', generator
                USING ERRCODE = '22008';
        END IF;
        PERFORM pg_advisory_unlock(key);
    EXCEPTION WHEN query_canceled OR others THEN
        -- (held only if the cancel came after the wait for it ended)
        IF EXISTS (SELECT FROM pg_catalog.pg_locks l
                   WHERE l.locktype = 'advisory' AND l.pid = pg_catalog.pg_backend_pid()
                     AND l.classid = (key >> 32)::oid AND l.objid = (key & 4294967295)::oid
                     AND l.objsubid = 1 AND l.granted) THEN
            PERFORM pg_advisory_unlock(key);
        END IF;
        RAISE;
    END;
    RETURN v;
END
$fn$;
-- Only the generators (SECURITY DEFINER, owned by the role that installed
-- this edition, which owns the state sequences) move a generator's state:
-- a role that mints needs EXECUTE on them and nothing on the sequences, and
-- cannot set a state ahead or back (setval needs UPDATE on the sequence).
REVOKE ALL ON FUNCTION flakeid_next(regclass, bigint, int, bigint, bigint, bigint, text) FROM PUBLIC;
