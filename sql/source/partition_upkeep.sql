
-- =====================================================================
-- partitions that keep themselves (1.5: issue 82; docs/OPERATIONS.md,
-- "Partitions that keep themselves")
-- =====================================================================

-- The registrations of flakeid_partition_by_time: one row per table
-- partitioned by range on a flakeid column (or a bigint of snowflakes).
-- Kept by pg_dump, so that a restore keeps its upkeep; readable and
-- writable by every role (pg_dump and pg_restore as a database's owner),
-- each row guarded by flakeid_partitions_guard: only a table's owner (or a
-- superuser) writes its row, checked as the caller, key re-derived.  `oldest`
-- is the start of the oldest interval upkeep still keeps: retention walks
-- from it, by the registered interval, never casting a bound read back out
-- of the catalog.
CREATE TABLE flakeid_partitions (
    parent regclass PRIMARY KEY,
    key_column name NOT NULL,
    key_type text NOT NULL CHECK (key_type IN ('sno', 'flax', 'siq', 'kuid', 'kuid96', 'snowflake')),
    every interval NOT NULL,
    premake int NOT NULL CHECK (premake BETWEEN 0 AND 1000),
    retain interval,
    keep_table boolean NOT NULL DEFAULT false,
    time_zone text NOT NULL DEFAULT 'UTC',
    oldest timestamptz NOT NULL,
    registered timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE flakeid_partitions IS
    'tables whose partitions flakeid keeps (flakeid_partition_by_time): the interval, how many ahead, the retention; each row written by its table''s owner alone';
SELECT pg_catalog.pg_extension_config_dump('flakeid_partitions', '');
REVOKE ALL ON flakeid_partitions FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE, DELETE ON flakeid_partitions TO PUBLIC;

-- Ends the upkeep of a table: its registration removed, its partitions left
-- as they are.  For the table's owner; anyone may forget a table that is gone.
CREATE FUNCTION flakeid_partition_forget(parent regclass) RETURNS boolean
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    found boolean;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = parent AND r.rolname <> current_user) THEN
        RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501';
    END IF;
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.flakeid_partitions r WHERE r.parent = $1)', schema) INTO found USING parent;
    IF found THEN
        EXECUTE format('DELETE FROM %I.flakeid_partitions r WHERE r.parent = $1', schema) USING parent;
    END IF;
    RETURN found;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_forget(regclass) IS
    'ends the upkeep of a table (its partitions stay): true where it was registered';

-- The local label of the interval `every` that holds the local time
-- `local`: months counted from January 2000, anything else binned from
-- Monday 3 January 2000 (so that weeks start on Mondays and days at
-- midnight).  An interval of months with days or time in it is 22023.
CREATE FUNCTION flakeid_partition_label(every interval, local timestamp)
    RETURNS timestamp
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    months int := (extract(year FROM every) * 12 + extract(month FROM every))::int;
    total int;
BEGIN
    IF every <= interval '0' THEN
        RAISE EXCEPTION 'a partition interval must be positive, not %', every USING ERRCODE = '22023';
    END IF;
    IF months <> 0 THEN
        IF every <> make_interval(months => months) THEN
            RAISE EXCEPTION 'a partition interval of months may hold no days or time: %', every
                USING ERRCODE = '22023', HINT = 'Use months alone (''1 month'', ''3 months''), or days and time alone.';
        END IF;
        total := (extract(year FROM local) * 12 + extract(month FROM local) - 1)::int - 2000 * 12;
        total := total - ((total % months) + months) % months;
        RETURN make_timestamp(2000 + floor(total / 12.0)::int, ((total % 12) + 12) % 12 + 1, 1, 0, 0, 0);
    END IF;
    RETURN date_bin(every, local, timestamp '2000-01-03');
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_label(interval, timestamp) IS
    'the local start (label) of the partition interval that holds a local time: months counted from January 2000, other intervals from Monday 3 January 2000';

-- The local label of the interval `every` that holds the instant `t` in
-- `time_zone`.  A label a fall-back makes twice is read as its later
-- instant, which may lie after t: then the label before holds t.
CREATE FUNCTION flakeid_partition_label_of(every interval, t timestamptz, time_zone text DEFAULT 'UTC')
    RETURNS timestamp
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    label timestamp;
BEGIN
    EXECUTE format('SELECT %I.flakeid_partition_label($1, $2)', schema) INTO label USING every, t AT TIME ZONE time_zone;
    -- (an interval shorter than the repeated hour steps back more than once, to
    -- the last label before it: 30 minutes in New York's fall-back, 1.5's tenth
    -- reviewer and auditor; a shift is 2 hours at most)
    FOR step IN 1 .. least(7202, ceil(7200 / greatest(extract(epoch FROM every), 1))::int + 2) LOOP
        EXIT WHEN label AT TIME ZONE time_zone <= t;
        EXECUTE format('SELECT %I.flakeid_partition_label($1, $2)', schema) INTO label USING every, label - every;
    END LOOP;
    RETURN label;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_label_of(interval, timestamptz, text) IS
    'the local label of the partition interval that holds an instant, in the time zone given';

-- The start of the interval `every` that holds `t`, in `time_zone`: its
-- label as an instant.
CREATE FUNCTION flakeid_partition_start(every interval, t timestamptz, time_zone text DEFAULT 'UTC')
    RETURNS timestamptz
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    label timestamp;
BEGIN
    EXECUTE format('SELECT %I.flakeid_partition_label_of($1, $2, $3)',
                   (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'flakeid'))
        INTO label USING every, t, time_zone;
    RETURN label AT TIME ZONE time_zone;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_start(interval, timestamptz, text) IS
    'the start of the partition interval that holds t, in the time zone given: months counted from January 2000, other intervals from Monday 3 January 2000';

