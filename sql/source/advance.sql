
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

-- The cutover step in one call: every generator advanced past the largest
-- ID of every column of the flakeid types (siq: per kind) and of every
-- bigint column whose default calls snowflake_new(), in every table of the
-- database this role can read (a partitioned table once, for all its
-- partitions).  With `past` (the old server's clock_timestamp(), read once
-- its writers and pollers have stopped), every generator, each siq kind,
-- also moves past the unit holding it, so that a reader's cursor taken from
-- the old server's horizon lies below every new ID; kuid96 past `past` with
-- the node of the column's largest ID, as its horizon orders.  One row per
-- call made, with what it advanced past (NULL for an empty column).  Like
-- setval, a raise stays when the transaction rolls back (it only ever moves
-- forward: running it again is harmless).
CREATE FUNCTION flakeid_advance_past_all(
    past timestamptz DEFAULT NULL,
    OUT tab regclass, OUT col name, OUT generator text, OUT advanced_past text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    c record;
    kind text;
    bound text;
BEGIN
    IF past IS NOT NULL THEN
        FOR generator, bound IN VALUES
            ('sno', 'sno_upper_bound($1)'), ('kuid', 'kuid_upper_bound($1)'), ('snowflake', 'snowflake_upper_bound($1)')
        LOOP
            EXECUTE format('SELECT %1$I.%2$I(%1$I.%3$s)::text', schema, generator || '_advance_past', bound)
                INTO advanced_past USING past;
            RETURN NEXT;
        END LOOP;
        FOREACH kind IN ARRAY ARRAY['ternary', 'multi', 'manytomany', 'content', 'thread', 'message', 'user', 'tag',
                                    'group', 'event', 'channel', 'invite', 'application', 'collection', 'premium']
        LOOP
            generator := 'siq ' || kind;
            EXECUTE format('SELECT %1$I.siq_advance_past(%1$I.siq_from_parts($1, 255, 4294967295, $2, 0))::text', schema)
                INTO advanced_past USING past, kind;
            RETURN NEXT;
        END LOOP;
    END IF;
    FOR c IN
        SELECT a.attrelid::regclass AS rel, a.attname,
               CASE WHEN a.atttypid = 'int8'::regtype THEN 'snowflake' ELSE t.typname::text END AS gen
        FROM pg_attribute a
        JOIN pg_class r ON r.oid = a.attrelid
        JOIN pg_type t ON t.oid = a.atttypid
        WHERE r.relkind IN ('r', 'p') AND NOT r.relispartition AND a.attnum > 0 AND NOT a.attisdropped
          AND r.relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
          AND has_table_privilege(r.oid, 'SELECT')
          AND ((t.typname IN ('sno', 'siq', 'kuid', 'kuid96') AND t.typnamespace = (SELECT oid FROM pg_namespace WHERE nspname = schema))
               OR (a.atttypid = 'int8'::regtype AND EXISTS (
                     SELECT FROM pg_attrdef ad JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid
                     WHERE ad.adrelid = a.attrelid AND ad.adnum = a.attnum
                       AND d.refclassid = 'pg_proc'::regclass
                       AND d.refobjid = format('%I.snowflake_new()', schema)::regprocedure)))
        ORDER BY r.oid, a.attnum
    LOOP
        tab := c.rel;
        col := c.attname;
        IF c.gen = 'siq' THEN
            -- one generator per kind; a kind no generator issues has nothing to advance
            FOR kind, advanced_past IN EXECUTE format(
                    'SELECT k, %1$I.siq_advance_past(%1$I.max(%2$I))::text FROM %3$s, %1$I.siq_kind(%2$I) k
                     WHERE k IS NOT NULL GROUP BY k ORDER BY k', schema, c.attname, c.rel)
            LOOP
                generator := 'siq ' || kind;
                RETURN NEXT;
            END LOOP;
        ELSIF c.gen = 'kuid96' THEN
            -- past `past` in the node of the largest ID (an empty column: this server's own)
            generator := 'kuid';
            EXECUTE format('SELECT %1$I.kuid96_advance_past(greatest(m, %1$I.kuid96(%1$I.kuid_upper_bound($1),
                                coalesce(%1$I.kuid96_node(m), %1$I.kuid96_node(%1$I.kuid96_horizon())))))::text
                            FROM (SELECT %1$I.max(%2$I) AS m FROM %3$s) s', schema, c.attname, c.rel)
                INTO advanced_past USING past;
            RETURN NEXT;
        ELSE
            generator := c.gen;
            -- (the types' max is the extension's, bigint's the catalog's)
            EXECUTE format('SELECT %1$I.%2$I(%3$I.max(%4$I))::text FROM %5$s', schema, c.gen || '_advance_past',
                           CASE c.gen WHEN 'snowflake' THEN 'pg_catalog' ELSE schema END, c.attname, c.rel)
                INTO advanced_past;
            RETURN NEXT;
        END IF;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION flakeid_advance_past_all(timestamptz) IS
    'the cutover step: each generator advanced past the largest ID of every column of the flakeid types (siq: per kind) and of every bigint column defaulting to snowflake_new(), and with past (the old server''s clock once its writers and readers stopped) past that instant; one row per call';
REVOKE ALL ON FUNCTION flakeid_advance_past_all(timestamptz) FROM PUBLIC;

-- A bigint identity or bigserial column becomes DEFAULT snowflake_new(), in
-- the caller's transaction: the identity or the owned sequence goes, the
-- rows stay.  Refused (22023) unless every value lies below the first
-- snowflake the generator could issue now, so that new keys sort after the
-- old ones and never meet them.  The table is locked (ACCESS EXCLUSIVE)
-- from the first look at it.
CREATE FUNCTION snowflake_adopt(tab regclass, col name) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    kind "char";
    att record;
    seq text;
    top int8;
    first int8;
BEGIN
    SELECT c.relkind INTO kind FROM pg_class c WHERE c.oid = tab;
    IF kind IS NULL THEN
        RAISE EXCEPTION 'relation "%" does not exist', tab USING ERRCODE = '42P01';
    ELSIF kind NOT IN ('r', 'p') THEN
        RAISE EXCEPTION '"%" is not a table', tab USING ERRCODE = '42809';
    END IF;
    EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', tab);
    SELECT a.atttypid, a.attidentity, a.attgenerated INTO att
        FROM pg_attribute a WHERE a.attrelid = tab AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column "%" of relation "%" does not exist', col, tab USING ERRCODE = '42703';
    END IF;
    IF att.atttypid <> 'int8'::regtype THEN
        RAISE EXCEPTION 'column "%" of relation "%" is of type %, not bigint', col, tab, format_type(att.atttypid, NULL)
            USING ERRCODE = '42804', HINT = 'Snowflakes are bigint: only a bigint identity or bigserial column can be adopted.';
    END IF;
    seq := pg_get_serial_sequence(tab::text, col);
    IF seq IS NULL THEN
        RAISE EXCEPTION 'column "%" of relation "%" is neither an identity column nor a bigserial', col, tab
            USING ERRCODE = '22023',
                  HINT = format('Set its default yourself: ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %I.snowflake_new();', tab, col, schema);
    END IF;
    EXECUTE format('SELECT max(%I) FROM %s', col, tab) INTO top;
    -- the least snowflake of this millisecond: nothing the generator issues from now on lies below it
    EXECUTE format('SELECT %I.snowflake_lower_bound(clock_timestamp())', schema) INTO first;
    IF top >= first THEN
        RAISE EXCEPTION 'column "%" of relation "%" holds %, not below %, the first snowflake this server could issue now',
                col, tab, top, first
            USING ERRCODE = '22023',
                  DETAIL = 'New keys would not sort after the old ones, and could meet one of them.',
                  HINT = 'Choose flakeid.snowflake_epoch_ms so that the snowflakes of now lie above the column''s values (a later epoch gives smaller snowflakes), or move the column to sno or kuid instead.';
    END IF;
    IF att.attidentity <> '' THEN
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY', tab, col);
    ELSE
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP DEFAULT', tab, col);
        EXECUTE format('DROP SEQUENCE %s', seq);
    END IF;
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %I.snowflake_new()', tab, col, schema);
END
$fn$;
COMMENT ON FUNCTION snowflake_adopt(regclass, name) IS
    'turns a bigint identity or bigserial column into DEFAULT snowflake_new() in one transaction, rows unchanged; refused (22023) unless its maximum lies below the first snowflake this server could issue now';
REVOKE ALL ON FUNCTION snowflake_adopt(regclass, name) FROM PUBLIC;
