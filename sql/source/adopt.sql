
-- =====================================================================
-- adopting a bigint identity or bigserial column (1.3; 1.4: passes it)
-- =====================================================================

-- A bigint identity or bigserial column becomes DEFAULT snowflake_new(), in
-- the caller's transaction: the identity or the owned sequence goes, the
-- rows stay.  The table is locked (ACCESS EXCLUSIVE) from the first look at
-- it, and the ALTER TABLEs run as the caller, so the caller must own it.
-- Its maximum is read as flakeid_advance_past_all reads it (1.4: no code of
-- the table's owner runs; 42501 where row-level security applies).
-- Refused (22023) unless the column's maximum lies below a snowflake the
-- generator issues now (one is drawn, as the new default would): that
-- draw also moves the generator past the old keys for good (issue 61: 1.3
-- only compared them with the clock, so a clock stepped back before the
-- generator had issued past them gave keys below them).  An issued
-- snowflake is as durable as a raise of snowflake_advance_past, and only
-- ever lies at the clock, so adopting needs no right to that function:
-- EXECUTE on this one and on snowflake_new() (PUBLIC's by default, and what
-- the new default calls anyway).  Not for PUBLIC (advance.sql revokes it).
CREATE OR REPLACE FUNCTION snowflake_adopt(tab regclass, col name) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET row_security = off
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
    -- (again under the lock: PostgreSQL 15 lets an owner turn an empty table into a view while
    -- the call waits)
    IF (SELECT c.relkind FROM pg_class c WHERE c.oid = tab) IS DISTINCT FROM kind THEN
        RAISE EXCEPTION 'table % changed while snowflake_adopt waited for it', tab
            USING ERRCODE = '55000', HINT = 'Call snowflake_adopt again.';
    END IF;
    SELECT a.attnum, a.atttypid, a.attidentity, a.attgenerated INTO att
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
    -- the maximum read below SQL, as flakeid_advance_past_all reads it: with SQL, the planner
    -- ran the owner's code (an index predicate, say) as the caller (the audit of 1.4's cutover
    -- made the owner superuser through a superuser's adopt), and row-level security would
    -- have hidden rows from it (row_security is off: a policy that applies is an error)
    EXECUTE format('SELECT %I.flakeid_advance_past_read($1, $2, $3, $4)::int8', schema)
        INTO top USING tab, col, att.attnum, 'int8'::regtype;
    IF top IS NOT NULL THEN
        -- a snowflake the generator issues now: every later one lies above it, whatever the clock
        -- does, across a restart too (issue 61)
        EXECUTE format('SELECT %I.snowflake_new()', schema) INTO first;
        IF top >= first THEN
            RAISE EXCEPTION 'column "%" of relation "%" holds %, not below %, a snowflake this server issues now',
                    col, tab, top, first
                USING ERRCODE = '22023',
                      DETAIL = 'New keys would not sort after the old ones, and could meet one of them.',
                      HINT = 'Choose flakeid.snowflake_epoch_ms so that the snowflakes of now lie above the column''s values (a later epoch gives smaller snowflakes), or move the column to sno or kuid instead.';
        END IF;
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
    'turns a bigint identity or bigserial column into DEFAULT snowflake_new() in one transaction, rows unchanged, the generator past its maximum (a snowflake is drawn); refused (22023) unless its maximum lies below a snowflake this server issues now';
