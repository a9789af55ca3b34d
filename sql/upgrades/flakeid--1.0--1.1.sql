-- flakeid 1.0 -> 1.1

\echo Use "ALTER EXTENSION flakeid UPDATE TO '1.1'" to load this file. \quit

-- flakeid_generators and the function behind it follow one rule: superusers
-- and members of pg_monitor (1.0 left the function executable by PUBLIC)
REVOKE ALL ON FUNCTION flakeid_generators() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION flakeid_generators() TO pg_monitor;
REVOKE ALL ON flakeid_generators FROM PUBLIC;
GRANT SELECT ON flakeid_generators TO pg_monitor;

-- =====================================================================
-- 1.1: the storage type of every GiST operator class (index_support.c)
-- =====================================================================

-- the interval [lower, upper] of the IDs below a GiST entry: 16 bytes per
-- bound; printed as both bounds in hex (gist_page_items shows it)
CREATE TYPE flakeid_gist_key;
CREATE FUNCTION flakeid_gist_key_in(cstring) RETURNS flakeid_gist_key
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flakeid_gist_key_out(flakeid_gist_key) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE flakeid_gist_key (
    INTERNALLENGTH = 32, INPUT = flakeid_gist_key_in, OUTPUT = flakeid_gist_key_out,
    ALIGNMENT = char, STORAGE = plain
);
COMMENT ON TYPE flakeid_gist_key IS 'the key of flakeid''s GiST indexes: the lowest and highest ID below an entry';

-- sno: what 1.1 adds (generated into both the install and the 1.0 -> 1.1 scripts)

-- an ID at a glance: every field and the time (in UTC), as jsonb (1.1)
CREATE FUNCTION sno_fields(sno) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_fields(sno) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';

-- time distance: the operator <-> (nearest IDs in time, GiST ORDER BY) and
-- BRIN minmax-multi's support function 11
CREATE FUNCTION sno_time_distance(sno, sno) RETURNS interval
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sno_time_distance(sno, sno) IS
    'the operator <->: how far apart the two IDs'' times are';
CREATE OPERATOR <-> (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_time_distance, COMMUTATOR = <->
);
CREATE FUNCTION sno_brin_distance(internal, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- window frames by time: RANGE BETWEEN interval ... PRECEDING/FOLLOWING over ORDER BY id
CREATE FUNCTION in_range(sno, sno, interval, bool, bool) RETURNS bool
    AS 'MODULE_PATHNAME', 'sno_window_in_range' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION in_range(sno, sno, interval, bool, bool) IS
    'btree in_range support: window RANGE frames with interval offsets, on the times ID order follows';
ALTER OPERATOR FAMILY sno_ops USING btree ADD
    FUNCTION 3 (sno, interval) in_range(sno, sno, interval, bool, bool);

-- skip scans (btree support function 6, PostgreSQL 18 and later)
CREATE FUNCTION sno_skipsupport(internal) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
DO $do$ BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        ALTER OPERATOR FAMILY sno_ops USING btree ADD FUNCTION 6 (sno, sno) sno_skipsupport(internal);
    END IF;
END $do$;

-- BRIN minmax-multi: several ranges per block range, merged by time distance
CREATE OPERATOR CLASS sno_minmax_multi_ops FOR TYPE sno USING brin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, int4),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 sno_brin_distance(internal, internal);

