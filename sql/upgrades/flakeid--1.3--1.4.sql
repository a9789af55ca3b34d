-- flakeid 1.3 -> 1.4.  `make sql` generates flakeid--1.3--1.4.sql from this
-- file: write here by hand only what an upgrade alone does (DROP, ALTER),
-- and take in each new or replaced object from the one sql/source/ file
-- that defines it with a line "--@include FILE" (a template FILE.sql.in is
-- taken once per fixed-width type).  test/t/*_upgrade.pl proves that 1.3
-- updated equals a fresh 1.4, privileges included.

\echo Use "ALTER EXTENSION flakeid UPDATE TO '1.4'" to load this file. \quit
-- issue 61: flakeid_advance_past_all takes a skip list and reports what it skipped
DROP FUNCTION flakeid_advance_past_all(timestamptz);

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
CREATE OR REPLACE FUNCTION sno_advance_past(id sno) RETURNS sno
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION sno_advance_past(sno) IS
    'from now on sno_new() on this server issues only IDs after id (at most 60 s ahead of the clock); durable; returns id';
CREATE OR REPLACE FUNCTION siq_advance_past(id siq) RETURNS siq
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION siq_advance_past(siq) IS
    'from now on siq_new() of id''s kind on this server issues only IDs after id (at most 60 s ahead of the clock); durable; returns id';
CREATE OR REPLACE FUNCTION kuid_advance_past(id kuid) RETURNS kuid
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid_advance_past(kuid) IS
    'from now on kuid_new() and kuid96_new() on this server issue only kuids after id (at most 60 s ahead of the clock); durable; returns id';
CREATE OR REPLACE FUNCTION kuid96_advance_past(id kuid96) RETURNS kuid96
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION kuid96_advance_past(kuid96) IS
    'from now on kuid96_new() and kuid_new() on this server issue only kuid96 IDs after id (past the end of its 256-second window when its node sorts after this server''s; refused unless that lies at most 60 s ahead of the clock); durable; returns id';
CREATE OR REPLACE FUNCTION snowflake_advance_past(id int8) RETURNS int8
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION snowflake_advance_past(int8) IS
    'from now on snowflake_new() on this server issues only snowflakes after id under the epoch in force (at most 60 s ahead of the clock); durable; returns id';
REVOKE ALL ON FUNCTION sno_advance_past(sno) FROM PUBLIC;
REVOKE ALL ON FUNCTION siq_advance_past(siq) FROM PUBLIC;
REVOKE ALL ON FUNCTION kuid_advance_past(kuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION kuid96_advance_past(kuid96) FROM PUBLIC;
REVOKE ALL ON FUNCTION snowflake_advance_past(int8) FROM PUBLIC;

-- The cutover step in one call: every generator advanced past the largest
-- ID of every column of the flakeid types (siq: per kind), of domains over
-- them and of arrays of either (the largest element), and of every bigint
-- column whose default calls snowflake_new(), in every table of the
-- database (a partitioned table once, for all its partitions).  With `past`
-- (the old server's clock_timestamp(), read once its writers and pollers
-- have stopped), every generator, each siq kind, also moves past the unit
-- holding it, so that a reader's cursor taken from the old server's horizon
-- lies below every new ID; kuid96 past `past` with the node of the column's
-- largest ID, as its horizon orders.  One row per call made, with what it
-- advanced past (NULL for an empty column), and one per column left out,
-- saying why in `skipped`.  Like setval, a raise stays when the transaction
-- rolls back (it only ever moves forward: running it again is harmless).
--
-- Nothing is left out silently (issue 61): a column the caller cannot read,
-- or one of a table whose row-level security would apply to the caller (a
-- policy's code would run as the caller, and a filtered maximum is too
-- low), is an error (42501) unless named in `skip` ('table.column' or
-- 'schema.table.column', as SQL spells them); a temporary table of another
-- session (or an orphan of a crash), which no one can read, is reported.  A
-- largest ID the generator cannot be advanced past (22023) is named with its
-- column.  Each table is locked ACCESS SHARE until the transaction ends; the
-- wait for each lock is bounded by lock_timeout, or by 10 s where that is 0.
CREATE FUNCTION flakeid_advance_past_all(
    past timestamptz DEFAULT NULL, skip text[] DEFAULT '{}',
    OUT tab regclass, OUT col name, OUT generator text, OUT advanced_past text, OUT skipped text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET row_security = off
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    bypass_rls boolean := (SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user);
    cols jsonb;
    c record;
    kind text;
    bound text;
    ids text;
    message text;
    detail text;
BEGIN
    -- (the function's SET clauses make this one end with the call too)
    IF current_setting('lock_timeout') IN ('0', '0ms', '0s') THEN
        PERFORM set_config('lock_timeout', '10s', true);
    END IF;
    -- every column to advance past: its generator, whether it is an array, and whether the caller may read all of it
    WITH RECURSIVE reach(oid, gen, is_array) AS (
        SELECT t.oid, t.typname::text, false FROM pg_type t
        WHERE t.typname IN ('sno', 'siq', 'kuid', 'kuid96')
          AND t.typnamespace = (SELECT oid FROM pg_namespace WHERE nspname = schema)
        UNION
        -- a domain over a type reached, and an array of a type reached that is no array
        SELECT t.oid, r.gen, r.is_array OR t.typtype <> 'd' FROM pg_type t JOIN reach r
            ON (t.typtype = 'd' AND t.typbasetype = r.oid)
            OR (NOT r.is_array AND t.typtype = 'b' AND t.typlen = -1 AND t.typelem = r.oid)
    )
    SELECT jsonb_agg(jsonb_build_object(
               'rel', r.oid, 'nspname', n.nspname, 'relname', r.relname, 'attname', a.attname,
               'gen', coalesce(reach.gen, 'snowflake'), 'is_array', coalesce(reach.is_array, false),
               'other_temp', r.relpersistence = 't' AND r.relnamespace IS DISTINCT FROM pg_my_temp_schema(),
               'readable', has_schema_privilege(n.oid, 'USAGE') AND has_column_privilege(r.oid, a.attnum, 'SELECT'),
               'rls', r.relrowsecurity AND NOT bypass_rls
                      AND (r.relforcerowsecurity OR NOT pg_has_role(r.relowner, 'USAGE')))
           ORDER BY r.oid, a.attnum)
        INTO cols
    FROM pg_attribute a
    JOIN pg_class r ON r.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = r.relnamespace
    LEFT JOIN reach ON reach.oid = a.atttypid
    WHERE r.relkind IN ('r', 'p') AND NOT r.relispartition AND a.attnum > 0 AND NOT a.attisdropped
      AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
      AND (reach.oid IS NOT NULL
           OR (a.atttypid = 'int8'::regtype AND EXISTS (
                 SELECT FROM pg_attrdef ad JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid
                 WHERE ad.adrelid = a.attrelid AND ad.adnum = a.attnum
                   AND d.refclassid = 'pg_proc'::regclass
                   AND d.refobjid = format('%I.snowflake_new()', schema)::regprocedure)));
    -- each entry of skip names exactly one of them (else a typo would leave the column it meant in)
    SELECT s.entry, count(x.*) AS n INTO c
    FROM unnest(coalesce(skip, '{}')) s(entry)
    LEFT JOIN jsonb_to_recordset(coalesce(cols, '[]')) x(nspname name, relname name, attname name)
        ON parse_ident(s.entry) IN (ARRAY[x.relname, x.attname]::text[], ARRAY[x.nspname, x.relname, x.attname]::text[])
    GROUP BY s.entry HAVING count(x.*) <> 1 LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'skip names %, which is % of the columns flakeid_advance_past_all advances',
                quote_literal(c.entry), CASE WHEN c.n = 0 THEN 'none' ELSE c.n || ' (ambiguous)' END
            USING ERRCODE = CASE WHEN c.n = 0 THEN '42703' ELSE '42702' END,
                  HINT = 'Name each column as table.column or schema.table.column, quoted as in SQL.';
    END IF;

    -- what the caller cannot read, or only through a policy, is refused before anything is advanced
    FOR c IN
        SELECT x.* FROM jsonb_to_recordset(coalesce(cols, '[]')) x(rel oid, nspname name, relname name, attname name,
                                                                 other_temp boolean, readable boolean, rls boolean)
        WHERE NOT x.other_temp AND (NOT x.readable OR x.rls)
          AND NOT EXISTS (SELECT FROM unnest(coalesce(skip, '{}')) s
                          WHERE parse_ident(s) IN (ARRAY[x.relname, x.attname]::text[],
                                                   ARRAY[x.nspname, x.relname, x.attname]::text[]))
    LOOP
        tab := c.rel;
        IF NOT c.readable THEN
            RAISE EXCEPTION 'permission denied to read column "%" of table %', c.attname, tab
                USING ERRCODE = '42501',
                      DETAIL = 'flakeid_advance_past_all reads every column of the flakeid types: a column it cannot read would be left behind, and the generator not advanced past it.',
                      HINT = format('Run it as a superuser, grant this role SELECT on the table, or leave the column out knowingly with skip => %L.',
                                    ARRAY[format('%I.%I.%I', c.nspname, c.relname, c.attname)]);
        ELSE
            RAISE EXCEPTION 'row-level security applies to table % for this role', tab
                USING ERRCODE = '42501',
                      DETAIL = format('Column %I would be read through the table''s policies: their code would run as this role, and the rows they hide would be left out of the largest ID.', c.attname),
                      HINT = format('Run it as a superuser or a role with BYPASSRLS, or leave the column out knowingly with skip => %L.',
                                    ARRAY[format('%I.%I.%I', c.nspname, c.relname, c.attname)]);
        END IF;
    END LOOP;

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
        SELECT x.*, (SELECT s FROM unnest(coalesce(skip, '{}')) s
                     WHERE parse_ident(s) IN (ARRAY[x.relname, x.attname]::text[],
                                              ARRAY[x.nspname, x.relname, x.attname]::text[])) AS skip_entry
        FROM jsonb_to_recordset(coalesce(cols, '[]')) x(rel oid, nspname name, relname name, attname name, gen text,
                                                        is_array boolean, other_temp boolean, readable boolean, rls boolean)
    LOOP
        tab := c.rel;
        col := c.attname;
        generator := CASE c.gen WHEN 'kuid96' THEN 'kuid' ELSE c.gen END;
        advanced_past := NULL;
        skipped := CASE
            WHEN c.other_temp THEN 'a temporary table of another session (or left by a crash): no other session can read it'
            WHEN c.skip_entry IS NOT NULL THEN 'named in skip'
            END;
        IF skipped IS NOT NULL THEN
            RETURN NEXT;
            CONTINUE;
        END IF;
        -- the values: the column's, or its arrays' elements; a domain's as its base type's (bound: that type)
        bound := CASE c.gen WHEN 'snowflake' THEN 'pg_catalog.int8' ELSE format('%I.%I', schema, c.gen) END;
        ids := CASE WHEN c.is_array
                    THEN format('(SELECT e::%1$s AS v FROM %2$s AS r, unnest(r.%3$I) AS e) s', bound, tab, c.attname)
                    ELSE format('(SELECT %3$I::%1$s AS v FROM %2$s) s', bound, tab, c.attname) END;
        BEGIN
            EXECUTE format('LOCK TABLE %s IN ACCESS SHARE MODE', tab);
            IF c.gen = 'siq' THEN
                -- one generator per kind; a kind no generator issues has nothing to advance
                FOR kind, advanced_past IN EXECUTE format(
                        'SELECT k, %1$I.siq_advance_past(%1$I.max(v))::text FROM %2$s, %1$I.siq_kind(v) k
                         WHERE k IS NOT NULL GROUP BY k ORDER BY k', schema, ids)
                LOOP
                    generator := 'siq ' || kind;
                    RETURN NEXT;
                END LOOP;
                CONTINUE;
            ELSIF c.gen = 'kuid96' THEN
                -- past `past` in the node of the largest ID; an empty column has nothing to pass (the row
                -- of `past` for kuid above covered this server's own node: no horizon is taken)
                EXECUTE format('SELECT %1$I.kuid96_advance_past(greatest(m, %1$I.kuid96(%1$I.kuid_upper_bound($1), %1$I.kuid96_node(m))))::text
                                FROM (SELECT %1$I.max(v) AS m FROM %2$s) s', schema, ids)
                    INTO advanced_past USING past;
            ELSE
                -- (the types' max is the extension's, bigint's the catalog's)
                EXECUTE format('SELECT %1$I.%2$I(%3$I.max(v))::text FROM %4$s', schema, c.gen || '_advance_past',
                               CASE c.gen WHEN 'snowflake' THEN 'pg_catalog' ELSE schema END, ids)
                    INTO advanced_past;
            END IF;
        EXCEPTION
            WHEN lock_not_available THEN
                RAISE EXCEPTION 'could not lock table % to read column "%"', tab, c.attname
                    USING ERRCODE = '55P03',
                          DETAIL = format('Another transaction holds a lock that conflicts with ACCESS SHARE; the wait was bounded by lock_timeout (%s).',
                                          current_setting('lock_timeout')),
                          HINT = 'Call again once that transaction has ended (pg_locks shows it), or set lock_timeout to wait longer.';
            WHEN invalid_parameter_value THEN
                GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
                RAISE EXCEPTION 'the largest ID of column "%" of table % cannot be advanced past: %', c.attname, tab, message
                    USING ERRCODE = '22023', DETAIL = detail,
                          HINT = format('If that row is wrong (SELECT max(%I) FROM %s shows it), correct or delete it; or leave the column out knowingly with skip => %L and advance the %s generator yourself past a value you choose with %s_advance_past.',
                                        c.attname, tab, ARRAY[format('%I.%I.%I', c.nspname, c.relname, c.attname)], generator, c.gen);
        END;
        RETURN NEXT;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION flakeid_advance_past_all(timestamptz, text[]) IS
    'the cutover step: each generator advanced past the largest ID of every column of the flakeid types, of domains over them and of arrays of either (siq: per kind), and of every bigint column defaulting to snowflake_new(), and with past (the old server''s clock once its writers and readers stopped) past that instant; one row per call and per column left out (skipped says why); 42501 for a column it cannot read or one behind row-level security, unless named in skip';
REVOKE ALL ON FUNCTION flakeid_advance_past_all(timestamptz, text[]) FROM PUBLIC;

-- A bigint identity or bigserial column becomes DEFAULT snowflake_new(), in
-- the caller's transaction: the identity or the owned sequence goes, the
-- rows stay.  Refused (22023) unless every value lies below the first
-- snowflake the generator could issue now, so that new keys sort after the
-- old ones and never meet them; the generator is then advanced past the
-- maximum (snowflake_advance_past: the caller needs EXECUTE on it too).  The
-- table is locked (ACCESS EXCLUSIVE) from the first look at it.
CREATE OR REPLACE FUNCTION snowflake_adopt(tab regclass, col name) RETURNS void
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
    -- and past the maximum, durably: a clock stepped back before the generator reaches it
    -- must not give a key below the old ones (issue 61)
    IF top IS NOT NULL THEN
        EXECUTE format('SELECT %I.snowflake_advance_past($1)', schema) USING top;
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
    'turns a bigint identity or bigserial column into DEFAULT snowflake_new() in one transaction, rows unchanged, and advances the generator past its maximum; refused (22023) unless its maximum lies below the first snowflake this server could issue now';
REVOKE ALL ON FUNCTION snowflake_adopt(regclass, name) FROM PUBLIC;
