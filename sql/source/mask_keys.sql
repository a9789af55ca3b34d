
-- =====================================================================
-- the mask keys' check values (1.5; docs/OPERATIONS.md, "Mask keys")
-- =====================================================================

-- flakeid_mask_keys() lists the keys of flakeid.mask_keys_file as this
-- session reads them: each key's ID, its check value and whether it is the
-- key that masks (the file's first).  The check value is the first 3 bytes
-- of AES-256 of a zero block under the key, in hex: the key check value of
-- key ceremonies, which tells two keys apart without showing either, so
-- that an operator can compare the keys of every server (a token masked
-- under a key ID whose key differs on another server unmasks there to an
-- unrelated ID, not to an error).  55000, as for the masks, when no key is
-- loaded.  Not PUBLIC's: the key IDs and their number are the operator's.
CREATE FUNCTION flakeid_mask_keys(OUT key_id int, OUT check_value text, OUT masks boolean)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION flakeid_mask_keys() IS
    'the keys of flakeid.mask_keys_file: each key''s ID, its check value (AES-256 of a zero block, 3 bytes in hex) and whether it masks';
REVOKE ALL ON FUNCTION flakeid_mask_keys() FROM PUBLIC;
