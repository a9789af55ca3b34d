-- =====================================================================
-- partitions that keep themselves (1.5: issue 82; docs/OPERATIONS.md,
-- "Partitions that keep themselves")
-- =====================================================================

-- The registrations of flakeid_partition_by_time: one row per table
-- partitioned by range on a flakeid column (or a bigint of snowflakes).
-- Kept by pg_dump, so that a restore keeps its upkeep.  Every role may read
-- it and INSERT into it (a registration: pg_restore as a tables' owner
-- does), each row guarded by flakeid_partitions_guard: only a table's owner
-- (a member of the owning role, or a superuser) writes its row, checked as
-- the caller, key re-derived.  No role but the extension's owner may UPDATE
-- or DELETE it: those privileges let any role lock the table ACCESS
-- EXCLUSIVE, or lock other owners' rows FOR UPDATE, and so stop every
-- owner's upkeep (1.5's eleventh reviewer); an owner's changes go through
-- flakeid_partition_requests.  `oldest` is the start of the oldest
-- interval upkeep has made or found (a record: retention finds the
-- partitions by their bounds).  `snowflake_epoch` is the epoch a snowflake
-- table was registered under (snowflake_time(0) then; NULL for the other
-- types): a bigint bound is a time only under one epoch, and a run under
-- another (flakeid.snowflake_epoch_ms moved earlier, as OPERATIONS allows)
-- read every partition as that much older, and retention dropped current
-- rows (1.5's fifteenth reviewer).  Runs refuse such a table.
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
    registered timestamptz NOT NULL DEFAULT now(),
    snowflake_epoch timestamptz
);
COMMENT ON TABLE flakeid_partitions IS
    'tables whose partitions flakeid keeps (flakeid_partition_by_time): the interval, how many ahead, the retention; each row written by its table''s owner alone';
SELECT pg_catalog.pg_extension_config_dump('flakeid_partitions', '');
REVOKE ALL ON flakeid_partitions FROM PUBLIC;
GRANT SELECT, INSERT ON flakeid_partitions TO PUBLIC;

-- An owner's change of a registration, as a row INSERTed here (the only
-- privilege PUBLIC has on it, whose lock, ROW EXCLUSIVE, conflicts with
-- nothing a run or pg_dump takes): flakeid_partition_request_check, run as
-- the caller, checks that the caller owns the table and stamps the row;
-- flakeid_partition_request_apply, the extension owner's, a BEFORE trigger
-- too that fires after it (triggers fire in name order), applies it to the
-- registration and returns NULL: the row is never stored (stored and then
-- deleted, a role's millions of requests, refused or not, left as many dead
-- rows that every owner's request scanned: 1.5's thirteenth reviewer).  'set' changes
-- premake, retain (no_retention: none), keep_table and oldest where given;
-- 'lower' lowers oldest to the one given; 'forget' removes the
-- registration.  Always empty once a statement ends; not dumped.
CREATE TABLE flakeid_partition_requests (
    id uuid,
    parent regclass NOT NULL,
    request text NOT NULL CHECK (request IN ('set', 'lower', 'forget')),
    premake int,
    retain interval,
    no_retention boolean NOT NULL DEFAULT false,
    keep_table boolean,
    oldest timestamptz,
    requested_by name,
    requested_at timestamptz
);
COMMENT ON TABLE flakeid_partition_requests IS
    'an owner''s change of its registration in flakeid_partitions (set, lower, forget), applied as it is inserted, and never stored';
REVOKE ALL ON flakeid_partition_requests FROM PUBLIC;
GRANT INSERT ON flakeid_partition_requests TO PUBLIC;

-- Whether the current user may write `parent`'s registration (`run`
-- false): its owner as PostgreSQL counts it, a member of the owning role
-- with its privileges (pg_has_role(..., 'USAGE'): a restore as such a
-- member lost every registration, 1.5's eleventh reviewer), or a
-- superuser.  Writing a registration runs no code of the table.  Or
-- whether it may run the table's upkeep (`run` true: by_time's first
-- partitions, make, maintenance): its owner itself, no member and no
-- superuser, since a run executes the table owner's triggers, constraints
-- and index expressions with the caller's rights (a superuser's: 1.5's
-- eighth reviewer and auditor; a member's, which let one owner of several
-- whose member runs them read another's data: the thirteenth auditor).
-- A member runs them after SET ROLE to the owner, as the owner's own code
-- then runs with the owner's rights.  NULL for a table that does not exist.
CREATE FUNCTION flakeid_partition_owned(parent regclass, run boolean DEFAULT true) RETURNS boolean
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN run THEN c.relowner = r.oid
                ELSE r.rolsuper OR pg_has_role(r.oid, c.relowner, 'USAGE') END
    FROM pg_class c, pg_roles r WHERE c.oid = parent AND r.rolname = current_user
$fn$;
COMMENT ON FUNCTION flakeid_partition_owned(regclass, boolean) IS
    'whether the current user may write a table''s registration (its owner as PostgreSQL counts it: a member of the owning role, or a superuser), or, where run is true, run its upkeep (its owner itself)';

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
    EXECUTE format('SELECT %I.flakeid_partition_owned($1, false)', schema) INTO found USING parent;
    IF NOT found THEN
        RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501';
    END IF;
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.flakeid_partitions r WHERE r.parent = $1)', schema) INTO found USING parent;
    IF found THEN
        EXECUTE format('INSERT INTO %I.flakeid_partition_requests (parent, request) VALUES ($1, ''forget'')', schema) USING parent;
    END IF;
    RETURN found;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_forget(regclass) IS
    'ends the upkeep of a table (its partitions stay): true where it was registered';

-- Changes a registration's premake, retain (no_retention: none) and
-- keep_table, each where given; the interval and the time zone do not
-- change.  For the table's owner.  Returns the registration as it now is.
CREATE FUNCTION flakeid_partition_set(parent regclass, premake int DEFAULT NULL, retain interval DEFAULT NULL,
    keep_table boolean DEFAULT NULL, no_retention boolean DEFAULT false)
    RETURNS flakeid_partitions
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    result record;
BEGIN
    IF parent IS NULL OR no_retention IS NULL THEN
        RAISE EXCEPTION 'the table and no_retention must not be null' USING ERRCODE = '22004';
    END IF;
    IF no_retention AND retain IS NOT NULL THEN
        RAISE EXCEPTION 'a retention and no_retention at once' USING ERRCODE = '22023';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = parent) THEN
        RAISE EXCEPTION 'relation with OID % does not exist', parent::oid USING ERRCODE = '42P01';
    END IF;
    EXECUTE format('INSERT INTO %I.flakeid_partition_requests (parent, request, premake, retain, no_retention, keep_table) '
                   'VALUES ($1, ''set'', $2, $3, $4, $5)', schema) USING parent, premake, retain, no_retention, keep_table;
    EXECUTE format('SELECT r.* FROM %I.flakeid_partitions r WHERE r.parent = $1', schema) INTO result USING parent;
    RETURN result;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_set(regclass, int, interval, boolean, boolean) IS
    'changes the premake, retain (no_retention: none) or keep_table of a registered table, each where given; the registration as it now is';

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
    IF NOT pg_has_role(current_user, rel.relowner, 'USAGE') THEN
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
-- written only by its table's owner (a member of the owning role) or a
-- superuser; a new or changed row is checked as flakeid_partition_by_time
-- checks a table, its key type and column re-derived from the table.  A
-- new row whose table no longer exists is passed over (an old dump's row:
-- its COPY failed, every registration lost, 1.5's eleventh auditor).
-- Only the extension's owner (flakeid_partition_request_apply,
-- flakeid_partitions_dropped) and superusers UPDATE and DELETE.
CREATE FUNCTION flakeid_partitions_guard() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    checked record;
    owned boolean;
