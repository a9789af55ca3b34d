
-- =====================================================================
-- keyed, reversible masks of public IDs (1.4; docs/REFERENCE.md, "Masks")
-- =====================================================================

-- <type>_mask(id, purpose) is a fixed-length, URL-safe token of the ID:
-- FF1-AES-256 of its bytes (NIST SP 800-38G) under the first key of
-- flakeid.mask_keys_file, with a tweak of the type and the purpose, so that
-- another purpose gives an unrelated token.  <type>_unmask gives the ID
-- back, under any key of the file (the token names its key); 22P02 for a
-- token that is not one, or names a key the file does not hold; 55000
-- when no key is loaded.  STABLE: a reload changes the keys between
-- statements, never within one, so
--     SELECT * FROM orders WHERE id = sno_unmask($1, 'orders');
-- probes the primary key with one call.  PARALLEL RESTRICTED: a parallel
-- worker would read the key file afresh.  Executable by PUBLIC: a token
-- shows no more than the ID the caller already has.
CREATE FUNCTION sno_mask(id sno, purpose text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION sno_mask(sno, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; sno_unmask gives id back';
CREATE FUNCTION sno_unmask(token text, purpose text DEFAULT '') RETURNS sno
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION sno_unmask(text, text) IS
    'the sno that sno_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
CREATE FUNCTION flax_mask(id flax, purpose text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION flax_mask(flax, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; flax_unmask gives id back';
CREATE FUNCTION flax_unmask(token text, purpose text DEFAULT '') RETURNS flax
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION flax_unmask(text, text) IS
    'the flax that flax_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
CREATE FUNCTION siq_mask(id siq, purpose text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION siq_mask(siq, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; siq_unmask gives id back';
CREATE FUNCTION siq_unmask(token text, purpose text DEFAULT '') RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION siq_unmask(text, text) IS
    'the siq that siq_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
CREATE FUNCTION kuid_mask(id kuid, purpose text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid_mask(kuid, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; kuid_unmask gives id back';
CREATE FUNCTION kuid_unmask(token text, purpose text DEFAULT '') RETURNS kuid
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid_unmask(text, text) IS
    'the kuid that kuid_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
CREATE FUNCTION kuid96_mask(id kuid96, purpose text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid96_mask(kuid96, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; kuid96_unmask gives id back';
CREATE FUNCTION kuid96_unmask(token text, purpose text DEFAULT '') RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid96_unmask(text, text) IS
    'the kuid96 that kuid96_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
CREATE FUNCTION snowflake_mask(id int8, purpose text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION snowflake_mask(int8, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; snowflake_unmask gives id back';
CREATE FUNCTION snowflake_unmask(token text, purpose text DEFAULT '') RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION snowflake_unmask(text, text) IS
    'the snowflake that snowflake_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
