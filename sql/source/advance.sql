
-- =====================================================================
-- moving IDs between servers: the setval of flakeid (1.3)
-- =====================================================================

-- From the call on, this server's live generator (siq: of the ID's kind;
-- kuid and kuid96 share one) issues only IDs that sort after `id`.  The
-- raise is saved and WAL-logged before the call returns, as a mark is, and
-- never lowers anything.  An ID more than 60 s ahead of the clock is
-- refused (22023).  After a logical cutover or a restore:
--     SELECT sno_advance_past(max(id)) FROM orders;
-- They change the generators' state: not for PUBLIC.
CREATE FUNCTION sno_advance_past(id sno) RETURNS sno
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION sno_advance_past(sno) IS
    'from now on sno_new() on this server issues only IDs after id (at most 60 s ahead of the clock); durable; returns id';
CREATE FUNCTION siq_advance_past(id siq) RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION siq_advance_past(siq) IS
    'from now on siq_new() of id''s kind on this server issues only IDs after id (at most 60 s ahead of the clock); durable; returns id';
CREATE FUNCTION kuid_advance_past(id kuid) RETURNS kuid
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid_advance_past(kuid) IS
    'from now on kuid_new() and kuid96_new() on this server issue only kuids after id (at most 60 s ahead of the clock); durable; returns id';
CREATE FUNCTION kuid96_advance_past(id kuid96) RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid96_advance_past(kuid96) IS
    'from now on kuid96_new() and kuid_new() on this server issue only kuid96 IDs after id (at most 60 s ahead of the clock; past the end of its 256-second window when its node sorts after this server''s); durable; returns id';
CREATE FUNCTION snowflake_advance_past(id int8) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION snowflake_advance_past(int8) IS
    'from now on snowflake_new() on this server issues only snowflakes after id under the epoch in force (at most 60 s ahead of the clock); durable; returns id';
REVOKE ALL ON FUNCTION sno_advance_past(sno) FROM PUBLIC;
REVOKE ALL ON FUNCTION siq_advance_past(siq) FROM PUBLIC;
REVOKE ALL ON FUNCTION kuid_advance_past(kuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION kuid96_advance_past(kuid96) FROM PUBLIC;
REVOKE ALL ON FUNCTION snowflake_advance_past(int8) FROM PUBLIC;
-- snowflake_adopt's (adopt.sql): here, in the install script only, and not in
-- an upgrade, which replaces the function and keeps what an operator granted
-- or revoked on it
REVOKE ALL ON FUNCTION snowflake_adopt(regclass, name) FROM PUBLIC;
