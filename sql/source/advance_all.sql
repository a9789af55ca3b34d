
-- =====================================================================
-- the cutover step in one call (1.3; 1.4: issue 61)
-- =====================================================================

-- the largest value of a column (the largest element of an array column),
-- as text in its base type's form, read below SQL (cutover_read.c says why:
-- no code of the table's owner runs, as the planner would run it), under
-- ACCESS SHARE on the table and every table under it until the transaction
-- ends; the caller's privileges and row-level security checked as SQL
-- would, after the lock.  Reads no more than SELECT max(col) would: PUBLIC's
-- with as_type (sno, siq, kuid, kuid96 or flax), of a uuid column, the largest
-- UUID that embeds an ID of that type (a column DEFAULT sno_new()::uuid,
-- where older UUIDs of other versions may lie above it)
CREATE FUNCTION flakeid_advance_past_read(rel regclass, col name, colnum int2, coltype regtype, as_type regtype DEFAULT NULL) RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION flakeid_advance_past_read(regclass, name, int2, regtype, regtype) IS
    'the largest value of column col (number colnum, of type coltype) of table rel and the tables under it, as text, read without running any code of the table''s owner (flakeid_advance_past_all''s read); with as_type, of a uuid column, the largest UUID embedding an ID of that type; NULL for none';