-- The end of the interval that starts at `starts`: the next label, from the
-- interval's own label, never from the instant's local time (where a local
-- midnight does not exist, America/Santiago's spring change, the start is
-- 01:00 local, and an end taken from it drifted every later interval an
-- hour, leaving a day unpartitioned: 1.5's ninth auditor).
CREATE FUNCTION flakeid_partition_end(every interval, starts timestamptz, time_zone text DEFAULT 'UTC')
    RETURNS timestamptz
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    label timestamp;
BEGIN
    EXECUTE format('SELECT %I.flakeid_partition_label_of($1, $2, $3)',
                   (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'flakeid'))
        INTO label USING every, starts, time_zone;
    RETURN (label + every) AT TIME ZONE time_zone;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_end(interval, timestamptz, text) IS
    'the end of the partition interval that starts at starts: its label plus the interval, in the time zone given';

-- The registration a maintenance run acts on, checked as a call of
-- flakeid_partition_by_time would be: the key's type (sno, flax, siq, kuid,
-- kuid96, or snowflake for bigint), its column, and the errors a bad table
-- or interval gets.  Used by both functions below.
CREATE FUNCTION flakeid_partition_check(parent regclass, every interval, premake int, retain interval, time_zone text,
    OUT key_type text, OUT key_column name)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema oid := (SELECT e.extnamespace FROM pg_extension e WHERE e.extname = 'flakeid');
    rel record;
    key record;
    base oid;
    seconds numeric;
BEGIN
    IF parent IS NULL OR every IS NULL OR premake IS NULL OR time_zone IS NULL THEN
        RAISE EXCEPTION 'the table, the interval, premake and the time zone must not be null' USING ERRCODE = '22004';
    END IF;
    SELECT c.relkind, c.relowner, c.relname, c.relpersistence INTO rel FROM pg_class c WHERE c.oid = parent;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', parent::oid USING ERRCODE = '42P01';
    END IF;
    IF rel.relowner <> (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user)
       AND NOT (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user) THEN
        RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501';
    END IF;
    IF rel.relpersistence = 't' THEN
        RAISE EXCEPTION 'table % is temporary: flakeid keeps the partitions of lasting tables only', parent USING ERRCODE = '0A000',
            DETAIL = 'Another session''s maintenance run cannot read a temporary table, and pg_dump cannot restore its registration.';
    END IF;
    IF rel.relkind <> 'p' THEN
        RAISE EXCEPTION '"%" is not a partitioned table', parent USING ERRCODE = '42809',
            HINT = 'Create it with PARTITION BY RANGE (id) on its flakeid key.';
    END IF;
    SELECT p.partstrat, p.partnatts, p.partattrs[0] AS attnum INTO key FROM pg_partitioned_table p WHERE p.partrelid = parent;
    IF key.partstrat <> 'r' OR key.partnatts <> 1 OR key.attnum = 0 THEN
        RAISE EXCEPTION 'table % is not partitioned by range on one column', parent USING ERRCODE = '0A000',
            DETAIL = 'flakeid keeps the partitions of a table partitioned by RANGE on its flakeid key column alone, not by list or hash, on several columns or on an expression.';
    END IF;
    SELECT a.attname, a.atttypid INTO key_column, base FROM pg_attribute a WHERE a.attrelid = parent AND a.attnum = key.attnum;
    -- (a domain's key is its base type's)
    WHILE (SELECT t.typtype FROM pg_type t WHERE t.oid = base) = 'd' LOOP
        base := (SELECT t.typbasetype FROM pg_type t WHERE t.oid = base);
    END LOOP;
    key_type := CASE WHEN base = 'int8'::regtype THEN 'snowflake'
                     ELSE (SELECT t.typname FROM pg_type t WHERE t.oid = base AND t.typnamespace = schema
                           AND t.typname IN ('sno', 'flax', 'siq', 'kuid', 'kuid96')) END;
    IF key_type IS NULL THEN
        RAISE EXCEPTION 'the partition key % of table % is of type %, not a flakeid type', key_column, parent, base::regtype
            USING ERRCODE = '42804', DETAIL = 'flakeid keeps partitions keyed by sno, flax, siq, kuid or kuid96, or by a bigint of snowflakes.';
    END IF;
    -- (a zone by its name: an abbreviation's meaning is each session's
    -- timezone_abbreviations, and another session's bounds left holes, 1.5's tenth auditor)
    IF NOT EXISTS (SELECT 1 FROM pg_timezone_names z WHERE z.name = time_zone) THEN
        RAISE EXCEPTION 'time zone "%" is not a zone name', time_zone USING ERRCODE = '22023',
            HINT = 'Name a zone of pg_timezone_names (UTC, Europe/Paris, America/New_York), not an abbreviation or an offset.';
    END IF;
    IF every <= interval '0' THEN
        RAISE EXCEPTION 'a partition interval must be positive, not %', every USING ERRCODE = '22023';
    END IF;
    IF (extract(year FROM every) <> 0 OR extract(month FROM every) <> 0)
       AND every <> make_interval(months => (extract(year FROM every) * 12 + extract(month FROM every))::int) THEN
        RAISE EXCEPTION 'a partition interval of months may hold no days or time: %', every
            USING ERRCODE = '22023', HINT = 'Use months alone (''1 month'', ''3 months''), or days and time alone.';
    END IF;
    seconds := extract(epoch FROM every);
    IF every > interval '10 years' THEN
        RAISE EXCEPTION 'a partition interval of % is longer than flakeid keeps: 10 years at most', every USING ERRCODE = '22023',
            DETAIL = 'An interval wider than a type''s whole range (flax''s 34 years) would hold no bound of it.';
    END IF;
    IF seconds < 1 THEN
        RAISE EXCEPTION 'a partition interval of % is finer than flakeid keeps: a second or more', every USING ERRCODE = '22023';
    END IF;
    IF key_type = 'kuid96' AND seconds < 256 THEN
        RAISE EXCEPTION 'a partition interval of % is finer than kuid96''s 256-second window', every
            USING ERRCODE = '22023',
                  DETAIL = 'kuid96 IDs are ordered by 256-second windows: every bound moves back to its window''s start, and two bounds in one window would make an empty partition.';
    END IF;
    IF premake < 0 OR premake > 1000 THEN
        RAISE EXCEPTION 'premake must lie between 0 and 1000, not %', premake USING ERRCODE = '22023';
    END IF;
    IF retain IS NOT NULL AND retain < every THEN
        RAISE EXCEPTION 'a retention of % is shorter than the partition interval %', retain, every USING ERRCODE = '22023',
            DETAIL = 'Retention drops whole partitions: one shorter than the interval keeps no whole interval before the present''s.';
    END IF;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_check(regclass, interval, int, interval, text) IS
    'the key type and column of a table flakeid may keep the partitions of, or the error that says why not (flakeid_partition_by_time''s checks)';

