
-- =====================================================================
-- partitions that keep themselves (1.5: issue 82; docs/OPERATIONS.md,
-- "Partitions that keep themselves")
-- =====================================================================

-- The registrations of flakeid_partition_by_time: one row per table
-- partitioned by range on a flakeid column (or a bigint of snowflakes).
-- Kept by pg_dump, so that a restore keeps its upkeep.  Each table's owner
-- reads and writes its own rows (row-level security), as the functions
-- below do for it; a superuser sees every row.  `oldest` is the start of
-- the oldest interval upkeep still keeps: retention walks from it, by the
-- registered interval, never by bounds read back out of the catalog.
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
    'tables whose partitions flakeid keeps (flakeid_partition_by_time): the interval, how many ahead, the retention; each owner reads its own';
SELECT pg_catalog.pg_extension_config_dump('flakeid_partitions', '');
ALTER TABLE flakeid_partitions ENABLE ROW LEVEL SECURITY;
CREATE POLICY flakeid_partitions_owner ON flakeid_partitions
    USING (pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = parent), 'USAGE'))
    WITH CHECK (pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = parent), 'USAGE'));
GRANT SELECT, INSERT, UPDATE, DELETE ON flakeid_partitions TO PUBLIC;

-- The start of the interval `every` that holds `t`, in `time_zone`: months
-- counted from January 2000, anything else binned from Monday 3 January
-- 2000 (so that weeks start on Mondays and days at midnight).  An interval
-- of months with days or time in it is 22023.
CREATE FUNCTION flakeid_partition_start(every interval, t timestamptz, time_zone text DEFAULT 'UTC')
    RETURNS timestamptz
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    months int := (extract(year FROM every) * 12 + extract(month FROM every))::int;
    local timestamp := t AT TIME ZONE time_zone;
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
        RETURN make_timestamp(2000 + floor(total / 12.0)::int, ((total % 12) + 12) % 12 + 1, 1, 0, 0, 0) AT TIME ZONE time_zone;
    END IF;
    RETURN date_bin(every, local, timestamp '2000-01-03') AT TIME ZONE time_zone;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_start(interval, timestamptz, text) IS
    'the start of the partition interval that holds t, in the time zone given: months counted from January 2000, other intervals from Monday 3 January 2000';

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
    SELECT c.relkind, c.relowner, c.relname INTO rel FROM pg_class c WHERE c.oid = parent;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', parent::oid USING ERRCODE = '42P01';
    END IF;
    IF NOT pg_has_role(rel.relowner, 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501';
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
    PERFORM now() AT TIME ZONE time_zone;    -- (22023 for an unknown zone)
    IF every <= interval '0' THEN
        RAISE EXCEPTION 'a partition interval must be positive, not %', every USING ERRCODE = '22023';
    END IF;
    IF (extract(year FROM every) <> 0 OR extract(month FROM every) <> 0)
       AND every <> make_interval(months => (extract(year FROM every) * 12 + extract(month FROM every))::int) THEN
        RAISE EXCEPTION 'a partition interval of months may hold no days or time: %', every
            USING ERRCODE = '22023', HINT = 'Use months alone (''1 month'', ''3 months''), or days and time alone.';
    END IF;
    seconds := extract(epoch FROM every);
    IF seconds < 1 THEN
        RAISE EXCEPTION 'a partition interval of % is finer than flakeid keeps: a second or more', every USING ERRCODE = '22023';
    END IF;
    IF key_type = 'kuid96' AND extract(year FROM every) = 0 AND extract(month FROM every) = 0 AND extract(day FROM every) = 0
       AND seconds % 3600 <> 0 AND seconds % 256 <> 0 THEN
        RAISE EXCEPTION 'a partition interval of % is not a whole number of kuid96 windows (256 s) nor of hours', every
            USING ERRCODE = '22023',
                  DETAIL = 'kuid96 IDs are ordered by 256-second windows: a bound moves back to its window''s start, and a shorter or uneven interval would make empty or overlapping partitions.';
    END IF;
    IF premake < 0 OR premake > 1000 THEN
        RAISE EXCEPTION 'premake must lie between 0 and 1000, not %', premake USING ERRCODE = '22023';
    END IF;
    IF retain IS NOT NULL AND retain < every THEN
        RAISE EXCEPTION 'a retention of % is shorter than the partition interval %', retain, every USING ERRCODE = '22023',
            DETAIL = 'A partition is dropped once every ID it may hold is older than the retention: a shorter one would drop the present''s.';
    END IF;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_check(regclass, interval, int, interval, text) IS
    'the key type and column of a table flakeid may keep the partitions of, or the error that says why not (flakeid_partition_by_time''s checks)';

-- The name of the partition of `parent` for the interval starting at
-- `starts`: the parent's name (its first 40 characters) and the start in
-- the registration's time zone, to the day, the minute or the second the
-- interval needs ("events_p20261130", "events_p20261130_0600").
CREATE FUNCTION flakeid_partition_name(parent regclass, every interval, starts timestamptz, time_zone text DEFAULT 'UTC')
    RETURNS name
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT (left(c.relname, 40) || '_p' || to_char(starts AT TIME ZONE time_zone,
            CASE WHEN extract(epoch FROM every) % 86400 = 0 THEN 'YYYYMMDD'
                 WHEN extract(epoch FROM every) % 60 = 0 THEN 'YYYYMMDD"_"HH24MI'
                 ELSE 'YYYYMMDD"_"HH24MISS' END))::name
    FROM pg_class c WHERE c.oid = parent
$fn$;
COMMENT ON FUNCTION flakeid_partition_name(regclass, interval, timestamptz, text) IS
    'the name flakeid gives the partition of a table for the interval starting at starts';

-- Makes the partition of a registered table for the interval starting at
-- `starts` where it is missing: a table of its own, LIKE the parent, owned
-- by the parent's owner, the rows of its range moved into it from the
-- default partition (if any), then attached (SHARE UPDATE EXCLUSIVE on the
-- parent, which writers do not wait for; the default partition, where
-- there is one, is locked ACCESS EXCLUSIVE for the attach's check).  One
-- row: 'made', 'exists', 'skipped' (a lock not granted within lock_timeout,
-- a time the type cannot hold: retried by the next run) or 'failed' (the
-- error).  Its work is undone where it does not end in 'made'.
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
    existing oid;
    lo text;
    hi text;
    key_sql text;
    op_schema name;
    columns text;
    default_part oid;
    moved bigint := 0;
BEGIN
    EXECUTE format('SELECT * FROM %I.flakeid_partitions r WHERE r.parent = $1', schema) INTO reg USING parent;
    IF reg IS NULL THEN
        RAISE EXCEPTION 'table % is not registered for partition upkeep', parent USING ERRCODE = '42704',
            HINT = 'Register it with flakeid_partition_by_time.';
    END IF;
    SELECT c.relname, c.relnamespace, c.relowner INTO rel FROM pg_class c WHERE c.oid = parent;
    IF NOT pg_has_role(rel.relowner, 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501';
    END IF;
    EXECUTE format('SELECT %I.flakeid_partition_name($1, $2, $3, $4)', schema)
        INTO partition_name USING parent, reg.every, starts, reg.time_zone;
    ends := ((starts AT TIME ZONE reg.time_zone) + reg.every) AT TIME ZONE reg.time_zone;
    SELECT c.oid INTO existing FROM pg_class c WHERE c.relname = partition_name AND c.relnamespace = rel.relnamespace;
    IF existing IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = existing AND i.inhparent = parent) THEN
            action := 'exists';
        ELSE
            action := 'skipped';
            detail := format('a table named %s that is not a partition of %s is in the way', partition_name, parent);
        END IF;
        RETURN;
    END IF;
    key_sql := CASE reg.key_type WHEN 'snowflake' THEN 'bigint' ELSE format('%I.%I', schema, reg.key_type) END;
    op_schema := CASE reg.key_type WHEN 'snowflake' THEN 'pg_catalog' ELSE schema END;
    BEGIN
        EXECUTE format('SELECT %I.%I($1)::text, %I.%I($2)::text', schema, reg.key_type || '_lower_bound', schema, reg.key_type || '_lower_bound')
            INTO lo, hi USING starts, ends;
    EXCEPTION WHEN datetime_field_overflow THEN
        action := 'skipped';
        detail := format('%s holds no ID of the interval from %s: %s', reg.key_type, starts, SQLERRM);
        RETURN;
    END;
    columns := (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a
                WHERE a.attrelid = parent AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '');
    default_part := (SELECT nullif(p.partdefid, 0) FROM pg_partitioned_table p WHERE p.partrelid = parent);
    BEGIN
        EXECUTE format('CREATE TABLE %I.%I (LIKE %s INCLUDING ALL EXCLUDING IDENTITY)', rel.relnamespace::regnamespace, partition_name, parent);
        IF rel.relowner <> (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user) THEN
            EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', rel.relnamespace::regnamespace, partition_name, rel.relowner::regrole);
        END IF;
        IF default_part IS NOT NULL THEN
            EXECUTE format('WITH moved AS (DELETE FROM %s WHERE %I OPERATOR(%I.>=) $1::%s AND %I OPERATOR(%I.<) $2::%s RETURNING *) '
                           'INSERT INTO %I.%I (%s) SELECT %s FROM moved',
                           default_part::regclass, reg.key_column, op_schema, key_sql, reg.key_column, op_schema, key_sql,
                           rel.relnamespace::regnamespace, partition_name, columns, columns)
                USING lo, hi;
            GET DIAGNOSTICS moved = ROW_COUNT;
        END IF;
        EXECUTE format('ALTER TABLE %s ATTACH PARTITION %I.%I FOR VALUES FROM (%L) TO (%L)',
                       parent, rel.relnamespace::regnamespace, partition_name, lo, hi);
        action := 'made';
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

-- For one registered table or every one the caller owns: makes the
-- partitions of the interval that holds `at` and `premake` intervals
-- after it, moves rows of a default partition into partitions made for
-- them (16 intervals at most a run, oldest first), and then, for every
-- table, applies retention: a partition whose every ID is older than
-- at - retain is dropped (or detached, with keep_table).  Dropping and
-- detaching lock the parent ACCESS EXCLUSIVE, which writers wait for: they
-- come last, so that the lock is held only until the call's transaction
-- ends, and wait for it at most 50 ms (lock_timeout), skipped and said so
-- otherwise.  Making waits at most 1 s for each lock.  Two runs at once do
-- not collide: a table another run is keeping is skipped.  One row per
-- action: made, detached, dropped, skipped, failed, forgotten (a
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
    kept oid[] := '{}';
    s timestamptz;
    e timestamptz;
    child oid;
    hi text;
    newer boolean;
    default_part oid;
    oldest_row text;
    key_sql text;
    op_schema name;
    outside boolean;
    n int;
BEGIN
    IF at IS NULL THEN
        RAISE EXCEPTION 'the instant of a maintenance run must not be null' USING ERRCODE = '22004';
    END IF;
    IF parent IS NOT NULL THEN
        IF NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = parent AND pg_has_role(c.relowner, 'USAGE')) THEN
            RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501';
        END IF;
        EXECUTE format('SELECT count(*) FROM %I.flakeid_partitions r WHERE r.parent = $1', schema) INTO n USING parent;
        IF n = 0 THEN
            RAISE EXCEPTION 'table % is not registered for partition upkeep', parent USING ERRCODE = '42704',
                HINT = 'Register it with flakeid_partition_by_time.';
        END IF;
    END IF;
    -- making: every table first, each under a transaction-long advisory lock of its own
    FOR reg IN EXECUTE format('SELECT * FROM %I.flakeid_partitions r WHERE $1 IS NULL OR r.parent = $1 ORDER BY r.parent::oid', schema)
        USING parent
    LOOP
        tab := NULL; partition_name := NULL; starts := NULL; ends := NULL; detail := NULL;
        IF NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = reg.parent) THEN
            EXECUTE format('DELETE FROM %I.flakeid_partitions r WHERE r.parent = $1', schema) USING reg.parent;
            action := 'forgotten';
            detail := format('the table registered (OID %s) no longer exists: its registration is removed', reg.parent::oid);
            RETURN NEXT;
            CONTINUE;
        END IF;
        tab := reg.parent;
        IF NOT pg_try_advisory_xact_lock(hashtext('flakeid_partition_maintenance'), (reg.parent::oid::bigint - 2147483648)::int) THEN
            action := 'skipped';
            detail := 'another maintenance run is keeping this table''s partitions';
            RETURN NEXT;
            CONTINUE;
        END IF;
        BEGIN
            EXECUTE format('SELECT * FROM %I.flakeid_partition_check($1, $2, $3, $4, $5)', schema)
                USING reg.parent, reg.every, reg.premake, reg.retain, reg.time_zone;
        EXCEPTION WHEN OTHERS THEN
            action := 'failed';
            detail := format('the registration no longer fits the table: %s (SQLSTATE %s)', SQLERRM, SQLSTATE);
            RETURN NEXT;
            CONTINUE;
        END;
        kept := kept || reg.parent::oid;
        PERFORM set_config('lock_timeout', '1s', true);
        EXECUTE format('SELECT %I.flakeid_partition_start($1, $2, $3)', schema) INTO s USING reg.every, at, reg.time_zone;
        FOR i IN 0 .. reg.premake LOOP
            EXECUTE format('SELECT * FROM %I.flakeid_partition_make($1, $2)', schema) INTO made USING reg.parent, s;
            IF made.action <> 'exists' THEN
                action := made.action; partition_name := made.partition_name; starts := s; ends := made.ends; detail := made.detail;
                RETURN NEXT;
            END IF;
            EXIT WHEN made.action = 'skipped' AND made.detail LIKE '% holds no ID %';
            s := made.ends;
        END LOOP;
        -- the rows of a default partition, each interval's into a partition made for it
        key_sql := CASE reg.key_type WHEN 'snowflake' THEN 'bigint' ELSE format('%I.%I', schema, reg.key_type) END;
        op_schema := CASE reg.key_type WHEN 'snowflake' THEN 'pg_catalog' ELSE schema END;
        default_part := (SELECT nullif(p.partdefid, 0) FROM pg_partitioned_table p WHERE p.partrelid = reg.parent);
        n := 0;
        WHILE default_part IS NOT NULL AND n < 16 LOOP
            -- (by the key's btree order, which no search_path hides)
            EXECUTE format('SELECT k::text FROM (SELECT %I AS k FROM %s ORDER BY 1 LIMIT 1) o', reg.key_column, default_part::regclass)
                INTO oldest_row;
            EXIT WHEN oldest_row IS NULL;
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
                e := ((s AT TIME ZONE reg.time_zone) + reg.every) AT TIME ZONE reg.time_zone;
                EXECUTE format('SELECT $1::%s OPERATOR(%I.>=) %I.%I($2)', key_sql, op_schema, schema, reg.key_type || '_lower_bound')
                    INTO outside USING oldest_row, e;
                EXIT WHEN NOT outside;
                s := e;
            END LOOP;
            EXECUTE format('SELECT * FROM %I.flakeid_partition_make($1, $2)', schema) INTO made USING reg.parent, s;
            action := made.action; partition_name := made.partition_name; starts := s; ends := made.ends; detail := made.detail;
            RETURN NEXT;
            EXIT WHEN made.action <> 'made';
            EXECUTE format('UPDATE %I.flakeid_partitions r SET oldest = least(r.oldest, $2) WHERE r.parent = $1', schema) USING reg.parent, s;
            n := n + 1;
        END LOOP;
    END LOOP;
    -- retention, last: the parent's ACCESS EXCLUSIVE lock is then held only until the call ends
    FOR reg IN EXECUTE format('SELECT * FROM %I.flakeid_partitions r WHERE r.parent = ANY ($1) AND r.retain IS NOT NULL ORDER BY r.parent::oid', schema)
        USING kept
    LOOP
        tab := reg.parent; starts := NULL; ends := NULL; detail := NULL; partition_name := NULL;
        s := reg.oldest;
        n := 0;
        LOOP
            e := ((s AT TIME ZONE reg.time_zone) + reg.every) AT TIME ZONE reg.time_zone;
            EXIT WHEN e > at - reg.retain OR n >= 1000;
            EXECUTE format('SELECT %I.flakeid_partition_name($1, $2, $3, $4)', schema) INTO partition_name USING reg.parent, reg.every, s, reg.time_zone;
            child := (SELECT c.oid FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = reg.parent
                      WHERE c.relname = partition_name AND c.relnamespace = (SELECT p.relnamespace FROM pg_class p WHERE p.oid = reg.parent));
            IF child IS NOT NULL THEN
                starts := s; ends := e;
                -- (every ID of the interval lies below the bound of its end: one at or above it is
                -- no ID of this interval, in a partition this upkeep did not make, and it stays)
                EXECUTE format('SELECT %I.%I($1)::text', schema, reg.key_type || '_lower_bound') INTO hi USING e;
                EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s WHERE %I OPERATOR(%I.>=) $1::%s)', child::regclass, reg.key_column,
                               CASE reg.key_type WHEN 'snowflake' THEN 'pg_catalog' ELSE schema END,
                               CASE reg.key_type WHEN 'snowflake' THEN 'bigint' ELSE format('%I.%I', schema, reg.key_type) END)
                    INTO newer USING hi;
                IF newer THEN
                    action := 'skipped';
                    detail := format('kept: it holds IDs of times after %s, which it was not made for', e);
                    RETURN NEXT;
                    EXIT;
                END IF;
                BEGIN
                    PERFORM set_config('lock_timeout', '50ms', true);
                    IF reg.keep_table THEN
                        EXECUTE format('ALTER TABLE %s DETACH PARTITION %s', reg.parent, child::regclass);
                        action := 'detached';
                    ELSE
                        EXECUTE format('DROP TABLE %s', child::regclass);
                        action := 'dropped';
                    END IF;
                    detail := format('every ID it could hold is older than %s', at - reg.retain);
                EXCEPTION WHEN lock_not_available THEN
                    action := 'skipped';
                    detail := format('not %s: a lock on %s was not granted within 50 ms; the next run tries again',
                                     CASE WHEN reg.keep_table THEN 'detached' ELSE 'dropped' END, reg.parent);
                    RETURN NEXT;
                    EXIT;
                END;
                RETURN NEXT;
            END IF;
            s := e;
            n := n + 1;
        END LOOP;
        IF s <> reg.oldest THEN
            EXECUTE format('UPDATE %I.flakeid_partitions r SET oldest = $2 WHERE r.parent = $1', schema) USING reg.parent, s;
        END IF;
    END LOOP;
    PERFORM set_config('lock_timeout', caller_lock_timeout, true);
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
            HINT = 'Change its row of flakeid_partitions, or delete the row and register it again.';
    END;
    RETURN QUERY EXECUTE format('SELECT * FROM %I.flakeid_partition_maintenance($1)', schema) USING parent;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_by_time(regclass, interval, int, interval, boolean, text) IS
    'registers a table partitioned by range on a flakeid key for partitions that keep themselves, and makes them: every interval in the time zone, premake ahead, dropped after retain';
