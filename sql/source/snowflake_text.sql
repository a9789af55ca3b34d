
-- snowflakes as text and back under a name (1.5): the decimal form, as the
-- other types' <type>_to_text and <type>_from_text (text_functions.sql.in)
CREATE FUNCTION snowflake_to_text(id bigint) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN id::text;
COMMENT ON FUNCTION snowflake_to_text(bigint) IS 'a snowflake as its decimal text';
CREATE FUNCTION snowflake_from_text(t text) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN t::bigint;
COMMENT ON FUNCTION snowflake_from_text(text) IS 'the text read as a bigint (its cast: 22P02 for malformed text, 22003 out of range); a negative value is no snowflake, yet accepted, as by the cast';
