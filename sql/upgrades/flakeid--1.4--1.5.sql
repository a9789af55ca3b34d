-- flakeid 1.4 -> 1.5.  `make sql` generates flakeid--1.4--1.5.sql from this
-- file: write here by hand only what an upgrade alone does (DROP, ALTER),
-- and take in each new or replaced object from the one sql/source/ file
-- that defines it with a line "--@include FILE" (a template FILE.sql.in is
-- taken once per fixed-width type).  test/t/*_upgrade.pl proves that 1.4
-- updated equals a fresh 1.5, privileges included.

\echo Use "ALTER EXTENSION flakeid UPDATE TO '1.5'" to load this file. \quit

-- issue 80, item 3: the mask keys' check values

-- =====================================================================
-- the mask keys' check values (1.5; docs/OPERATIONS.md, "Mask keys")
-- =====================================================================

-- flakeid_mask_keys() lists the keys of flakeid.mask_keys_file as this
-- session reads them: each key's ID, its check value and whether it is the
-- key that masks (the file's first).  The check value is the first 3 bytes
-- of AES-256 of a zero block under the key, in hex: the key check value of
-- key ceremonies, which tells two keys apart without showing either, so
-- that an operator can compare the keys of every server (a token masked
-- under a key ID whose key differs on another server unmasks there to an
-- unrelated ID, not to an error).  55000, as for the masks, when no key is
-- loaded.  Not PUBLIC's: the key IDs and their number are the operator's.
CREATE FUNCTION flakeid_mask_keys(OUT key_id int, OUT check_value text, OUT masks boolean)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION flakeid_mask_keys() IS
    'the keys of flakeid.mask_keys_file: each key''s ID, its check value (AES-256 of a zero block, 3 bytes in hex) and whether it masks';
REVOKE ALL ON FUNCTION flakeid_mask_keys() FROM PUBLIC;

-- issue 82: partitions that keep themselves
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

-- issue 83: each type as text and back under a name

-- sno as text and back under a name of its own (1.5): the text cast's
-- conversion, so that one query runs on the C edition and on the portable
-- one, whose domains' casts cannot be overridden.  Bodies in SQL's own form,
-- bound to the type when created: no search_path reaches them
CREATE FUNCTION sno_to_text(id sno) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN id::text;
COMMENT ON FUNCTION sno_to_text(sno) IS 'sno as its text (the cast to text, by name)';
CREATE FUNCTION sno_from_text(t text) RETURNS sno
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN t::sno;
COMMENT ON FUNCTION sno_from_text(text) IS 'the sno a text reads as (the cast from text, by name); 22P02 for malformed text';

-- flax as text and back under a name of its own (1.5): the text cast's
-- conversion, so that one query runs on the C edition and on the portable
-- one, whose domains' casts cannot be overridden.  Bodies in SQL's own form,
-- bound to the type when created: no search_path reaches them
CREATE FUNCTION flax_to_text(id flax) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN id::text;
COMMENT ON FUNCTION flax_to_text(flax) IS 'flax as its text (the cast to text, by name)';
CREATE FUNCTION flax_from_text(t text) RETURNS flax
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN t::flax;
COMMENT ON FUNCTION flax_from_text(text) IS 'the flax a text reads as (the cast from text, by name); 22P02 for malformed text';

-- siq as text and back under a name of its own (1.5): the text cast's
-- conversion, so that one query runs on the C edition and on the portable
-- one, whose domains' casts cannot be overridden.  Bodies in SQL's own form,
-- bound to the type when created: no search_path reaches them
CREATE FUNCTION siq_to_text(id siq) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN id::text;
COMMENT ON FUNCTION siq_to_text(siq) IS 'siq as its text (the cast to text, by name)';
CREATE FUNCTION siq_from_text(t text) RETURNS siq
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN t::siq;
COMMENT ON FUNCTION siq_from_text(text) IS 'the siq a text reads as (the cast from text, by name); 22P02 for malformed text';

-- kuid as text and back under a name of its own (1.5): the text cast's
-- conversion, so that one query runs on the C edition and on the portable
-- one, whose domains' casts cannot be overridden.  Bodies in SQL's own form,
-- bound to the type when created: no search_path reaches them
CREATE FUNCTION kuid_to_text(id kuid) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN id::text;
COMMENT ON FUNCTION kuid_to_text(kuid) IS 'kuid as its text (the cast to text, by name)';
CREATE FUNCTION kuid_from_text(t text) RETURNS kuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN t::kuid;
COMMENT ON FUNCTION kuid_from_text(text) IS 'the kuid a text reads as (the cast from text, by name); 22P02 for malformed text';

-- kuid96 as text and back under a name of its own (1.5): the text cast's
-- conversion, so that one query runs on the C edition and on the portable
-- one, whose domains' casts cannot be overridden.  Bodies in SQL's own form,
-- bound to the type when created: no search_path reaches them
CREATE FUNCTION kuid96_to_text(id kuid96) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN id::text;
COMMENT ON FUNCTION kuid96_to_text(kuid96) IS 'kuid96 as its text (the cast to text, by name)';
CREATE FUNCTION kuid96_from_text(t text) RETURNS kuid96
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN t::kuid96;
COMMENT ON FUNCTION kuid96_from_text(text) IS 'the kuid96 a text reads as (the cast from text, by name); 22P02 for malformed text';

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

-- issue 82: pg_partman on a uuid column of IDs

-- pg_partman's time encoder and decoder for sno IDs kept in a uuid column
-- (DEFAULT sno_new()::uuid, the README's migration path: the cast keeps
-- the IDs' order, docs/FORMATS.md): create_parent(..., p_time_encoder :=
-- 'schema.sno_uuid_lower_bound', p_time_decoder := 'schema.sno_uuid_time').
-- IMMUTABLE, as the mapping is fixed, so that pg_partman's partitions prune
-- when a plan is made; bodies in SQL's own form, bound to flakeid's
-- functions when created, as pg_partman calls them under a search_path of
-- its own (1.5: issue 82)
CREATE FUNCTION sno_uuid_lower_bound(ts timestamptz) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN sno_lower_bound(ts)::uuid;
COMMENT ON FUNCTION sno_uuid_lower_bound(timestamptz) IS
    'the least uuid of a sno ID of the unit that holds ts (sno_lower_bound(ts)::uuid): pg_partman''s p_time_encoder for a uuid column of sno IDs';
CREATE FUNCTION sno_uuid_time(u uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN sno_time(u::sno);
COMMENT ON FUNCTION sno_uuid_time(uuid) IS
    'the time of the sno ID a uuid embeds (22P03 for one that embeds none): pg_partman''s p_time_decoder for a uuid column of sno IDs';
-- (pg_partman 5.5 calls its decoder with the bound as text, as its own
-- uuid7_time_decoder takes it: without this one its maintenance skipped
-- the set and show_partitions failed, 1.5's ninth auditor)
CREATE FUNCTION sno_uuid_time(u text) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN sno_time(u::uuid::sno);
COMMENT ON FUNCTION sno_uuid_time(text) IS
    'the time of the sno ID a uuid''s text embeds: pg_partman''s p_time_decoder, which it calls with text';

-- pg_partman's time encoder and decoder for flax IDs kept in a uuid column
-- (DEFAULT flax_new()::uuid, the README's migration path: the cast keeps
-- the IDs' order, docs/FORMATS.md): create_parent(..., p_time_encoder :=
-- 'schema.flax_uuid_lower_bound', p_time_decoder := 'schema.flax_uuid_time').
-- IMMUTABLE, as the mapping is fixed, so that pg_partman's partitions prune
-- when a plan is made; bodies in SQL's own form, bound to flakeid's
-- functions when created, as pg_partman calls them under a search_path of
-- its own (1.5: issue 82)
CREATE FUNCTION flax_uuid_lower_bound(ts timestamptz) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN flax_lower_bound(ts)::uuid;
COMMENT ON FUNCTION flax_uuid_lower_bound(timestamptz) IS
    'the least uuid of a flax ID of the unit that holds ts (flax_lower_bound(ts)::uuid): pg_partman''s p_time_encoder for a uuid column of flax IDs';
CREATE FUNCTION flax_uuid_time(u uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN flax_time(u::flax);
COMMENT ON FUNCTION flax_uuid_time(uuid) IS
    'the time of the flax ID a uuid embeds (22P03 for one that embeds none): pg_partman''s p_time_decoder for a uuid column of flax IDs';
-- (pg_partman 5.5 calls its decoder with the bound as text, as its own
-- uuid7_time_decoder takes it: without this one its maintenance skipped
-- the set and show_partitions failed, 1.5's ninth auditor)
CREATE FUNCTION flax_uuid_time(u text) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN flax_time(u::uuid::flax);
COMMENT ON FUNCTION flax_uuid_time(text) IS
    'the time of the flax ID a uuid''s text embeds: pg_partman''s p_time_decoder, which it calls with text';

-- pg_partman's time encoder and decoder for siq IDs kept in a uuid column
-- (DEFAULT siq_new()::uuid, the README's migration path: the cast keeps
-- the IDs' order, docs/FORMATS.md): create_parent(..., p_time_encoder :=
-- 'schema.siq_uuid_lower_bound', p_time_decoder := 'schema.siq_uuid_time').
-- IMMUTABLE, as the mapping is fixed, so that pg_partman's partitions prune
-- when a plan is made; bodies in SQL's own form, bound to flakeid's
-- functions when created, as pg_partman calls them under a search_path of
-- its own (1.5: issue 82)
CREATE FUNCTION siq_uuid_lower_bound(ts timestamptz) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN siq_lower_bound(ts)::uuid;
COMMENT ON FUNCTION siq_uuid_lower_bound(timestamptz) IS
    'the least uuid of a siq ID of the unit that holds ts (siq_lower_bound(ts)::uuid): pg_partman''s p_time_encoder for a uuid column of siq IDs';
CREATE FUNCTION siq_uuid_time(u uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN siq_time(u::siq);
COMMENT ON FUNCTION siq_uuid_time(uuid) IS
    'the time of the siq ID a uuid embeds (22P03 for one that embeds none): pg_partman''s p_time_decoder for a uuid column of siq IDs';
-- (pg_partman 5.5 calls its decoder with the bound as text, as its own
-- uuid7_time_decoder takes it: without this one its maintenance skipped
-- the set and show_partitions failed, 1.5's ninth auditor)
CREATE FUNCTION siq_uuid_time(u text) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN siq_time(u::uuid::siq);
COMMENT ON FUNCTION siq_uuid_time(text) IS
    'the time of the siq ID a uuid''s text embeds: pg_partman''s p_time_decoder, which it calls with text';

-- pg_partman's time encoder and decoder for kuid IDs kept in a uuid column
-- (DEFAULT kuid_new()::uuid, the README's migration path: the cast keeps
-- the IDs' order, docs/FORMATS.md): create_parent(..., p_time_encoder :=
-- 'schema.kuid_uuid_lower_bound', p_time_decoder := 'schema.kuid_uuid_time').
-- IMMUTABLE, as the mapping is fixed, so that pg_partman's partitions prune
-- when a plan is made; bodies in SQL's own form, bound to flakeid's
-- functions when created, as pg_partman calls them under a search_path of
-- its own (1.5: issue 82)
CREATE FUNCTION kuid_uuid_lower_bound(ts timestamptz) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN kuid_lower_bound(ts)::uuid;
COMMENT ON FUNCTION kuid_uuid_lower_bound(timestamptz) IS
    'the least uuid of a kuid ID of the unit that holds ts (kuid_lower_bound(ts)::uuid): pg_partman''s p_time_encoder for a uuid column of kuid IDs';
CREATE FUNCTION kuid_uuid_time(u uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN kuid_time(u::kuid);
COMMENT ON FUNCTION kuid_uuid_time(uuid) IS
    'the time of the kuid ID a uuid embeds (22P03 for one that embeds none): pg_partman''s p_time_decoder for a uuid column of kuid IDs';
-- (pg_partman 5.5 calls its decoder with the bound as text, as its own
-- uuid7_time_decoder takes it: without this one its maintenance skipped
-- the set and show_partitions failed, 1.5's ninth auditor)
CREATE FUNCTION kuid_uuid_time(u text) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN kuid_time(u::uuid::kuid);
COMMENT ON FUNCTION kuid_uuid_time(text) IS
    'the time of the kuid ID a uuid''s text embeds: pg_partman''s p_time_decoder, which it calls with text';

-- pg_partman's time encoder and decoder for kuid96 IDs kept in a uuid column
-- (DEFAULT kuid96_new()::uuid, the README's migration path: the cast keeps
-- the IDs' order, docs/FORMATS.md): create_parent(..., p_time_encoder :=
-- 'schema.kuid96_uuid_lower_bound', p_time_decoder := 'schema.kuid96_uuid_time').
-- IMMUTABLE, as the mapping is fixed, so that pg_partman's partitions prune
-- when a plan is made; bodies in SQL's own form, bound to flakeid's
-- functions when created, as pg_partman calls them under a search_path of
-- its own (1.5: issue 82)
CREATE FUNCTION kuid96_uuid_lower_bound(ts timestamptz) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN kuid96_lower_bound(ts)::uuid;
COMMENT ON FUNCTION kuid96_uuid_lower_bound(timestamptz) IS
    'the least uuid of a kuid96 ID of the unit that holds ts (kuid96_lower_bound(ts)::uuid): pg_partman''s p_time_encoder for a uuid column of kuid96 IDs';
CREATE FUNCTION kuid96_uuid_time(u uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN kuid96_time(u::kuid96);
COMMENT ON FUNCTION kuid96_uuid_time(uuid) IS
    'the time of the kuid96 ID a uuid embeds (22P03 for one that embeds none): pg_partman''s p_time_decoder for a uuid column of kuid96 IDs';
-- (pg_partman 5.5 calls its decoder with the bound as text, as its own
-- uuid7_time_decoder takes it: without this one its maintenance skipped
-- the set and show_partitions failed, 1.5's ninth auditor)
CREATE FUNCTION kuid96_uuid_time(u text) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN kuid96_time(u::uuid::kuid96);
COMMENT ON FUNCTION kuid96_uuid_time(text) IS
    'the time of the kuid96 ID a uuid''s text embeds: pg_partman''s p_time_decoder, which it calls with text';

-- issue 80: a node whose identity cannot be had shares nothing
-- flakeid_cluster_identities() (1.2), in a file of its own: 1.5 replaces it
-- (a node whose identity cannot be had shares nothing), so the 1.4 -> 1.5
-- upgrade takes it in from here; CREATE OR REPLACE, which PostgreSQL refuses
-- in an extension's script for an object the extension does not own.  Its
-- privileges are set in cluster_identities_acl.sql, which a fresh install
-- alone runs: the replacement keeps the ACL a DBA gave it, and run in the
-- upgrade they reset it and recorded it as the extension's own, so that
-- pg_dump left a DBA's grant out (1.5's twenty-eighth reviewer and auditor).

-- On a Citus coordinator: every node's identities (run_command_on_all_nodes),
-- with a flag on each one two nodes share.  A node that cannot answer is an
-- error: a listing without it could hide a shared identity.
CREATE OR REPLACE FUNCTION flakeid_cluster_identities(
    OUT nodeid int4, OUT groupid int4, OUT nodename text, OUT nodeport int4,
    OUT generator text, OUT identity text, OUT source text, OUT shared boolean)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    answers json;
    failed record;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'flakeid_cluster_identities() needs Citus in this database'
            USING ERRCODE = '55000',
                  HINT = 'On a single server, flakeid_identities() lists its identities.';
    END IF;
    -- Citus's functions are reached by EXECUTE: the extension does not depend on Citus
    EXECUTE format('SELECT json_agg(a) FROM run_command_on_all_nodes(%L) a',
                   format('SELECT coalesce(json_agg(i), %L) FROM %I.flakeid_identities() i', '[]',
                          (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                           WHERE e.extname = 'flakeid')))
        INTO answers;
    SELECT a.nodeid, a.result INTO failed
        FROM json_to_recordset(answers) AS a(nodeid int4, success boolean, result text)
        WHERE NOT a.success LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'node % could not list its flakeid identities', failed.nodeid
            USING ERRCODE = '55000', DETAIL = failed.result;
    END IF;
    RETURN QUERY EXECUTE $q$
        SELECT n.nodeid, n.groupid, n.nodename::text, n.nodeport, i.generator, i.identity, i.source,
               -- (a node whose identity cannot be had, its source says why, shares
               -- nothing: NULL, not the other such nodes' "shared"; kuid carries
               -- none, and is shared whenever there are two nodes)
               CASE WHEN i.identity_value IS NOT NULL OR i.generator = 'kuid'
                    THEN count(*) OVER (PARTITION BY i.generator, i.identity_value) > 1 END
        FROM json_to_recordset($1) AS a(nodeid int4, success boolean, result text)
        JOIN pg_dist_node n ON n.nodeid = a.nodeid
        CROSS JOIN LATERAL json_to_recordset(a.result::json)
            AS i(generator text, identity text, identity_value int8, source text)
        ORDER BY i.generator, n.groupid, n.nodeid$q$ USING answers;
END
$fn$;
COMMENT ON FUNCTION flakeid_cluster_identities() IS
    'on a Citus coordinator: one row per node and ID type with the identity in force and where it came from; shared flags an identity two nodes share (kuid, which carries none, is shared whenever there are two nodes; NULL for a node whose identity cannot be had, its source says why)';

-- issue 84: every object described (COMMENT ON is idempotent: each
-- description set as a fresh install sets it, the objects of the files
-- included above described there)
COMMENT ON FUNCTION flakeid_gist_key_in(cstring) IS 'text input of flakeid_gist_key: both bounds in hex';
COMMENT ON FUNCTION flakeid_gist_key_out(flakeid_gist_key) IS 'text output of flakeid_gist_key: both bounds in hex (gist_page_items shows it)';
COMMENT ON TYPE flakeid_gist_key IS 'the key of flakeid''s GiST indexes: the lowest and highest ID below an entry';
COMMENT ON FUNCTION sno_in(cstring) IS 'sno''s text input: its canonical text form (22P02 for any other text)';
COMMENT ON FUNCTION sno_out(sno) IS 'sno''s text output: its canonical text form';
COMMENT ON FUNCTION sno_recv(internal) IS 'sno''s binary input: its 10 bytes (a value as long as its text form is read as text)';
COMMENT ON FUNCTION sno_send(sno) IS 'sno''s binary output: its 10 bytes';
COMMENT ON FUNCTION sno_to_bytea(sno) IS 'the cast sno to bytea: the ID''s 10 bytes';
COMMENT ON FUNCTION sno_from_bytea(bytea) IS 'the cast bytea to sno: exactly 10 bytes (22P03 for any other length)';
COMMENT ON CAST (sno AS bytea) IS 'explicit: the ID''s 10 bytes';
COMMENT ON CAST (bytea AS sno) IS 'explicit: 10 bytes as a sno (22P03 for any other length)';
COMMENT ON FUNCTION sno_to_uuid(sno) IS 'the cast sno to uuid: a UUIDv8 holding the ID''s bits, in the same order';
COMMENT ON FUNCTION sno_from_uuid(uuid) IS 'the cast uuid to sno: the ID a sno UUIDv8 holds (22P03 for any other uuid)';
COMMENT ON CAST (sno AS uuid) IS 'explicit: a UUIDv8 that sorts as the sno does';
COMMENT ON CAST (uuid AS sno) IS 'explicit: the sno a UUIDv8 made by the cast to uuid holds (22P03 for any other uuid)';
COMMENT ON FUNCTION sno_time_in(sno, tstzrange) IS
    'whether the ID''s time lies in the range (the operator <@ without planner support)';
COMMENT ON FUNCTION sno_range_lower_bound(tstzrange) IS
    'the smallest ID whose time can lie in the range (the largest ID if none can)';
COMMENT ON FUNCTION sno_range_upper_bound(tstzrange) IS
    'the largest ID whose time can lie in the range (the smallest ID if none can)';
COMMENT ON FUNCTION sno_range_support(internal) IS 'planner support of sno <@ and @>: a time range becomes bounds on the ID (index scans, BRIN, partition pruning)';
COMMENT ON FUNCTION sno_in_range(sno, tstzrange) IS 'the operator <@: whether the ID''s time lies in the range, with planner support';
COMMENT ON FUNCTION sno_range_contains(tstzrange, sno) IS 'the operator @>: whether the range holds the ID''s time, with planner support';
COMMENT ON OPERATOR <@ (sno, tstzrange) IS 'the sno''s time lies in the range (sno_time(id) <@ range), answered by the ID''s own indexes';
COMMENT ON OPERATOR @> (tstzrange, sno) IS 'the range holds the sno''s time, answered by the ID''s own indexes';
COMMENT ON FUNCTION sno_eq(sno, sno) IS 'the operator = on sno: the same bytes';
COMMENT ON FUNCTION sno_ne(sno, sno) IS 'the operator <> on sno: different bytes';
COMMENT ON FUNCTION sno_lt(sno, sno) IS 'the operator < on sno, in the order of its bytes';
COMMENT ON FUNCTION sno_le(sno, sno) IS 'the operator <= on sno, in the order of its bytes';
COMMENT ON FUNCTION sno_gt(sno, sno) IS 'the operator > on sno, in the order of its bytes';
COMMENT ON FUNCTION sno_ge(sno, sno) IS 'the operator >= on sno, in the order of its bytes';
COMMENT ON FUNCTION sno_cmp(sno, sno) IS 'btree and GIN comparison of two sno IDs (-1, 0 or 1), in the order of their bytes';
COMMENT ON FUNCTION sno_sortsupport(internal) IS 'btree sort support of sno: abbreviated keys from its leading bytes';
COMMENT ON FUNCTION sno_hash(sno) IS 'hash of a sno (hash indexes and joins, BRIN bloom)';
COMMENT ON FUNCTION sno_hash_extended(sno, int8) IS 'seeded 64-bit hash of a sno (hash partitioning)';
COMMENT ON FUNCTION sno_smaller(sno, sno) IS 'the smaller of two sno IDs (min''s state function)';
COMMENT ON FUNCTION sno_larger(sno, sno) IS 'the larger of two sno IDs (max''s state function)';
COMMENT ON OPERATOR = (sno, sno) IS 'equal: the same sno ID';
COMMENT ON OPERATOR <> (sno, sno) IS 'not equal: different sno IDs';
COMMENT ON OPERATOR < (sno, sno) IS 'less than, in sno order (the order of its bytes)';
COMMENT ON OPERATOR <= (sno, sno) IS 'less than or equal, in sno order (the order of its bytes)';
COMMENT ON OPERATOR > (sno, sno) IS 'greater than, in sno order (the order of its bytes)';
COMMENT ON OPERATOR >= (sno, sno) IS 'greater than or equal, in sno order (the order of its bytes)';
COMMENT ON OPERATOR CLASS sno_ops USING btree IS 'the default btree class of sno: ID order, with sort support';
COMMENT ON OPERATOR FAMILY sno_ops USING btree IS 'btree family of sno: its comparisons, window frames by interval and skip scans (18 and later)';
COMMENT ON OPERATOR CLASS sno_ops USING hash IS 'the default hash class of sno: equality';
COMMENT ON OPERATOR FAMILY sno_ops USING hash IS 'hash family of sno';
COMMENT ON OPERATOR CLASS sno_minmax_ops USING brin IS 'the default BRIN class of sno: the least and greatest ID of each block range';
COMMENT ON OPERATOR FAMILY sno_minmax_ops USING brin IS 'BRIN minmax family of sno';
COMMENT ON OPERATOR CLASS sno_bloom_ops USING brin IS 'BRIN bloom class of sno: equality lookups on a column in no useful order';
COMMENT ON OPERATOR FAMILY sno_bloom_ops USING brin IS 'BRIN bloom family of sno';
COMMENT ON AGGREGATE min(sno) IS 'the smallest sno ID, in ID order';
COMMENT ON AGGREGATE max(sno) IS 'the largest sno ID, in ID order';
COMMENT ON FUNCTION sno_fields(sno) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';
COMMENT ON FUNCTION sno_time_distance(sno, sno) IS
    'the operator <->: how far apart the two IDs'' times are';
COMMENT ON OPERATOR <-> (sno, sno) IS 'how far apart two sno IDs'' times are (GiST nearest-in-time ORDER BY)';
COMMENT ON FUNCTION sno_brin_distance(internal, internal) IS 'BRIN minmax-multi support of sno: how far apart two IDs'' times are';
COMMENT ON FUNCTION in_range(sno, sno, interval, bool, bool) IS
    'btree in_range support: window RANGE frames with interval offsets, on the times ID order follows';
COMMENT ON FUNCTION sno_skipsupport(internal) IS 'btree skip support of sno (skip scans, PostgreSQL 18 and later): the next and previous ID';
COMMENT ON OPERATOR CLASS sno_minmax_multi_ops USING brin IS 'BRIN minmax-multi class of sno: several ID ranges per block range, merged by time distance';
COMMENT ON OPERATOR FAMILY sno_minmax_multi_ops USING brin IS 'BRIN minmax-multi family of sno';
COMMENT ON FUNCTION sno_gist_consistent(internal, sno, int2, oid, internal) IS 'GiST support of sno: whether an entry''s ID interval can satisfy the condition';
COMMENT ON FUNCTION sno_gist_distance(internal, sno, int2, oid, internal) IS 'GiST support of sno: the least time distance from an entry to an ID (ORDER BY <->)';
COMMENT ON FUNCTION sno_gist_union(internal, internal) IS 'GiST support of sno: the ID interval covering several entries';
COMMENT ON FUNCTION sno_gist_compress(internal) IS 'GiST support of sno: an ID as the interval [id, id]';
COMMENT ON FUNCTION sno_gist_fetch(internal) IS 'GiST support of sno: the ID a leaf entry holds (index-only scans)';
COMMENT ON FUNCTION sno_gist_penalty(internal, internal, internal) IS 'GiST support of sno: the cost of widening an entry''s interval to take a new one';
COMMENT ON FUNCTION sno_gist_picksplit(internal, internal) IS 'GiST support of sno: splits a page''s entries in two halves, sorted by their lowest ID';
COMMENT ON FUNCTION sno_gist_same(flakeid_gist_key, flakeid_gist_key, internal) IS 'GiST support of sno: whether two ID intervals are equal';
COMMENT ON OPERATOR CLASS sno_ops USING gist IS 'the default GiST class of sno: comparisons and <-> for exclusion constraints and nearest-in-time searches';
COMMENT ON OPERATOR FAMILY sno_ops USING gist IS 'GiST family of sno';
COMMENT ON FUNCTION sno_gin_extract_value(sno, internal) IS 'GIN support of sno: the ID as its only key';
COMMENT ON FUNCTION sno_gin_extract_query(sno, internal, int2, internal, internal) IS 'GIN support of sno: the key a comparison searches from, partial for a range';
COMMENT ON FUNCTION sno_gin_consistent(internal, int2, sno, int4, internal, internal) IS 'GIN support of sno: a matched key satisfies the comparison';
COMMENT ON FUNCTION sno_gin_compare_partial(sno, sno, int2, internal) IS 'GIN support of sno: whether a key lies in the range a comparison scans, and when to stop';
COMMENT ON OPERATOR CLASS sno_ops USING gin IS 'the default GIN class of sno: = and comparisons, for multicolumn GIN indexes with jsonb or arrays';
COMMENT ON OPERATOR FAMILY sno_ops USING gin IS 'GIN family of sno';
COMMENT ON FUNCTION flax_in(cstring) IS 'flax''s text input: its canonical text form (22P02 for any other text)';
COMMENT ON FUNCTION flax_out(flax) IS 'flax''s text output: its canonical text form';
COMMENT ON FUNCTION flax_recv(internal) IS 'flax''s binary input: its 12 bytes (a value as long as its text form is read as text)';
COMMENT ON FUNCTION flax_send(flax) IS 'flax''s binary output: its 12 bytes';
COMMENT ON FUNCTION flax_to_bytea(flax) IS 'the cast flax to bytea: the ID''s 12 bytes';
COMMENT ON FUNCTION flax_from_bytea(bytea) IS 'the cast bytea to flax: exactly 12 bytes (22P03 for any other length)';
COMMENT ON CAST (flax AS bytea) IS 'explicit: the ID''s 12 bytes';
COMMENT ON CAST (bytea AS flax) IS 'explicit: 12 bytes as a flax (22P03 for any other length)';
COMMENT ON FUNCTION flax_to_uuid(flax) IS 'the cast flax to uuid: a UUIDv8 holding the ID''s bits, in the same order';
COMMENT ON FUNCTION flax_from_uuid(uuid) IS 'the cast uuid to flax: the ID a flax UUIDv8 holds (22P03 for any other uuid)';
COMMENT ON CAST (flax AS uuid) IS 'explicit: a UUIDv8 that sorts as the flax does';
COMMENT ON CAST (uuid AS flax) IS 'explicit: the flax a UUIDv8 made by the cast to uuid holds (22P03 for any other uuid)';
COMMENT ON FUNCTION flax_time_in(flax, tstzrange) IS
    'whether the ID''s time lies in the range (the operator <@ without planner support)';
COMMENT ON FUNCTION flax_range_lower_bound(tstzrange) IS
    'the smallest ID whose time can lie in the range (the largest ID if none can)';
COMMENT ON FUNCTION flax_range_upper_bound(tstzrange) IS
    'the largest ID whose time can lie in the range (the smallest ID if none can)';
COMMENT ON FUNCTION flax_range_support(internal) IS 'planner support of flax <@ and @>: a time range becomes bounds on the ID (index scans, BRIN, partition pruning)';
COMMENT ON FUNCTION flax_in_range(flax, tstzrange) IS 'the operator <@: whether the ID''s time lies in the range, with planner support';
COMMENT ON FUNCTION flax_range_contains(tstzrange, flax) IS 'the operator @>: whether the range holds the ID''s time, with planner support';
COMMENT ON OPERATOR <@ (flax, tstzrange) IS 'the flax''s time lies in the range (flax_time(id) <@ range), answered by the ID''s own indexes';
COMMENT ON OPERATOR @> (tstzrange, flax) IS 'the range holds the flax''s time, answered by the ID''s own indexes';
COMMENT ON FUNCTION flax_eq(flax, flax) IS 'the operator = on flax: the same bytes';
COMMENT ON FUNCTION flax_ne(flax, flax) IS 'the operator <> on flax: different bytes';
COMMENT ON FUNCTION flax_lt(flax, flax) IS 'the operator < on flax, in the order of its bytes';
COMMENT ON FUNCTION flax_le(flax, flax) IS 'the operator <= on flax, in the order of its bytes';
COMMENT ON FUNCTION flax_gt(flax, flax) IS 'the operator > on flax, in the order of its bytes';
COMMENT ON FUNCTION flax_ge(flax, flax) IS 'the operator >= on flax, in the order of its bytes';
COMMENT ON FUNCTION flax_cmp(flax, flax) IS 'btree and GIN comparison of two flax IDs (-1, 0 or 1), in the order of their bytes';
COMMENT ON FUNCTION flax_sortsupport(internal) IS 'btree sort support of flax: abbreviated keys from its leading bytes';
COMMENT ON FUNCTION flax_hash(flax) IS 'hash of a flax (hash indexes and joins, BRIN bloom)';
COMMENT ON FUNCTION flax_hash_extended(flax, int8) IS 'seeded 64-bit hash of a flax (hash partitioning)';
COMMENT ON FUNCTION flax_smaller(flax, flax) IS 'the smaller of two flax IDs (min''s state function)';
COMMENT ON FUNCTION flax_larger(flax, flax) IS 'the larger of two flax IDs (max''s state function)';
COMMENT ON OPERATOR = (flax, flax) IS 'equal: the same flax ID';
COMMENT ON OPERATOR <> (flax, flax) IS 'not equal: different flax IDs';
COMMENT ON OPERATOR < (flax, flax) IS 'less than, in flax order (the order of its bytes)';
COMMENT ON OPERATOR <= (flax, flax) IS 'less than or equal, in flax order (the order of its bytes)';
COMMENT ON OPERATOR > (flax, flax) IS 'greater than, in flax order (the order of its bytes)';
COMMENT ON OPERATOR >= (flax, flax) IS 'greater than or equal, in flax order (the order of its bytes)';
COMMENT ON OPERATOR CLASS flax_ops USING btree IS 'the default btree class of flax: ID order, with sort support';
COMMENT ON OPERATOR FAMILY flax_ops USING btree IS 'btree family of flax: its comparisons, window frames by interval and skip scans (18 and later)';
COMMENT ON OPERATOR CLASS flax_ops USING hash IS 'the default hash class of flax: equality';
COMMENT ON OPERATOR FAMILY flax_ops USING hash IS 'hash family of flax';
COMMENT ON OPERATOR CLASS flax_minmax_ops USING brin IS 'the default BRIN class of flax: the least and greatest ID of each block range';
COMMENT ON OPERATOR FAMILY flax_minmax_ops USING brin IS 'BRIN minmax family of flax';
COMMENT ON OPERATOR CLASS flax_bloom_ops USING brin IS 'BRIN bloom class of flax: equality lookups on a column in no useful order';
COMMENT ON OPERATOR FAMILY flax_bloom_ops USING brin IS 'BRIN bloom family of flax';
COMMENT ON AGGREGATE min(flax) IS 'the smallest flax ID, in ID order';
COMMENT ON AGGREGATE max(flax) IS 'the largest flax ID, in ID order';
COMMENT ON FUNCTION flax_fields(flax) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';
COMMENT ON FUNCTION flax_time_distance(flax, flax) IS
    'the operator <->: how far apart the two IDs'' times are';
COMMENT ON OPERATOR <-> (flax, flax) IS 'how far apart two flax IDs'' times are (GiST nearest-in-time ORDER BY)';
COMMENT ON FUNCTION flax_brin_distance(internal, internal) IS 'BRIN minmax-multi support of flax: how far apart two IDs'' times are';
COMMENT ON FUNCTION in_range(flax, flax, interval, bool, bool) IS
    'btree in_range support: window RANGE frames with interval offsets, on the times ID order follows';
COMMENT ON FUNCTION flax_skipsupport(internal) IS 'btree skip support of flax (skip scans, PostgreSQL 18 and later): the next and previous ID';
COMMENT ON OPERATOR CLASS flax_minmax_multi_ops USING brin IS 'BRIN minmax-multi class of flax: several ID ranges per block range, merged by time distance';
COMMENT ON OPERATOR FAMILY flax_minmax_multi_ops USING brin IS 'BRIN minmax-multi family of flax';
COMMENT ON FUNCTION flax_gist_consistent(internal, flax, int2, oid, internal) IS 'GiST support of flax: whether an entry''s ID interval can satisfy the condition';
COMMENT ON FUNCTION flax_gist_distance(internal, flax, int2, oid, internal) IS 'GiST support of flax: the least time distance from an entry to an ID (ORDER BY <->)';
COMMENT ON FUNCTION flax_gist_union(internal, internal) IS 'GiST support of flax: the ID interval covering several entries';
COMMENT ON FUNCTION flax_gist_compress(internal) IS 'GiST support of flax: an ID as the interval [id, id]';
COMMENT ON FUNCTION flax_gist_fetch(internal) IS 'GiST support of flax: the ID a leaf entry holds (index-only scans)';
COMMENT ON FUNCTION flax_gist_penalty(internal, internal, internal) IS 'GiST support of flax: the cost of widening an entry''s interval to take a new one';
COMMENT ON FUNCTION flax_gist_picksplit(internal, internal) IS 'GiST support of flax: splits a page''s entries in two halves, sorted by their lowest ID';
COMMENT ON FUNCTION flax_gist_same(flakeid_gist_key, flakeid_gist_key, internal) IS 'GiST support of flax: whether two ID intervals are equal';
COMMENT ON OPERATOR CLASS flax_ops USING gist IS 'the default GiST class of flax: comparisons and <-> for exclusion constraints and nearest-in-time searches';
COMMENT ON OPERATOR FAMILY flax_ops USING gist IS 'GiST family of flax';
COMMENT ON FUNCTION flax_gin_extract_value(flax, internal) IS 'GIN support of flax: the ID as its only key';
COMMENT ON FUNCTION flax_gin_extract_query(flax, internal, int2, internal, internal) IS 'GIN support of flax: the key a comparison searches from, partial for a range';
COMMENT ON FUNCTION flax_gin_consistent(internal, int2, flax, int4, internal, internal) IS 'GIN support of flax: a matched key satisfies the comparison';
COMMENT ON FUNCTION flax_gin_compare_partial(flax, flax, int2, internal) IS 'GIN support of flax: whether a key lies in the range a comparison scans, and when to stop';
COMMENT ON OPERATOR CLASS flax_ops USING gin IS 'the default GIN class of flax: = and comparisons, for multicolumn GIN indexes with jsonb or arrays';
COMMENT ON OPERATOR FAMILY flax_ops USING gin IS 'GIN family of flax';
COMMENT ON FUNCTION siq_in(cstring) IS 'siq''s text input: its canonical text form (22P02 for any other text)';
COMMENT ON FUNCTION siq_out(siq) IS 'siq''s text output: its canonical text form';
COMMENT ON FUNCTION siq_recv(internal) IS 'siq''s binary input: its 14 bytes (a value as long as its text form is read as text)';
COMMENT ON FUNCTION siq_send(siq) IS 'siq''s binary output: its 14 bytes';
COMMENT ON FUNCTION siq_to_bytea(siq) IS 'the cast siq to bytea: the ID''s 14 bytes';
COMMENT ON FUNCTION siq_from_bytea(bytea) IS 'the cast bytea to siq: exactly 14 bytes (22P03 for any other length)';
COMMENT ON CAST (siq AS bytea) IS 'explicit: the ID''s 14 bytes';
COMMENT ON CAST (bytea AS siq) IS 'explicit: 14 bytes as a siq (22P03 for any other length)';
COMMENT ON FUNCTION siq_to_uuid(siq) IS 'the cast siq to uuid: a UUIDv8 holding the ID''s bits, in the same order';
COMMENT ON FUNCTION siq_from_uuid(uuid) IS 'the cast uuid to siq: the ID a siq UUIDv8 holds (22P03 for any other uuid)';
COMMENT ON CAST (siq AS uuid) IS 'explicit: a UUIDv8 that sorts as the siq does';
COMMENT ON CAST (uuid AS siq) IS 'explicit: the siq a UUIDv8 made by the cast to uuid holds (22P03 for any other uuid)';
COMMENT ON FUNCTION siq_time_in(siq, tstzrange) IS
    'whether the ID''s time lies in the range (the operator <@ without planner support)';
COMMENT ON FUNCTION siq_range_lower_bound(tstzrange) IS
    'the smallest ID whose time can lie in the range (the largest ID if none can)';
COMMENT ON FUNCTION siq_range_upper_bound(tstzrange) IS
    'the largest ID whose time can lie in the range (the smallest ID if none can)';
COMMENT ON FUNCTION siq_range_support(internal) IS 'planner support of siq <@ and @>: a time range becomes bounds on the ID (index scans, BRIN, partition pruning)';
COMMENT ON FUNCTION siq_in_range(siq, tstzrange) IS 'the operator <@: whether the ID''s time lies in the range, with planner support';
COMMENT ON FUNCTION siq_range_contains(tstzrange, siq) IS 'the operator @>: whether the range holds the ID''s time, with planner support';
COMMENT ON OPERATOR <@ (siq, tstzrange) IS 'the siq''s time lies in the range (siq_time(id) <@ range), answered by the ID''s own indexes';
COMMENT ON OPERATOR @> (tstzrange, siq) IS 'the range holds the siq''s time, answered by the ID''s own indexes';
COMMENT ON FUNCTION siq_eq(siq, siq) IS 'the operator = on siq: the same bytes';
COMMENT ON FUNCTION siq_ne(siq, siq) IS 'the operator <> on siq: different bytes';
COMMENT ON FUNCTION siq_lt(siq, siq) IS 'the operator < on siq, in the order of its bytes';
COMMENT ON FUNCTION siq_le(siq, siq) IS 'the operator <= on siq, in the order of its bytes';
COMMENT ON FUNCTION siq_gt(siq, siq) IS 'the operator > on siq, in the order of its bytes';
COMMENT ON FUNCTION siq_ge(siq, siq) IS 'the operator >= on siq, in the order of its bytes';
COMMENT ON FUNCTION siq_cmp(siq, siq) IS 'btree and GIN comparison of two siq IDs (-1, 0 or 1), in the order of their bytes';
COMMENT ON FUNCTION siq_sortsupport(internal) IS 'btree sort support of siq: abbreviated keys from its leading bytes';
COMMENT ON FUNCTION siq_hash(siq) IS 'hash of a siq (hash indexes and joins, BRIN bloom)';
COMMENT ON FUNCTION siq_hash_extended(siq, int8) IS 'seeded 64-bit hash of a siq (hash partitioning)';
COMMENT ON FUNCTION siq_smaller(siq, siq) IS 'the smaller of two siq IDs (min''s state function)';
COMMENT ON FUNCTION siq_larger(siq, siq) IS 'the larger of two siq IDs (max''s state function)';
COMMENT ON OPERATOR = (siq, siq) IS 'equal: the same siq ID';
COMMENT ON OPERATOR <> (siq, siq) IS 'not equal: different siq IDs';
COMMENT ON OPERATOR < (siq, siq) IS 'less than, in siq order (the order of its bytes)';
COMMENT ON OPERATOR <= (siq, siq) IS 'less than or equal, in siq order (the order of its bytes)';
COMMENT ON OPERATOR > (siq, siq) IS 'greater than, in siq order (the order of its bytes)';
COMMENT ON OPERATOR >= (siq, siq) IS 'greater than or equal, in siq order (the order of its bytes)';
COMMENT ON OPERATOR CLASS siq_ops USING btree IS 'the default btree class of siq: ID order, with sort support';
COMMENT ON OPERATOR FAMILY siq_ops USING btree IS 'btree family of siq: its comparisons, window frames by interval and skip scans (18 and later)';
COMMENT ON OPERATOR CLASS siq_ops USING hash IS 'the default hash class of siq: equality';
COMMENT ON OPERATOR FAMILY siq_ops USING hash IS 'hash family of siq';
COMMENT ON OPERATOR CLASS siq_minmax_ops USING brin IS 'the default BRIN class of siq: the least and greatest ID of each block range';
COMMENT ON OPERATOR FAMILY siq_minmax_ops USING brin IS 'BRIN minmax family of siq';
COMMENT ON OPERATOR CLASS siq_bloom_ops USING brin IS 'BRIN bloom class of siq: equality lookups on a column in no useful order';
COMMENT ON OPERATOR FAMILY siq_bloom_ops USING brin IS 'BRIN bloom family of siq';
COMMENT ON AGGREGATE min(siq) IS 'the smallest siq ID, in ID order';
COMMENT ON AGGREGATE max(siq) IS 'the largest siq ID, in ID order';
COMMENT ON FUNCTION siq_fields(siq) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';
COMMENT ON FUNCTION siq_time_distance(siq, siq) IS
    'the operator <->: how far apart the two IDs'' times are';
COMMENT ON OPERATOR <-> (siq, siq) IS 'how far apart two siq IDs'' times are (GiST nearest-in-time ORDER BY)';
COMMENT ON FUNCTION siq_brin_distance(internal, internal) IS 'BRIN minmax-multi support of siq: how far apart two IDs'' times are';
COMMENT ON FUNCTION in_range(siq, siq, interval, bool, bool) IS
    'btree in_range support: window RANGE frames with interval offsets, on the times ID order follows';
COMMENT ON FUNCTION siq_skipsupport(internal) IS 'btree skip support of siq (skip scans, PostgreSQL 18 and later): the next and previous ID';
COMMENT ON OPERATOR CLASS siq_minmax_multi_ops USING brin IS 'BRIN minmax-multi class of siq: several ID ranges per block range, merged by time distance';
COMMENT ON OPERATOR FAMILY siq_minmax_multi_ops USING brin IS 'BRIN minmax-multi family of siq';
COMMENT ON FUNCTION siq_gist_consistent(internal, siq, int2, oid, internal) IS 'GiST support of siq: whether an entry''s ID interval can satisfy the condition';
COMMENT ON FUNCTION siq_gist_distance(internal, siq, int2, oid, internal) IS 'GiST support of siq: the least time distance from an entry to an ID (ORDER BY <->)';
COMMENT ON FUNCTION siq_gist_union(internal, internal) IS 'GiST support of siq: the ID interval covering several entries';
COMMENT ON FUNCTION siq_gist_compress(internal) IS 'GiST support of siq: an ID as the interval [id, id]';
COMMENT ON FUNCTION siq_gist_fetch(internal) IS 'GiST support of siq: the ID a leaf entry holds (index-only scans)';
COMMENT ON FUNCTION siq_gist_penalty(internal, internal, internal) IS 'GiST support of siq: the cost of widening an entry''s interval to take a new one';
COMMENT ON FUNCTION siq_gist_picksplit(internal, internal) IS 'GiST support of siq: splits a page''s entries in two halves, sorted by their lowest ID';
COMMENT ON FUNCTION siq_gist_same(flakeid_gist_key, flakeid_gist_key, internal) IS 'GiST support of siq: whether two ID intervals are equal';
COMMENT ON OPERATOR CLASS siq_ops USING gist IS 'the default GiST class of siq: comparisons and <-> for exclusion constraints and nearest-in-time searches';
COMMENT ON OPERATOR FAMILY siq_ops USING gist IS 'GiST family of siq';
COMMENT ON FUNCTION siq_gin_extract_value(siq, internal) IS 'GIN support of siq: the ID as its only key';
COMMENT ON FUNCTION siq_gin_extract_query(siq, internal, int2, internal, internal) IS 'GIN support of siq: the key a comparison searches from, partial for a range';
COMMENT ON FUNCTION siq_gin_consistent(internal, int2, siq, int4, internal, internal) IS 'GIN support of siq: a matched key satisfies the comparison';
COMMENT ON FUNCTION siq_gin_compare_partial(siq, siq, int2, internal) IS 'GIN support of siq: whether a key lies in the range a comparison scans, and when to stop';
COMMENT ON OPERATOR CLASS siq_ops USING gin IS 'the default GIN class of siq: = and comparisons, for multicolumn GIN indexes with jsonb or arrays';
COMMENT ON OPERATOR FAMILY siq_ops USING gin IS 'GIN family of siq';
COMMENT ON FUNCTION kuid_in(cstring) IS 'kuid''s text input: its canonical text form (22P02 for any other text)';
COMMENT ON FUNCTION kuid_out(kuid) IS 'kuid''s text output: its canonical text form';
COMMENT ON FUNCTION kuid_recv(internal) IS 'kuid''s binary input: its 8 bytes (a value as long as its text form is read as text)';
COMMENT ON FUNCTION kuid_send(kuid) IS 'kuid''s binary output: its 8 bytes';
COMMENT ON FUNCTION kuid_to_bytea(kuid) IS 'the cast kuid to bytea: the ID''s 8 bytes';
COMMENT ON FUNCTION kuid_from_bytea(bytea) IS 'the cast bytea to kuid: exactly 8 bytes (22P03 for any other length)';
COMMENT ON CAST (kuid AS bytea) IS 'explicit: the ID''s 8 bytes';
COMMENT ON CAST (bytea AS kuid) IS 'explicit: 8 bytes as a kuid (22P03 for any other length)';
COMMENT ON FUNCTION kuid_to_uuid(kuid) IS 'the cast kuid to uuid: a UUIDv8 holding the ID''s bits, in the same order';
COMMENT ON FUNCTION kuid_from_uuid(uuid) IS 'the cast uuid to kuid: the ID a kuid UUIDv8 holds (22P03 for any other uuid)';
COMMENT ON CAST (kuid AS uuid) IS 'explicit: a UUIDv8 that sorts as the kuid does';
COMMENT ON CAST (uuid AS kuid) IS 'explicit: the kuid a UUIDv8 made by the cast to uuid holds (22P03 for any other uuid)';
COMMENT ON FUNCTION kuid_time_in(kuid, tstzrange) IS
    'whether the ID''s time lies in the range (the operator <@ without planner support)';
COMMENT ON FUNCTION kuid_range_lower_bound(tstzrange) IS
    'the smallest ID whose time can lie in the range (the largest ID if none can)';
COMMENT ON FUNCTION kuid_range_upper_bound(tstzrange) IS
    'the largest ID whose time can lie in the range (the smallest ID if none can)';
COMMENT ON FUNCTION kuid_range_support(internal) IS 'planner support of kuid <@ and @>: a time range becomes bounds on the ID (index scans, BRIN, partition pruning)';
COMMENT ON FUNCTION kuid_in_range(kuid, tstzrange) IS 'the operator <@: whether the ID''s time lies in the range, with planner support';
COMMENT ON FUNCTION kuid_range_contains(tstzrange, kuid) IS 'the operator @>: whether the range holds the ID''s time, with planner support';
COMMENT ON OPERATOR <@ (kuid, tstzrange) IS 'the kuid''s time lies in the range (kuid_time(id) <@ range), answered by the ID''s own indexes';
COMMENT ON OPERATOR @> (tstzrange, kuid) IS 'the range holds the kuid''s time, answered by the ID''s own indexes';
COMMENT ON FUNCTION kuid_eq(kuid, kuid) IS 'the operator = on kuid: the same bytes';
COMMENT ON FUNCTION kuid_ne(kuid, kuid) IS 'the operator <> on kuid: different bytes';
COMMENT ON FUNCTION kuid_lt(kuid, kuid) IS 'the operator < on kuid, in the order of its bytes';
COMMENT ON FUNCTION kuid_le(kuid, kuid) IS 'the operator <= on kuid, in the order of its bytes';
COMMENT ON FUNCTION kuid_gt(kuid, kuid) IS 'the operator > on kuid, in the order of its bytes';
COMMENT ON FUNCTION kuid_ge(kuid, kuid) IS 'the operator >= on kuid, in the order of its bytes';
COMMENT ON FUNCTION kuid_cmp(kuid, kuid) IS 'btree and GIN comparison of two kuid IDs (-1, 0 or 1), in the order of their bytes';
COMMENT ON FUNCTION kuid_sortsupport(internal) IS 'btree sort support of kuid: abbreviated keys from its leading bytes';
COMMENT ON FUNCTION kuid_hash(kuid) IS 'hash of a kuid (hash indexes and joins, BRIN bloom)';
COMMENT ON FUNCTION kuid_hash_extended(kuid, int8) IS 'seeded 64-bit hash of a kuid (hash partitioning)';
COMMENT ON FUNCTION kuid_smaller(kuid, kuid) IS 'the smaller of two kuid IDs (min''s state function)';
COMMENT ON FUNCTION kuid_larger(kuid, kuid) IS 'the larger of two kuid IDs (max''s state function)';
COMMENT ON OPERATOR = (kuid, kuid) IS 'equal: the same kuid ID';
COMMENT ON OPERATOR <> (kuid, kuid) IS 'not equal: different kuid IDs';
COMMENT ON OPERATOR < (kuid, kuid) IS 'less than, in kuid order (the order of its bytes)';
COMMENT ON OPERATOR <= (kuid, kuid) IS 'less than or equal, in kuid order (the order of its bytes)';
COMMENT ON OPERATOR > (kuid, kuid) IS 'greater than, in kuid order (the order of its bytes)';
COMMENT ON OPERATOR >= (kuid, kuid) IS 'greater than or equal, in kuid order (the order of its bytes)';
COMMENT ON OPERATOR CLASS kuid_ops USING btree IS 'the default btree class of kuid: ID order, with sort support';
COMMENT ON OPERATOR FAMILY kuid_ops USING btree IS 'btree family of kuid: its comparisons, window frames by interval and skip scans (18 and later)';
COMMENT ON OPERATOR CLASS kuid_ops USING hash IS 'the default hash class of kuid: equality';
COMMENT ON OPERATOR FAMILY kuid_ops USING hash IS 'hash family of kuid';
COMMENT ON OPERATOR CLASS kuid_minmax_ops USING brin IS 'the default BRIN class of kuid: the least and greatest ID of each block range';
COMMENT ON OPERATOR FAMILY kuid_minmax_ops USING brin IS 'BRIN minmax family of kuid';
COMMENT ON OPERATOR CLASS kuid_bloom_ops USING brin IS 'BRIN bloom class of kuid: equality lookups on a column in no useful order';
COMMENT ON OPERATOR FAMILY kuid_bloom_ops USING brin IS 'BRIN bloom family of kuid';
COMMENT ON AGGREGATE min(kuid) IS 'the smallest kuid ID, in ID order';
COMMENT ON AGGREGATE max(kuid) IS 'the largest kuid ID, in ID order';
COMMENT ON FUNCTION kuid_fields(kuid) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';
COMMENT ON FUNCTION kuid_time_distance(kuid, kuid) IS
    'the operator <->: how far apart the two IDs'' times are';
COMMENT ON OPERATOR <-> (kuid, kuid) IS 'how far apart two kuid IDs'' times are (GiST nearest-in-time ORDER BY)';
COMMENT ON FUNCTION kuid_brin_distance(internal, internal) IS 'BRIN minmax-multi support of kuid: how far apart two IDs'' times are';
COMMENT ON FUNCTION in_range(kuid, kuid, interval, bool, bool) IS
    'btree in_range support: window RANGE frames with interval offsets, on the times ID order follows';
COMMENT ON FUNCTION kuid_skipsupport(internal) IS 'btree skip support of kuid (skip scans, PostgreSQL 18 and later): the next and previous ID';
COMMENT ON OPERATOR CLASS kuid_minmax_multi_ops USING brin IS 'BRIN minmax-multi class of kuid: several ID ranges per block range, merged by time distance';
COMMENT ON OPERATOR FAMILY kuid_minmax_multi_ops USING brin IS 'BRIN minmax-multi family of kuid';
COMMENT ON FUNCTION kuid_gist_consistent(internal, kuid, int2, oid, internal) IS 'GiST support of kuid: whether an entry''s ID interval can satisfy the condition';
COMMENT ON FUNCTION kuid_gist_distance(internal, kuid, int2, oid, internal) IS 'GiST support of kuid: the least time distance from an entry to an ID (ORDER BY <->)';
COMMENT ON FUNCTION kuid_gist_union(internal, internal) IS 'GiST support of kuid: the ID interval covering several entries';
COMMENT ON FUNCTION kuid_gist_compress(internal) IS 'GiST support of kuid: an ID as the interval [id, id]';
COMMENT ON FUNCTION kuid_gist_fetch(internal) IS 'GiST support of kuid: the ID a leaf entry holds (index-only scans)';
COMMENT ON FUNCTION kuid_gist_penalty(internal, internal, internal) IS 'GiST support of kuid: the cost of widening an entry''s interval to take a new one';
COMMENT ON FUNCTION kuid_gist_picksplit(internal, internal) IS 'GiST support of kuid: splits a page''s entries in two halves, sorted by their lowest ID';
COMMENT ON FUNCTION kuid_gist_same(flakeid_gist_key, flakeid_gist_key, internal) IS 'GiST support of kuid: whether two ID intervals are equal';
COMMENT ON OPERATOR CLASS kuid_ops USING gist IS 'the default GiST class of kuid: comparisons and <-> for exclusion constraints and nearest-in-time searches';
COMMENT ON OPERATOR FAMILY kuid_ops USING gist IS 'GiST family of kuid';
COMMENT ON FUNCTION kuid_gin_extract_value(kuid, internal) IS 'GIN support of kuid: the ID as its only key';
COMMENT ON FUNCTION kuid_gin_extract_query(kuid, internal, int2, internal, internal) IS 'GIN support of kuid: the key a comparison searches from, partial for a range';
COMMENT ON FUNCTION kuid_gin_consistent(internal, int2, kuid, int4, internal, internal) IS 'GIN support of kuid: a matched key satisfies the comparison';
COMMENT ON FUNCTION kuid_gin_compare_partial(kuid, kuid, int2, internal) IS 'GIN support of kuid: whether a key lies in the range a comparison scans, and when to stop';
COMMENT ON OPERATOR CLASS kuid_ops USING gin IS 'the default GIN class of kuid: = and comparisons, for multicolumn GIN indexes with jsonb or arrays';
COMMENT ON OPERATOR FAMILY kuid_ops USING gin IS 'GIN family of kuid';
COMMENT ON FUNCTION kuid96_in(cstring) IS 'kuid96''s text input: its canonical text form (22P02 for any other text)';
COMMENT ON FUNCTION kuid96_out(kuid96) IS 'kuid96''s text output: its canonical text form';
COMMENT ON FUNCTION kuid96_recv(internal) IS 'kuid96''s binary input: its 12 bytes (a value as long as its text form is read as text)';
COMMENT ON FUNCTION kuid96_send(kuid96) IS 'kuid96''s binary output: its 12 bytes';
COMMENT ON FUNCTION kuid96_to_bytea(kuid96) IS 'the cast kuid96 to bytea: the ID''s 12 bytes';
COMMENT ON FUNCTION kuid96_from_bytea(bytea) IS 'the cast bytea to kuid96: exactly 12 bytes (22P03 for any other length)';
COMMENT ON CAST (kuid96 AS bytea) IS 'explicit: the ID''s 12 bytes';
COMMENT ON CAST (bytea AS kuid96) IS 'explicit: 12 bytes as a kuid96 (22P03 for any other length)';
COMMENT ON FUNCTION kuid96_to_uuid(kuid96) IS 'the cast kuid96 to uuid: a UUIDv8 holding the ID''s bits, in the same order';
COMMENT ON FUNCTION kuid96_from_uuid(uuid) IS 'the cast uuid to kuid96: the ID a kuid96 UUIDv8 holds (22P03 for any other uuid)';
COMMENT ON CAST (kuid96 AS uuid) IS 'explicit: a UUIDv8 that sorts as the kuid96 does';
COMMENT ON CAST (uuid AS kuid96) IS 'explicit: the kuid96 a UUIDv8 made by the cast to uuid holds (22P03 for any other uuid)';
COMMENT ON FUNCTION kuid96_time_in(kuid96, tstzrange) IS
    'whether the ID''s time lies in the range (the operator <@ without planner support)';
COMMENT ON FUNCTION kuid96_range_lower_bound(tstzrange) IS
    'the smallest ID whose time can lie in the range (the largest ID if none can)';
COMMENT ON FUNCTION kuid96_range_upper_bound(tstzrange) IS
    'the largest ID whose time can lie in the range (the smallest ID if none can)';
COMMENT ON FUNCTION kuid96_range_support(internal) IS 'planner support of kuid96 <@ and @>: a time range becomes bounds on the ID (index scans, BRIN, partition pruning)';
COMMENT ON FUNCTION kuid96_in_range(kuid96, tstzrange) IS 'the operator <@: whether the ID''s time lies in the range, with planner support';
COMMENT ON FUNCTION kuid96_range_contains(tstzrange, kuid96) IS 'the operator @>: whether the range holds the ID''s time, with planner support';
COMMENT ON OPERATOR <@ (kuid96, tstzrange) IS 'the kuid96''s time lies in the range (kuid96_time(id) <@ range), answered by the ID''s own indexes';
COMMENT ON OPERATOR @> (tstzrange, kuid96) IS 'the range holds the kuid96''s time, answered by the ID''s own indexes';
COMMENT ON FUNCTION kuid96_eq(kuid96, kuid96) IS 'the operator = on kuid96: the same bytes';
COMMENT ON FUNCTION kuid96_ne(kuid96, kuid96) IS 'the operator <> on kuid96: different bytes';
COMMENT ON FUNCTION kuid96_lt(kuid96, kuid96) IS 'the operator < on kuid96, in the order of its bytes';
COMMENT ON FUNCTION kuid96_le(kuid96, kuid96) IS 'the operator <= on kuid96, in the order of its bytes';
COMMENT ON FUNCTION kuid96_gt(kuid96, kuid96) IS 'the operator > on kuid96, in the order of its bytes';
COMMENT ON FUNCTION kuid96_ge(kuid96, kuid96) IS 'the operator >= on kuid96, in the order of its bytes';
COMMENT ON FUNCTION kuid96_cmp(kuid96, kuid96) IS 'btree and GIN comparison of two kuid96 IDs (-1, 0 or 1), in the order of their bytes';
COMMENT ON FUNCTION kuid96_sortsupport(internal) IS 'btree sort support of kuid96: abbreviated keys from its leading bytes';
COMMENT ON FUNCTION kuid96_hash(kuid96) IS 'hash of a kuid96 (hash indexes and joins, BRIN bloom)';
COMMENT ON FUNCTION kuid96_hash_extended(kuid96, int8) IS 'seeded 64-bit hash of a kuid96 (hash partitioning)';
COMMENT ON FUNCTION kuid96_smaller(kuid96, kuid96) IS 'the smaller of two kuid96 IDs (min''s state function)';
COMMENT ON FUNCTION kuid96_larger(kuid96, kuid96) IS 'the larger of two kuid96 IDs (max''s state function)';
COMMENT ON OPERATOR = (kuid96, kuid96) IS 'equal: the same kuid96 ID';
COMMENT ON OPERATOR <> (kuid96, kuid96) IS 'not equal: different kuid96 IDs';
COMMENT ON OPERATOR < (kuid96, kuid96) IS 'less than, in kuid96 order (the order of its bytes)';
COMMENT ON OPERATOR <= (kuid96, kuid96) IS 'less than or equal, in kuid96 order (the order of its bytes)';
COMMENT ON OPERATOR > (kuid96, kuid96) IS 'greater than, in kuid96 order (the order of its bytes)';
COMMENT ON OPERATOR >= (kuid96, kuid96) IS 'greater than or equal, in kuid96 order (the order of its bytes)';
COMMENT ON OPERATOR CLASS kuid96_ops USING btree IS 'the default btree class of kuid96: ID order, with sort support';
COMMENT ON OPERATOR FAMILY kuid96_ops USING btree IS 'btree family of kuid96: its comparisons, window frames by interval and skip scans (18 and later)';
COMMENT ON OPERATOR CLASS kuid96_ops USING hash IS 'the default hash class of kuid96: equality';
COMMENT ON OPERATOR FAMILY kuid96_ops USING hash IS 'hash family of kuid96';
COMMENT ON OPERATOR CLASS kuid96_minmax_ops USING brin IS 'the default BRIN class of kuid96: the least and greatest ID of each block range';
COMMENT ON OPERATOR FAMILY kuid96_minmax_ops USING brin IS 'BRIN minmax family of kuid96';
COMMENT ON OPERATOR CLASS kuid96_bloom_ops USING brin IS 'BRIN bloom class of kuid96: equality lookups on a column in no useful order';
COMMENT ON OPERATOR FAMILY kuid96_bloom_ops USING brin IS 'BRIN bloom family of kuid96';
COMMENT ON AGGREGATE min(kuid96) IS 'the smallest kuid96 ID, in ID order';
COMMENT ON AGGREGATE max(kuid96) IS 'the largest kuid96 ID, in ID order';
COMMENT ON FUNCTION kuid96_fields(kuid96) IS
    'every field of the ID and its time (UTC, ISO 8601), as jsonb';
COMMENT ON FUNCTION kuid96_time_distance(kuid96, kuid96) IS
    'the operator <->: how far apart the two IDs'' times are';
COMMENT ON OPERATOR <-> (kuid96, kuid96) IS 'how far apart two kuid96 IDs'' times are (GiST nearest-in-time ORDER BY)';
COMMENT ON FUNCTION kuid96_brin_distance(internal, internal) IS 'BRIN minmax-multi support of kuid96: how far apart two IDs'' times are';
COMMENT ON FUNCTION in_range(kuid96, kuid96, interval, bool, bool) IS
    'btree in_range support: window RANGE frames with interval offsets, on the times ID order follows';
COMMENT ON FUNCTION kuid96_skipsupport(internal) IS 'btree skip support of kuid96 (skip scans, PostgreSQL 18 and later): the next and previous ID';
COMMENT ON OPERATOR CLASS kuid96_minmax_multi_ops USING brin IS 'BRIN minmax-multi class of kuid96: several ID ranges per block range, merged by time distance';
COMMENT ON OPERATOR FAMILY kuid96_minmax_multi_ops USING brin IS 'BRIN minmax-multi family of kuid96';
COMMENT ON FUNCTION kuid96_gist_consistent(internal, kuid96, int2, oid, internal) IS 'GiST support of kuid96: whether an entry''s ID interval can satisfy the condition';
COMMENT ON FUNCTION kuid96_gist_distance(internal, kuid96, int2, oid, internal) IS 'GiST support of kuid96: the least time distance from an entry to an ID (ORDER BY <->)';
COMMENT ON FUNCTION kuid96_gist_union(internal, internal) IS 'GiST support of kuid96: the ID interval covering several entries';
COMMENT ON FUNCTION kuid96_gist_compress(internal) IS 'GiST support of kuid96: an ID as the interval [id, id]';
COMMENT ON FUNCTION kuid96_gist_fetch(internal) IS 'GiST support of kuid96: the ID a leaf entry holds (index-only scans)';
COMMENT ON FUNCTION kuid96_gist_penalty(internal, internal, internal) IS 'GiST support of kuid96: the cost of widening an entry''s interval to take a new one';
COMMENT ON FUNCTION kuid96_gist_picksplit(internal, internal) IS 'GiST support of kuid96: splits a page''s entries in two halves, sorted by their lowest ID';
COMMENT ON FUNCTION kuid96_gist_same(flakeid_gist_key, flakeid_gist_key, internal) IS 'GiST support of kuid96: whether two ID intervals are equal';
COMMENT ON OPERATOR CLASS kuid96_ops USING gist IS 'the default GiST class of kuid96: comparisons and <-> for exclusion constraints and nearest-in-time searches';
COMMENT ON OPERATOR FAMILY kuid96_ops USING gist IS 'GiST family of kuid96';
COMMENT ON FUNCTION kuid96_gin_extract_value(kuid96, internal) IS 'GIN support of kuid96: the ID as its only key';
COMMENT ON FUNCTION kuid96_gin_extract_query(kuid96, internal, int2, internal, internal) IS 'GIN support of kuid96: the key a comparison searches from, partial for a range';
COMMENT ON FUNCTION kuid96_gin_consistent(internal, int2, kuid96, int4, internal, internal) IS 'GIN support of kuid96: a matched key satisfies the comparison';
COMMENT ON FUNCTION kuid96_gin_compare_partial(kuid96, kuid96, int2, internal) IS 'GIN support of kuid96: whether a key lies in the range a comparison scans, and when to stop';
COMMENT ON OPERATOR CLASS kuid96_ops USING gin IS 'the default GIN class of kuid96: = and comparisons, for multicolumn GIN indexes with jsonb or arrays';
COMMENT ON OPERATOR FAMILY kuid96_ops USING gin IS 'GIN family of kuid96';
COMMENT ON TYPE sno IS 'sno (Go''s muyo/sno), 10 bytes: a 4 ms unit since 2010, a tick-tock bit, a meta byte, a 16-bit partition and a 16-bit sequence; 16 lowercase characters as text';
COMMENT ON FUNCTION sno_new(int4) IS
    'new sno from the server''s generator (flakeid.sno_partition, tick-tock on clock regressions)';
COMMENT ON FUNCTION sno_new_at(timestamptz, int4) IS
    'back-fill: sno for the given time, tick-tock 0, sequence from a shared counter';
COMMENT ON FUNCTION sno_from_parts(timestamptz, int4, int4, int4, int4) IS 'the sno of the given time, meta byte, partition, sequence and tick-tock bit';
COMMENT ON FUNCTION sno_time(sno) IS 'start of the ID''s 4 ms time unit';
COMMENT ON FUNCTION sno_meta(sno) IS 'the meta byte (0-255) the ID was minted with';
COMMENT ON FUNCTION sno_partition(sno) IS 'the 16-bit partition: the identity of the server that minted it (flakeid.sno_partition)';
COMMENT ON FUNCTION sno_sequence(sno) IS 'the 16-bit sequence within the 4 ms unit';
COMMENT ON FUNCTION sno_ticktock(sno) IS 'the tick-tock bit: 1 for IDs minted after the clock stepped back';
COMMENT ON FUNCTION sno_lower_bound(timestamptz) IS 'smallest sno whose 4 ms unit contains ts';
COMMENT ON FUNCTION sno_upper_bound(timestamptz) IS 'largest sno whose 4 ms unit contains ts';
COMMENT ON FUNCTION sno_horizon() IS
    'the horizon of sno_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';
COMMENT ON TYPE flax IS 'flax (Python''s python-flax-id), 12 bytes: a millisecond since 2015 and 56 random bits; 16 case-sensitive characters as text';
COMMENT ON FUNCTION flax_new() IS 'new flax: now and 56 bits from a cryptographically secure source';
COMMENT ON FUNCTION flax_new_at(timestamptz) IS 'back-fill: flax for the given time, with 56 random bits';
COMMENT ON FUNCTION flax_from_parts(timestamptz, int8) IS 'the flax of the given millisecond and 56-bit random part';
COMMENT ON FUNCTION flax_time(flax) IS 'the ID''s millisecond';
COMMENT ON FUNCTION flax_random(flax) IS 'the 56-bit random part';
COMMENT ON FUNCTION flax_lower_bound(timestamptz) IS 'smallest flax of the millisecond containing ts';
COMMENT ON FUNCTION flax_upper_bound(timestamptz) IS 'largest flax of the millisecond containing ts';
COMMENT ON TYPE siq IS 'SIQ (Python''s suou), 14 bytes: a 1/65536 s tick since 1970, an 8-bit shard, a 32-bit domain hash and a serial with its kind; 23 Crockford base32 digits as text, or a did:siq:';
COMMENT ON FUNCTION siq_new(text) IS
    'new siq: now, flakeid.siq_shard, the hash of flakeid.siq_domain, and the next serial of the kind';
COMMENT ON FUNCTION siq_new_at(timestamptz, text) IS
    'back-fill: siq for the given time, serial from a shared counter per kind';
COMMENT ON FUNCTION siq_from_parts(timestamptz, int4, int8, text, int4) IS 'the siq of the given time, shard, domain hash, kind and serial';
COMMENT ON FUNCTION siq_time(siq) IS
    'the 1/65536 s tick rounded up to the microsecond, so that siq_new_at(siq_time(x), ...) lands in x''s tick';
COMMENT ON FUNCTION siq_shard(siq) IS 'the 8-bit shard: the identity of the server that minted it (flakeid.siq_shard)';
COMMENT ON FUNCTION siq_domain(siq) IS 'the 32-bit hash of the domain (siq_domain_hash of flakeid.siq_domain)';
COMMENT ON FUNCTION siq_kind(siq) IS 'kind name, NULL for the three unassigned qualifiers';
COMMENT ON FUNCTION siq_serial(siq) IS 'the serial within the tick, counted per kind';
COMMENT ON FUNCTION siq_did(siq) IS 'the did:siq: form (CRC-32 checked on input)';
COMMENT ON FUNCTION siq_domain_hash(text) IS
    'last 4 bytes of SHA-256 of the ASCII domain; '''' and ''0'' give 0';
COMMENT ON FUNCTION siq_domain_hash(text, int4) IS
    'the domain hash with its top byte replaced by local_id (0..255); '''' and ''0'' still give 0';
COMMENT ON FUNCTION siq_lower_bound(timestamptz) IS 'smallest siq whose tick contains ts';
COMMENT ON FUNCTION siq_upper_bound(timestamptz) IS 'largest siq whose tick contains ts';
COMMENT ON FUNCTION siq_format(siq, text) IS
    'the ID in one of the library''s forms: dec, hex, oct, base64, cb32, 0c, b32l, u or did';
COMMENT ON FUNCTION siq_parse(text, text) IS
    'the inverse of siq_format: exactly the text that form writes (22P02 otherwise)';
COMMENT ON FUNCTION siq_from_snowflake(int8, text, text, timestamptz) IS
    'the library''s SnowflakeSiqMigrator: the siq a snowflake with the given epoch becomes, with the domain''s hash and the kind';
COMMENT ON FUNCTION siq_horizon() IS
    'the horizon of siq_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';
COMMENT ON TYPE kuid IS 'kuid (Erlang uid''s local ID), 8 bytes: an Erlang timestamp cut to 1.024 ms ticks and a 14-bit sequence, no server identity; 11 characters as text';
COMMENT ON FUNCTION kuid_new() IS
    'new kuid: the current 1.024 ms tick and the next sequence of the generator kuid and kuid96 share';
COMMENT ON FUNCTION kuid_new_at(timestamptz) IS
    'back-fill: kuid for the given time, sequence from a shared counter';
COMMENT ON FUNCTION kuid_time(kuid) IS
    'start of the tick: (Mega*10^6 + Sec)*10^6 + Tick*1024 microseconds since 1970';
COMMENT ON FUNCTION kuid_seq(kuid) IS 'the 14-bit sequence';
COMMENT ON FUNCTION kuid_node_hash(text) IS
    'the fingerprint the Erlang uid library (1.3.5) gives a node name: erlang:phash2 of the atom';
COMMENT ON FUNCTION kuid_lower_bound(timestamptz) IS 'smallest kuid whose 1.024 ms tick contains ts';
COMMENT ON FUNCTION kuid_upper_bound(timestamptz) IS 'largest kuid whose 1.024 ms tick contains ts';
COMMENT ON FUNCTION kuid_horizon() IS
    'the horizon of kuid_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';
COMMENT ON TYPE kuid96 IS 'kuid96 (Erlang uid''s global ID), 12 bytes: a kuid''s tick and sequence with a 32-bit node fingerprint, k-ordered by 256 s window; 16 characters as text';
COMMENT ON FUNCTION kuid96_new() IS
    'new kuid96: the fingerprint of flakeid.kuid_node, and time and sequence from the generator kuid shares';
COMMENT ON FUNCTION kuid96_new_at(timestamptz) IS
    'back-fill: kuid96 for the given time, sequence from the counter kuid_new_at shares';
COMMENT ON FUNCTION kuid96_time(kuid96) IS
    'start of the tick: (Mega*10^6 + Sec)*10^6 + Tick*1024 microseconds since 1970';
COMMENT ON FUNCTION kuid96_seq(kuid96) IS 'the 14-bit sequence';
COMMENT ON FUNCTION kuid96_node(kuid96) IS 'the 32-bit node fingerprint';
COMMENT ON FUNCTION kuid96(kuid) IS
    'the same time and sequence with this server''s node (flakeid.kuid_node)';
COMMENT ON FUNCTION kuid96(kuid, int8) IS
    'the same time and sequence with the given node fingerprint (0 .. 2^32-1)';
COMMENT ON FUNCTION kuid(kuid96) IS 'drops the node (the library''s gtol): uniqueness is not kept';
COMMENT ON CAST (kuid AS kuid96) IS 'explicit: kuid96(kuid), the same tick and sequence with this server''s node';
COMMENT ON CAST (kuid96 AS kuid) IS 'explicit: kuid(kuid96), the node dropped; uniqueness is not kept';
COMMENT ON FUNCTION kuid96_lower_bound(timestamptz) IS
    'smallest kuid96 of the 256-second window containing ts (inside a window the node outranks time)';
COMMENT ON FUNCTION kuid96_upper_bound(timestamptz) IS
    'largest kuid96 of the 256-second window containing ts';
COMMENT ON FUNCTION kuid96_local(kuid96) IS
    'the kuid of a kuid96 of this server''s node (flakeid.kuid_node); another node''s is refused (22023), as the library''s l/1 refuses it';
COMMENT ON FUNCTION kuid96_encode(kuid96, int4) IS
    'the 12 bytes the uid library''s encode/2 writes for neighbourhood interval 5 .. 10 (8 is the type''s own bytes)';
COMMENT ON FUNCTION kuid96_decode(bytea, int4) IS
    'the kuid96 of 12 bytes the uid library wrote with neighbourhood interval 5 .. 10';
COMMENT ON FUNCTION kuid96_vclock() IS 'a new vector clock: ARRAY[kuid96_new()]';
COMMENT ON FUNCTION kuid96_vclock(kuid96[]) IS
    'the tick: drops this server''s entry and puts a fresh kuid96_new() first';
COMMENT ON FUNCTION kuid96_vclock_join(kuid96[], kuid96[]) IS
    'per node the larger entry (time, then sequence), sorted by node';
COMMENT ON FUNCTION kuid96_vclock_descends(kuid96[], kuid96[]) IS
    'every entry of b has an entry of its node in a that is at least as large; true when b is empty';
COMMENT ON FUNCTION kuid96_vclock_descends(kuid96[], kuid96[], int8) IS
    'the same, the entries of node ignore_node left out of both';
COMMENT ON FUNCTION kuid96_vclock_diff(kuid96[], kuid96[]) IS
    'the entries of b that a does not descend, in b''s order, with how far each is ahead of a''s entry of its node (NULL when a has none)';
COMMENT ON FUNCTION kuid96_horizon() IS
    'the horizon of kuid96_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';
COMMENT ON FUNCTION snowflake_new() IS
    'new snowflake: now, flakeid.snowflake_worker and _process, the next sequence of the millisecond';
COMMENT ON FUNCTION snowflake_new_at(timestamptz) IS
    'back-fill: snowflake for the given time, sequence from a shared counter';
COMMENT ON FUNCTION snowflake_from_parts(timestamptz, int4, int4, int4) IS
    'exact construction with the epoch flakeid.snowflake_epoch_ms';
COMMENT ON FUNCTION snowflake_from_parts(timestamptz, int4, int4, int4, timestamptz) IS
    'exact construction with the given epoch';
COMMENT ON FUNCTION snowflake_time(int8) IS
    'the millisecond (the top 42 bits, read unsigned) after the epoch flakeid.snowflake_epoch_ms';
COMMENT ON FUNCTION snowflake_time(int8, timestamptz) IS
    'the millisecond (the top 42 bits, read unsigned) after the given epoch';
COMMENT ON FUNCTION snowflake_worker(int8) IS 'the 5-bit worker of a snowflake (flakeid.snowflake_worker where it was minted)';
COMMENT ON FUNCTION snowflake_process(int8) IS 'the 5-bit process of a snowflake (flakeid.snowflake_process where it was minted)';
COMMENT ON FUNCTION snowflake_sequence(int8) IS 'the 12-bit sequence of a snowflake within its millisecond';
COMMENT ON FUNCTION snowflake_lower_bound(timestamptz) IS
    'smallest snowflake whose millisecond contains ts (epoch flakeid.snowflake_epoch_ms)';
COMMENT ON FUNCTION snowflake_lower_bound(timestamptz, timestamptz) IS
    'smallest snowflake whose millisecond contains ts (the given epoch)';
COMMENT ON FUNCTION snowflake_upper_bound(timestamptz) IS
    'largest snowflake whose millisecond contains ts (epoch flakeid.snowflake_epoch_ms)';
COMMENT ON FUNCTION snowflake_upper_bound(timestamptz, timestamptz) IS
    'largest snowflake whose millisecond contains ts (the given epoch)';
COMMENT ON FUNCTION snowflake_fields(int8) IS
    'every field and the time (UTC, ISO 8601) with the epoch flakeid.snowflake_epoch_ms, as jsonb';
COMMENT ON FUNCTION snowflake_fields(int8, timestamptz) IS
    'every field and the time (UTC, ISO 8601) with the given epoch, as jsonb';
COMMENT ON FUNCTION snowflake_horizon() IS
    'the horizon of snowflake_new(): read WHERE id >= the last horizon AND id < this one, and no row committed later is missed';
COMMENT ON FUNCTION flakeid_generators() IS 'the rows of the view flakeid_generators (superusers and pg_monitor)';
COMMENT ON VIEW flakeid_generators IS
    'one row per stateful generator (siq: one per kind; kuid and kuid96 share one): identity, IDs issued since start, calls that waited for an exhausted unit, IDs issued with the clock behind the last used unit, sno''s tick-tock, the last used unit''s time, and the clock read (precise, or coarse with its tick)';
COMMENT ON FUNCTION flakeid_identities() IS
    'this server''s identity per ID type (sno, siq, kuid, kuid96, snowflake), derived ones resolved: its text, the bits it puts into every ID as one number, and where it came from (a setting, the Citus group, or the system identifier); kuid carries none';
COMMENT ON FUNCTION flakeid_cluster_horizon(regtype) IS
    'on a Citus coordinator: the least horizon of the type''s generator over every node, as text';
COMMENT ON FUNCTION flakeid_horizon_holders() IS 'the rows of the view flakeid_horizon_holders, less the prepared transactions'' gid (superusers and pg_monitor)';
COMMENT ON VIEW flakeid_horizon_holders IS
    'one row per transaction and generator whose horizon it holds back: the backend''s pid (NULL for a prepared transaction, which has its gid), the top transaction ID (NULL if none was assigned), and the start of the unit held; join pg_stat_activity on pid for the session';
COMMENT ON FUNCTION snowflake_adopt(regclass, name) IS
    'turns a bigint identity or bigserial column into DEFAULT snowflake_new() in one transaction, rows unchanged, the generator past its maximum (a snowflake is drawn); refused (22023) unless its maximum lies below a snowflake this server issues now';
COMMENT ON FUNCTION sno_advance_past(sno) IS
    'from now on sno_new() on this server issues only IDs after id (at most 60 s ahead of the clock); durable; returns id';
COMMENT ON FUNCTION siq_advance_past(siq) IS
    'from now on siq_new() of id''s kind on this server issues only IDs after id (at most 60 s ahead of the clock); durable; returns id';
COMMENT ON FUNCTION kuid_advance_past(kuid) IS
    'from now on kuid_new() and kuid96_new() on this server issue only kuids after id (at most 60 s ahead of the clock); durable; returns id';
COMMENT ON FUNCTION kuid96_advance_past(kuid96) IS
    'from now on kuid96_new() and kuid_new() on this server issue only kuid96 IDs after id (at most 60 s ahead of the clock; past the end of its 256-second window when its node sorts after this server''s); durable; returns id';
COMMENT ON FUNCTION snowflake_advance_past(int8) IS
    'from now on snowflake_new() on this server issues only snowflakes after id under the epoch in force (at most 60 s ahead of the clock); durable; returns id';
COMMENT ON FUNCTION flakeid_advance_past_read(regclass, name, int2, regtype, regtype) IS
    'the largest value of column col (number colnum, of type coltype) of table rel and the tables under it, as text, read without running any code of the table''s owner (flakeid_advance_past_all''s read); with as_type, of a uuid column, the largest UUID embedding an ID of that type; NULL for none';
COMMENT ON FUNCTION flakeid_backfill_floor() IS
    'the instant at or before which (in its unit) back-fill is refused: this server holds no record of what was back-filled before it (a start afresh, or a cutover from another server); NULL for none';
COMMENT ON FUNCTION flakeid_backfill_floor_raise(timestamptz) IS
    'raises the back-fill floor to instant (at most 60 s ahead of the clock), never lowering it, and returns it: for a superuser or a role that may execute flakeid_advance_past_all, which calls it, and each *_advance_past';
COMMENT ON FUNCTION flakeid_advance_past_types(oid[], oid[]) IS
    'for each of the types, the type under its domains and arrays, whether an array lies on the way, and which of the generators its domains'' defaults call (flakeid_advance_past_all''s listing)';
COMMENT ON FUNCTION flakeid_advance_past_defaults(oid[], name[], text[]) IS
    'each column (rels[i], attnames[i]) whose default calls generator gens[i], and the same column of every table above it through pg_inherits, each once (flakeid_advance_past_all''s listing)';
COMMENT ON FUNCTION flakeid_advance_past_all(timestamptz, text[]) IS
    'the cutover step: each generator advanced past the largest ID of every column of the flakeid types, of domains over them and of arrays of either (siq: every kind), of every bigint column (or domain, or array) defaulting to snowflake_new() or snowflake_new_at(), and of every uuid column (or domain, or array) defaulting to a generator (sno_new()::uuid), and with past (the old server''s clock once its writers and readers stopped) past that instant; one row per call and per column left out (skipped says why); everything is read, and refused where it cannot be (42501, 55P03, 22023), before anything is advanced';
COMMENT ON FUNCTION sno_mask(sno, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; sno_unmask gives id back';
COMMENT ON FUNCTION sno_unmask(text, text) IS
    'the sno that sno_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
COMMENT ON FUNCTION flax_mask(flax, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; flax_unmask gives id back';
COMMENT ON FUNCTION flax_unmask(text, text) IS
    'the flax that flax_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
COMMENT ON FUNCTION siq_mask(siq, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; siq_unmask gives id back';
COMMENT ON FUNCTION siq_unmask(text, text) IS
    'the siq that siq_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
COMMENT ON FUNCTION kuid_mask(kuid, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; kuid_unmask gives id back';
COMMENT ON FUNCTION kuid_unmask(text, text) IS
    'the kuid that kuid_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
COMMENT ON FUNCTION kuid96_mask(kuid96, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; kuid96_unmask gives id back';
COMMENT ON FUNCTION kuid96_unmask(text, text) IS
    'the kuid96 that kuid96_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
COMMENT ON FUNCTION snowflake_mask(int8, text) IS
    'a fixed-length, URL-safe token of id under purpose, keyed by flakeid.mask_keys_file; snowflake_unmask gives id back';
COMMENT ON FUNCTION snowflake_unmask(text, text) IS
    'the snowflake that snowflake_mask(id, purpose) made token of, under any key of flakeid.mask_keys_file';