-- the back-fill floor: back-fill for a time at or before it (in its unit) is
-- refused (55000) until flakeid.accept_backfill_loss; NULL for none.  A start
-- afresh sets it, and the cutover's step, given the old server's clock
-- (`past`), raises it there: this server holds no record of what the old one
-- back-filled (issue 62: the fault campaign's cutover repeated those IDs)
CREATE FUNCTION flakeid_backfill_floor() RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION flakeid_backfill_floor() IS
    'the instant at or before which (in its unit) back-fill is refused: this server holds no record of what was back-filled before it (a start afresh, or a cutover from another server); NULL for none';
-- raises it, never lowers it; saved and WAL-logged before it returns.
-- Executable by PUBLIC for flakeid_advance_past_all's call, but refused
-- (42501) unless the caller is a superuser or may execute that function and
-- each *_advance_past it calls (backfill_floor.c says why)
CREATE FUNCTION flakeid_backfill_floor_raise(instant timestamptz) RETURNS timestamptz
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION flakeid_backfill_floor_raise(timestamptz) IS
    'raises the back-fill floor to instant (at most 60 s ahead of the clock), never lowering it, and returns it: for a superuser or a role that may execute flakeid_advance_past_all, which calls it, and each *_advance_past';

-- for each type of `types` (those of the columns flakeid_advance_past_all
-- lists), the type under its domains and arrays, whether an array lies on
-- the way, and those of `generator_fns` that its domains' defaults call: each
-- type walked once in a call (cutover_types.c says why).  Reads only
-- catalogs PUBLIC reads
CREATE FUNCTION flakeid_advance_past_types(types oid[], generator_fns oid[],
    OUT type oid, OUT bottom oid, OUT is_array boolean, OUT generators oid[]) RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flakeid_advance_past_types(oid[], oid[]) IS
    'for each of the types, the type under its domains and arrays, whether an array lies on the way, and which of the generators its domains'' defaults call (flakeid_advance_past_all''s listing)';

-- each (rels[i], attnames[i], gens[i]) (a column whose default calls generator
-- gens[i]) and the same column of every table above it through pg_inherits,
-- each once, each table looked up once (cutover_types.c says why).  Reads only
-- pg_inherits and pg_attribute, which PUBLIC reads; a generator other than the
-- five is 22023
CREATE FUNCTION flakeid_advance_past_defaults(rels oid[], attnames name[], gens text[],
    OUT rel oid, OUT attname name, OUT gen text) RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION flakeid_advance_past_defaults(oid[], name[], text[]) IS
    'each column (rels[i], attnames[i]) whose default calls generator gens[i], and the same column of every table above it through pg_inherits, each once (flakeid_advance_past_all''s listing)';

-- Every generator advanced past the largest ID of every column of the
-- flakeid types, of domains over them and of arrays of either (the largest
-- element, to any depth), of every bigint column (or domain over bigint,
-- or array) whose default, or whose domain's, calls snowflake_new() or
-- snowflake_new_at(), and of every uuid column (or domain, or array) whose
-- default, or whose domain's, calls a generator of sno, siq, kuid or kuid96
-- (sno_new()::uuid: its largest UUID embedding such an ID), in every table of the
-- database (a partitioned table once, for all its partitions).  siq: every
-- kind past the column's largest ID, whatever its kind, so that new IDs of
-- any kind sort after every row (the maximum is then one index descent, as
-- for the others).  With `past` (the old server's clock_timestamp(), read
-- once its writers and pollers have stopped), every generator, each siq
-- kind, also moves past the unit holding it, so that a reader's cursor
-- taken from the old server's horizon lies below every new ID; kuid96 past
-- `past` with the node of the column's largest ID, as its horizon orders
-- (an empty column: this server's node, from kuid96(kuid), which touches
-- no generator; 1.3 took a horizon for it, which closed the kuid counter).
-- One row per call made, with what it advanced past (NULL for an empty
-- column), and one per column left out, saying why in `skipped`.  Like
-- setval, a raise stays when the transaction rolls back (it only ever moves
-- forward: running it again is harmless).
--
-- Nothing is left out silently, and nothing is moved before everything is
-- read (issue 61).  First every column is checked and read, each table
-- locked ACCESS SHARE by the read (until the transaction ends), which runs
-- no code of the table's owner (flakeid_advance_past_read): a column the caller cannot read, or one of a table whose row-level security
-- would apply to the caller (a policy's code would run as the caller, and a
-- filtered maximum is too low), is an error (42501) unless named in `skip`
-- ('table.column', 'schema.table.column' or 'pg_temp.table.column', as SQL
-- spells them); a temporary table of another session (or an orphan of a
-- crash), which no one can read, is reported; a lock not granted within
-- lock_timeout (10 s where that is 0, for the call only) is 55P03 naming the
-- table; a largest ID more than 60 s ahead of the clock is 22023 naming its
-- column.  Only then are the generators advanced.  kuid96 past an ID of a
-- node above this server's waits, in kuid96_advance_past, until the end of
-- its 256-second window lies within 60 s.  (One function, long as it is: a
-- helper in SQL would need an EXECUTE grant of its own; the C read above is
-- PUBLIC's, and checks its caller itself.)
CREATE FUNCTION flakeid_advance_past_all(
    past timestamptz DEFAULT NULL, skip text[] DEFAULT '{}',
    OUT tab regclass, OUT col name, OUT generator text, OUT advanced_past text, OUT skipped text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET row_security = off
    -- (its listing's plan is costly enough on a large catalog for JIT, which took 10 s a pass)
    SET jit = off
AS $fn$
DECLARE
    schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'flakeid');
    bypass_rls boolean := (SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user);
    -- the caller's, put back before the call returns (an error ends the caller's transaction or
    -- subtransaction, which puts it back)
    caller_lock_timeout text := current_setting('lock_timeout');
    -- the generators' clock (the tests' flakeid.debug_clock_offset_ms shifts it)
    -- (current_setting gives it with its unit, '-30s' or '1500ms', as an interval reads it)
    clock_shift interval := coalesce(nullif(current_setting('flakeid.debug_clock_offset_ms', true), ''), '0')::interval;
    kinds text[] := ARRAY['ternary', 'multi', 'manytomany', 'content', 'thread', 'message', 'user', 'tag',
                          'group', 'event', 'channel', 'invite', 'application', 'collection', 'premium'];
    entries text[] := ARRAY(SELECT DISTINCT e FROM unnest(skip) e WHERE e IS NOT NULL);
    cols jsonb;
    listed jsonb;
    others jsonb;
    other_temp jsonb;
    unread jsonb;
    not_read jsonb;
    parents jsonb;
    first_parents jsonb;
    entry_columns jsonb;
    pass int;
    tops text[] := '{}';
    top text;
    c record;
    i int;
    kind text;
    bound text;
    ahead float8;
    message text;
    detail text;
    hint text;
    gid text;
    floor_now timestamptz;
    floor_after timestamptz;
    floor_to timestamptz;
    top_time timestamptz;
BEGIN
    -- its listings read the catalogs through the statement's snapshot: at REPEATABLE READ that is
    -- the transaction's, older than the locks, and misses a table or partition changed meanwhile
    -- (READ UNCOMMITTED is READ COMMITTED in PostgreSQL: a snapshot per statement)
    IF current_setting('transaction_isolation') NOT IN ('read committed', 'read uncommitted') THEN
        RAISE EXCEPTION 'flakeid_advance_past_all cannot run at isolation level %', upper(current_setting('transaction_isolation'))
            USING ERRCODE = '0A000',
                  DETAIL = 'It lists the columns through the transaction''s snapshot, taken before it locks the tables: a table created, attached or detached meanwhile would be missed.',
                  HINT = 'Call it at READ COMMITTED (the default), in a transaction of its own.';
    END IF;
    -- a prepared transaction's rows are seen by no snapshot until it commits
    -- (one that wrote in this database holds ROW EXCLUSIVE, EXCLUSIVE or ACCESS EXCLUSIVE on a table
    -- of it, ACCESS EXCLUSIVE on one it made; one that only read, locked rows FOR UPDATE, called
    -- nextval() (a sequence's lock), read a large object, wrote a catalog (ALTER ROLE) or took SHARE
    -- wrote no row to leave behind; one that built an index holds ACCESS EXCLUSIVE on a relation it
    -- made, which no one can tell from a table it made and filled, and counts)
    SELECT p.gid INTO gid FROM pg_prepared_xacts p
    WHERE p.database = current_database()
      AND EXISTS (SELECT FROM pg_locks x JOIN pg_locks l ON l.virtualtransaction = x.virtualtransaction
                  -- (its own lock on its transaction ID: not a writer's that waits for it)
                  WHERE x.locktype = 'transactionid' AND x.transactionid = p.transaction
                    AND x.mode = 'ExclusiveLock' AND x.granted AND l.granted
                    AND l.locktype = 'relation' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    -- (not a catalog, which a large object's read locks, nor a sequence)
                    AND l.relation >= 16384
                    AND NOT EXISTS (SELECT FROM pg_class q WHERE q.oid = l.relation AND q.relkind = 'S')
                    -- (the modes that write rows: INSERT, UPDATE, DELETE, COPY, MERGE take ROW EXCLUSIVE,
                    -- REFRESH ... CONCURRENTLY EXCLUSIVE, a table made or rewritten ACCESS EXCLUSIVE;
                    -- CREATE INDEX's SHARE, a trigger's or foreign key's SHARE ROW EXCLUSIVE write none)
                    AND l.mode IN ('RowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock'))
    ORDER BY p.prepared LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'flakeid_advance_past_all cannot run while transaction % is prepared in this database', quote_literal(gid)
            USING ERRCODE = '55000',
                  DETAIL = 'It holds a lock that writing rows takes (ROW EXCLUSIVE, EXCLUSIVE or ACCESS EXCLUSIVE) on a table of this database: the rows it may have written are seen by no one until it commits, and their IDs would be left behind.',
                  HINT = 'COMMIT PREPARED or ROLLBACK PREPARED it (as a superuser or the role that prepared it; pg_prepared_xacts lists them), then call again.';
    END IF;
    IF current_setting('lock_timeout') IN ('0', '0ms', '0s') THEN
        PERFORM set_config('lock_timeout', '10s', true);
    END IF;
    -- (twice: once to read, and once more after the reads, to see that nothing was missed)
    FOR pass IN 1..2 LOOP
        -- every column to advance past: its generator, whether it is an array, whether it is to be
        -- left out, and whether the caller may read all of it
        -- (one statement, so that one snapshot sees every table; run by EXECUTE, with $1
        -- the extension's schema, $2 the entries of skip and $3 whether the caller bypasses row-level
        -- security, only to call flakeid_advance_past_types in the extension's schema, wherever it is)
        EXECUTE replace($listing$
        WITH generator_fn(oid, gen) AS (
            -- the generators: snowflake_new() and snowflake_new_at(timestamptz), and every function
            -- of the extension that returns an ID of sno, siq, kuid or kuid96 (their _new, _new_at,
            -- kuid96(kuid) ...)
            SELECT p.oid, (CASE WHEN rt.typname IN ('sno', 'siq', 'kuid', 'kuid96') AND rt.typnamespace = p.pronamespace
                                THEN rt.typname::text ELSE 'snowflake' END) COLLATE "default"
            FROM pg_proc p JOIN pg_type rt ON rt.oid = p.prorettype
            WHERE p.pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1)
              -- (the extension's own: a function of a user's in its schema, returning sno, is no generator
              -- of ours, as no other function of a user's is)
              AND EXISTS (SELECT FROM pg_depend x WHERE x.classid = 'pg_proc'::regclass AND x.objid = p.oid
                            AND x.refclassid = 'pg_extension'::regclass AND x.deptype = 'e'
                            AND x.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'flakeid'))
              AND (p.oid IN (format('%I.snowflake_new()', $1)::regprocedure,
                             format('%I.snowflake_new_at(timestamptz)', $1)::regprocedure)
                   OR rt.typname IN ('sno', 'siq', 'kuid', 'kuid96') AND rt.typnamespace = p.pronamespace)
        ), user_column AS (
            SELECT a.attrelid, a.attnum, a.attname, a.atttypid, a.attinhcount
            FROM pg_attribute a
            JOIN pg_class r ON r.oid = a.attrelid
            JOIN pg_namespace n ON n.oid = r.relnamespace
            -- (a materialized view is read as a table; a foreign table is refused unless skipped: its
            -- rows come through a wrapper's code)
            WHERE r.relkind IN ('r', 'p', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
              AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
        ), type_bottom AS (
            -- each type a column has, walked down its domains and arrays to what lies under them, with
            -- the generators the defaults of its domains on the way call (once for each type in all:
            -- a walk from each column's type held N*N/2 rows for columns of every level of a chain
            -- of N domains, which any role can make in pg_temp)
            SELECT tb.type AS top, tb.bottom, tb.is_array, tb.generators
            FROM @@schema@@.flakeid_advance_past_types(ARRAY(SELECT DISTINCT u.atttypid FROM user_column u),
                                            ARRAY(SELECT g.oid FROM generator_fn g)) tb
        ), bottom(top, kind, gen, is_array) AS (
            -- what each column type carries: one of flakeid's types (kind 'id', its generator), or
            -- bigint or uuid, which carry IDs only by a default (a domain's on the way, or the column's)
            SELECT tb.top, CASE tb.bottom WHEN 'int8'::regtype THEN 'int8' WHEN 'uuid'::regtype THEN 'uuid' ELSE 'id' END,
                   it.typname::text COLLATE "default", tb.is_array
            FROM type_bottom tb LEFT JOIN pg_type it ON it.oid = tb.bottom AND it.typname IN ('sno', 'siq', 'kuid', 'kuid96')
                AND it.typnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1)
            WHERE tb.bottom IN ('int8'::regtype, 'uuid'::regtype) OR it.oid IS NOT NULL
        ), own_default(rel, attname, gen) AS (
            -- a column whose default calls a generator, itself or through an operator whose function
            -- it is (CREATE OPERATOR !# (rightarg = int, function = sno_new): the default depends on
            -- the operator alone)
            SELECT ad.adrelid, pa.attname, g.gen
            FROM pg_attrdef ad JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid
            JOIN pg_attribute pa ON pa.attrelid = ad.adrelid AND pa.attnum = ad.adnum
            LEFT JOIN pg_operator op ON d.refclassid = 'pg_operator'::regclass AND op.oid = d.refobjid
            JOIN generator_fn g ON g.oid = CASE WHEN d.refclassid = 'pg_proc'::regclass THEN d.refobjid ELSE op.oprcode::oid END
        ), carried(rel, attname, gen) AS (
            -- (only a bigint or uuid column's default can make its column, and its parents', one to
            -- read: a text column's climbed every parent for nothing)
            SELECT o.rel, o.attname, o.gen FROM own_default o
            JOIN user_column u ON u.attrelid = o.rel AND u.attname = o.attname
            JOIN bottom b ON b.top = u.atttypid
            WHERE b.kind IN ('int8', 'uuid')
        ), generated_default(rel, attname, gen) AS (
            -- and the same column of every table above it (a parent, partitioned or not, and one whose
            -- detach is pending: pg_inherits keeps it), each table looked up once (a recursive CTE
            -- scanned pg_inherits at each level of a chain of inheriting tables; the three arrays in one
            -- order)
            SELECT gd.rel, gd.attname, gd.gen
            FROM @@schema@@.flakeid_advance_past_defaults(ARRAY(SELECT o.rel FROM carried o ORDER BY o.rel, o.attname, o.gen),
                                                          ARRAY(SELECT o.attname FROM carried o ORDER BY o.rel, o.attname, o.gen),
                                                          ARRAY(SELECT o.gen FROM carried o ORDER BY o.rel, o.attname, o.gen)) gd
        ), found AS (
            -- (one row per generator of a column: a bigint or uuid column's domains' and its own
            -- default's, or a partition's, may differ, and the rows of each are read)
            SELECT DISTINCT r.oid AS rel, n.nspname, r.relname, u.attnum, u.attname, u.atttypid, v.gen, b.kind,
                   b.is_array, b.kind = 'uuid' AS as_uuid,
                   r.relpersistence = 't' AND r.relnamespace IS DISTINCT FROM pg_my_temp_schema() AS other_temp,
                   r.relnamespace = pg_my_temp_schema() AS own_temp,
                   has_schema_privilege(n.oid, 'USAGE') AND has_column_privilege(r.oid, u.attnum, 'SELECT') AS readable,
                   r.relrowsecurity AND NOT $3
                       AND (r.relforcerowsecurity OR NOT pg_has_role(r.relowner, 'USAGE')) AS rls,
                   u.attinhcount > 0 AS inherited
            FROM user_column u
            JOIN pg_class r ON r.oid = u.attrelid
            JOIN pg_namespace n ON n.oid = r.relnamespace
            JOIN bottom b ON b.top = u.atttypid
            LEFT JOIN (SELECT DISTINCT tb.top, g.gen FROM type_bottom tb JOIN generator_fn g ON g.oid = ANY (tb.generators)) cg
                ON b.kind <> 'id' AND cg.top = u.atttypid
            -- (a join, which the planner hashes, not a lateral scan of every default for every column)
            LEFT JOIN (SELECT DISTINCT g.rel, g.attname, g.gen FROM generated_default g) dg
                ON b.kind <> 'id' AND dg.rel = u.attrelid AND dg.attname = u.attname
            CROSS JOIN LATERAL (VALUES (b.gen), (cg.gen), (dg.gen)) v(gen)
            -- (a column inherited from a parent, a partition's among them, is read with the parent's:
            -- listed on its own, a child the caller may not read was refused though the parent's read
            -- covered it.  It is listed, as inherited, only so that the second listing sees a table
            -- made or attached under a parent already read, and another session's temporary child
            -- is reported)
            WHERE b.kind = 'id' AND v.gen = b.gen
               OR b.kind = 'int8' AND v.gen = 'snowflake'
               OR b.kind = 'uuid' AND v.gen <> 'snowflake'
        ), unread AS (
            -- a default that calls a generator where the call reads nothing for it: a view's (its IDs
            -- land in the tables under it), a column of another type (text, bytea, numeric: sno_new()::text),
            -- a bigint column's that calls another generator than snowflake's, and the same through a
            -- domain's default; reported, not left out without a word (other sessions' temporary
            -- relations aside, which no one else can read)
            SELECT d.rel, d.attname, d.gen
            FROM (SELECT o.rel, o.attname, o.gen FROM own_default o
                  UNION
                  SELECT u.attrelid, u.attname, g.gen FROM user_column u
                  JOIN type_bottom tb ON tb.top = u.atttypid JOIN generator_fn g ON g.oid = ANY (tb.generators)) d
            JOIN pg_class r ON r.oid = d.rel
            WHERE NOT (r.relpersistence = 't' AND r.relnamespace IS DISTINCT FROM pg_my_temp_schema())
              AND NOT EXISTS (SELECT FROM found f WHERE f.rel = d.rel AND f.attname = d.attname
                                                    AND (f.gen = d.gen OR f.kind = 'id'))
        ), skip_entry AS (
            SELECT e, parse_ident(e) AS p FROM unnest($2::text[]) e
        ), skip_match AS (
            -- the entries naming a column: table.column (not another session's temporary table, which
            -- is left out anyway), schema.table.column, or pg_temp.table.column for the caller's own
            -- (equalities the planner hashes, each entry parsed once: parsed for each column, 100
            -- entries beside 160,000 columns of other sessions' temporary tables took 130 s)
            SELECT f.rel, f.attnum, s.e FROM found f JOIN skip_entry s ON s.p = ARRAY[f.relname, f.attname]::text[]
            WHERE NOT f.inherited AND NOT f.other_temp
            UNION
            SELECT f.rel, f.attnum, s.e FROM found f JOIN skip_entry s ON s.p = ARRAY[f.nspname, f.relname, f.attname]::text[]
            WHERE NOT f.inherited
            UNION
            SELECT f.rel, f.attnum, s.e FROM found f JOIN skip_entry s ON s.p = ARRAY['pg_temp', f.relname, f.attname]::text[]
            WHERE NOT f.inherited AND f.own_temp
        )
        SELECT
            -- the columns to read (or to refuse, or to leave out as skip says)
            (SELECT jsonb_agg(to_jsonb(f) || jsonb_build_object('skip_entry', sm.e) ORDER BY f.rel, f.attnum)
             FROM found f LEFT JOIN (SELECT m.rel, m.attnum, min(m.e) AS e FROM skip_match m GROUP BY 1, 2) sm
                 ON sm.rel = f.rel AND sm.attnum = f.attnum
             WHERE NOT f.other_temp),
            -- other sessions' temporary tables, which no one else can read: one row each (and
            -- generator) to report, not one for each column (any role can make 1,600 a table)
            (SELECT jsonb_agg(o ORDER BY o.rel, o.gen)
             FROM (SELECT f.rel, f.gen, count(DISTINCT f.attnum) AS columns, min(f.attname) AS attname
                   FROM found f WHERE f.other_temp GROUP BY 1, 2) o),
            (SELECT jsonb_agg(x ORDER BY x.rel, x.attname, x.gen)
             FROM (SELECT DISTINCT un.rel, un.attname, un.gen, r.relkind, format_type(a.atttypid, a.atttypmod) AS type
                   FROM unread un JOIN pg_class r ON r.oid = un.rel
                   JOIN pg_attribute a ON a.attrelid = un.rel AND a.attname = un.attname) x),
            -- each table's parents, once a table (not once a column: 1,600 columns under 1,000 parents
            -- built 96 MB of text a listing), for the second listing to compare
            (SELECT jsonb_object_agg(t.rel, ip.parents)
             FROM (SELECT DISTINCT f.rel FROM found f WHERE NOT f.other_temp) t
             LEFT JOIN (SELECT i.inhrelid, string_agg(i.inhparent::text, ',' ORDER BY i.inhparent) AS parents
                        FROM pg_inherits i GROUP BY i.inhrelid) ip ON ip.inhrelid = t.rel),
            -- how many columns each entry of skip names
            (SELECT jsonb_object_agg(se.e, (SELECT count(DISTINCT (m.rel, m.attnum)) FROM skip_match m WHERE m.e = se.e))
             FROM skip_entry se)
        FROM (SELECT) one
        $listing$, '@@schema@@', quote_ident(schema)) INTO listed, others, unread, parents, entry_columns USING schema, entries, bypass_rls;
        listed := coalesce(listed, '[]');
        IF pass = 2 THEN
            -- listed again once every table is read (and locked): a column that was not there at
            -- first (a partition detached, a table created or renamed into reach while the call
            -- waited), or a generator its defaults call now and did not then, would be left behind
            -- (a column inherited now and not before, or the reverse, counts as new; and a table under
            -- other parents: one attached under a parent already read, detached from one, or moved)
            SELECT n.* INTO c FROM jsonb_to_recordset(listed) n(rel oid, attnum int2, nspname name, relname name, attname name, inherited boolean, gen text)
            WHERE NOT EXISTS (SELECT FROM jsonb_to_recordset(cols) o(rel oid, attnum int2, inherited boolean, gen text)
                              WHERE o.rel = n.rel AND o.attnum = n.attnum AND o.inherited = n.inherited AND o.gen = n.gen)
               OR (coalesce(parents, '{}') -> (n.rel::text)) IS DISTINCT FROM (coalesce(first_parents, '{}') -> (n.rel::text))
            LIMIT 1;
            IF FOUND THEN
                RAISE EXCEPTION 'column "%" of table %.% appeared while flakeid_advance_past_all ran', c.attname, quote_ident(c.nspname), quote_ident(c.relname)
                    USING ERRCODE = '55000',
                          DETAIL = 'It was not among the columns listed when the call began (a partition detached, or a table created or changed meanwhile), or its default calls another generator now, so it was not read. Nothing was advanced.',
                          HINT = 'Call flakeid_advance_past_all again, once no one changes the tables.';
            END IF;
            -- what is reported but not read (other sessions' temporary tables, defaults nothing is read
            -- for): as either listing saw it (one made while the call waited is reported too)
            other_temp := (SELECT coalesce(jsonb_agg(x.v ORDER BY x.v -> 'rel', x.v -> 'gen'), '[]')
                           FROM (SELECT DISTINCT ON (e.v -> 'rel', e.v -> 'gen') e.v
                                 FROM (SELECT v, 1 AS listing FROM jsonb_array_elements(coalesce(others, '[]')) v
                                       UNION ALL SELECT v, 2 FROM jsonb_array_elements(other_temp) v) e
                                 ORDER BY e.v -> 'rel', e.v -> 'gen', e.listing) x);
            not_read := (SELECT coalesce(jsonb_agg(DISTINCT v), '[]')
                         FROM (SELECT jsonb_array_elements(coalesce(unread, '[]')) UNION SELECT jsonb_array_elements(not_read)) e(v));
            EXIT;
        END IF;
        cols := listed;
        first_parents := parents;

        other_temp := coalesce(others, '[]');
        not_read := coalesce(unread, '[]');

        -- each entry of skip names exactly one of them (else a typo would leave the column it meant in)
        -- (a column whose defaults call two generators is listed twice, and is one column)
        SELECT x.key AS entry, x.value::int AS n INTO c FROM jsonb_each_text(coalesce(entry_columns, '{}')) x
        WHERE x.value::int <> 1 ORDER BY x.key LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'skip names %, which is % of the columns flakeid_advance_past_all advances',
                    quote_literal(c.entry), CASE WHEN c.n = 0 THEN 'none' ELSE c.n || ' (ambiguous)' END
                USING ERRCODE = CASE WHEN c.n = 0 THEN '42703' ELSE '42702' END,
                      HINT = 'Name each column as table.column or schema.table.column (pg_temp.table.column for a temporary table of this session), quoted as in SQL.';
        END IF;

        -- what the caller cannot read, or only through a policy, is refused before anything is read
        FOR c IN
            SELECT x.* FROM jsonb_to_recordset(cols) x(rel oid, nspname name, relname name, attname name,
                                                       other_temp boolean, readable boolean, rls boolean, skip_entry text, inherited boolean)
            WHERE NOT x.other_temp AND NOT x.inherited AND x.skip_entry IS NULL AND (NOT x.readable OR x.rls)
        LOOP
            tab := c.rel;
            IF NOT c.readable THEN
                RAISE EXCEPTION 'permission denied to read column "%" of table %', c.attname, tab
                    USING ERRCODE = '42501',
                          DETAIL = 'flakeid_advance_past_all reads every column of the flakeid types: a column it cannot read would be left behind, and the generator not advanced past it.',
                          HINT = format('Run it as a superuser, grant this role SELECT on the column, or leave the column out knowingly with skip => %L.',
                                        ARRAY[format('%I.%I.%I', c.nspname, c.relname, c.attname)]);
            ELSE
                RAISE EXCEPTION 'row-level security applies to table % for this role', tab
                    USING ERRCODE = '42501',
                          DETAIL = format('Column %I would be read through the table''s policies: their code would run as this role, and the rows they hide would be left out of the largest ID.', c.attname),
                          HINT = format('Run it as a superuser or a role with BYPASSRLS, or leave the column out knowingly with skip => %L.',
                                        ARRAY[format('%I.%I.%I', c.nspname, c.relname, c.attname)]);
            END IF;
        END LOOP;

        -- every largest ID read, each table locked by its read, before anything is advanced
        IF past IS NOT NULL THEN
            ahead := extract(epoch FROM past - (clock_timestamp() + clock_shift));
            IF ahead > 60 THEN
                RAISE EXCEPTION 'past lies % s ahead of this server''s clock', round(ahead::numeric, 3)
                    USING ERRCODE = '22023',
                          DETAIL = 'The generators may be advanced at most 60 s ahead of the clock: they would issue that far ahead of it.',
                          HINT = 'Pass the old server''s clock_timestamp(), read once its writers and readers have stopped; check the clocks of both servers.';
            END IF;
        END IF;
        FOR c IN
            SELECT x.* FROM jsonb_to_recordset(cols) x(rel oid, nspname name, relname name, attnum int2, attname name, atttypid oid,
                                                       gen text, is_array boolean, as_uuid boolean, other_temp boolean, skip_entry text, inherited boolean)
        LOOP
            tops := tops || NULL::text;
            CONTINUE WHEN c.other_temp OR c.inherited OR c.skip_entry IS NOT NULL;
            tab := c.rel;
            bound := CASE c.gen WHEN 'snowflake' THEN 'pg_catalog.int8' ELSE format('%I.%I', schema, c.gen) END;
            BEGIN
                EXECUTE format('SELECT %I.flakeid_advance_past_read($1, $2, $3, $4, $5)', schema)
                    INTO top USING c.rel::regclass, c.attname, c.attnum::int2, c.atttypid::regtype,
                                   CASE WHEN c.as_uuid THEN format('%I.%I', schema, c.gen)::regtype END;
            EXCEPTION
                WHEN lock_not_available THEN
                    RAISE EXCEPTION 'could not lock table % (or a table under it) to read column "%"', tab, c.attname
                        USING ERRCODE = '55P03',
                              DETAIL = format('Another transaction holds a lock that conflicts with ACCESS SHARE; the wait was bounded by lock_timeout (%s). Nothing was advanced.',
                                              current_setting('lock_timeout')),
                              HINT = 'Call again once that transaction has ended (pg_locks shows it), or set lock_timeout to wait longer.';
            END;
            IF c.as_uuid AND top IS NOT NULL THEN
                -- (the ID the largest such UUID embeds)
                EXECUTE format('SELECT ($1::pg_catalog.uuid::%I.%I)::text', schema, c.gen) INTO top USING top;
            END IF;
            tops[cardinality(tops)] := top;
            IF top IS NOT NULL THEN
                -- (its time, also the least the back-fill floor is raised to, given past)
                EXECUTE format('SELECT t, extract(epoch FROM t - (clock_timestamp() + $2)) FROM (SELECT %1$I.%2$I($1::%3$s) AS t) s',
                               schema, c.gen || '_time', bound)
                    INTO top_time, ahead USING top, clock_shift;
                floor_to := greatest(floor_to, top_time);
                IF ahead > 60 THEN
                    RAISE EXCEPTION 'the largest ID of column "%" of table % lies % s ahead of this server''s clock',
                            c.attname, tab, round(ahead::numeric, 3)
                        USING ERRCODE = '22023',
                              DETAIL = format('%s is %s. An ID to advance past may lie at most 60 s ahead of the clock: the generator would issue that far ahead of it. Nothing was advanced.',
                                              CASE WHEN c.is_array THEN 'Its largest element' ELSE 'It' END, top),
                              HINT = format('Either this server''s clock is behind the one that issued it (check the clocks of both servers; once this one is within 60 s of the ID, call again), or the row''s time is wrong: then correct that row, or leave the column out knowingly with skip => %L and advance the %s generator yourself past a value you choose with %s_advance_past%s.',
                                            ARRAY[format('%I.%I.%I', c.nspname, c.relname, c.attname)], c.gen, c.gen,
                                            CASE c.gen WHEN 'siq' THEN ', once for each kind (siq_from_parts(time, 255, 4294967295, kind, 0) for every kind: docs/OPERATIONS.md)' ELSE '' END);
                END IF;
            END IF;
        END LOOP;
    END LOOP;

    -- then the advances
    tab := NULL;
    IF past IS NOT NULL THEN
        -- Given the old server's clock once its writers stopped (a cutover's,
        -- a restore's), back-fill for a time at or before it is refused from
        -- now on: this server holds no record of what that server back-filled,
        -- and under its identities (kuid has none) a back-filled ID for such a
        -- time could repeat one of those (issue 62).  Only with `past`: the
        -- columns' maxima alone also come from pg_upgrade, which carries the
        -- record over, or from this server's own IDs, and a floor there would
        -- refuse back-fill this server can give (the review of c15f23d).  Up
        -- to the latest of `past` and the time of each column's largest ID:
        -- the old server may have issued, and back-filled, ahead of its clock
        -- (a clock stepped back, an advance_past up to 60 s ahead: the review
        -- of ca63933), and those IDs are in the columns (a kuid96 column's
        -- largest may be a higher node's, earlier: `past` covers that one).
        -- First, before any advance: a clock stepped back since the read, or
        -- a caller who may not run every advance, is refused (22023, 42501)
        -- with nothing raised or advanced.
        floor_to := greatest(floor_to, past);
        EXECUTE format('SELECT %I.flakeid_backfill_floor()', schema) INTO floor_now;
        EXECUTE format('SELECT %I.flakeid_backfill_floor_raise($1)', schema) INTO floor_after USING floor_to;
        IF floor_after IS DISTINCT FROM floor_now THEN
            RAISE NOTICE 'back-fill for a time up to % is refused from now on', floor_after
                USING DETAIL = 'This server holds no record of what the server these IDs came from back-filled: a back-filled ID for such a time could repeat one of those.',
                      HINT = 'Back-fill later times. If no ID back-filled there can meet a new one (this server''s identities are its own and no kuid was back-filled, or nothing was), set flakeid.accept_backfill_loss = on (docs/OPERATIONS.md, "A logical-replication cutover").';
        END IF;
        FOR generator, bound IN VALUES
            ('sno', 'sno_upper_bound($1)'), ('kuid', 'kuid_upper_bound($1)'), ('snowflake', 'snowflake_upper_bound($1)')
        LOOP
            EXECUTE format('SELECT %1$I.%2$I(%1$I.%3$s)::text', schema, generator || '_advance_past', bound)
                INTO advanced_past USING past;
            RETURN NEXT;
        END LOOP;
        FOREACH kind IN ARRAY kinds
        LOOP
            generator := 'siq ' || kind;
            EXECUTE format('SELECT %1$I.siq_advance_past(%1$I.siq_from_parts($1, 255, 4294967295, $2, 0))::text', schema)
                INTO advanced_past USING past, kind;
            RETURN NEXT;
        END LOOP;
    END IF;
    i := 0;
    FOR c IN
        SELECT x.* FROM jsonb_to_recordset(cols) x(rel oid, nspname name, relname name, attname name,
                                                   gen text, other_temp boolean, skip_entry text, inherited boolean)
    LOOP
        i := i + 1;
        -- (read with its parent)
        CONTINUE WHEN c.inherited;
        tab := c.rel;
        col := c.attname;
        generator := CASE c.gen WHEN 'kuid96' THEN 'kuid' ELSE c.gen END;
        advanced_past := NULL;
        IF c.skip_entry IS NOT NULL THEN
            skipped := 'named in skip';
            RETURN NEXT;
            skipped := NULL;
            CONTINUE;
        END IF;
        BEGIN
            IF c.gen = 'siq' AND tops[i] IS NOT NULL THEN
                -- every kind past the unit of the largest ID, whatever its kind (an empty column:
                -- one row, as for the others)
                FOREACH kind IN ARRAY kinds
                LOOP
                    generator := 'siq ' || kind;
                    EXECUTE format('SELECT %1$I.siq_advance_past(%1$I.siq_from_parts(%1$I.siq_time($1::%1$I.siq), 255, 4294967295, $2, 0))::text', schema)
                        INTO advanced_past USING tops[i], kind;
                    RETURN NEXT;
                END LOOP;
                CONTINUE;
            ELSIF c.gen = 'kuid96' THEN
                -- past `past` in the node of the largest ID (an empty column: this server's own, which
                -- kuid96(kuid) gives without touching a generator)
                EXECUTE format('SELECT %1$I.kuid96_advance_past(greatest($2::%1$I.kuid96, CASE WHEN $2 IS NULL THEN %1$I.kuid96(%1$I.kuid_upper_bound($1))
                                    ELSE %1$I.kuid96(%1$I.kuid_upper_bound($1), %1$I.kuid96_node($2::%1$I.kuid96)) END))::text', schema)
                    INTO advanced_past USING past, tops[i];
            ELSE
                EXECUTE format('SELECT %1$I.%2$I($1::%3$s)::text', schema, c.gen || '_advance_past',
                               CASE c.gen WHEN 'snowflake' THEN 'pg_catalog.int8' ELSE format('%I.%I', schema, c.gen) END)
                    INTO advanced_past USING tops[i];
            END IF;
        EXCEPTION
            WHEN invalid_parameter_value THEN
                -- (read and checked above: the clock stepped back since, or the C check saw another clock)
                GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
                RAISE EXCEPTION 'the largest ID of column "%" of table % cannot be advanced past: %', c.attname, tab, message
                    USING ERRCODE = '22023', DETAIL = detail,
                          HINT = concat_ws(' ', nullif(hint, ''),
                                           format('Generators advanced before this one stay advanced (harmless; the call may be repeated). Or leave the column out knowingly with skip => %L.',
                                                  ARRAY[format('%I.%I.%I', c.nspname, c.relname, c.attname)]));
        END;
        RETURN NEXT;
    END LOOP;
    -- the defaults that call a generator where nothing is read for it
    FOR c IN SELECT x.* FROM jsonb_to_recordset(not_read) x(rel oid, attname name, gen text, relkind "char", type text)
             ORDER BY x.rel, x.attname, x.gen LOOP
        tab := c.rel;
        col := c.attname;
        generator := CASE c.gen WHEN 'kuid96' THEN 'kuid' ELSE c.gen END;
        advanced_past := NULL;
        skipped := CASE WHEN c.relkind = 'v'
                        THEN format('a view''s default calls a %s generator: its IDs are stored in the tables under the view, read only where their own column is one the call reads; advance past them yourself with %s_advance_past', c.gen, c.gen)
                        ELSE format('its default calls a %s generator, but a column of type %s is not read for it: advance past its largest ID yourself with %s_advance_past', c.gen, c.type, c.gen) END;
        RETURN NEXT;
    END LOOP;
    -- other sessions' temporary tables (and a crash's orphans), each child of a table too: one row
    -- each (and generator), col NULL for a table of several such columns
    FOR c IN SELECT x.* FROM jsonb_to_recordset(other_temp) x(rel oid, gen text, columns int, attname name)
             ORDER BY x.rel, x.gen LOOP
        tab := c.rel;
        col := CASE WHEN c.columns = 1 THEN c.attname END;
        generator := CASE c.gen WHEN 'kuid96' THEN 'kuid' ELSE c.gen END;
        advanced_past := NULL;
        skipped := 'a temporary table of another session (or left by a crash): no other session can read it'
                   || CASE WHEN c.columns > 1 THEN format(' (%s columns)', c.columns) ELSE '' END;
        RETURN NEXT;
    END LOOP;
    IF current_setting('lock_timeout') <> caller_lock_timeout THEN
        PERFORM set_config('lock_timeout', caller_lock_timeout, true);
    END IF;
END
$fn$;
COMMENT ON FUNCTION flakeid_advance_past_all(timestamptz, text[]) IS
    'the cutover step: each generator advanced past the largest ID of every column of the flakeid types, of domains over them and of arrays of either (siq: every kind), of every bigint column (or domain, or array) defaulting to snowflake_new() or snowflake_new_at(), and of every uuid column (or domain, or array) defaulting to a generator (sno_new()::uuid), and with past (the old server''s clock once its writers and readers stopped) past that instant; one row per call and per column left out (skipped says why); everything is read, and refused where it cannot be (42501, 55P03, 22023), before anything is advanced';
REVOKE ALL ON FUNCTION flakeid_advance_past_all(timestamptz, text[]) FROM PUBLIC;