BEGIN
    IF TG_OP = 'INSERT' AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = NEW.parent) THEN
        RETURN NULL;
    END IF;
    EXECUTE format('SELECT %I.flakeid_partition_owned($1, false)', schema) INTO owned
        USING CASE TG_OP WHEN 'INSERT' THEN NEW.parent ELSE OLD.parent END;
    IF NOT owned THEN
        RAISE EXCEPTION 'must be owner of table % to change its partitions'' upkeep', CASE TG_OP WHEN 'INSERT' THEN NEW.parent ELSE OLD.parent END
            USING ERRCODE = '42501';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    -- (partitions made on one grid overlap another's: a changed interval or zone
    -- left a lasting hole and retention passed the old ones over, 1.5's tenth reviewer)
    IF TG_OP = 'UPDATE' AND (NEW.every IS DISTINCT FROM OLD.every OR NEW.time_zone IS DISTINCT FROM OLD.time_zone
                             OR NEW.parent IS DISTINCT FROM OLD.parent OR NEW.snowflake_epoch IS DISTINCT FROM OLD.snowflake_epoch) THEN
        RAISE EXCEPTION 'a registration''s table, interval, time zone and snowflake epoch do not change' USING ERRCODE = '55000',
            HINT = 'flakeid_partition_forget, drop or detach the partitions made on the old interval, then register again.';
    END IF;
    EXECUTE format('SELECT * FROM %I.flakeid_partition_check($1, $2, $3, $4, $5)', schema) INTO checked
        USING NEW.parent, NEW.every, NEW.premake, NEW.retain, NEW.time_zone;
    NEW.key_type := checked.key_type;
    NEW.key_column := checked.key_column;
    -- (a snowflake table's epoch: the one in force when it is registered, or
    -- restored with its dump's; none for the other types)
    IF NEW.key_type <> 'snowflake' THEN
        NEW.snowflake_epoch := NULL;
    ELSIF TG_OP = 'INSERT' AND NEW.snowflake_epoch IS NULL THEN
        EXECUTE format('SELECT %I.snowflake_time(0::bigint)', schema) INTO NEW.snowflake_epoch;
    END IF;
    IF NEW.oldest IS NULL OR NOT isfinite(NEW.oldest) THEN
        RAISE EXCEPTION 'the oldest interval kept must be a finite instant' USING ERRCODE = '22023';
    END IF;
    RETURN NEW;
END
$fn$;
COMMENT ON FUNCTION flakeid_partitions_guard() IS
    'the guard of flakeid_partitions: a row written by its table''s owner (or a superuser) alone, checked and its key re-derived; a new row of a table that is gone passed over';
CREATE TRIGGER flakeid_partitions_guard BEFORE INSERT OR UPDATE OR DELETE ON flakeid_partitions
    FOR EACH ROW EXECUTE FUNCTION flakeid_partitions_guard();

-- The check of a request (flakeid_partition_requests), run as the caller,
-- whoever's code calls it (current_user is the caller inside another
-- role's SECURITY DEFINER function too): the caller must own the table (a
-- member of the owning role, or a superuser); a table that is gone is
-- anyone's to forget.  It stamps the row with the caller and an id.
CREATE FUNCTION flakeid_partition_request_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    owned boolean;
BEGIN
    EXECUTE format('SELECT %I.flakeid_partition_owned($1, false)', schema) INTO owned USING NEW.parent;
    IF owned IS NULL AND NEW.request <> 'forget' THEN
        RAISE EXCEPTION 'relation with OID % does not exist', NEW.parent::oid USING ERRCODE = '42P01';
    END IF;
    IF NOT owned THEN
        RAISE EXCEPTION 'must be owner of table % to change its partitions'' upkeep', NEW.parent USING ERRCODE = '42501';
    END IF;
    NEW.id := gen_random_uuid();
    NEW.requested_by := current_user;
    NEW.requested_at := clock_timestamp();
    RETURN NEW;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_request_check() IS
    'the check of a request to change a registration, run as the caller: the table''s owner (or a superuser) alone; the row stamped';
CREATE TRIGGER flakeid_partition_request_check BEFORE INSERT ON flakeid_partition_requests
    FOR EACH ROW EXECUTE FUNCTION flakeid_partition_request_check();

-- Applies a checked request to its registration (the row then not
-- stored): the extension owner's (SECURITY DEFINER), as no other role may UPDATE or
-- DELETE flakeid_partitions; a trigger function, which no one calls but
-- the trigger, after the caller's own check (a BEFORE trigger no one but a
-- superuser can skip).  The registration's own guard checks what it
-- writes.  Where the caller who requested it (stamped) no longer owns the
-- table, nothing is applied (42501).
CREATE FUNCTION flakeid_partition_request_apply() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    n bigint;
BEGIN
    -- (the row's constraints are never checked: it is never stored)
    IF NEW.parent IS NULL OR NEW.request IS NULL OR NEW.request NOT IN ('set', 'lower', 'forget')
       OR NEW.no_retention IS NULL THEN
        RAISE EXCEPTION 'a request is set, lower or forget, of a table' USING ERRCODE = '22023';
    END IF;
    IF NEW.id IS NULL OR NEW.requested_by IS NULL
       OR EXISTS (SELECT 1 FROM pg_class c, pg_roles r WHERE c.oid = NEW.parent AND r.rolname = NEW.requested_by
                  AND NOT r.rolsuper AND NOT pg_has_role(r.oid, c.relowner, 'USAGE')) THEN
        RAISE EXCEPTION 'must be owner of table % to change its partitions'' upkeep', NEW.parent USING ERRCODE = '42501';
    END IF;
    IF NEW.request = 'forget' THEN
        EXECUTE format('DELETE FROM %I.flakeid_partitions r WHERE r.parent = $1', schema) USING NEW.parent;
    ELSIF NEW.request = 'lower' THEN
        EXECUTE format('UPDATE %I.flakeid_partitions r SET oldest = $2 WHERE r.parent = $1 AND r.oldest > $2', schema)
            USING NEW.parent, NEW.oldest;
    ELSE
        EXECUTE format('UPDATE %I.flakeid_partitions r SET premake = coalesce($2, r.premake), '
                       'retain = CASE WHEN $4 THEN NULL ELSE coalesce($3, r.retain) END, '
                       'keep_table = coalesce($5, r.keep_table), oldest = coalesce($6, r.oldest) WHERE r.parent = $1', schema)
            USING NEW.parent, NEW.premake, NEW.retain, NEW.no_retention, NEW.keep_table, NEW.oldest;
        GET DIAGNOSTICS n = ROW_COUNT;
        IF n = 0 THEN
            RAISE EXCEPTION 'table % is not registered for partition upkeep', NEW.parent USING ERRCODE = '42704',
                HINT = 'Register it with flakeid_partition_by_time.';
        END IF;
    END IF;
    RETURN NULL;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_request_apply() IS
    'applies a checked request to its registration in flakeid_partitions and removes it (the extension owner''s: no other role updates or deletes registrations)';
REVOKE EXECUTE ON FUNCTION flakeid_partition_request_apply() FROM PUBLIC;
-- ("z": after flakeid_partition_request_check, BEFORE triggers firing in name order)
CREATE TRIGGER flakeid_partition_request_z_apply BEFORE INSERT ON flakeid_partition_requests
    FOR EACH ROW EXECUTE FUNCTION flakeid_partition_request_apply();

-- Removes the registrations of the tables a command drops (an event
-- trigger on sql_drop): a registration left behind made pg_dump's COPY of
-- flakeid_partitions fail on restore, "relation with OID n does not
-- exist", every registration lost (1.5's eleventh auditor).  The
-- extension owner's: it deletes only rows whose table is among
-- pg_event_trigger_dropped_objects().
CREATE FUNCTION flakeid_partitions_dropped() RETURNS event_trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    dropped oid[];
BEGIN
    dropped := ARRAY(SELECT o.objid FROM pg_event_trigger_dropped_objects() o
                     WHERE o.classid = 'pg_class'::regclass AND o.objsubid = 0 AND o.object_type IN ('table', 'partitioned table'));
    -- (none, or the extension itself dropped with its table)
    IF cardinality(dropped) = 0 OR schema IS NULL
       OR to_regclass(format('%I.flakeid_partitions', schema)) IS NULL
       OR to_regclass(format('%I.flakeid_partitions', schema)) = ANY (dropped) THEN
        RETURN;
    END IF;
    EXECUTE format('DELETE FROM %I.flakeid_partitions r WHERE r.parent::oid = ANY ($1)', schema) USING dropped;
END
$fn$;
COMMENT ON FUNCTION flakeid_partitions_dropped() IS
    'removes the registrations of the tables a command drops (the event trigger flakeid_partitions_dropped, on sql_drop)';
REVOKE EXECUTE ON FUNCTION flakeid_partitions_dropped() FROM PUBLIC;
CREATE EVENT TRIGGER flakeid_partitions_dropped ON sql_drop EXECUTE FUNCTION flakeid_partitions_dropped();
COMMENT ON EVENT TRIGGER flakeid_partitions_dropped IS
    'removes the registrations in flakeid_partitions of the tables a command drops';

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

-- The keys that bound the interval [starts, ends) of a table keyed by
-- key_type (sno, flax, siq, kuid, kuid96, or snowflake for a bigint): each
-- the text of <key_type>_lower_bound, NULL where the interval begins
-- before the type's first time or ends past its last (MINVALUE, MAXVALUE:
-- a snowflake epoch's, flax's in 2049).  make, retention and by_time's
-- check of the present each name an interval's partition so.  PARALLEL
-- UNSAFE, as flakeid_partition_ranges_meet: their exception blocks are
-- subtransactions, which PostgreSQL 15 and 16 refuse in a parallel query
-- (under force_parallel_mode a registration failed so: 1.5's twenty-fifth
-- reviewer).
CREATE FUNCTION flakeid_partition_keys(key_type text, starts timestamptz, ends timestamptz, OUT lo text, OUT hi text)
    LANGUAGE plpgsql STABLE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
