
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