-- The guard of every write of flakeid_partitions, run as the writer (not
-- SECURITY DEFINER: a definer function of another role sees the session's
-- user, and let one user's function rewrite another's registrations, whose
-- own run then dropped its partitions: 1.5's ninth reviewer).  A row is
-- written only by its table's owner or a superuser; a new or changed row is
-- checked as flakeid_partition_by_time checks a table, its key type and
-- column re-derived from the table; a row whose table is gone is anyone's
-- to delete.
CREATE FUNCTION flakeid_partitions_guard() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    checked record;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = OLD.parent)
       AND NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner
                       WHERE c.oid = OLD.parent AND (r.rolname = current_user OR (SELECT u.rolsuper FROM pg_roles u WHERE u.rolname = current_user))) THEN
        RAISE EXCEPTION 'must be owner of table % to change its partitions'' upkeep', OLD.parent USING ERRCODE = '42501';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    -- (partitions made on one grid overlap another's: a changed interval or zone
    -- left a lasting hole and retention passed the old ones over, 1.5's tenth reviewer)
    IF TG_OP = 'UPDATE' AND (NEW.every IS DISTINCT FROM OLD.every OR NEW.time_zone IS DISTINCT FROM OLD.time_zone
                             OR NEW.parent IS DISTINCT FROM OLD.parent) THEN
        RAISE EXCEPTION 'a registration''s table, interval and time zone do not change' USING ERRCODE = '55000',
            HINT = 'flakeid_partition_forget, drop or detach the partitions made on the old interval, then register again.';
    END IF;
    EXECUTE format('SELECT * FROM %I.flakeid_partition_check($1, $2, $3, $4, $5)', schema) INTO checked
        USING NEW.parent, NEW.every, NEW.premake, NEW.retain, NEW.time_zone;
    NEW.key_type := checked.key_type;
    NEW.key_column := checked.key_column;
    IF NEW.oldest IS NULL OR NOT isfinite(NEW.oldest) THEN
        RAISE EXCEPTION 'the oldest interval kept must be a finite instant' USING ERRCODE = '22023';
    END IF;
    RETURN NEW;
END
$fn$;
COMMENT ON FUNCTION flakeid_partitions_guard() IS
    'the guard of flakeid_partitions: a row written by its table''s owner (or a superuser) alone, checked and its key re-derived';
CREATE TRIGGER flakeid_partitions_guard BEFORE INSERT OR UPDATE OR DELETE ON flakeid_partitions
    FOR EACH ROW EXECUTE FUNCTION flakeid_partitions_guard();

-- The name of a new partition of `parent` for the interval starting at
-- `starts`: the parent's name and the start in the registration's time
-- zone, to the day, the minute or the second the interval needs
-- ("events_p20261130", "events_p20261130_0600").  A name over 40 bytes is
-- cut to 30 bytes (whole characters) and given 8 hex digits of its md5,
-- so that two long names alike in their first bytes make two names.  Only
-- new partitions are named so: upkeep finds partitions by their bounds.
CREATE FUNCTION flakeid_partition_name(parent regclass, every interval, starts timestamptz, time_zone text DEFAULT 'UTC')
    RETURNS name
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    relname text := (SELECT c.relname FROM pg_class c WHERE c.oid = parent);
    prefix text := relname;
BEGIN
    IF octet_length(relname) > 40 THEN
        WHILE octet_length(prefix) > 30 LOOP
            prefix := left(prefix, -1);
        END LOOP;
        prefix := prefix || '_' || left(md5(relname), 8);
    END IF;
    RETURN (prefix || '_p' || to_char(starts AT TIME ZONE time_zone,
            CASE WHEN extract(year FROM every) <> 0 OR extract(month FROM every) <> 0 OR extract(epoch FROM every) % 86400 = 0 THEN 'YYYYMMDD'
                 WHEN extract(epoch FROM every) % 60 = 0 THEN 'YYYYMMDD"_"HH24MI'
                 ELSE 'YYYYMMDD"_"HH24MISS' END))::name;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_name(regclass, interval, timestamptz, text) IS
    'the name flakeid gives a new partition of a table for the interval starting at starts';

-- The bounds clause of [lo, hi) (its key's text; NULL for MINVALUE and
-- MAXVALUE: an interval that begins before the type's first time, such as
-- a snowflake epoch's, or ends past its last, as flax's in 2049), as
-- PostgreSQL prints a partition's bounds.
CREATE FUNCTION flakeid_partition_bounds(lo text, hi text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format('FOR VALUES FROM (%s) TO (%s)', coalesce(quote_literal(lo), 'MINVALUE'), coalesce(quote_literal(hi), 'MAXVALUE'))
$fn$;
COMMENT ON FUNCTION flakeid_partition_bounds(text, text) IS
    'the bounds clause of a partition from lo to hi (NULL: MINVALUE, MAXVALUE), as PostgreSQL prints it';

-- The partition of `parent` whose bounds are [lo, hi), if any: found by the
-- bounds PostgreSQL prints, compared as text, never cast; so a renamed
-- table or partition is still found.
CREATE FUNCTION flakeid_partition_of(parent regclass, lo text, hi text) RETURNS regclass
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT i.inhrelid::regclass FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = parent
      AND pg_get_expr(c.relpartbound, c.oid) = format('FOR VALUES FROM (%s) TO (%s)', coalesce(quote_literal(lo), 'MINVALUE'), coalesce(quote_literal(hi), 'MAXVALUE'))
    LIMIT 1
$fn$;
COMMENT ON FUNCTION flakeid_partition_of(regclass, text, text) IS
    'the partition of a table whose bounds are [lo, hi) (NULL: MINVALUE, MAXVALUE), found by the bounds as PostgreSQL prints them (compared as text, never cast)';

-- Makes the partition of a registered table for the interval starting at
-- `starts` where it is missing: a table of its own, LIKE the parent, owned
-- by the parent's owner, the rows of its range moved into it from the
-- default partition (if any), then attached (SHARE UPDATE EXCLUSIVE on the
-- parent, which writers do not wait for; ACCESS EXCLUSIVE on the default
-- partition, if any, until the transaction ends).  For the table's owner.
-- One row: 'made', 'exists', 'skipped' (a lock not granted within
-- lock_timeout, a time the type cannot hold, a table in the way) or
-- 'failed' (the error); its work is undone where it does not end in 'made'.
CREATE FUNCTION flakeid_partition_make(parent regclass, starts timestamptz,
    OUT action text, OUT partition_name text, OUT ends timestamptz, OUT detail text)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
#variable_conflict use_column
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    reg record;
    rel record;
    lo text;
    hi text;
    existing regclass;
    base_name name;
    referenced boolean;
    key_sql text;
    op_schema name;
    columns text;
    default_part oid;
    moved bigint := 0;
BEGIN
    SELECT c.relname, n.nspname, c.relowner, r.rolname INTO rel
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = parent;
    IF rel.relowner IS DISTINCT FROM (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user) THEN
        RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501';
    END IF;
    EXECUTE format('SELECT * FROM %I.flakeid_partitions r WHERE r.parent = $1', schema) INTO reg USING parent;
    IF reg IS NULL THEN
        RAISE EXCEPTION 'table % is not registered for partition upkeep', parent USING ERRCODE = '42704',
            HINT = 'Register it with flakeid_partition_by_time.';
    END IF;
    -- (one run a table at a time: the maintenance's lock, taken again here for a direct call)
    BEGIN
        EXECUTE format('LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE NOWAIT', parent);
    EXCEPTION WHEN lock_not_available THEN
        action := 'skipped';
        detail := 'another maintenance run (or a VACUUM, ANALYZE or DDL) holds the table: the next run tries again';
        RETURN;
    END;
    -- (the start of the interval that holds the instant given: an unaligned one made a
    -- partition that overlapped the aligned ones for good: 1.5's ninth reviewer)
    EXECUTE format('SELECT %I.flakeid_partition_start($1, $2, $3)', schema) INTO starts USING reg.every, starts, reg.time_zone;
    EXECUTE format('SELECT %I.flakeid_partition_end($1, $2, $3)', schema) INTO ends USING reg.every, starts, reg.time_zone;
    key_sql := CASE reg.key_type WHEN 'snowflake' THEN 'bigint' ELSE format('%I.%I', schema, reg.key_type) END;
    op_schema := CASE reg.key_type WHEN 'snowflake' THEN 'pg_catalog' ELSE schema END;
    -- (an interval that begins before the type's first time, or ends past its last, is
    -- bounded by MINVALUE or MAXVALUE there; one wholly outside it holds no ID)
    BEGIN
        EXECUTE format('SELECT %I.%I($1)::text', schema, reg.key_type || '_lower_bound') INTO lo USING starts;
    EXCEPTION WHEN datetime_field_overflow THEN
        lo := NULL;
    END;
    BEGIN
        EXECUTE format('SELECT %I.%I($1)::text', schema, reg.key_type || '_lower_bound') INTO hi USING ends;
    EXCEPTION WHEN datetime_field_overflow THEN
        hi := NULL;
    END;
    IF lo IS NULL AND hi IS NULL THEN
        action := 'skipped';
        detail := format('%s holds no ID of the interval from %s to %s', reg.key_type, starts, ends);
        RETURN;
    END IF;
    EXECUTE format('SELECT %I.flakeid_partition_of($1, $2, $3)', schema) INTO existing USING parent, lo, hi;
    IF existing IS NOT NULL THEN
        action := 'exists';
        partition_name := existing::text;
        RETURN;
    END IF;
    EXECUTE format('SELECT %I.flakeid_partition_name($1, $2, $3, $4)', schema)
        INTO partition_name USING parent, reg.every, starts, reg.time_zone;
    -- (a relation or type of that name, anyone's with CREATE on the schema, once made
    -- the interval skipped for good: 1.5's ninth reviewer; another name, then)
    base_name := partition_name;
    FOR attempt IN 1 .. 10 LOOP
        EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                              WHERE c.relname = partition_name AND n.nspname = rel.nspname)
              AND NOT EXISTS (SELECT 1 FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                              WHERE t.typname = partition_name AND n.nspname = rel.nspname);
        IF attempt = 10 THEN
            action := 'skipped';
            detail := format('the names %I.%I to ..._9 are all taken', rel.nspname, partition_name);
            RETURN;
        END IF;
        partition_name := (left(base_name, 60) || '_' || attempt)::name;
    END LOOP;
    columns := (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a
                WHERE a.attrelid = parent AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '');
    default_part := (SELECT nullif(p.partdefid, 0) FROM pg_partitioned_table p WHERE p.partrelid = parent);
    -- (moving a row out of the default partition is a DELETE to a foreign key that
    -- references the table: ON DELETE CASCADE deleted the rows that referenced it,
    -- 1.5's tenth reviewer; such a table's default rows stay, and say so)
    IF default_part IS NOT NULL AND EXISTS (SELECT 1 FROM pg_constraint k WHERE k.contype = 'f'
               AND (k.confrelid = parent OR k.confrelid = default_part)) THEN
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s WHERE ($1 IS NULL OR %I OPERATOR(%I.>=) $1::%s) AND ($2 IS NULL OR %I OPERATOR(%I.<) $2::%s))',
                       default_part::regclass, reg.key_column, op_schema, key_sql, reg.key_column, op_schema, key_sql)
            INTO referenced USING lo, hi;
        IF referenced THEN
            action := 'skipped';
            detail := format('not made: rows of this interval are in the default partition %s, and a foreign key references %s: moving them would run its ON DELETE action', default_part::regclass, parent);
            RETURN;
        END IF;
    END IF;
    BEGIN
        EXECUTE format('CREATE TABLE %I.%I (LIKE %s INCLUDING ALL EXCLUDING IDENTITY)', rel.nspname, partition_name, parent);
        IF rel.relowner <> (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user) THEN
            EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', rel.nspname, partition_name, rel.rolname);
        END IF;
        IF default_part IS NOT NULL THEN
            -- (the rows its writers commit meanwhile would fail the attach's check)
            EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', default_part::regclass);
            EXECUTE format('WITH moved AS (DELETE FROM %s WHERE ($1 IS NULL OR %I OPERATOR(%I.>=) $1::%s) AND ($2 IS NULL OR %I OPERATOR(%I.<) $2::%s) RETURNING *) '
                           'INSERT INTO %I.%I (%s) SELECT %s FROM moved',
                           default_part::regclass, reg.key_column, op_schema, key_sql, reg.key_column, op_schema, key_sql,
                           rel.nspname, partition_name, columns, columns)
                USING lo, hi;
            GET DIAGNOSTICS moved = ROW_COUNT;
        END IF;
        EXECUTE format('ALTER TABLE %s ATTACH PARTITION %I.%I %s', parent, rel.nspname, partition_name,
                       format('FOR VALUES FROM (%s) TO (%s)', coalesce(quote_literal(lo), 'MINVALUE'), coalesce(quote_literal(hi), 'MAXVALUE')));
        action := 'made';
        -- (an earlier partition is retention's too, however it was made)
        EXECUTE format('UPDATE %I.flakeid_partitions r SET oldest = $2 WHERE r.parent = $1 AND r.oldest > $2', schema) USING parent, starts;
        IF moved > 0 THEN
            detail := format('%s rows moved into it from the default partition %s', moved, default_part::regclass);
        END IF;
    EXCEPTION
        WHEN lock_not_available THEN
            action := 'skipped';
            detail := format('not made: a lock was not granted within lock_timeout (%s); the next run tries again', SQLERRM);
        WHEN OTHERS THEN
            action := 'failed';
            detail := format('not made: %s (SQLSTATE %s)', SQLERRM, SQLSTATE);
    END;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_make(regclass, timestamptz) IS
    'makes the partition of a registered table for the interval starting at starts, if it is missing (flakeid_partition_maintenance''s step): made, exists, skipped or failed, and why';

-- For one registered table or every one the caller owns (owns itself: a
-- superuser too keeps its own tables only, since upkeep runs a table's
-- triggers, constraints and index expressions with the caller's rights):
-- makes the
-- partitions of the interval that holds `at` and `premake` intervals after
-- it, moves rows of a default partition into partitions made for them (16
-- intervals at most a run, oldest first), and finds the partitions whose
-- every ID is older than `retain` before the earlier of `at` and the clock;
-- then, last, drops them (or detaches them, with keep_table).  Dropping and
-- detaching lock the parent ACCESS EXCLUSIVE, which writers wait for, until
-- the call's transaction ends: they come last, after every table's
-- checks, each waiting at most 50 ms for its lock (lock_timeout), skipped
-- and said so otherwise.  Making waits at most 1 s for each lock.  One
-- table's error is that table's ('failed'): the others go on.  Two runs at
-- once do not collide: a table another run is keeping is skipped.  One row
-- per action: made, detached, dropped, skipped, failed, forgotten (a
-- registered table that is gone).
CREATE FUNCTION flakeid_partition_maintenance(parent regclass DEFAULT NULL, at timestamptz DEFAULT now(),
    OUT tab regclass, OUT action text, OUT partition_name text, OUT starts timestamptz, OUT ends timestamptz, OUT detail text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
#variable_conflict use_column
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    -- the caller's, put back before the call returns
    caller_lock_timeout text := current_setting('lock_timeout');
    reg record;
    made record;
    owner_name name;
    report jsonb := '[]';
    drops jsonb := '[]';
    table_report jsonb;
    table_drops jsonb;
    drop_row jsonb;
    s timestamptz;
    e timestamptz;
    cutoff timestamptz;
    lo text;
    hi text;
    child regclass;
    default_part oid;
    oldest_row text;
    from_key text;
    key_sql text;
    op_schema name;
    outside boolean;
    n int;
BEGIN
    IF at IS NULL THEN
        RAISE EXCEPTION 'the instant of a maintenance run must not be null' USING ERRCODE = '22004';
    END IF;
    IF parent IS NOT NULL THEN
        IF NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = parent AND r.rolname = current_user) THEN
            RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501',
                DETAIL = 'Upkeep runs the table owner''s code (its triggers, constraints and index expressions) with the caller''s rights: only the owner keeps its tables, a superuser too.',
                HINT = 'Run it as the table''s owner (a pg_cron job of its own: docs/OPERATIONS.md, "Partitions that keep themselves").';
        END IF;
        EXECUTE format('SELECT count(*) FROM %I.flakeid_partitions r WHERE r.parent = $1', schema) INTO n USING parent;
        IF n = 0 THEN
            RAISE EXCEPTION 'table % is not registered for partition upkeep', parent USING ERRCODE = '42704',
                HINT = 'Register it with flakeid_partition_by_time.';
        END IF;
    END IF;
    -- (the registrations read within 1 s: a lock on them is not waited for without end)
    PERFORM set_config('lock_timeout', '1s', true);
    FOR reg IN EXECUTE format('SELECT * FROM %I.flakeid_partitions r WHERE $1 IS NULL OR r.parent = $1 ORDER BY r.parent::oid', schema)
        USING parent
    LOOP
        owner_name := (SELECT r.rolname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = reg.parent);
        IF owner_name IS NULL THEN
            EXECUTE format('DELETE FROM %I.flakeid_partitions r WHERE r.parent = $1', schema) USING reg.parent;
            report := report || jsonb_build_object('action', 'forgotten',
                'detail', format('the table registered (OID %s) no longer exists: its registration is removed', reg.parent::oid));
            CONTINUE;
        END IF;
        -- (another owner's table, in a run of every table: not the caller's to keep, a
        -- superuser's neither: upkeep would run that owner's triggers, constraints and
        -- index expressions with the caller's rights, and a superuser's pg_cron job made
        -- a table owner a superuser so: 1.5's eighth reviewer and auditor)
        CONTINUE WHEN owner_name <> current_user;
        -- (one run a table at a time, by a lock on the table itself, which only those
        -- with rights on it take: an advisory lock was anyone's, and a role with
        -- PUBLIC's rights held it to stop a table's upkeep, 1.5's tenth auditor)
        BEGIN
            EXECUTE format('LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE NOWAIT', reg.parent);
        EXCEPTION WHEN lock_not_available THEN
            report := report || jsonb_build_object('tab', reg.parent::oid, 'action', 'skipped',
                'detail', 'another maintenance run (or a VACUUM, ANALYZE or DDL) holds the table: the next run tries again');
            CONTINUE;
        END;
        key_sql := CASE reg.key_type WHEN 'snowflake' THEN 'bigint' ELSE format('%I.%I', schema, reg.key_type) END;
        op_schema := CASE reg.key_type WHEN 'snowflake' THEN 'pg_catalog' ELSE schema END;
        -- one table's work; its error is its own, and undoes what it reported
        table_report := '[]';
        table_drops := '[]';
        BEGIN
            EXECUTE format('SELECT * FROM %I.flakeid_partition_check($1, $2, $3, $4, $5)', schema) INTO made
                USING reg.parent, reg.every, reg.premake, reg.retain, reg.time_zone;
            IF made.key_type <> reg.key_type OR made.key_column <> reg.key_column THEN
                RAISE EXCEPTION 'its key is now %.% of %, registered as % of %', reg.parent, made.key_column, made.key_type,
                    reg.key_column, reg.key_type USING ERRCODE = '55000';
            END IF;
            PERFORM set_config('lock_timeout', '1s', true);
            EXECUTE format('SELECT %I.flakeid_partition_start($1, $2, $3)', schema) INTO s USING reg.every, at, reg.time_zone;
            FOR i IN 0 .. reg.premake LOOP
                EXECUTE format('SELECT * FROM %I.flakeid_partition_make($1, $2)', schema) INTO made USING reg.parent, s;
                IF made.action <> 'exists' THEN
                    table_report := table_report || jsonb_build_object('tab', reg.parent::oid, 'action', made.action, 'partition_name', made.partition_name,
                        'starts', s, 'ends', made.ends, 'detail', made.detail);
                END IF;
                -- (a run for an earlier instant makes earlier partitions: retention walks from them)
                IF made.action = 'made' AND s < reg.oldest THEN
                    EXECUTE format('UPDATE %I.flakeid_partitions r SET oldest = $2 WHERE r.parent = $1', schema) USING reg.parent, s;
                    reg.oldest := s;
                END IF;
                EXIT WHEN made.action = 'skipped' AND made.detail LIKE '% holds no ID %' AND s > at;
                s := made.ends;
            END LOOP;
            -- the rows of a default partition, each interval's into a partition made for it; an
            -- interval that cannot be made is passed over, its rows left (said so), the next ones go on
            default_part := (SELECT nullif(p.partdefid, 0) FROM pg_partitioned_table p WHERE p.partrelid = reg.parent);
            from_key := NULL;
            n := 0;
            WHILE default_part IS NOT NULL AND n < 16 LOOP
                -- (by the key's btree order, which no search_path hides)
                EXECUTE format('SELECT k::text FROM (SELECT %I AS k FROM %s WHERE $1 IS NULL OR %I OPERATOR(%I.>=) $1::%s ORDER BY 1 LIMIT 1) o',
                               reg.key_column, default_part::regclass, reg.key_column, op_schema, key_sql)
                    INTO oldest_row USING from_key;
                EXIT WHEN oldest_row IS NULL;
                n := n + 1;
                BEGIN
                    EXECUTE format('SELECT %I.flakeid_partition_start($1, %I.%I($2::%s), $3)', schema, schema, reg.key_type || '_time', key_sql)
                        INTO s USING reg.every, oldest_row, reg.time_zone;
                    -- (the interval whose bounds hold the ID: its time's, or a neighbour's: a
                    -- kuid typed with ticks past its second sorts in the interval before,
                    -- a kuid96 late in a window that straddles the interval's end in the next)
                    FOR step IN 1 .. 4 LOOP
                        EXECUTE format('SELECT $1::%s OPERATOR(%I.<) %I.%I($2)', key_sql, op_schema, schema, reg.key_type || '_lower_bound')
                            INTO outside USING oldest_row, s;
                        EXIT WHEN NOT outside;
                        EXECUTE format('SELECT %I.flakeid_partition_start($1, $2, $3)', schema) INTO s USING reg.every, s - interval '1 microsecond', reg.time_zone;
                    END LOOP;
                    FOR step IN 1 .. 4 LOOP
                        EXECUTE format('SELECT %I.flakeid_partition_end($1, $2, $3)', schema) INTO e USING reg.every, s, reg.time_zone;
                        EXECUTE format('SELECT $1::%s OPERATOR(%I.>=) %I.%I($2)', key_sql, op_schema, schema, reg.key_type || '_lower_bound')
                            INTO outside USING oldest_row, e;
                        EXIT WHEN NOT outside;
                        s := e;
                    END LOOP;
                    EXECUTE format('SELECT %I.flakeid_partition_end($1, $2, $3)', schema) INTO e USING reg.every, s, reg.time_zone;
                    EXECUTE format('SELECT %I.%I($1)::text', schema, reg.key_type || '_lower_bound') INTO from_key USING e;
                EXCEPTION WHEN OTHERS THEN
                    table_report := table_report || jsonb_build_object('tab', reg.parent::oid, 'action', 'failed',
                        'detail', format('the default partition''s row %s has no interval this type can make (%s); it stays there', oldest_row, SQLERRM));
                    EXIT;
                END;
                EXECUTE format('SELECT * FROM %I.flakeid_partition_make($1, $2)', schema) INTO made USING reg.parent, s;
                table_report := table_report || jsonb_build_object('tab', reg.parent::oid, 'action', made.action, 'partition_name', made.partition_name,
                    'starts', s, 'ends', made.ends, 'detail', coalesce(made.detail, CASE made.action WHEN 'exists' THEN 'rows of this interval are in the default partition too' END));
                IF made.action = 'made' AND s < reg.oldest THEN
                    EXECUTE format('UPDATE %I.flakeid_partitions r SET oldest = $2 WHERE r.parent = $1', schema) USING reg.parent, s;
                    reg.oldest := s;
                END IF;
            END LOOP;
            -- retention, as of the earlier of `at` and the clock (an `at` ahead of it makes
            -- partitions ahead, and drops none of the present's), in the registration's zone
            IF reg.retain IS NOT NULL THEN
                cutoff := ((least(at, clock_timestamp()) AT TIME ZONE reg.time_zone) - reg.retain) AT TIME ZONE reg.time_zone;
                s := reg.oldest;
                n := 0;
                LOOP
                    EXECUTE format('SELECT %I.flakeid_partition_end($1, $2, $3)', schema) INTO e USING reg.every, s, reg.time_zone;
                    EXIT WHEN e > cutoff OR n >= 1000;
                    BEGIN
                        EXECUTE format('SELECT %I.%I($1)::text', schema, reg.key_type || '_lower_bound') INTO lo USING s;
                    EXCEPTION WHEN datetime_field_overflow THEN
                        lo := NULL;
                    END;
                    BEGIN
                        EXECUTE format('SELECT %I.%I($1)::text', schema, reg.key_type || '_lower_bound') INTO hi USING e;
                    EXCEPTION WHEN datetime_field_overflow THEN
                        hi := NULL;
                    END;
                    EXECUTE format('SELECT %I.flakeid_partition_of($1, $2, $3)', schema) INTO child USING reg.parent, lo, hi;
                    IF child IS NOT NULL THEN
                        table_drops := table_drops || jsonb_build_object('tab', reg.parent::oid, 'owner', owner_name, 'child', child::oid,
                            'partition_name', child::text, 'starts', s, 'ends', e, 'keep', reg.keep_table, 'cutoff', cutoff);
                    END IF;
                    s := e;
                    n := n + 1;
                END LOOP;
                -- (where the walk goes on from once these are dropped: set after the drops)
                table_drops := table_drops || jsonb_build_object('tab', reg.parent::oid, 'owner', owner_name, 'oldest', s);
            END IF;
            report := report || table_report;
            drops := drops || table_drops;
        EXCEPTION WHEN OTHERS THEN
            report := report || jsonb_build_object('tab', reg.parent::oid, 'action', 'failed',
                'detail', format('%s (SQLSTATE %s); the other tables go on', SQLERRM, SQLSTATE));
        END;
    END LOOP;
    -- retention, last: each table's parent locked ACCESS EXCLUSIVE from its first drop to the call's end
    PERFORM set_config('lock_timeout', '50ms', true);
    FOR drop_row IN SELECT value FROM jsonb_array_elements(drops) LOOP
        BEGIN
            IF drop_row ? 'oldest' THEN
                EXECUTE format('UPDATE %I.flakeid_partitions r SET oldest = $2 WHERE r.parent = $1', schema)
                    USING (drop_row->>'tab')::oid::regclass, (drop_row->>'oldest')::timestamptz;
            ELSIF (drop_row->>'keep')::boolean THEN
                EXECUTE format('ALTER TABLE %s DETACH PARTITION %s', (drop_row->>'tab')::oid::regclass, (drop_row->>'child')::oid::regclass);
                report := report || ((drop_row - 'owner' - 'child' - 'keep' - 'cutoff') || jsonb_build_object('action', 'detached',
                    'detail', format('every ID it could hold is older than %s', drop_row->>'cutoff')));
            ELSE
                EXECUTE format('DROP TABLE %s', (drop_row->>'child')::oid::regclass);
                report := report || ((drop_row - 'owner' - 'child' - 'keep' - 'cutoff') || jsonb_build_object('action', 'dropped',
                    'detail', format('every ID it could hold is older than %s', drop_row->>'cutoff')));
            END IF;
        EXCEPTION WHEN OTHERS THEN
            report := report || ((drop_row - 'owner' - 'child' - 'keep' - 'cutoff' - 'oldest') || jsonb_build_object('action', 'skipped',
                'detail', format('not %s: %s (SQLSTATE %s); the next run tries again',
                                 CASE WHEN (drop_row->>'keep')::boolean THEN 'detached' ELSE 'dropped' END, SQLERRM, SQLSTATE)));
            -- (the walk must not pass a partition left: the table's later drops wait for the next run)
            drops := (SELECT coalesce(jsonb_agg(d), '[]') FROM jsonb_array_elements(drops) d WHERE d->>'tab' <> drop_row->>'tab');
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', caller_lock_timeout, true);
    -- (what failed or was skipped, to the server log too: pg_cron keeps a job's
    -- status alone, and the rows were lost there, 1.5's tenth auditor)
    FOR drop_row IN SELECT value FROM jsonb_array_elements(report) WHERE value->>'action' IN ('failed', 'skipped') LOOP
        RAISE WARNING 'flakeid partition upkeep of %: % %', coalesce((drop_row->>'tab')::oid::regclass::text, '?'),
            drop_row->>'action', coalesce(drop_row->>'partition_name', '') || coalesce(': ' || (drop_row->>'detail'), '');
    END LOOP;
    RETURN QUERY SELECT (r->>'tab')::oid::regclass, r->>'action', r->>'partition_name', (r->>'starts')::timestamptz,
                        (r->>'ends')::timestamptz, r->>'detail'
                 FROM jsonb_array_elements(report) WITH ORDINALITY AS x(r, k) ORDER BY k;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_maintenance(regclass, timestamptz) IS
    'keeps the partitions of one registered table, or of every one the caller owns: makes them up to premake intervals after at, moves a default partition''s rows, drops (or detaches) those older than the retention; one row per action';

-- Registers a table partitioned by range on a flakeid key (or a bigint of
-- snowflakes) for upkeep, and makes its partitions at once (a maintenance
-- run for it): every `every` in `time_zone`, `premake` ahead, dropped (or
-- detached, with keep_table) once every ID they may hold is older than
-- `retain` (never, without).  For the table's owner.
CREATE FUNCTION flakeid_partition_by_time(parent regclass, every interval, premake int DEFAULT 4,
    retain interval DEFAULT NULL, keep_table boolean DEFAULT false, time_zone text DEFAULT 'UTC',
    OUT tab regclass, OUT action text, OUT partition_name text, OUT starts timestamptz, OUT ends timestamptz, OUT detail text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
#variable_conflict use_column
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    checked record;
    oldest timestamptz;
BEGIN
    EXECUTE format('SELECT * FROM %I.flakeid_partition_check($1, $2, $3, $4, $5)', schema)
        INTO checked USING parent, every, premake, retain, time_zone;
    IF NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = parent AND r.rolname = current_user) THEN
        RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501',
            DETAIL = 'Upkeep runs the table owner''s code (its triggers, constraints and index expressions) with the caller''s rights: only the owner keeps its tables, a superuser too.',
            HINT = 'Run it as the table''s owner.';
    END IF;
    IF keep_table IS NULL THEN
        RAISE EXCEPTION 'keep_table must not be null' USING ERRCODE = '22004';
    END IF;
    EXECUTE format('SELECT %I.flakeid_partition_start($1, now(), $2)', schema) INTO oldest USING every, time_zone;
    BEGIN
        EXECUTE format('INSERT INTO %I.flakeid_partitions (parent, key_column, key_type, every, premake, retain, keep_table, time_zone, oldest) '
                       'VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', schema)
            USING parent, checked.key_column, checked.key_type, every, premake, retain, keep_table, time_zone, oldest;
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'table % is already registered for partition upkeep', parent USING ERRCODE = '42710',
            HINT = 'flakeid_partition_forget, then register it again with what is to change.';
    END;
    RETURN QUERY EXECUTE format('SELECT * FROM %I.flakeid_partition_maintenance($1)', schema) USING parent;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_by_time(regclass, interval, int, interval, boolean, text) IS
    'registers a table partitioned by range on a flakeid key for partitions that keep themselves, and makes them: every interval in the time zone, premake ahead, dropped after retain';