-- GiST: keys are intervals of IDs (as btree_gist's), for exclusion
-- constraints mixed with ranges and for nearest-in-time ORDER BY
CREATE FUNCTION sno_gist_consistent(internal, sno, int2, oid, internal) RETURNS bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_gist_distance(internal, sno, int2, oid, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_gist_union(internal, internal) RETURNS flakeid_gist_key
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_gist_compress(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_gist_fetch(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_gist_penalty(internal, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_gist_picksplit(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_gist_same(flakeid_gist_key, flakeid_gist_key, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS sno_ops DEFAULT FOR TYPE sno USING gist AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    OPERATOR 6 <>,
    OPERATOR 15 <-> (sno, sno) FOR ORDER BY pg_catalog.interval_ops,
    FUNCTION 1 sno_gist_consistent(internal, sno, int2, oid, internal),
    FUNCTION 2 sno_gist_union(internal, internal),
    FUNCTION 3 sno_gist_compress(internal),
    FUNCTION 5 sno_gist_penalty(internal, internal, internal),
    FUNCTION 6 sno_gist_picksplit(internal, internal),
    FUNCTION 7 sno_gist_same(flakeid_gist_key, flakeid_gist_key, internal),
    FUNCTION 8 sno_gist_distance(internal, sno, int2, oid, internal),
    FUNCTION 9 sno_gist_fetch(internal),
    STORAGE flakeid_gist_key;

-- GIN, as btree_gin gives core types: multicolumn GIN indexes mixing an ID
-- with jsonb or arrays, with = and the range strategies
CREATE FUNCTION sno_gin_extract_value(sno, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_gin_extract_query(sno, internal, int2, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_gin_consistent(internal, int2, sno, int4, internal, internal) RETURNS bool
    AS 'MODULE_PATHNAME', 'flakeid_gin_consistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sno_gin_compare_partial(sno, sno, int2, internal) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS sno_ops DEFAULT FOR TYPE sno USING gin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 sno_cmp(sno, sno),
    FUNCTION 2 sno_gin_extract_value(sno, internal),
    FUNCTION 3 sno_gin_extract_query(sno, internal, int2, internal, internal),
    FUNCTION 4 sno_gin_consistent(internal, int2, sno, int4, internal, internal),
    FUNCTION 5 sno_gin_compare_partial(sno, sno, int2, internal);

-- flax: what 1.1 adds (generated into both the install and the 1.0 -> 1.1 scripts)

-- an ID at a glance: every field and the time (in UTC), as jsonb (1.1)
CREATE FUNCTION flax_fields(flax) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_fields(flax) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';

-- time distance: the operator <-> (nearest IDs in time, GiST ORDER BY) and
-- BRIN minmax-multi's support function 11
CREATE FUNCTION flax_time_distance(flax, flax) RETURNS interval
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flax_time_distance(flax, flax) IS
    'the operator <->: how far apart the two IDs'' times are';
CREATE OPERATOR <-> (
    LEFTARG = flax, RIGHTARG = flax, FUNCTION = flax_time_distance, COMMUTATOR = <->
);
CREATE FUNCTION flax_brin_distance(internal, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- window frames by time: RANGE BETWEEN interval ... PRECEDING/FOLLOWING over ORDER BY id
CREATE FUNCTION in_range(flax, flax, interval, bool, bool) RETURNS bool
    AS 'MODULE_PATHNAME', 'flax_window_in_range' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION in_range(flax, flax, interval, bool, bool) IS
    'btree in_range support: window RANGE frames with interval offsets, on the times ID order follows';
ALTER OPERATOR FAMILY flax_ops USING btree ADD
    FUNCTION 3 (flax, interval) in_range(flax, flax, interval, bool, bool);

-- skip scans (btree support function 6, PostgreSQL 18 and later)
CREATE FUNCTION flax_skipsupport(internal) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
DO $do$ BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        ALTER OPERATOR FAMILY flax_ops USING btree ADD FUNCTION 6 (flax, flax) flax_skipsupport(internal);
    END IF;
END $do$;

-- BRIN minmax-multi: several ranges per block range, merged by time distance
CREATE OPERATOR CLASS flax_minmax_multi_ops FOR TYPE flax USING brin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, int4),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 flax_brin_distance(internal, internal);

-- GiST: keys are intervals of IDs (as btree_gist's), for exclusion
-- constraints mixed with ranges and for nearest-in-time ORDER BY
CREATE FUNCTION flax_gist_consistent(internal, flax, int2, oid, internal) RETURNS bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_gist_distance(internal, flax, int2, oid, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_gist_union(internal, internal) RETURNS flakeid_gist_key
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_gist_compress(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_gist_fetch(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_gist_penalty(internal, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_gist_picksplit(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_gist_same(flakeid_gist_key, flakeid_gist_key, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS flax_ops DEFAULT FOR TYPE flax USING gist AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    OPERATOR 6 <>,
    OPERATOR 15 <-> (flax, flax) FOR ORDER BY pg_catalog.interval_ops,
    FUNCTION 1 flax_gist_consistent(internal, flax, int2, oid, internal),
    FUNCTION 2 flax_gist_union(internal, internal),
    FUNCTION 3 flax_gist_compress(internal),
    FUNCTION 5 flax_gist_penalty(internal, internal, internal),
    FUNCTION 6 flax_gist_picksplit(internal, internal),
    FUNCTION 7 flax_gist_same(flakeid_gist_key, flakeid_gist_key, internal),
    FUNCTION 8 flax_gist_distance(internal, flax, int2, oid, internal),
    FUNCTION 9 flax_gist_fetch(internal),
    STORAGE flakeid_gist_key;

-- GIN, as btree_gin gives core types: multicolumn GIN indexes mixing an ID
-- with jsonb or arrays, with = and the range strategies
CREATE FUNCTION flax_gin_extract_value(flax, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_gin_extract_query(flax, internal, int2, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_gin_consistent(internal, int2, flax, int4, internal, internal) RETURNS bool
    AS 'MODULE_PATHNAME', 'flakeid_gin_consistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION flax_gin_compare_partial(flax, flax, int2, internal) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS flax_ops DEFAULT FOR TYPE flax USING gin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 flax_cmp(flax, flax),
    FUNCTION 2 flax_gin_extract_value(flax, internal),
    FUNCTION 3 flax_gin_extract_query(flax, internal, int2, internal, internal),
    FUNCTION 4 flax_gin_consistent(internal, int2, flax, int4, internal, internal),
    FUNCTION 5 flax_gin_compare_partial(flax, flax, int2, internal);

-- siq: what 1.1 adds (generated into both the install and the 1.0 -> 1.1 scripts)

-- an ID at a glance: every field and the time (in UTC), as jsonb (1.1)
CREATE FUNCTION siq_fields(siq) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_fields(siq) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';

-- time distance: the operator <-> (nearest IDs in time, GiST ORDER BY) and
-- BRIN minmax-multi's support function 11
CREATE FUNCTION siq_time_distance(siq, siq) RETURNS interval
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_time_distance(siq, siq) IS
    'the operator <->: how far apart the two IDs'' times are';
CREATE OPERATOR <-> (
    LEFTARG = siq, RIGHTARG = siq, FUNCTION = siq_time_distance, COMMUTATOR = <->
);
CREATE FUNCTION siq_brin_distance(internal, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- window frames by time: RANGE BETWEEN interval ... PRECEDING/FOLLOWING over ORDER BY id
CREATE FUNCTION in_range(siq, siq, interval, bool, bool) RETURNS bool
    AS 'MODULE_PATHNAME', 'siq_window_in_range' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION in_range(siq, siq, interval, bool, bool) IS
    'btree in_range support: window RANGE frames with interval offsets, on the times ID order follows';
ALTER OPERATOR FAMILY siq_ops USING btree ADD
    FUNCTION 3 (siq, interval) in_range(siq, siq, interval, bool, bool);

-- skip scans (btree support function 6, PostgreSQL 18 and later)
CREATE FUNCTION siq_skipsupport(internal) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
DO $do$ BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        ALTER OPERATOR FAMILY siq_ops USING btree ADD FUNCTION 6 (siq, siq) siq_skipsupport(internal);
    END IF;
END $do$;

-- BRIN minmax-multi: several ranges per block range, merged by time distance
CREATE OPERATOR CLASS siq_minmax_multi_ops FOR TYPE siq USING brin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, int4),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 siq_brin_distance(internal, internal);

-- GiST: keys are intervals of IDs (as btree_gist's), for exclusion
-- constraints mixed with ranges and for nearest-in-time ORDER BY
CREATE FUNCTION siq_gist_consistent(internal, siq, int2, oid, internal) RETURNS bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION siq_gist_distance(internal, siq, int2, oid, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION siq_gist_union(internal, internal) RETURNS flakeid_gist_key
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION siq_gist_compress(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION siq_gist_fetch(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION siq_gist_penalty(internal, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION siq_gist_picksplit(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION siq_gist_same(flakeid_gist_key, flakeid_gist_key, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS siq_ops DEFAULT FOR TYPE siq USING gist AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    OPERATOR 6 <>,
    OPERATOR 15 <-> (siq, siq) FOR ORDER BY pg_catalog.interval_ops,
    FUNCTION 1 siq_gist_consistent(internal, siq, int2, oid, internal),
    FUNCTION 2 siq_gist_union(internal, internal),
    FUNCTION 3 siq_gist_compress(internal),
    FUNCTION 5 siq_gist_penalty(internal, internal, internal),
    FUNCTION 6 siq_gist_picksplit(internal, internal),
    FUNCTION 7 siq_gist_same(flakeid_gist_key, flakeid_gist_key, internal),
    FUNCTION 8 siq_gist_distance(internal, siq, int2, oid, internal),
    FUNCTION 9 siq_gist_fetch(internal),
    STORAGE flakeid_gist_key;

-- GIN, as btree_gin gives core types: multicolumn GIN indexes mixing an ID
-- with jsonb or arrays, with = and the range strategies
CREATE FUNCTION siq_gin_extract_value(siq, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION siq_gin_extract_query(siq, internal, int2, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION siq_gin_consistent(internal, int2, siq, int4, internal, internal) RETURNS bool
    AS 'MODULE_PATHNAME', 'flakeid_gin_consistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION siq_gin_compare_partial(siq, siq, int2, internal) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS siq_ops DEFAULT FOR TYPE siq USING gin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 siq_cmp(siq, siq),
    FUNCTION 2 siq_gin_extract_value(siq, internal),
    FUNCTION 3 siq_gin_extract_query(siq, internal, int2, internal, internal),
    FUNCTION 4 siq_gin_consistent(internal, int2, siq, int4, internal, internal),
    FUNCTION 5 siq_gin_compare_partial(siq, siq, int2, internal);

-- the library's other text forms, and its snowflake migrator (1.1)
CREATE FUNCTION siq_format(id siq, form text) RETURNS text
    AS 'MODULE_PATHNAME', 'siq_to_form' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_format(siq, text) IS
    'the ID in one of the library''s forms: dec, hex, oct, base64, cb32, 0c, b32l, u or did';
CREATE FUNCTION siq_parse(input text, form text) RETURNS siq
    AS 'MODULE_PATHNAME', 'siq_from_form' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_parse(text, text) IS
    'the inverse of siq_format: exactly the text that form writes (22P02 otherwise)';
CREATE FUNCTION siq_from_snowflake(id int8, domain text, kind text, epoch timestamptz) RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_from_snowflake(int8, text, text, timestamptz) IS
    'the library''s SnowflakeSiqMigrator: the siq a snowflake with the given epoch becomes, with the domain''s hash and the kind';

-- kuid: what 1.1 adds (generated into both the install and the 1.0 -> 1.1 scripts)

-- an ID at a glance: every field and the time (in UTC), as jsonb (1.1)
CREATE FUNCTION kuid_fields(kuid) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid_fields(kuid) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';

-- time distance: the operator <-> (nearest IDs in time, GiST ORDER BY) and
-- BRIN minmax-multi's support function 11
CREATE FUNCTION kuid_time_distance(kuid, kuid) RETURNS interval
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid_time_distance(kuid, kuid) IS
    'the operator <->: how far apart the two IDs'' times are';
CREATE OPERATOR <-> (
    LEFTARG = kuid, RIGHTARG = kuid, FUNCTION = kuid_time_distance, COMMUTATOR = <->
);
CREATE FUNCTION kuid_brin_distance(internal, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- window frames by time: RANGE BETWEEN interval ... PRECEDING/FOLLOWING over ORDER BY id
CREATE FUNCTION in_range(kuid, kuid, interval, bool, bool) RETURNS bool
    AS 'MODULE_PATHNAME', 'kuid_window_in_range' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION in_range(kuid, kuid, interval, bool, bool) IS
    'btree in_range support: window RANGE frames with interval offsets, on the times ID order follows';
ALTER OPERATOR FAMILY kuid_ops USING btree ADD
    FUNCTION 3 (kuid, interval) in_range(kuid, kuid, interval, bool, bool);

-- skip scans (btree support function 6, PostgreSQL 18 and later)
CREATE FUNCTION kuid_skipsupport(internal) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
DO $do$ BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        ALTER OPERATOR FAMILY kuid_ops USING btree ADD FUNCTION 6 (kuid, kuid) kuid_skipsupport(internal);
    END IF;
END $do$;

-- BRIN minmax-multi: several ranges per block range, merged by time distance
CREATE OPERATOR CLASS kuid_minmax_multi_ops FOR TYPE kuid USING brin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, int4),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 kuid_brin_distance(internal, internal);

-- GiST: keys are intervals of IDs (as btree_gist's), for exclusion
-- constraints mixed with ranges and for nearest-in-time ORDER BY
CREATE FUNCTION kuid_gist_consistent(internal, kuid, int2, oid, internal) RETURNS bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid_gist_distance(internal, kuid, int2, oid, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid_gist_union(internal, internal) RETURNS flakeid_gist_key
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid_gist_compress(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid_gist_fetch(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid_gist_penalty(internal, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid_gist_picksplit(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid_gist_same(flakeid_gist_key, flakeid_gist_key, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS kuid_ops DEFAULT FOR TYPE kuid USING gist AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    OPERATOR 6 <>,
    OPERATOR 15 <-> (kuid, kuid) FOR ORDER BY pg_catalog.interval_ops,
    FUNCTION 1 kuid_gist_consistent(internal, kuid, int2, oid, internal),
    FUNCTION 2 kuid_gist_union(internal, internal),
    FUNCTION 3 kuid_gist_compress(internal),
    FUNCTION 5 kuid_gist_penalty(internal, internal, internal),
    FUNCTION 6 kuid_gist_picksplit(internal, internal),
    FUNCTION 7 kuid_gist_same(flakeid_gist_key, flakeid_gist_key, internal),
    FUNCTION 8 kuid_gist_distance(internal, kuid, int2, oid, internal),
    FUNCTION 9 kuid_gist_fetch(internal),
    STORAGE flakeid_gist_key;

-- GIN, as btree_gin gives core types: multicolumn GIN indexes mixing an ID
-- with jsonb or arrays, with = and the range strategies
CREATE FUNCTION kuid_gin_extract_value(kuid, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid_gin_extract_query(kuid, internal, int2, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid_gin_consistent(internal, int2, kuid, int4, internal, internal) RETURNS bool
    AS 'MODULE_PATHNAME', 'flakeid_gin_consistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid_gin_compare_partial(kuid, kuid, int2, internal) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS kuid_ops DEFAULT FOR TYPE kuid USING gin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 kuid_cmp(kuid, kuid),
    FUNCTION 2 kuid_gin_extract_value(kuid, internal),
    FUNCTION 3 kuid_gin_extract_query(kuid, internal, int2, internal, internal),
    FUNCTION 4 kuid_gin_consistent(internal, int2, kuid, int4, internal, internal),
    FUNCTION 5 kuid_gin_compare_partial(kuid, kuid, int2, internal);

-- kuid96: what 1.1 adds (generated into both the install and the 1.0 -> 1.1 scripts)

-- an ID at a glance: every field and the time (in UTC), as jsonb (1.1)
CREATE FUNCTION kuid96_fields(kuid96) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_fields(kuid96) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';

-- time distance: the operator <-> (nearest IDs in time, GiST ORDER BY) and
-- BRIN minmax-multi's support function 11
CREATE FUNCTION kuid96_time_distance(kuid96, kuid96) RETURNS interval
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION kuid96_time_distance(kuid96, kuid96) IS
    'the operator <->: how far apart the two IDs'' times are';
CREATE OPERATOR <-> (
    LEFTARG = kuid96, RIGHTARG = kuid96, FUNCTION = kuid96_time_distance, COMMUTATOR = <->
);
CREATE FUNCTION kuid96_brin_distance(internal, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- window frames by time: RANGE BETWEEN interval ... PRECEDING/FOLLOWING over ORDER BY id
CREATE FUNCTION in_range(kuid96, kuid96, interval, bool, bool) RETURNS bool
    AS 'MODULE_PATHNAME', 'kuid96_window_in_range' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION in_range(kuid96, kuid96, interval, bool, bool) IS
    'btree in_range support: window RANGE frames with interval offsets, on the times ID order follows';
ALTER OPERATOR FAMILY kuid96_ops USING btree ADD
    FUNCTION 3 (kuid96, interval) in_range(kuid96, kuid96, interval, bool, bool);

-- skip scans (btree support function 6, PostgreSQL 18 and later)
CREATE FUNCTION kuid96_skipsupport(internal) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
DO $do$ BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        ALTER OPERATOR FAMILY kuid96_ops USING btree ADD FUNCTION 6 (kuid96, kuid96) kuid96_skipsupport(internal);
    END IF;
END $do$;

-- BRIN minmax-multi: several ranges per block range, merged by time distance
CREATE OPERATOR CLASS kuid96_minmax_multi_ops FOR TYPE kuid96 USING brin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, int4),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 kuid96_brin_distance(internal, internal);

-- GiST: keys are intervals of IDs (as btree_gist's), for exclusion
-- constraints mixed with ranges and for nearest-in-time ORDER BY
CREATE FUNCTION kuid96_gist_consistent(internal, kuid96, int2, oid, internal) RETURNS bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid96_gist_distance(internal, kuid96, int2, oid, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid96_gist_union(internal, internal) RETURNS flakeid_gist_key
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid96_gist_compress(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid96_gist_fetch(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid96_gist_penalty(internal, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid96_gist_picksplit(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid96_gist_same(flakeid_gist_key, flakeid_gist_key, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS kuid96_ops DEFAULT FOR TYPE kuid96 USING gist AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    OPERATOR 6 <>,
    OPERATOR 15 <-> (kuid96, kuid96) FOR ORDER BY pg_catalog.interval_ops,
    FUNCTION 1 kuid96_gist_consistent(internal, kuid96, int2, oid, internal),
    FUNCTION 2 kuid96_gist_union(internal, internal),
    FUNCTION 3 kuid96_gist_compress(internal),
    FUNCTION 5 kuid96_gist_penalty(internal, internal, internal),
    FUNCTION 6 kuid96_gist_picksplit(internal, internal),
    FUNCTION 7 kuid96_gist_same(flakeid_gist_key, flakeid_gist_key, internal),
    FUNCTION 8 kuid96_gist_distance(internal, kuid96, int2, oid, internal),
    FUNCTION 9 kuid96_gist_fetch(internal),
    STORAGE flakeid_gist_key;

-- GIN, as btree_gin gives core types: multicolumn GIN indexes mixing an ID
-- with jsonb or arrays, with = and the range strategies
CREATE FUNCTION kuid96_gin_extract_value(kuid96, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid96_gin_extract_query(kuid96, internal, int2, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid96_gin_consistent(internal, int2, kuid96, int4, internal, internal) RETURNS bool
    AS 'MODULE_PATHNAME', 'flakeid_gin_consistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION kuid96_gin_compare_partial(kuid96, kuid96, int2, internal) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS kuid96_ops DEFAULT FOR TYPE kuid96 USING gin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 kuid96_cmp(kuid96, kuid96),
    FUNCTION 2 kuid96_gin_extract_value(kuid96, internal),
    FUNCTION 3 kuid96_gin_extract_query(kuid96, internal, int2, internal, internal),
    FUNCTION 4 kuid96_gin_consistent(internal, int2, kuid96, int4, internal, internal),
    FUNCTION 5 kuid96_gin_compare_partial(kuid96, kuid96, int2, internal);

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

-- the uid library's vector clocks (spec/kuid.md §8) on kuid96[], one entry
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

-- a snowflake at a glance (1.1)
CREATE FUNCTION snowflake_fields(int8) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_fields(int8) IS
    'every field and the time (UTC, ISO 8601) with the epoch flakeid.snowflake_epoch_ms, as jsonb';
CREATE FUNCTION snowflake_fields(int8, epoch timestamptz) RETURNS jsonb
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_fields(int8, timestamptz) IS
    'every field and the time (UTC, ISO 8601) with the given epoch, as jsonb';

-- =====================================================================
-- identities: what tells this server's IDs from another's
-- =====================================================================

CREATE FUNCTION flakeid_identities(
    OUT generator text, OUT identity text, OUT identity_value int8, OUT source text)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION flakeid_identities() IS
    'this server''s identity per ID type (sno, siq, kuid, kuid96, snowflake), derived ones resolved: its text, the bits it puts into every ID as one number, and where it came from (a setting, the Citus group, or the system identifier); kuid carries none';
REVOKE ALL ON FUNCTION flakeid_identities() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION flakeid_identities() TO pg_monitor;

-- On a Citus coordinator: every node's identities (run_command_on_all_nodes),
-- with a flag on each one two nodes share.  A node that cannot answer is an
-- error: a listing without it could hide a shared identity.
CREATE FUNCTION flakeid_cluster_identities(
    OUT nodeid int4, OUT groupid int4, OUT nodename text, OUT nodeport int4,
    OUT generator text, OUT identity text, OUT source text, OUT shared boolean)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    answers json;
    failed record;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'flakeid_cluster_identities() needs Citus in this database'
            USING ERRCODE = '55000',
                  HINT = 'On a single server, flakeid_identities() lists its identities.';
    END IF;
    -- Citus's functions are reached by EXECUTE: the extension does not depend on Citus
    EXECUTE format('SELECT json_agg(a) FROM run_command_on_all_nodes(%L) a',
                   format('SELECT coalesce(json_agg(i), %L) FROM %I.flakeid_identities() i', '[]',
                          (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                           WHERE e.extname = 'flakeid')))
        INTO answers;
    SELECT a.nodeid, a.result INTO failed
        FROM json_to_recordset(answers) AS a(nodeid int4, success boolean, result text)
        WHERE NOT a.success LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'node % could not list its flakeid identities', failed.nodeid
            USING ERRCODE = '55000', DETAIL = failed.result;
    END IF;
    RETURN QUERY EXECUTE $q$
        SELECT n.nodeid, n.groupid, n.nodename::text, n.nodeport, i.generator, i.identity, i.source,
               count(*) OVER (PARTITION BY i.generator, i.identity_value) > 1
        FROM json_to_recordset($1) AS a(nodeid int4, success boolean, result text)
        JOIN pg_dist_node n ON n.nodeid = a.nodeid
        CROSS JOIN LATERAL json_to_recordset(a.result::json)
            AS i(generator text, identity text, identity_value int8, source text)
        ORDER BY i.generator, n.groupid, n.nodeid$q$ USING answers;
END
$fn$;
COMMENT ON FUNCTION flakeid_cluster_identities() IS
    'on a Citus coordinator: one row per node and ID type with the identity in force and where it came from; shared flags an identity two nodes share (kuid, which carries none, is shared whenever there are two nodes)';
REVOKE ALL ON FUNCTION flakeid_cluster_identities() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION flakeid_cluster_identities() TO pg_monitor;
