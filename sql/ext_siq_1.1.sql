
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
