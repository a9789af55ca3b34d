
-- kuid96: generators, constructors and extractors (docs/spec/kuid.md §3, interval 8)

COMMENT ON TYPE kuid96 IS 'kuid96 (Erlang uid''s global ID), 12 bytes: a kuid''s tick and sequence with a 32-bit node fingerprint, k-ordered by 256 s window; 16 characters as text';

CREATE FUNCTION kuid96_new() RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_new() IS
    'new kuid96: the fingerprint of flakeid.kuid_node, and time and sequence from the generator kuid shares';
CREATE FUNCTION kuid96_new_at(ts timestamptz) RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_new_at(timestamptz) IS
    'back-fill: kuid96 for the given time, sequence from the counter kuid_new_at shares';

CREATE FUNCTION kuid96_time(kuid96) RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_time(kuid96) IS
    'start of the tick: (Mega*10^6 + Sec)*10^6 + Tick*1024 microseconds since 1970';
CREATE FUNCTION kuid96_seq(kuid96) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_seq(kuid96) IS 'the 14-bit sequence';
CREATE FUNCTION kuid96_node(kuid96) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_node(kuid96) IS 'the 32-bit node fingerprint';

-- between the two: attach a node, or drop it (the library's gtol)
CREATE FUNCTION kuid96(kuid) RETURNS kuid96
    AS 'MODULE_PATHNAME', 'kuid96_from_kuid' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96(kuid) IS
    'the same time and sequence with this server''s node (flakeid.kuid_node)';
CREATE FUNCTION kuid96(kuid, node int8) RETURNS kuid96
    AS 'MODULE_PATHNAME', 'kuid96_from_kuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96(kuid, int8) IS
    'the same time and sequence with the given node fingerprint (0 .. 2^32-1)';
CREATE FUNCTION kuid(kuid96) RETURNS kuid
    AS 'MODULE_PATHNAME', 'kuid_from_kuid96' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid(kuid96) IS 'drops the node (the library''s gtol): uniqueness is not kept';
CREATE CAST (kuid AS kuid96) WITH FUNCTION kuid96(kuid);
COMMENT ON CAST (kuid AS kuid96) IS 'explicit: kuid96(kuid), the same tick and sequence with this server''s node';
CREATE CAST (kuid96 AS kuid) WITH FUNCTION kuid(kuid96);
COMMENT ON CAST (kuid96 AS kuid) IS 'explicit: kuid(kuid96), the node dropped; uniqueness is not kept';

CREATE FUNCTION kuid96_lower_bound(ts timestamptz) RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_lower_bound(timestamptz) IS
    'smallest kuid96 of the 256-second window containing ts (inside a window the node outranks time)';
CREATE FUNCTION kuid96_upper_bound(ts timestamptz) RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_upper_bound(timestamptz) IS
    'largest kuid96 of the 256-second window containing ts';

-- the library's checked l(Id), and encode/2 and decode/2 at other intervals (1.1)
CREATE FUNCTION kuid96_local(kuid96) RETURNS kuid
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_local(kuid96) IS
    'the kuid of a kuid96 of this server''s node (flakeid.kuid_node); another node''s is refused (22023), as the library''s l/1 refuses it';
CREATE FUNCTION kuid96_encode(id kuid96, "interval" int4) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_encode(kuid96, int4) IS
    'the 12 bytes the uid library''s encode/2 writes for neighbourhood interval 5 .. 10 (8 is the type''s own bytes)';
CREATE FUNCTION kuid96_decode(b bytea, "interval" int4) RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_decode(bytea, int4) IS
    'the kuid96 of 12 bytes the uid library wrote with neighbourhood interval 5 .. 10';

-- the uid library's vector clocks (docs/spec/kuid.md §8) on kuid96[], one entry
-- per node (1.1).  Not STRICT: a NULL clock or entry is an error, not NULL.
CREATE FUNCTION kuid96_vclock() RETURNS kuid96[]
    AS 'MODULE_PATHNAME', 'kuid96_vclock_new' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_vclock() IS 'a new vector clock: ARRAY[kuid96_new()]';
CREATE FUNCTION kuid96_vclock(vc kuid96[]) RETURNS kuid96[]
    AS 'MODULE_PATHNAME', 'kuid96_vclock_tick' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_vclock(kuid96[]) IS
    'the tick: drops this server''s entry and puts a fresh kuid96_new() first';
CREATE FUNCTION kuid96_vclock_join(a kuid96[], b kuid96[]) RETURNS kuid96[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_vclock_join(kuid96[], kuid96[]) IS
    'per node the larger entry (time, then sequence), sorted by node';
CREATE FUNCTION kuid96_vclock_descends(a kuid96[], b kuid96[]) RETURNS bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_vclock_descends(kuid96[], kuid96[]) IS
    'every entry of b has an entry of its node in a that is at least as large; true when b is empty';
CREATE FUNCTION kuid96_vclock_descends(a kuid96[], b kuid96[], ignore_node int8) RETURNS bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_vclock_descends(kuid96[], kuid96[], int8) IS
    'the same, the entries of node ignore_node left out of both';
CREATE FUNCTION kuid96_vclock_diff(a kuid96[], b kuid96[],
    OUT node int8, OUT entry kuid96, OUT time_ahead interval, OUT seq_ahead int4)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 4;
COMMENT ON FUNCTION kuid96_vclock_diff(kuid96[], kuid96[]) IS
    'the entries of b that a does not descend, in b''s order, with how far each is ahead of a''s entry of its node (NULL when a has none)';

-- readers by ID: every ID kuid96_new() issued below it belongs to an ended
-- transaction, and every one it issues after the call is at or above it (1.2)
CREATE FUNCTION kuid96_horizon() RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid96_horizon() IS
    'the horizon of kuid96_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';
