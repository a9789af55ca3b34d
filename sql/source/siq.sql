
-- siq: generators, constructors and extractors (docs/spec/siq-and-snowflake.md Part A)

COMMENT ON TYPE siq IS 'SIQ (Python''s suou), 14 bytes: a 1/65536 s tick since 1970, an 8-bit shard, a 32-bit domain hash and a serial with its kind; 23 Crockford base32 digits as text, or a did:siq:';

CREATE FUNCTION siq_new(kind text) RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_new(text) IS
    'new siq: now, flakeid.siq_shard, the hash of flakeid.siq_domain, and the next serial of the kind';
CREATE FUNCTION siq_new_at(ts timestamptz, kind text) RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_new_at(timestamptz, text) IS
    'back-fill: siq for the given time, serial from a shared counter per kind';
CREATE FUNCTION siq_from_parts(ts timestamptz, shard int4, domain int8, kind text, serial int4) RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_from_parts(timestamptz, int4, int8, text, int4) IS 'the siq of the given time, shard, domain hash, kind and serial';

CREATE FUNCTION siq_time(siq) RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_time(siq) IS
    'the 1/65536 s tick rounded up to the microsecond, so that siq_new_at(siq_time(x), ...) lands in x''s tick';
CREATE FUNCTION siq_shard(siq) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_shard(siq) IS 'the 8-bit shard: the identity of the server that minted it (flakeid.siq_shard)';
CREATE FUNCTION siq_domain(siq) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_domain(siq) IS 'the 32-bit hash of the domain (siq_domain_hash of flakeid.siq_domain)';
CREATE FUNCTION siq_kind(siq) RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_kind(siq) IS 'kind name, NULL for the three unassigned qualifiers';
CREATE FUNCTION siq_serial(siq) RETURNS int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_serial(siq) IS 'the serial within the tick, counted per kind';
CREATE FUNCTION siq_did(siq) RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_did(siq) IS 'the did:siq: form (CRC-32 checked on input)';

CREATE FUNCTION siq_domain_hash(domain text) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_domain_hash(text) IS
    'last 4 bytes of SHA-256 of the ASCII domain; '''' and ''0'' give 0';
CREATE FUNCTION siq_domain_hash(domain text, local_id int4) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_domain_hash(text, int4) IS
    'the domain hash with its top byte replaced by local_id (0..255); '''' and ''0'' still give 0';

CREATE FUNCTION siq_lower_bound(ts timestamptz) RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_lower_bound(timestamptz) IS 'smallest siq whose tick contains ts';
CREATE FUNCTION siq_upper_bound(ts timestamptz) RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION siq_upper_bound(timestamptz) IS 'largest siq whose tick contains ts';

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

-- readers by ID: every ID siq_new() (any kind) issued below it belongs to an ended
-- transaction, and every one it issues after the call is at or above it (1.2)
CREATE FUNCTION siq_horizon() RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION siq_horizon() IS
    'the horizon of siq_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';