BEGIN
    IF key_type NOT IN ('sno', 'flax', 'siq', 'kuid', 'kuid96', 'snowflake') THEN
        RAISE EXCEPTION 'flakeid keeps no partitions of type %', key_type USING ERRCODE = '22023';
    END IF;
    BEGIN
        EXECUTE format('SELECT %I.%I($1)::text', schema, key_type || '_lower_bound') INTO lo USING starts;
    EXCEPTION WHEN datetime_field_overflow THEN
        lo := NULL;
    END;
    BEGIN
        EXECUTE format('SELECT %I.%I($1)::text', schema, key_type || '_lower_bound') INTO hi USING ends;
    EXCEPTION WHEN datetime_field_overflow THEN
        hi := NULL;
    END;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_keys(text, timestamptz, timestamptz) IS
    'the keys bounding the partition of the interval from starts to ends for a key type, as text (NULL: MINVALUE, MAXVALUE)';

-- The keys of a range partition's bounds as PostgreSQL prints them (FOR
-- VALUES FROM ('lo') TO ('hi'), one key each), unquoted: NULL for MINVALUE
-- and MAXVALUE; `ok` false for anything else (a list or hash partition's,
-- several keys, the default partition's).  Text in, text out: no cast.
CREATE FUNCTION flakeid_partition_bound_keys(bounds text, OUT lo text, OUT hi text, OUT ok boolean)
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    bound text[] := regexp_match(bounds, '^FOR VALUES FROM \((MINVALUE|''(?:[^'']|'''')*'')\) TO \((MAXVALUE|''(?:[^'']|'''')*'')\)$');
BEGIN
    ok := bound IS NOT NULL;
    IF ok THEN
        lo := CASE WHEN bound[1] <> 'MINVALUE' THEN replace(substr(bound[1], 2, length(bound[1]) - 2), '''''', '''') END;
        hi := CASE WHEN bound[2] <> 'MAXVALUE' THEN replace(substr(bound[2], 2, length(bound[2]) - 2), '''''', '''') END;
    END IF;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_bound_keys(text) IS
    'the keys of a range partition''s bounds as PostgreSQL prints them, unquoted (NULL: MINVALUE, MAXVALUE; ok false for other bounds)';

-- Whether the ranges [a_lo, a_hi) and [b_lo, b_hi) of keys of key_type
-- (their text; NULL: MINVALUE, MAXVALUE) meet, by the key type's own
-- order; true where a key cannot be read as the type (taken to meet).
CREATE FUNCTION flakeid_partition_ranges_meet(key_type text, a_lo text, a_hi text, b_lo text, b_hi text) RETURNS boolean
    LANGUAGE plpgsql STABLE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    meet boolean;
BEGIN
    IF key_type IS NULL OR key_type NOT IN ('sno', 'flax', 'siq', 'kuid', 'kuid96', 'snowflake') THEN
        RAISE EXCEPTION 'flakeid keeps no partitions of type %', coalesce(key_type, 'NULL') USING ERRCODE = '22023';
    END IF;
    BEGIN
        EXECUTE format('SELECT ($1 IS NULL OR $4 IS NULL OR $1::%1$s OPERATOR(%2$I.<) $4::%1$s) '
                       'AND ($3 IS NULL OR $2 IS NULL OR $3::%1$s OPERATOR(%2$I.<) $2::%1$s)',
                       CASE key_type WHEN 'snowflake' THEN 'bigint' ELSE format('%I.%I', schema, key_type) END,
                       CASE key_type WHEN 'snowflake' THEN 'pg_catalog' ELSE schema END)
            INTO meet USING a_lo, a_hi, b_lo, b_hi;
    EXCEPTION WHEN OTHERS THEN
        meet := true;
    END;
    RETURN meet;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_ranges_meet(text, text, text, text, text) IS
    'whether two ranges of keys of a type (text; NULL: MINVALUE, MAXVALUE) meet, by the type''s order; true where a key cannot be read';

-- The partition of `parent` whose bounds are [lo, hi), if any: found by the
-- bounds PostgreSQL prints, compared as text, never cast; so a renamed
-- table or partition is still found.  Each child of `parent` is printed
-- one at a time: pg_get_expr as a filter of a join over pg_class was the
-- planner's to run on every partition of the database before the join (a
-- generic plan, analyzed catalogs: a hash join), and it locked what it
-- printed, so a role's ACCESS EXCLUSIVE lock on a partition of its own
-- table made every owner's upkeep wait out its lock_timeout and fail
-- (1.5's fifteenth auditor; 1.4's daily job fell to the same plan).  The
-- bounds are printed with no relation (pg_get_expr's 0): they name no
-- column, and the same text comes without a lock on the child (1.5's
-- twenty-third reviewer: a lock on a child pending detach, a FINALIZE
-- waiting out old transactions, stopped registrations and runs).
CREATE FUNCTION flakeid_partition_of(parent regclass, lo text, hi text) RETURNS regclass
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    wanted text := format('FOR VALUES FROM (%s) TO (%s)', coalesce(quote_literal(lo), 'MINVALUE'), coalesce(quote_literal(hi), 'MAXVALUE'));
    child oid;
BEGIN
    -- (not one pending detach, which takes no row: counted, a cancelled DETACH
    -- CONCURRENTLY left a table registered with no partition for the present,
    -- 1.5's nineteenth reviewer; the attach of its interval is then refused as
    -- overlapping it, which says so)
    FOR child IN SELECT i.inhrelid FROM pg_inherits i WHERE i.inhparent = parent AND NOT i.inhdetachpending ORDER BY i.inhrelid LOOP
        IF pg_get_expr((SELECT c.relpartbound FROM pg_class c WHERE c.oid = child), 0) = wanted THEN
            RETURN child::regclass;
        END IF;
    END LOOP;
    RETURN NULL;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_of(regclass, text, text) IS
    'the partition of a table whose bounds are [lo, hi) (NULL: MINVALUE, MAXVALUE), found by the bounds as PostgreSQL prints them (compared as text, never cast)';

-- A run of a snowflake table refused while the epoch in force is not the
-- one it was registered under (`registered`; NULL for the other types):
-- its partitions' bounds are snowflakes of that epoch, and read under
-- another every partition is as much older or younger (moved 10 days
-- earlier, a retention of 3 dropped the current day's rows: 1.5's
-- fifteenth reviewer).  A snowflake table with no epoch recorded (a row
-- written with the triggers off) is refused too.  Called by
-- flakeid_partition_make and by each table's step of
-- flakeid_partition_maintenance, which reports it as 'failed' and warns.
-- Putting the epoch back is not always open: the server refuses a later
-- epoch once a snowflake was issued under the earlier one (1.5's sixteenth
-- reviewer), so the hint names the way that always is.
CREATE FUNCTION flakeid_partition_epoch_check(parent regclass, registered timestamptz) RETURNS void
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    in_force timestamptz;
    snowflake_table boolean;
BEGIN
    IF registered IS NULL THEN
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.flakeid_partitions r WHERE r.parent = $1 AND r.key_type = ''snowflake'')', schema)
            INTO snowflake_table USING parent;
        IF snowflake_table THEN
            RAISE EXCEPTION 'table % is registered for partition upkeep with no snowflake epoch recorded', parent USING ERRCODE = '55000',
                HINT = 'flakeid_partition_forget, then register it again, under the epoch its partitions were made with (check their bounds with snowflake_time).';
        END IF;
        RETURN;
    END IF;
    EXECUTE format('SELECT %I.snowflake_time(0::bigint)', schema) INTO in_force;
    IF in_force <> registered THEN
        RAISE EXCEPTION 'table % was registered for partition upkeep under the snowflake epoch %, and the epoch in force is %',
            parent, registered, in_force USING ERRCODE = '55000',
            DETAIL = 'Its partitions'' bounds are snowflakes of that epoch: read under another, every partition is that much older or younger, and retention would drop current rows. New snowflakes fall past its partitions.',
            HINT = 'Move the rows into a table registered under the epoch in force (docs/OPERATIONS.md, "The epoch"). The epoch in force comes from flakeid.snowflake_epoch_ms only with flakeid in shared_preload_libraries; putting it back is refused once a snowflake was issued under it.';
    END IF;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_epoch_check(regclass, timestamptz) IS
    'refuses (55000) a run of a snowflake table registered under another epoch than the one in force, or with none recorded; flakeid_partition_make''s and flakeid_partition_maintenance''s check';

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
    stem text;
    referenced boolean;
    key_sql text;
    op_schema name;
    columns text;
    default_part oid;
    moved bigint := 0;
    owned boolean;
    pending regclass;
    pending_lo text;
    pending_hi text;
    pending_meets boolean;
BEGIN
    SELECT c.relname, n.nspname, c.relowner, r.rolname INTO rel
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = parent;
    EXECUTE format('SELECT %I.flakeid_partition_owned($1)', schema) INTO owned USING parent;
    IF NOT coalesce(owned, false) THEN
        RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501';
    END IF;
    EXECUTE format('SELECT * FROM %I.flakeid_partitions r WHERE r.parent = $1', schema) INTO reg USING parent;
    IF reg IS NULL THEN
        RAISE EXCEPTION 'table % is not registered for partition upkeep', parent USING ERRCODE = '42704',
            HINT = 'Register it with flakeid_partition_by_time.';
    END IF;
    EXECUTE format('SELECT %I.flakeid_partition_epoch_check($1, $2)', schema) USING parent, reg.snowflake_epoch;
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
    EXECUTE format('SELECT * FROM %I.flakeid_partition_keys($1, $2, $3)', schema) INTO lo, hi USING reg.key_type, starts, ends;
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
    -- the interval skipped for good: 1.5's ninth reviewer; another name, then, with a
    -- suffix of random bytes no one can foresee: a role with CREATE on the schema took
    -- the _1 to _9 that came next, 1.5's eleventh auditor)
    base_name := partition_name;
    stem := base_name::text;
    WHILE octet_length(stem) > 54 LOOP
        stem := left(stem, -1);
    END LOOP;
    FOR attempt IN 1 .. 5 LOOP
        EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                              WHERE c.relname = partition_name AND n.nspname = rel.nspname)
              AND NOT EXISTS (SELECT 1 FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                              WHERE t.typname = partition_name AND n.nspname = rel.nspname);
        IF attempt = 5 THEN
            action := 'skipped';
            detail := format('the name %I.%I and 4 others with random suffixes are all taken', rel.nspname, base_name);
            partition_name := NULL;
            RETURN;
        END IF;
        partition_name := (stem || '_' || left(replace(gen_random_uuid()::text, '-', ''), 8))::name;
    END LOOP;
    columns := (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a
                WHERE a.attrelid = parent AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '');
    default_part := (SELECT nullif(p.partdefid, 0) FROM pg_partitioned_table p WHERE p.partrelid = parent);
    BEGIN
        -- (the default partition locked before its rows are read, and held to the
        -- end: the rows its writers commit meanwhile would fail the attach's check,
        -- and a row with its referencing row committed between the check below and the
        -- lock was moved, the referencing one deleted by ON DELETE CASCADE, 1.5's
        -- eleventh reviewer)
        IF default_part IS NOT NULL THEN
            EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', default_part::regclass);
        END IF;
        -- (moving a row out of the default partition is a DELETE to a foreign key that
        -- references the table: ON DELETE CASCADE deleted the rows that referenced it,
        -- 1.5's tenth reviewer; such a table's default rows stay, and say so)
        IF default_part IS NOT NULL AND EXISTS (SELECT 1 FROM pg_constraint k WHERE k.contype = 'f'
                   AND (k.confrelid = parent OR k.confrelid = default_part)) THEN
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s WHERE ($1 IS NULL OR %I OPERATOR(%I.>=) $1::%s) AND ($2 IS NULL OR %I OPERATOR(%I.<) $2::%s))',
                           default_part::regclass, reg.key_column, op_schema, key_sql, reg.key_column, op_schema, key_sql)
                INTO referenced USING lo, hi;
            IF referenced THEN
                -- (undoes the lock: the default partition's writers do not wait for the run)
                RAISE EXCEPTION 'not made: rows of this interval are in the default partition %, and a foreign key references %: moving them would run its ON DELETE action',
                    default_part::regclass, parent USING ERRCODE = 'ZFK01';
            END IF;
        END IF;
        EXECUTE format('CREATE TABLE %I.%I (LIKE %s INCLUDING ALL EXCLUDING IDENTITY)', rel.nspname, partition_name, parent);
        IF rel.relowner <> (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user) THEN
            EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', rel.nspname, partition_name, rel.rolname);
        END IF;
        IF default_part IS NOT NULL THEN
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
        -- (an earlier partition is recorded, however it was made)
        IF starts < reg.oldest THEN
            EXECUTE format('INSERT INTO %I.flakeid_partition_requests (parent, request, oldest) VALUES ($1, ''lower'', $2)', schema) USING parent, starts;
        END IF;
        IF moved > 0 THEN
            detail := format('%s rows moved into it from the default partition %s', moved, default_part::regclass);
        END IF;
    EXCEPTION
        WHEN lock_not_available THEN
            action := 'skipped';
            detail := format('not made: a lock was not granted within lock_timeout (%s); the next run tries again', SQLERRM);
        WHEN SQLSTATE 'ZFK01' THEN
            action := 'skipped';
            partition_name := NULL;
            detail := SQLERRM;
        WHEN OTHERS THEN
            action := 'failed';
            detail := format('not made: %s (SQLSTATE %s)', SQLERRM, SQLSTATE);
            -- (an overlap with a child pending detach said only "would overlap", under a
            -- name of its own: the way on is named, 1.5's twenty-second auditor)
            -- (and only for the child whose range meets the interval's: an overlap with
            -- another partition named an old pending child, 1.5's twenty-fourth reviewer)
            pending := (SELECT i.inhrelid::regclass FROM pg_inherits i WHERE i.inhparent = parent AND i.inhdetachpending ORDER BY i.inhrelid LIMIT 1);
            IF pending IS NOT NULL AND SQLSTATE = '42P17' THEN
                -- (bounds it cannot read give NULL keys: MINVALUE to MAXVALUE, taken to meet)
                EXECUTE format('SELECT lo, hi FROM %I.flakeid_partition_bound_keys($1)', schema) INTO pending_lo, pending_hi
                    USING pg_get_expr((SELECT c.relpartbound FROM pg_class c WHERE c.oid = pending), 0);
                EXECUTE format('SELECT %I.flakeid_partition_ranges_meet($1, $2, $3, $4, $5)', schema) INTO pending_meets
                    USING reg.key_type, pending_lo, pending_hi, lo, hi;
            END IF;
            IF pending IS NOT NULL AND SQLSTATE = '42P17' AND pending_meets THEN
                detail := detail || format('; %s is pending detach (a DETACH ... CONCURRENTLY that did not end): ALTER TABLE %s DETACH PARTITION %s FINALIZE ends it',
                                           pending, parent, pending);
            END IF;
    END;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_make(regclass, timestamptz) IS
    'makes the partition of a registered table for the interval starting at starts, if it is missing (flakeid_partition_maintenance''s step): made, exists, skipped or failed, and why';

-- For one registered table or every one the caller owns (a member of the
-- owning role too; a superuser keeps the tables it owns itself only, since
-- upkeep runs a table's triggers, constraints and index expressions with
-- the caller's rights): makes the partitions of the interval that holds
-- `at` and `premake` intervals after it, moves rows of a default partition
-- into partitions made for them (16 intervals at most a run, oldest first;
-- a row no interval of the type holds passed over, said once), and finds,
-- among the table's partitions (each found by its bounds), those whose
-- every ID is older than `retain` before the earlier of `at` and the clock;
-- then, last, drops them (or detaches them, with keep_table).  Tables with
-- a foreign key to another table come after the others: attaching their
-- partitions locks the referenced table (SHARE ROW EXCLUSIVE) to the run's
-- end, and its writers waited for every later table's work (1.5's
-- eleventh auditor).  Dropping and
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
    stopped jsonb := '[]';
    error_detail text;
    error_text text;
    referenced_by text;
    table_report jsonb;
    table_drops jsonb;
    drop_row jsonb;
    -- (a drop's own keys, left out of its report row)
    internal_keys text[] := ARRAY['owner', 'child', 'keep', 'cutoff', 'oldest', 'pending', 'referenced'];
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
    owned boolean;
    from_strict boolean;
    bad_rows bigint;
    n_negative bigint;
    bad_first text;
    bad_error text;
    part record;
    bound_lo text;
    bound_hi text;
    bound_ok boolean;
    t timestamptz;
    on_grid boolean;
    kept_oldest timestamptz;
BEGIN
    IF at IS NULL THEN
        RAISE EXCEPTION 'the instant of a maintenance run must not be null' USING ERRCODE = '22004';
    END IF;
    IF parent IS NOT NULL THEN
        EXECUTE format('SELECT %I.flakeid_partition_owned($1)', schema) INTO owned USING parent;
        IF NOT coalesce(owned, false) THEN
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
    -- (the tables with a foreign key to another table last: 1.5's eleventh auditor)
    FOR reg IN EXECUTE format('SELECT * FROM %I.flakeid_partitions r WHERE $1 IS NULL OR r.parent = $1 '
                              'ORDER BY EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conrelid = r.parent AND k.contype = ''f'' '
                              'AND k.confrelid <> r.parent), r.parent::oid', schema)
        USING parent
    LOOP
        owner_name := (SELECT r.rolname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = reg.parent);
        IF owner_name IS NULL THEN
            EXECUTE format('INSERT INTO %I.flakeid_partition_requests (parent, request) VALUES ($1, ''forget'')', schema) USING reg.parent;
            report := report || jsonb_build_object('action', 'forgotten',
                'detail', format('the table registered (OID %s) no longer exists: its registration is removed', reg.parent::oid));
            CONTINUE;
        END IF;
        -- (another owner's table, in a run of every table: not the caller's to keep, a
        -- superuser's neither: upkeep would run that owner's triggers, constraints and
        -- index expressions with the caller's rights, and a superuser's pg_cron job made
        -- a table owner a superuser so: 1.5's eighth reviewer and auditor; a member of
        -- the owning role keeps it, as PostgreSQL counts it an owner)
        EXECUTE format('SELECT %I.flakeid_partition_owned($1)', schema) INTO owned USING reg.parent;
        CONTINUE WHEN NOT coalesce(owned, false);
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
            EXECUTE format('SELECT %I.flakeid_partition_epoch_check($1, $2)', schema) USING reg.parent, reg.snowflake_epoch;
            PERFORM set_config('lock_timeout', '1s', true);
            EXECUTE format('SELECT %I.flakeid_partition_start($1, $2, $3)', schema) INTO s USING reg.every, at, reg.time_zone;
            -- (kuid96's bounds are the starts of 256-second windows: the IDs of an
            -- interval's last window sort into the next interval's partition, made
            -- always, whatever premake says; with premake 0 its rows were refused
            -- there, 1.5's nineteenth reviewer)
            FOR i IN 0 .. greatest(reg.premake, CASE WHEN reg.key_type = 'kuid96' THEN 1 ELSE 0 END) LOOP
                EXECUTE format('SELECT * FROM %I.flakeid_partition_make($1, $2)', schema) INTO made USING reg.parent, s;
                IF made.action <> 'exists' THEN
                    table_report := table_report || jsonb_build_object('tab', reg.parent::oid, 'action', made.action, 'partition_name', made.partition_name,
                        'starts', s, 'ends', made.ends, 'detail', made.detail);
                END IF;
                -- (a run for an earlier instant makes earlier partitions: recorded by the make)
                IF made.action = 'made' THEN
                    reg.oldest := least(reg.oldest, s);
                END IF;
                -- (the type's own words, matched from the detail's start: a name inside
                -- another detail must not read as them, 1.5's eighteenth reviewer)
                EXIT WHEN made.action = 'skipped' AND made.detail LIKE reg.key_type || ' holds no ID of the interval from %' AND s > at;
                s := made.ends;
            END LOOP;
            -- the rows of a default partition, each interval's into a partition made for it; an
            -- interval that cannot be made is passed over, its rows left (said so), the next ones go
            -- on; a row no interval of the type holds (a negative snowflake) is passed over, and the
            -- rows after it go on (it stopped every row's move: 1.5's eleventh auditor), said once
            default_part := (SELECT nullif(p.partdefid, 0) FROM pg_partitioned_table p WHERE p.partrelid = reg.parent);
            from_key := NULL;
            from_strict := false;
            n := 0;
            bad_rows := 0;
            bad_first := NULL;
            WHILE default_part IS NOT NULL AND n < 16 AND bad_rows < 16 LOOP
                -- (by the key's btree order, which no search_path hides)
                EXECUTE format('SELECT k::text FROM (SELECT %I AS k FROM %s WHERE $1 IS NULL OR %I OPERATOR(%I.%s) $1::%s ORDER BY 1 LIMIT 1) o',
                               reg.key_column, default_part::regclass, reg.key_column, op_schema, CASE WHEN from_strict THEN '>' ELSE '>=' END, key_sql)
                    INTO oldest_row USING from_key;
                EXIT WHEN oldest_row IS NULL;
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
                    from_strict := false;
                EXCEPTION WHEN OTHERS THEN
                    bad_rows := bad_rows + 1;
                    IF bad_first IS NULL THEN
                        bad_first := oldest_row;
                        bad_error := SQLERRM;
                    END IF;
                    -- (past it: a negative snowflake's, to 0 at once, past every negative one)
                    from_key := oldest_row;
                    from_strict := true;
                    IF reg.key_type = 'snowflake' THEN
                        IF oldest_row::bigint < 0 THEN
                            EXECUTE format('SELECT count(*) - 1 FROM %s WHERE %I < 0', default_part::regclass, reg.key_column) INTO n_negative;
                            bad_rows := bad_rows + n_negative;
                            from_key := '0';
                            from_strict := false;
                        END IF;
                    END IF;
                    CONTINUE;
                END;
                n := n + 1;
                EXECUTE format('SELECT * FROM %I.flakeid_partition_make($1, $2)', schema) INTO made USING reg.parent, s;
                table_report := table_report || jsonb_build_object('tab', reg.parent::oid, 'action', made.action, 'partition_name', made.partition_name,
                    'starts', s, 'ends', made.ends, 'detail', coalesce(made.detail, CASE made.action WHEN 'exists' THEN 'rows of this interval are in the default partition too' END));
                IF made.action = 'made' THEN
                    reg.oldest := least(reg.oldest, s);
                END IF;
            END LOOP;
            IF bad_rows > 0 THEN
                table_report := table_report || jsonb_build_object('tab', reg.parent::oid, 'action', 'failed',
                    'detail', format('%s row%s of the default partition %s no interval this type can make holds (the first, %s: %s); they stay there, the other rows move',
                                     bad_rows || CASE WHEN bad_rows >= 16 THEN ' or more' ELSE '' END, CASE WHEN bad_rows > 1 THEN 's' ELSE '' END,
                                     default_part::regclass, bad_first, bad_error));
            END IF;
            -- retention, as of the earlier of `at` and the clock (an `at` ahead of it makes
            -- partitions ahead, and drops none of the present's), in the registration's zone
            -- (the table's partitions, each found by its bounds: one of an interval of the
            -- registration's grid is retention's; a walk from `oldest` by the interval, 1,000
            -- intervals a run, took 139 hourly runs past one row of 2011 moved out of the
            -- default partition, 1.5's eleventh reviewer.  A bound is cast one at a time,
            -- this table's own, only to name the interval whose bounds are then compared
            -- as text: no query casts the catalog's bounds)
            IF reg.retain IS NOT NULL THEN
                cutoff := ((least(at, clock_timestamp()) AT TIME ZONE reg.time_zone) - reg.retain) AT TIME ZONE reg.time_zone;
                kept_oldest := NULL;
                -- (a foreign key that references the table: its drops are not tried, below)
                referenced_by := (SELECT format('constraint %I on table %s', k.conname, k.conrelid::regclass) FROM pg_constraint k
                                  WHERE k.contype = 'f' AND k.confrelid = reg.parent ORDER BY k.oid LIMIT 1);
                -- (printed for this table's children only, no join the planner could turn
                -- inside out: flakeid_partition_of says why)
                FOR part IN SELECT i.inhrelid AS child, i.inhdetachpending AS pending,
                                   pg_get_expr((SELECT c.relpartbound FROM pg_class c WHERE c.oid = i.inhrelid), 0) AS bounds
                            FROM pg_inherits i WHERE i.inhparent = reg.parent LOOP
                    EXECUTE format('SELECT * FROM %I.flakeid_partition_bound_keys($1)', schema) INTO bound_lo, bound_hi, bound_ok USING part.bounds;
                    CONTINUE WHEN NOT bound_ok OR (bound_lo IS NULL AND bound_hi IS NULL);
                    BEGIN
                        IF bound_lo IS NOT NULL THEN
                            EXECUTE format('SELECT %I.%I($1::%s)', schema, reg.key_type || '_time', key_sql) INTO t USING bound_lo;
                        ELSE
                            EXECUTE format('SELECT %I.%I($1::%s)', schema, reg.key_type || '_time', key_sql) INTO t USING bound_hi;
                            t := t - interval '1 microsecond';
                        END IF;
                        -- (the interval before the bound's time, its own and the next: kuid96's bound
                        -- moves back to its window's start, into the interval before)
                        EXECUTE format('SELECT %I.flakeid_partition_start($1, $2, $3)', schema) INTO s USING reg.every, t, reg.time_zone;
                        EXECUTE format('SELECT %I.flakeid_partition_start($1, $2, $3)', schema) INTO s USING reg.every, s - interval '1 microsecond', reg.time_zone;
                    EXCEPTION WHEN OTHERS THEN
                        s := NULL;
                    END;
                    CONTINUE WHEN s IS NULL;
                    on_grid := false;
                    FOR step IN 1 .. 3 LOOP
                        EXECUTE format('SELECT %I.flakeid_partition_end($1, $2, $3)', schema) INTO e USING reg.every, s, reg.time_zone;
                        EXECUTE format('SELECT * FROM %I.flakeid_partition_keys($1, $2, $3)', schema) INTO lo, hi USING reg.key_type, s, e;
                        EXECUTE format('SELECT %I.flakeid_partition_bounds($1, $2) = $3', schema) INTO on_grid USING lo, hi, part.bounds;
                        EXIT WHEN on_grid;
                        s := e;
                    END LOOP;
                    CONTINUE WHEN NOT on_grid;
                    IF e <= cutoff THEN
                        table_drops := table_drops || jsonb_build_object('tab', reg.parent::oid, 'owner', owner_name, 'child', part.child::oid,
                            'partition_name', part.child::regclass::text, 'starts', s, 'ends', e, 'keep', reg.keep_table, 'cutoff', cutoff,
                            'pending', part.pending, 'referenced', referenced_by);
                    ELSE
                        kept_oldest := least(kept_oldest, s);
                    END IF;
                END LOOP;
                -- (oldest first; the oldest interval kept recorded after the drops)
                table_drops := (SELECT coalesce(jsonb_agg(d ORDER BY (d->>'starts')::timestamptz), '[]') FROM jsonb_array_elements(table_drops) d);
                IF kept_oldest IS NULL THEN
                    EXECUTE format('SELECT %I.flakeid_partition_start($1, $2, $3)', schema) INTO kept_oldest USING reg.every, cutoff, reg.time_zone;
                END IF;
                IF kept_oldest IS DISTINCT FROM reg.oldest THEN
                    table_drops := table_drops || jsonb_build_object('tab', reg.parent::oid, 'owner', owner_name, 'oldest', kept_oldest);
                END IF;
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
        -- (a table one of whose drops was not done drops nothing after it this run,
        -- nor records its oldest interval past it: the loop reads the list it
        -- began with, so a list cut inside it did not stop them, 1.5's twentieth
        -- reviewer)
        CONTINUE WHEN stopped ? (drop_row->>'tab');
        BEGIN
            -- (a table a foreign key references: PostgreSQL drops none of its
            -- partitions (2BP01), and a detach locks the referencing table ACCESS
            -- EXCLUSIVE, held to the run's end through a check of every referencing
            -- row: neither is tried, nor the parent's lock taken for it; said, each
            -- run, naming the key: 1.5's twenty-second auditor, twenty-third and
            -- twenty-fourth reviewers)
            IF jsonb_typeof(drop_row->'referenced') = 'string' THEN
                RAISE EXCEPTION 'a foreign key references the table (%): PostgreSQL drops none of its partitions, and a detach would lock the referencing table to the run''s end',
                    drop_row->>'referenced' USING ERRCODE = '2BP01';
            END IF;
            IF drop_row ? 'oldest' THEN
                EXECUTE format('INSERT INTO %I.flakeid_partition_requests (parent, request, oldest) VALUES ($1, ''set'', $2)', schema)
                    USING (drop_row->>'tab')::oid::regclass, (drop_row->>'oldest')::timestamptz;
            ELSIF (drop_row->>'keep')::boolean THEN
                -- (a partition pending detach, a DETACH ... CONCURRENTLY that did not
                -- end, is refused a plain DETACH: its detach is ended instead, or it
                -- stopped the table's retention for good, 1.5's twenty-first reviewer)
                EXECUTE format('ALTER TABLE %s DETACH PARTITION %s%s', (drop_row->>'tab')::oid::regclass, (drop_row->>'child')::oid::regclass,
                               CASE WHEN (drop_row->>'pending')::boolean THEN ' FINALIZE' ELSE '' END);
                report := report || ((drop_row - internal_keys) || jsonb_build_object('action', 'detached',
                    'detail', format('every ID it could hold is older than %s%s', drop_row->>'cutoff',
                                     CASE WHEN (drop_row->>'pending')::boolean THEN ' (its pending detach finalized)' ELSE '' END)));
            ELSE
                EXECUTE format('DROP TABLE %s', (drop_row->>'child')::oid::regclass);
                report := report || ((drop_row - internal_keys) || jsonb_build_object('action', 'dropped',
                    'detail', format('every ID it could hold is older than %s', drop_row->>'cutoff')));
            END IF;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS error_detail = PG_EXCEPTION_DETAIL;
            -- (PostgreSQL's DETAIL with it, which names what refused it: 1.5's twenty-second auditor)
            error_text := SQLERRM || coalesce(' (' || nullif(error_detail, '') || ')', '');
            -- (a record of the oldest interval kept not written is said as such: it was
            -- reported as a partition "not dropped", 1.5's eleventh auditor; a lock not
            -- granted is the next run's, anything else the owner's to mend, said so:
            -- a view on the partition was reported as "the next run tries again" for
            -- ever, 1.5's twenty-first reviewer)
            report := report || ((drop_row - internal_keys) || jsonb_build_object(
                'action', CASE WHEN SQLSTATE IN ('55P03', '40P01') THEN 'skipped' ELSE 'failed' END,
                'detail', CASE WHEN drop_row ? 'oldest'
                               THEN format('the start of the oldest interval kept (%s) not recorded in flakeid_partitions: %s (SQLSTATE %s); %s',
                                           drop_row->>'oldest', error_text, SQLSTATE,
                                           CASE WHEN SQLSTATE IN ('55P03', '40P01') THEN 'the next run tries again' ELSE 'each run tries again' END)
                               WHEN SQLSTATE IN ('55P03', '40P01')
                               THEN format('not %s: %s (SQLSTATE %s); the next run tries again',
                                           CASE WHEN (drop_row->>'keep')::boolean THEN 'detached' ELSE 'dropped' END, error_text, SQLSTATE)
                               ELSE format('not %s: %s (SQLSTATE %s); the table''s retention stops at this partition, the later ones kept, until what refused it is mended',
                                           CASE WHEN (drop_row->>'keep')::boolean THEN 'detached' ELSE 'dropped' END, error_text, SQLSTATE) END));
            -- (the walk must not pass a partition left: the table's later drops wait for the next run)
            stopped := stopped || jsonb_build_array(drop_row->>'tab');
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', caller_lock_timeout, true);
    -- (what failed or was skipped, to the server log too: pg_cron keeps a job's
    -- status alone, and the rows were lost there, 1.5's tenth auditor; but not an
    -- interval the type cannot hold, flax's past 2049, said by every run for ever:
    -- 1.5's eleventh auditor.  That is make's 'skipped' alone: a table's 'failed'
    -- row carries its error's own text, which the owner's code (a policy's
    -- function) may begin with the same words, and was left out: 1.5's
    -- nineteenth reviewer)
    FOR drop_row IN SELECT value FROM jsonb_array_elements(report)
                    WHERE value->>'action' = 'failed'
                       OR (value->>'action' = 'skipped'
                           AND coalesce(value->>'detail', '') !~ '^(sno|flax|siq|kuid|kuid96|snowflake) holds no ID of the interval from ') LOOP
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
    owned boolean;
    present record;
    present_start timestamptz;
    present_end timestamptz;
    lo text;
    hi text;
    pending regclass;
    pending_bounds text;
    pending_lo text;
    pending_hi text;
    pending_ok boolean;
    has_default boolean;
    covered boolean;
    caller_lock_timeout text;
BEGIN
    EXECUTE format('SELECT * FROM %I.flakeid_partition_check($1, $2, $3, $4, $5)', schema)
        INTO checked USING parent, every, premake, retain, time_zone;
    EXECUTE format('SELECT %I.flakeid_partition_owned($1)', schema) INTO owned USING parent;
    IF NOT coalesce(owned, false) THEN
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
    -- (a first run that left the table with nowhere for the present's rows
    -- is the call's error, and the registration goes with it: a 'failed'
    -- row and a WARNING left a table registered with no partition, whose
    -- every insert was refused, behind a call that looked done, 1.5's
    -- fifteenth auditor.  Decided from facts, after the run, not from its
    -- rows' words, which carry names a table's owner chooses (the
    -- eighteenth reviewer): the present interval's partition, asked of
    -- flakeid_partition_make again ('exists' or 'made'), or a default
    -- partition, which takes the present's rows meanwhile.  Everything
    -- else the run reports (a row of the default partition no interval
    -- holds, an interval a foreign key keeps there, a drop for the next
    -- run, an interval ahead) registers all the same, as the docs say.)
    FOR tab, action, partition_name, starts, ends, detail IN
        EXECUTE format('SELECT * FROM %I.flakeid_partition_maintenance($1)', schema) USING parent
    LOOP
        RETURN NEXT;
    END LOOP;
    -- (the interval of the clock's instant, not of the transaction's start: a
    -- migration's long transaction checked an interval already past; and
    -- within the run's lock_timeout of 1 s, the caller's put back after:
    -- under the default of none, the call waited without end behind a writer
    -- of a referenced table, whose other writers queued behind it; a made
    -- partition is reported: the nineteenth reviewer)
    -- (a default partition takes the present's rows, but not while a child
    -- pending detach holds their range out of its constraint (the twentieth
    -- reviewer): the check runs then where that child's range meets the
    -- interval's; a child pending detach of another range leaves the
    -- default partition to take the present's rows, and the check is not
    -- made, whose lock or foreign key refused a good registration (the
    -- twenty-first).  A parent has at most one child pending detach; found
    -- and its bounds printed without a lock (printed for the child, under
    -- the caller's lock_timeout, they waited without end behind a FINALIZE,
    -- the default partition's writers queued behind the run's locks, 1.5's
    -- twenty-second reviewer), compared with the interval's by the key
    -- type's order (matched by text alone, a child of another grid that
    -- covered the present went unseen, the same).)
    -- (kuid96's bounds are the starts of 256-second windows: in the last
    -- window of the present interval its IDs sort into the next one's
    -- partition, which the run makes always, and which is checked too then,
    -- with a minute to spare: the twenty-first reviewer)
    has_default := EXISTS (SELECT 1 FROM pg_partitioned_table p WHERE p.partrelid = parent AND p.partdefid <> 0);
    pending := (SELECT i.inhrelid::regclass FROM pg_inherits i WHERE i.inhparent = parent AND i.inhdetachpending ORDER BY i.inhrelid LIMIT 1);
    IF has_default AND pending IS NOT NULL THEN
        pending_bounds := pg_get_expr((SELECT c.relpartbound FROM pg_class c WHERE c.oid = pending), 0);
        EXECUTE format('SELECT * FROM %I.flakeid_partition_bound_keys($1)', schema) INTO pending_lo, pending_hi, pending_ok USING pending_bounds;
    END IF;
    EXECUTE format('SELECT %I.flakeid_partition_start($1, clock_timestamp(), $2)', schema) INTO present_start USING every, time_zone;
    FOR i IN 0 .. 1 LOOP
        EXECUTE format('SELECT %I.flakeid_partition_end($1, $2, $3)', schema) INTO present_end USING every, present_start, time_zone;
        EXIT WHEN i = 1 AND NOT (checked.key_type = 'kuid96'
                                 AND clock_timestamp() >= present_start - interval '256 seconds' - interval '1 minute');
        covered := false;
        IF has_default AND pending IS NOT NULL THEN
            -- (bounds it cannot read as a range of the key's, or compare: taken to meet it)
            covered := true;
            IF coalesce(pending_ok, false) THEN
                EXECUTE format('SELECT * FROM %I.flakeid_partition_keys($1, $2, $3)', schema) INTO lo, hi USING checked.key_type, present_start, present_end;
                EXECUTE format('SELECT %I.flakeid_partition_ranges_meet($1, $2, $3, $4, $5)', schema)
                    INTO covered USING checked.key_type, pending_lo, pending_hi, lo, hi;
            END IF;
        END IF;
        IF NOT has_default OR covered THEN
            caller_lock_timeout := current_setting('lock_timeout');
            PERFORM set_config('lock_timeout', '1s', true);
            EXECUTE format('SELECT * FROM %I.flakeid_partition_make($1, $2)', schema) INTO present USING parent, present_start;
            PERFORM set_config('lock_timeout', caller_lock_timeout, true);
            IF present.action = 'made' THEN
                tab := parent; action := present.action; partition_name := present.partition_name;
                starts := present_start; ends := present.ends; detail := present.detail;
                RETURN NEXT;
            END IF;
            IF present.action NOT IN ('exists', 'made')
               AND NOT (present.action = 'skipped' AND present.detail LIKE checked.key_type || ' holds no ID of the interval from %') THEN
                RAISE EXCEPTION 'the partition of the % interval of % could not be made: %', CASE i WHEN 0 THEN 'present' ELSE 'next' END, parent, present.detail
                    USING ERRCODE = CASE WHEN present.detail LIKE 'another maintenance run %' OR present.detail LIKE 'not made: a lock was not granted %'
                                         THEN '55P03' ELSE '55000' END,
                          DETAIL = CASE WHEN covered
                                        THEN format('Its partition %s is pending detach (a DETACH ... CONCURRENTLY that did not end), takes no row, and holds the interval''s range out of the default partition: ', pending)
                                        ELSE '' END
                                   || CASE i WHEN 0 THEN 'registered so, the table would refuse the present''s rows.'
                                             ELSE 'registered so, the table would refuse the rows of the present interval''s last 256-second window, which sort into the next interval''s partition.' END,
                          HINT = CASE WHEN covered
                                      THEN format('Nothing was registered: end the detach (ALTER TABLE %s DETACH PARTITION %s FINALIZE), then call flakeid_partition_by_time again.', parent, pending)
                                      ELSE 'Nothing was registered: call flakeid_partition_by_time again once the cause is gone.' END;
            END IF;
        END IF;
        present_start := present_end;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION flakeid_partition_by_time(regclass, interval, int, interval, boolean, text) IS
    'registers a table partitioned by range on a flakeid key for partitions that keep themselves, and makes them: every interval in the time zone, premake ahead, dropped after retain';
