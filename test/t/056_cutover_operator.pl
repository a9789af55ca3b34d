# The cutover functions as an operator meets them (issue 61): an ordinary
# role (auditor: PUBLIC's rights, and INSERT where granted), a table owner
# (owner) and a non-superuser operator granted the functions (operator),
# each item of the audit in turn, and each finding of the review of its
# first version (6281a75, backed out):
#   9. an empty kuid96 column takes no horizon (which closed the kuid counter)
#   8. snowflake_adopt advances the generator past the column's maximum
#   R3. an update from 1.3 keeps what an operator granted and revoked, and a
#      role granted snowflake_adopt alone still adopts
#   1. another session's temporary table (and a crash's orphan) is reported,
#      not an abort; R6. skip's duplicates and a same-named temporary table
#   2. row-level security: a policy's code never runs as the operator, and
#      a maximum is never taken through a policy (42501 instead)
#   3. R4. domains over every type, over bigint with a snowflake default, and
#      arrays of them are covered
#   4. a far-future row is named with its column, with a true hint, and can
#      be skipped; R5. nothing is advanced before it is refused
#   5. R5. a table the caller cannot read is an error naming it, before
#      anything is advanced; SELECT on the column alone is enough
#   6. R2. the wait for a lock is bounded (lock_timeout, or 10 s where it is
#      0), nothing is advanced before it, and the caller's lock_timeout is
#      left as it was
#   R7. a siq column with an index is not read in full, and new siq of every
#      kind sort after it
#   7. R1. kuid96 past an ID of a higher node: taken within the 60 s lead
#      (it waits for the window's end to come within it), cancellable
#   A5, A6 (the audits of 1.4's cutover). no code of a table's owner runs as
#      the caller: index, statistics, CHECK or partition-key functions, even
#      added while the call waits, SECURITY DEFINER ones, a type changed or a
#      table made a view while it waits (the maximum is read below SQL)
# R8: a check whose query fails fails (try() gives undef, numbers are
# compared by within()).  Each check fails on b583abf (the issue's negative
# control) or on 6281a75 (the review's), as its name says ("b583abf:" or
# "6281a75:" where only one of them has the defect).
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use Time::HiRes qw(time);

# (autovacuum off: it would drop the crash's orphaned temporary table of item 1 before the check)
my $node = flakeid_node('cutover_operator', 'flakeid.allow_debug_clock_offset' => 'on', autovacuum => 'off', max_prepared_transactions => 5);
my $root = tree_root();
sub sql { my ($sql, %opt) = @_; return $node->safe_psql($opt{db} // 'postgres', $sql); }
# a check's query: its output, or undef where it fails (which no is() or like() takes for a pass)
sub try
{
	my ($sql, %opt) = @_;
	my ($out, $err) = ('', '');
	my $rc = $node->psql($opt{db} // 'postgres', $sql, stdout => \$out, stderr => \$err);
	diag("the check's query failed: $err") if $rc != 0;
	return $rc == 0 ? $out : undef;
}
# within(VALUE, LOW, HIGH, NAME): a number in [LOW, HIGH]; anything else (undef, '', text) fails
sub within
{
	my ($value, $low, $high, $name) = @_;
	my $number = defined $value && $value =~ /^\s*-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i;
	ok($number && $value >= $low && $value <= $high, $name)
	  or diag('got ' . ($value // 'undef (the query failed)') . ", expected a number in [$low, $high]");
}
my $own = sql("SELECT identity_value FROM flakeid_identities() WHERE generator = 'kuid96'");
die "this server's kuid96 node is the highest: no node sorts above it" if $own >= 4294967295;

# the audit's roles: operator is granted every cutover function, as the docs suggest
sql(q{
	CREATE ROLE auditor LOGIN;
	CREATE ROLE owner LOGIN;
	CREATE ROLE operator LOGIN;
});
my $grant_operator = q{DO $$ DECLARE f regprocedure; BEGIN
		FOR f IN SELECT oid::regprocedure FROM pg_proc WHERE proname LIKE '%advance_past%' OR proname = 'snowflake_adopt' LOOP
			EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO operator', f);
		END LOOP;
	END $$;};
# a database of its own per item, with the extension
sub db
{
	my ($name) = @_;
	fresh_db($node, $name);
	sql("CREATE EXTENSION flakeid; GRANT CREATE ON SCHEMA public TO owner; $grant_operator", db => $name);
	return $name;
}

# 9. an empty kuid96 column: no horizon is taken.  kuid96_horizon() closes the kuid counter through
# the clock's unit less one, which shows in a back-fill into the unit of the last kuid issued: while
# the counter is open there, the back-fill is drawn from it (the next sequence); once it is closed,
# from the ledger (the top of the pool).  First in the file: no kuid counter has been raised ahead
# of the clock yet (a back-fill ahead of the clock is refused).
{
	my $d = db('empty_kuid96');
	sql('CREATE TABLE e (id kuid96)', db => $d);
	my $k = sql('SELECT kuid_new()', db => $d);
	ok(wait_clock_past($node, "kuid_time('$k')"), "9. (the clock has left the tick of the last kuid issued)");
	is(try(qq{SELECT kuid96_node(advanced_past::kuid96) = $own FROM flakeid_advance_past_all(now() - interval '1 hour')
		WHERE tab = 'e'::regclass}, db => $d), 't',
		"9. an empty kuid96 column, with past: advanced past this server's node");
	is(try(qq{SELECT kuid_seq(kuid_new_at(kuid_time('$k'))) - kuid_seq('$k')}, db => $d), '1',
		'9. b583abf: ... and the kuid counter was not closed: a back-fill into the tick of the last kuid is drawn from it (the next sequence)');
}

# A5, A6: a table owner's code never runs as the caller.  Read with SQL, the maximum ran code the
# owner chose, as the superuser calling the cutover, and the audits made the owner superuser each
# way: a function folded in an index predicate, a partition key or statistics (442faa3..ac01a2e);
# the same added while the call waited for its lock, with the check done before the wait
# (e674d78..cad1471); and past 4d30009's hold-then-check: a SECURITY DEFINER predicate that sets
# the caller's search_path for what follows, a column's type changed while the call waited (an
# implicit cast of the owner's ran in the read), a table turned into a view while it waited
# (PostgreSQL 15).  Now the maximum is read below SQL (cutover_read.c): none of it runs, the
# tables are read and advanced, and a table or column changed while the call waited is refused
# (55000).  Each attack calls promote(), which makes the owner superuser when a superuser runs it;
# each check fails on the commit named ("4d30009:" fails there, where an earlier one already did)
sub owner_db
{
	my ($name) = @_;
	my $d = db($name);
	# (an IMMUTABLE function may not run ALTER ROLE itself, but may call a VOLATILE one that does)
	sql(q{SET ROLE owner;
		CREATE FUNCTION promote() RETURNS void LANGUAGE plpgsql VOLATILE AS $$
		BEGIN
			IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
				EXECUTE 'ALTER ROLE owner SUPERUSER';
			END IF;
		END $$;
		CREATE FUNCTION escalate(int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
		BEGIN
			PERFORM public.promote();
			RETURN true;
		END $$;}, db => $d);
	return $d;
}
sub owner_is_superuser { return sql("SELECT rolsuper FROM pg_roles WHERE rolname = 'owner'"); }
{
	my $d = owner_db('owner_code');
	sql(q{SET ROLE owner;
		CREATE TABLE trap (id sno);
		CREATE INDEX ON trap (id) WHERE escalate(1);
		INSERT INTO trap SELECT sno_new();
		CREATE TABLE pk (id sno, k int) PARTITION BY RANGE ((k + (CASE WHEN escalate(1) THEN 0 ELSE 1 END)));
		CREATE TABLE pk1 PARTITION OF pk FOR VALUES FROM (0) TO (100);
		INSERT INTO pk VALUES (sno_new(), 1);
		CREATE TABLE st (id sno, v int);
		CREATE STATISTICS st_x ON (v + (CASE WHEN escalate(1) THEN 0 ELSE 1 END)), id FROM st;
		INSERT INTO st VALUES (sno_new(), 1);
		CREATE FUNCTION valid(int) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$ BEGIN PERFORM public.promote(); RETURN $1 > 0; END $$;
		CREATE TABLE checked (id sno, v int CHECK (valid(v)));
		INSERT INTO checked VALUES (sno_new(), 1);}, db => $d);
	is(try(q{SELECT string_agg(tab::text || ':' || coalesce(skipped, 'advanced'), ',' ORDER BY tab::text) FROM flakeid_advance_past_all()}, db => $d),
		'checked:advanced,pk:advanced,st:advanced,trap:advanced',
		'A5. 4d30009: tables whose index predicate, partition key, statistics or CHECK call the owner\'s function are read and advanced, not refused');
	is(owner_is_superuser(), 'f', 'A5. ac01a2e: ... and none of those functions ran as the superuser (the owner is no superuser)');
	is(try(q{SELECT sno_new() > (SELECT max(id) FROM (SELECT id FROM trap UNION ALL SELECT id FROM pk UNION ALL SELECT id FROM st UNION ALL SELECT id FROM checked) a)}, db => $d),
		't', 'A5. ... and the generator lies past every one of them');
	sql('ALTER ROLE owner NOSUPERUSER');
}
# A6. the owner adds the index while the call waits for its lock on the table: the owner holds it
# ACCESS EXCLUSIVE, the call is seen waiting in pg_locks, then the owner adds the index and commits
# (each step waits for the one before it, whatever the speed)
sub while_waiting
{
	my ($d, $table, $change, $call) = @_;
	my $owner = session($node, connstr => $node->connstr($d) . ' user=owner');
	$owner->query("BEGIN; LOCK TABLE $table IN ACCESS EXCLUSIVE MODE");
	# (lock_timeout long: the call must wait for the owner's commit, not give up first)
	my $job = psql_start($node, "SET lock_timeout = '300s'; " . ($call // 'SELECT count(*) FROM flakeid_advance_past_all()'), db => $d);
	my $waited = $node->poll_query_until($d, "SELECT EXISTS (SELECT FROM pg_locks WHERE relation = '$table'::regclass AND NOT granted)");
	$owner->query("$change; COMMIT");
	$owner->close;
	my ($status, $out, $err) = psql_finish($job);
	return ($waited, $status, $out, $err);
}
{
	my $d = owner_db('owner_race');
	sql(q{SET ROLE owner; CREATE TABLE race (id sno); INSERT INTO race SELECT sno_new();}, db => $d);
	my ($waited, $status, $out, $err) = while_waiting($d, 'race', 'CREATE INDEX ON race (id) WHERE escalate(1)');
	ok($waited, 'A6. (the superuser\'s call waited for the owner\'s lock on its table)');
	is("$status $out", '0 1', 'A6. 4d30009: an index calling the owner\'s function, added while the call waited: the table is read and advanced')
	  or diag($err);
	is(owner_is_superuser(), 'f', 'A6. cad1471: ... and the function did not run as the superuser');
	sql('ALTER ROLE owner NOSUPERUSER');

	# a SECURITY DEFINER predicate that sets the session's search_path: nothing of it runs, and the
	# caller's search_path and functions are as they were (no timing)
	sql(q{SET ROLE owner;
		CREATE FUNCTION public.lower(text) RETURNS text LANGUAGE plpgsql AS $$
		BEGIN PERFORM public.promote(); RETURN pg_catalog.lower($1); END $$;
		CREATE FUNCTION plants(int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE SECURITY DEFINER AS $$
		BEGIN PERFORM pg_catalog.set_config('search_path', 'public, pg_catalog', false); RETURN true; END $$;
		CREATE TABLE sd (id sno); INSERT INTO sd SELECT sno_new();
		CREATE INDEX ON sd (id) WHERE plants(1);}, db => $d);
	is(try(q{SELECT count(*) FROM flakeid_advance_past_all(skip => '{race.id}') WHERE tab = 'sd'::regclass; SHOW search_path; SELECT lower('X');}, db => $d),
		"1\n\"\$user\", public\nx", 'A6. 4d30009: a SECURITY DEFINER index predicate that sets search_path: read and advanced, and the caller\'s search_path is as it was');
	is(owner_is_superuser(), 'f', 'A6. 4d30009: ... and the owner\'s lower() did not run as the superuser');
	sql('ALTER ROLE owner NOSUPERUSER');

	# the column's type changed while the call waited, with an implicit cast of the owner's to sno
	sql(q{SET ROLE owner;
		CREATE TABLE retyped (id sno); INSERT INTO retyped SELECT sno_new();
		CREATE TYPE wrapped AS (v sno);
		CREATE FUNCTION unwrap(wrapped) RETURNS sno LANGUAGE plpgsql AS $$ BEGIN PERFORM public.promote(); RETURN $1.v; END $$;}, db => $d);
	($waited, $status, $out, $err) = while_waiting($d, 'retyped',
		q{ALTER TABLE retyped ALTER COLUMN id TYPE wrapped USING ROW(id)::wrapped; CREATE CAST (wrapped AS sno) WITH FUNCTION unwrap(wrapped) AS IMPLICIT},
		q{SELECT count(*) FROM flakeid_advance_past_all(skip => '{race.id,sd.id}')});
	like($err, qr/ERROR:  table retyped changed while flakeid_advance_past_all waited for it/,
		'A6. 4d30009: a column whose type changed while the call waited: refused (55000), nothing advanced');
	is(owner_is_superuser(), 'f', 'A6. 4d30009: ... and the owner\'s cast did not run as the superuser');
	sql('ALTER ROLE owner NOSUPERUSER');
	sql('SET ROLE owner; DROP TABLE retyped', db => $d);

	# the table dropped while the call waited: refused as changed (55000), not an internal error
	sql(q{SET ROLE owner; CREATE TABLE dropped (id sno); INSERT INTO dropped SELECT sno_new();}, db => $d);
	($waited, $status, $out, $err) = while_waiting($d, 'dropped', 'DROP TABLE dropped',
		q{SELECT count(*) FROM flakeid_advance_past_all(skip => '{race.id,sd.id}')});
	like($err, qr/ERROR:  the table of OID \d+ was dropped while flakeid_advance_past_all waited for it/,
		'A6. 27f90d9: a table dropped while the call waited: refused (55000), not an internal error (XX000)');

	# PostgreSQL 15 (and before) let an owner turn an empty table into a view: while the call waited
	SKIP:
	{
		skip 'PostgreSQL 16 and later refuse to turn a table into a view', 2 if $node->pg_version >= 16;
		sql(q{SET ROLE owner;
			CREATE TABLE viewed (id sno);
			CREATE FUNCTION fake_id() RETURNS sno LANGUAGE plpgsql AS $$ BEGIN PERFORM public.promote(); RETURN public.sno_from_parts(now(), 0, 0, 0); END $$;}, db => $d);
		($waited, $status, $out, $err) = while_waiting($d, 'viewed',
			q{CREATE RULE "_RETURN" AS ON SELECT TO viewed DO INSTEAD SELECT fake_id() AS id},
			q{SELECT count(*) FROM flakeid_advance_past_all(skip => '{race.id,sd.id}')});
		like($err, qr/ERROR:  table viewed changed while flakeid_advance_past_all waited for it/,
			'A6. 4d30009: a table turned into a view while the call waited: refused (55000)');
		is(owner_is_superuser(), 'f', 'A6. 4d30009: ... and the view\'s function did not run as the superuser');
		sql('ALTER ROLE owner NOSUPERUSER');
	}

	# the lock: ACCESS SHARE on each table read and the tables under it, nothing stronger; the read
	# at REPEATABLE READ too
	sql(q{SET ROLE owner;
		CREATE TABLE parted (id sno, k int) PARTITION BY RANGE (k);
		CREATE TABLE parted1 PARTITION OF parted FOR VALUES FROM (0) TO (100);
		INSERT INTO parted VALUES (sno_new(), 1);}, db => $d);
	is(try(q{BEGIN; SELECT count(*) FROM flakeid_advance_past_all();
		SELECT string_agg(relation::regclass::text || ' ' || mode, ',' ORDER BY relation::regclass::text, mode) FROM pg_locks
		WHERE pid = pg_backend_pid() AND locktype = 'relation' AND relation::regclass::text IN ('race', 'parted', 'parted1');
		COMMIT}, db => $d) =~ s/^\d+\n//r,
		'parted AccessShareLock,parted1 AccessShareLock,race AccessShareLock',
		'A6. 4d30009: each table and its partitions are locked ACCESS SHARE until commit, nothing stronger (the hold blocked VACUUM)');
	is(try(q{SELECT count(*) FROM flakeid_advance_past_all() WHERE skipped IS NULL}, db => $d),
		'3', 'A6. 4d30009: ... and the call is taken (at READ COMMITTED: A9)');
	is(try(q{SELECT to_regprocedure('flakeid_advance_past_hold(regclass)') IS NULL}, db => $d), 't',
		'A6. 4d30009: no function holds a table SHARE UPDATE EXCLUSIVE on SELECT alone');
	# the read checks what SQL would, for any caller: SELECT on the column, and row-level security
	is(sqlstate_of($node, q{SET ROLE auditor; SELECT flakeid_advance_past_read('race', 'id', 1::int2, 'sno')}, db => $d), '42501',
		'A6. the read refuses a role without SELECT on the column (42501)');
	sql(q{GRANT SELECT (id) ON race TO auditor; SET ROLE owner; ALTER TABLE race ENABLE ROW LEVEL SECURITY;
		CREATE POLICY p ON race USING (true)}, db => $d);
	is(sqlstate_of($node, q{SET ROLE auditor; SELECT flakeid_advance_past_read('race', 'id', 1::int2, 'sno')}, db => $d), '42501',
		'A6. ... and one whom row-level security applies to (42501)');
	is(try(q{SET ROLE owner; SELECT flakeid_advance_past_read('race', 'id', 1::int2, 'sno') = (SELECT max(id)::text FROM race)}, db => $d), 't',
		'A6. ... and gives the owner the maximum of its table');
}

# A7 (the review of b29239b..27f90d9): the read below SQL, at its edges
{
	my $d = owner_db('read_edges');
	sql(q{CREATE TABLE n (id sno); CREATE INDEX ON n (id);
		INSERT INTO n SELECT NULL FROM generate_series(1, 1000);
		INSERT INTO n SELECT sno_new() FROM generate_series(1, 3);
		GRANT SELECT ON n TO auditor;}, db => $d);
	# a system column: slot_getattr read past its arrays (any role crashed the server)
	is(sqlstate_of($node, q{SET ROLE auditor; SELECT flakeid_advance_past_read('n', 'ctid', -1::int2, 'tid')}, db => $d), '55000',
		'A7. 27f90d9: a system column is refused (55000): any role crashed the server with it');
	is(try('SELECT 1', db => $d), '1', 'A7. ... and the server is up');
	# the index's NULLs are passed over by a NOT NULL key, not fetched one by one
	is(try(q{BEGIN; CREATE TEMP TABLE m AS SELECT flakeid_advance_past_read('n', 'id', 1::int2, 'sno') AS v;
		SELECT idx_tup_fetch FROM pg_stat_xact_user_tables WHERE relid = 'n'::regclass;
		SELECT v = (SELECT max(id)::text FROM n) FROM m; COMMIT}, db => $d), "1\nt",
		'A7. 27f90d9: 1,000 NULLs at the top of the index: the maximum read with one heap fetch, not 1,001');

	# another session's temporary child of a table: left out, as the planner leaves it (it aborted the call)
	sql(q{CREATE TABLE par (id sno); INSERT INTO par SELECT sno_new();}, db => $d);
	my $holder = session($node, db => $d);
	$holder->query(q{CREATE TEMP TABLE kid () INHERITS (par); INSERT INTO kid SELECT sno_new()});
	is(try(q{SELECT count(*) FROM flakeid_advance_past_all() WHERE tab = 'par'::regclass AND skipped IS NULL}, db => $d), '1',
		'A7. 27f90d9: a table with another session\'s temporary child is read (its own rows), not an error');
	$holder->close;

	# a column renamed while the call waited for another table: refused as a change (it said 42501)
	sql(q{SET ROLE owner; CREATE TABLE ra (id sno); INSERT INTO ra SELECT sno_new();
		CREATE TABLE rb (id sno); INSERT INTO rb SELECT sno_new();}, db => $d);
	my ($waited, $status, $out, $err) = while_waiting($d, 'ra', 'ALTER TABLE rb RENAME COLUMN id TO renamed');
	like($err, qr/ERROR:  table rb changed while flakeid_advance_past_all waited for it/,
		'A7. 27f90d9: a column renamed while the call waited: refused as a change (55000), not "permission denied"');
	# SELECT revoked while the read waited for the lock: refused after the lock, as SQL would
	sql(q{SET ROLE owner; CREATE TABLE rv (id sno); INSERT INTO rv SELECT sno_new(); GRANT SELECT ON rv TO auditor;}, db => $d);
	($waited, $status, $out, $err) = while_waiting($d, 'rv', 'REVOKE SELECT ON rv FROM auditor',
		q{SET ROLE auditor; SELECT flakeid_advance_past_read('rv', 'id', 1::int2, 'sno')});
	like($err, qr/ERROR:  permission denied to read column "id" of table (public\.)?rv/,
		'A7. 27f90d9: SELECT revoked while the read waited for its lock: refused after the lock (42501)');

	# REPEATABLE READ and an index whose builder saw a broken HOT chain (indcheckxmin): the read
	# takes the latest snapshot (A8 says why), whose rows the index was built from: the maximum of
	# the rows as they are now, not of the transaction's older versions (the review found the
	# transaction's snapshot and that index together giving too low a maximum)
	sql(q{CREATE TABLE hot (pk int PRIMARY KEY, id sno);
		INSERT INTO hot VALUES (1, sno_from_parts('2026-01-03', 0, 0, 0)), (2, sno_from_parts('2026-01-02', 0, 0, 0));}, db => $d);
	my $reader = session($node, db => $d);
	$reader->query(q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT max(id) FROM hot});
	sql(q{UPDATE hot SET id = sno_from_parts('2026-01-01', 0, 0, 0) WHERE pk = 1; CREATE INDEX hot_id ON hot (id)}, db => $d);
	is(sql(q{SELECT indcheckxmin FROM pg_index WHERE indexrelid = 'hot_id'::regclass}, db => $d), 't',
		'A7. (the index was built over a broken HOT chain: indcheckxmin)');
	is($reader->query(q{SELECT flakeid_advance_past_read('hot', 'id', 2::int2, 'sno') = sno_from_parts('2026-01-02', 0, 0, 0)::text}), 't',
		'A7. at REPEATABLE READ, the read gives the largest of the rows as they are now');
	$reader->query('COMMIT');
	$reader->close;
}

# A8 (the audit of b29239b..27f90d9): what changes while the call waits, and snowflake_adopt
{
	my $d = owner_db('read_waits');
	# two columns of one type swap names while the call waits: the listed column is the one read
	sql(q{SET ROLE owner; CREATE TABLE sf (id bigint DEFAULT snowflake_new(), n bigint);
		INSERT INTO sf VALUES (snowflake_from_parts(clock_timestamp() + interval '30 s', 0, 0, 0), 1);}, db => $d);
	my ($waited, $status, $out, $err) = while_waiting($d, 'sf',
		'ALTER TABLE sf RENAME id TO tmp; ALTER TABLE sf RENAME n TO id; ALTER TABLE sf RENAME tmp TO n');
	like($err, qr/ERROR:  table sf changed while flakeid_advance_past_all waited for it/,
		'A8. 27f90d9: two columns swapping names while the call waited: refused (55000), not the other column read (the generator was left below the row)');
	sql('SET ROLE owner; DROP TABLE sf', db => $d);
	# a partition detached while the call waits: not read under its parent, and not listed on its own
	sql(q{SET ROLE owner; CREATE TABLE parted (id sno, k int) PARTITION BY LIST (k);
		CREATE TABLE parted_1 PARTITION OF parted FOR VALUES IN (1);
		CREATE TABLE parted_2 PARTITION OF parted FOR VALUES IN (2);
		INSERT INTO parted VALUES (sno_from_parts(clock_timestamp() - interval '1 day', 0, 2, 0), 1),
			(sno_from_parts(clock_timestamp() + interval '30 s', 0, 2, 0), 2);}, db => $d);
	($waited, $status, $out, $err) = while_waiting($d, 'parted', 'ALTER TABLE parted DETACH PARTITION parted_2');
	like($err, qr/ERROR:  column "id" of table public\.parted_2 appeared while flakeid_advance_past_all ran/,
		'A8. 27f90d9: a partition detached while the call waited: refused (55000), not left unread');
	is(try(q{SELECT count(*) FROM flakeid_advance_past_all() WHERE skipped IS NULL;
		SELECT sno_new() > (SELECT max(id) FROM parted_2)}, db => $d), "2\nt", 'A8. ... and called again, it reads it and passes it');
	# at REPEATABLE READ, a row the lock's holder committed while the call waited was missed (the
	# transaction's snapshot, older than the lock): refused there (A9); at READ COMMITTED it is read
	sql(q{SET ROLE owner; CREATE TABLE rr (id kuid PRIMARY KEY);}, db => $d);
	($waited, $status, $out, $err) = while_waiting($d, 'rr', q{INSERT INTO rr SELECT kuid_upper_bound(clock_timestamp() + interval '30 s')});
	is(try(q{SELECT kuid_new() > (SELECT max(id) FROM rr)}, db => $d), 't',
		'A8. a row committed while the call waited for its lock is passed') or diag($err);

	# snowflake_adopt read its maximum with SQL, as the caller: an index predicate of the owner's
	# ran as the superuser adopting
	sql(q{SET ROLE owner; CREATE TABLE ad (id bigserial PRIMARY KEY, v int);
		INSERT INTO ad (v) SELECT g FROM generate_series(1, 10) g;
		CREATE INDEX ON ad (v) WHERE escalate(1);}, db => $d);
	is(sqlstate_of($node, q{SELECT snowflake_adopt('ad', 'id')}, db => $d), 'ok', 'A8. a superuser adopts a table with an index predicate of its owner\'s');
	is(owner_is_superuser(), 'f', 'A8. 27f90d9: ... and the predicate did not run as the superuser');
	sql('ALTER ROLE owner NOSUPERUSER');
	# under the owner's FORCE ROW LEVEL SECURITY a policy hid the largest key from the adopt
	sql(q{GRANT EXECUTE ON FUNCTION snowflake_adopt(regclass, name) TO owner; SET ROLE owner;
		CREATE TABLE adr (id bigserial PRIMARY KEY); INSERT INTO adr VALUES (1), (snowflake_new() + 100000000000);
		ALTER TABLE adr ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY; CREATE POLICY small ON adr USING (id < 1000);}, db => $d);
	is(sqlstate_of($node, q{SET ROLE owner; SELECT snowflake_adopt('adr', 'id')}, db => $d), '42501',
		'A8. 27f90d9: adopting a table whose policy hides rows from the caller is refused (42501), not taken with a filtered maximum');
	# PostgreSQL 15: a table turned into a view while the adopt waited
	SKIP:
	{
		skip 'PostgreSQL 16 and later refuse to turn a table into a view', 2 if $node->pg_version >= 16;
		sql(q{SET ROLE owner; CREATE TABLE adv (id bigserial);
			CREATE FUNCTION fake_key() RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN PERFORM public.promote(); RETURN 1; END $$;}, db => $d);
		($waited, $status, $out, $err) = while_waiting($d, 'adv', q{CREATE RULE "_RETURN" AS ON SELECT TO adv DO INSTEAD SELECT fake_key() AS id},
			q{SELECT snowflake_adopt('adv', 'id')});
		like($err, qr/ERROR:  table public\.adv changed while snowflake_adopt waited for it/,
			'A8. 27f90d9: a table turned into a view while the adopt waited: refused (55000)');
		is(owner_is_superuser(), 'f', 'A8. 27f90d9: ... and the view\'s function did not run as the superuser');
		sql('ALTER ROLE owner NOSUPERUSER');
	}
}

# leave_detach_pending(DB, PARENT, PARTITION): DETACH ... CONCURRENTLY interrupted while it waits
# for an older transaction, which leaves the partition's detach pending
sub leave_detach_pending
{
	my ($d, $parent, $part) = @_;
	my $holder = session($node, db => $d);
	$holder->query("BEGIN; SELECT count(*) FROM $parent");
	# (alone on psql's command line: not in a transaction block, which DETACH ... CONCURRENTLY refuses)
	my $detach = psql_start($node, "ALTER TABLE $parent DETACH PARTITION $part CONCURRENTLY", db => $d);
	ok($node->poll_query_until($d, "SELECT inhdetachpending FROM pg_inherits WHERE inhrelid = '$part'::regclass"),
		"(the detach of $part is pending, waiting for an older transaction)");
	sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%DETACH PARTITION $part%' AND pid <> pg_backend_pid()", db => $d);
	psql_finish($detach);
	$holder->close;
}
# A9 (the third review and audit, b29239b^..417731c)
{
	my $d = owner_db('read_third');
	# a partition whose detach is pending (DETACH ... CONCURRENTLY interrupted) is read under its parent
	sql(q{CREATE TABLE dp (id sno PRIMARY KEY) PARTITION BY RANGE (id);
		CREATE TABLE dp1 PARTITION OF dp FOR VALUES FROM (MINVALUE) TO (MAXVALUE);}, db => $d);
	leave_detach_pending($d, 'dp', 'dp1');
	sql(q{INSERT INTO dp1 VALUES (sno_from_parts(clock_timestamp() + interval '30 s', 0, 1, 1))}, db => $d);
	is(try(q{SELECT inhdetachpending FROM pg_inherits WHERE inhrelid = 'dp1'::regclass;
		SELECT count(*) FROM flakeid_advance_past_all() WHERE tab = 'dp'::regclass;
		SELECT sno_new() > (SELECT max(id) FROM dp1)}, db => $d), "t\n1\nt",
		'A9. 417731c: a partition left detach-pending is read under its parent (new IDs pass its rows)');

	# a snowflake default on a partition only: the partitioned table's column is read
	sql(q{CREATE TABLE ev (id bigint NOT NULL, k int) PARTITION BY LIST (k);
		CREATE TABLE ev1 PARTITION OF ev FOR VALUES IN (1);
		ALTER TABLE ev1 ALTER COLUMN id SET DEFAULT snowflake_new();
		INSERT INTO ev1 VALUES (snowflake_from_parts(clock_timestamp() + interval '30 s', 31, 31, 4095), 1);}, db => $d);
	is(try(q{SELECT count(*) FROM flakeid_advance_past_all() WHERE tab = 'ev'::regclass AND generator = 'snowflake';
		SELECT snowflake_new() > (SELECT max(id) FROM ev)}, db => $d), "1\nt",
		'A9. 417731c: a bigint column whose snowflake_new() default is on a partition only is read');

	# a materialized view is read; a foreign table is refused unless skipped
	sql(q{CREATE MATERIALIZED VIEW mv AS SELECT sno_from_parts(clock_timestamp() + interval '30 s', 0, 3, 3) AS id;
		CREATE EXTENSION file_fdw; CREATE SERVER files FOREIGN DATA WRAPPER file_fdw;
		CREATE FOREIGN TABLE ft (id sno DEFAULT sno_new()) SERVER files OPTIONS (filename '/dev/null');}, db => $d);
	like(message_of($node, q{SELECT count(*) FROM flakeid_advance_past_all()}, db => $d),
		qr/ERROR:  cannot read the largest ID of public\.ft, which is not a table of this server/,
		'A9. 417731c: a foreign table with a flakeid column is refused (0A000), not left out without a word');
	is(try(q{SELECT string_agg(tab::text || ':' || coalesce(skipped, 'advanced'), ',' ORDER BY tab::text) FROM flakeid_advance_past_all(skip => '{ft.id}')
		WHERE tab IN ('mv'::regclass, 'ft'::regclass); SELECT sno_new() > (SELECT max(id) FROM mv)}, db => $d),
		"ft:named in skip,mv:advanced\nt", 'A9. 417731c: ... skipped knowingly; and a materialized view is read');

	# REPEATABLE READ: refused (the listings would read the catalogs through an older snapshot)
	is(sqlstate_of($node, q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM flakeid_advance_past_all(skip => '{ft.id}')}, db => $d), '0A000',
		'A9. 417731c: at REPEATABLE READ the call is refused (0A000): a table created meanwhile was missed');
	# a prepared transaction's rows are seen by no one: refused while one is prepared in the database
	sql(q{CREATE TABLE late (id sno); BEGIN; INSERT INTO late VALUES (sno_from_parts(clock_timestamp() + interval '30 s', 0, 4, 4)); PREPARE TRANSACTION 'late_row'}, db => $d);
	like(message_of($node, q{SELECT count(*) FROM flakeid_advance_past_all(skip => '{ft.id}')}, db => $d),
		qr/ERROR:  flakeid_advance_past_all cannot run while transaction 'late_row' is prepared in this database/,
		'A9. 417731c: refused (55000) while a transaction is prepared in the database: its rows would be left behind');
	sql(q{COMMIT PREPARED 'late_row'}, db => $d);
	# parallel query forced on: no internal error
	my $parallel = $node->pg_version >= 16 ? 'debug_parallel_query' : 'force_parallel_mode';
	is(sqlstate_of($node, "SET $parallel = on; SELECT count(*) FROM flakeid_advance_past_all(skip => '{ft.id}')", db => $d), 'ok',
		"A9. 417731c: with $parallel on, no internal error (XX000 from a snapshot taken in parallel mode)");
	# another session's temporary table read directly: refused, no relcache reference left behind
	my $temp = session($node, db => $d);
	my $oid = $temp->query(q{CREATE TEMP TABLE tt (id sno); SELECT 'tt'::regclass::oid});
	is(sqlstate_of($node, "SELECT flakeid_advance_past_read($oid, 'id', 1::int2, 'sno')", db => $d), '0A000',
		'A9. 417731c: another session\'s temporary table read directly: refused (0A000), not an internal error');
	$temp->close;
	is(sqlstate_of($node, "SELECT flakeid_advance_past_read('late', 'id', 1::int2, 0)", db => $d), '42704',
		'A9. 417731c: a type of OID 0: refused (42704), not an internal error');
}
# an operator granted SELECT on an inheritance parent only: its child's inherited column is read
# with the parent's, not listed on its own (refused 42501 though the parent's read covered it)
{
	my $d = db('inherit_grant');
	sql(q{CREATE TABLE inhp (id sno); CREATE TABLE inhc () INHERITS (inhp);
		INSERT INTO inhc VALUES (sno_from_parts(clock_timestamp() + interval '30 s', 0, 5, 5));
		GRANT SELECT ON inhp TO operator;}, db => $d);
	is(try(q{SET ROLE operator; SELECT string_agg(tab::text, ',') FROM flakeid_advance_past_all() WHERE skipped IS NULL}, db => $d), 'inhp',
		'A9. 3b254b7: an operator with SELECT on an inheritance parent only advances past it, its child read with it');
	is(try(q{SELECT sno_new() > (SELECT max(id) FROM inhc)}, db => $d), 't', 'A9. ... and new IDs pass the child\'s rows');
}

# A10 (the fourth review and audit, b29239b^..0abbf4b)
{
	my $d = owner_db('read_fourth');
	# a snowflake_new() default on an inheritance child only: the parent's column is read with it
	sql(q{CREATE TABLE ip (id bigint, v text); CREATE TABLE ic () INHERITS (ip);
		ALTER TABLE ic ALTER id SET DEFAULT snowflake_new();
		INSERT INTO ic (id) SELECT snowflake_from_parts(clock_timestamp() + interval '30 s', 31, 31, 4095);}, db => $d);
	is(try(q{SELECT string_agg(tab::text, ',') FROM flakeid_advance_past_all() WHERE generator = 'snowflake';
		SELECT snowflake_new() > (SELECT max(id) FROM ic)}, db => $d), "ip\nt",
		'A10. 0abbf4b: a snowflake_new() default on an inheritance child only: its parent is read (new snowflakes pass its rows)');
	# the same on a partition whose detach is pending
	sql(q{CREATE TABLE pp (id bigint, v text) PARTITION BY RANGE (id);
		CREATE TABLE pp1 PARTITION OF pp FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
		ALTER TABLE pp1 ALTER id SET DEFAULT snowflake_new();}, db => $d);
	leave_detach_pending($d, 'pp', 'pp1');
	sql(q{INSERT INTO pp1 (id) SELECT snowflake_from_parts(clock_timestamp() + interval '40 s', 31, 31, 4095)}, db => $d);
	is(try(q{SELECT count(*) FROM flakeid_advance_past_all() WHERE tab = 'pp'::regclass;
		SELECT snowflake_new() > (SELECT max(id) FROM pp1)}, db => $d), "1\nt",
		'A10. 0abbf4b: a snowflake_new() default on a partition whose detach is pending: its parent is read');
	# PUBLIC's read of a partition whose detach is pending: only where the caller may read it alone
	sql(q{CREATE TABLE sal (k int, salary int) PARTITION BY LIST (k);
		CREATE TABLE sal1 PARTITION OF sal FOR VALUES IN (1); CREATE TABLE sal2 PARTITION OF sal FOR VALUES IN (2);
		INSERT INTO sal VALUES (1, 100), (2, 999999); GRANT SELECT ON sal TO auditor;}, db => $d);
	leave_detach_pending($d, 'sal', 'sal2');
	is(sqlstate_of($node, q{SET ROLE auditor; SELECT flakeid_advance_past_read('sal', 'salary', 2::int2, 'int4')}, db => $d), '42501',
		'A10. 0abbf4b: PUBLIC may not read a partition whose detach is pending through its parent (42501), as SQL reads it only alone');
	is(try(q{SELECT flakeid_advance_past_read('sal', 'salary', 2::int2, 'int4')}, db => $d), '999999',
		'A10. ... a caller who may read it does (the superuser: 999999)');
	# READ UNCOMMITTED is READ COMMITTED in PostgreSQL: not refused
	is(sqlstate_of($node, q{BEGIN ISOLATION LEVEL READ UNCOMMITTED; SELECT count(*) FROM flakeid_advance_past_all(); COMMIT}, db => $d), 'ok',
		'A10. 0abbf4b: at READ UNCOMMITTED the call runs (it was refused 0A000)');
	# another session's temporary child of a table: reported, not left out without a word
	sql(q{CREATE TABLE tp (id sno)}, db => $d);
	my $temp = session($node, db => $d);
	$temp->query(q{CREATE TEMP TABLE tc () INHERITS (tp); INSERT INTO tc VALUES (sno_new())});
	like(try(q{SELECT string_agg(tab::text || ':' || coalesce(skipped, 'advanced'), ',' ORDER BY tab::text)
		FROM flakeid_advance_past_all() WHERE tab::text LIKE '%tc' OR tab = 'tp'::regclass}, db => $d) // '',
		qr/^pg_temp_\d+\.tc:a temporary table of another session.*,tp:advanced$/,
		'A10. 0abbf4b: another session\'s temporary child is reported in a row of its own');
	$temp->close;
	# a uuid column DEFAULT sno_new()::uuid: its largest sno UUID is read, a version-4 UUID above it passed over
	sql(q{CREATE TABLE u (id uuid PRIMARY KEY DEFAULT sno_new()::uuid);
		INSERT INTO u VALUES ('ffffffff-ffff-4fff-bfff-ffffffffffff'),
			(sno_from_parts(clock_timestamp() + interval '30 s', 0, 7, 7)::uuid);}, db => $d);
	# (no max(uuid) before PostgreSQL 16)
	my $sno_row = q{(SELECT id FROM u WHERE id::text NOT LIKE 'ffffffff%' ORDER BY id DESC LIMIT 1)};
	is(try(qq{SELECT generator, advanced_past::sno = ${sno_row}::sno FROM flakeid_advance_past_all() WHERE tab = 'u'::regclass;
		SELECT sno_new()::uuid > $sno_row}, db => $d), "sno|t\nt",
		'A10. 0abbf4b: a uuid column DEFAULT sno_new()::uuid is read (its largest sno UUID, a version-4 one above it passed over)');
	# a partitioned table that holds no flakeid column is not locked by the listing
	sql(q{SET ROLE owner; CREATE TABLE q (id bigserial, n bigint) PARTITION BY RANGE (id);
		CREATE TABLE q1 PARTITION OF q FOR VALUES FROM (MINVALUE) TO (MAXVALUE);}, db => $d);
	my $locker = session($node, connstr => $node->connstr($d) . ' user=owner');
	$locker->query('BEGIN; LOCK TABLE q1 IN ACCESS EXCLUSIVE MODE');
	is(sqlstate_of($node, q{SET lock_timeout = '2s'; SELECT count(*) FROM flakeid_advance_past_all()}, db => $d), 'ok',
		'A10. 0abbf4b: a partition of another table, locked by its owner, does not hold up the listing (it timed out)');
	$locker->query('COMMIT');
	$locker->close;
	# a child made under a table already read, while the call waits for another: refused (55000)
	sql(q{SET ROLE owner; CREATE TABLE made (id sno); CREATE TABLE zlast (id sno);}, db => $d);
	my ($waited, $status, $out, $err) = while_waiting($d, 'zlast',
		q{CREATE TABLE madechild () INHERITS (made); INSERT INTO madechild VALUES (sno_from_parts(clock_timestamp() + interval '30 s', 0, 8, 8))});
	ok($waited && $status != 0 && $err =~ /column "id" of table public\.madechild appeared while flakeid_advance_past_all ran/,
		'A10. 0abbf4b: a child made under a table already read while the call waited: refused (55000), not left unread')
	  or diag("waited $waited, status $status: $out $err");
	# the foreign-table hint names the table as SQL needs it
	sql(q{CREATE SCHEMA "Ext Sch"; CREATE EXTENSION IF NOT EXISTS file_fdw; CREATE SERVER files FOREIGN DATA WRAPPER file_fdw;
		CREATE FOREIGN TABLE "Ext Sch"."Orders" (id sno) SERVER files OPTIONS (filename '/dev/null');}, db => $d);
	like(message_of($node, q{SELECT count(*) FROM flakeid_advance_past_all()}, db => $d),
		qr/ERROR:  cannot read the largest ID of "Ext Sch"\."Orders".*HINT: .*FROM "Ext Sch"\."Orders" AS t\).*siq: once for each kind/s,
		'A10. 0abbf4b: the foreign table\'s message and hint name it schema-qualified and quoted, and say siq needs each kind');
	is(try(q{SELECT count(*) FROM flakeid_advance_past_all(skip => ARRAY['"Ext Sch"."Orders".id'])}, db => $d) =~ /^\d+$/ ? 'ok' : 'failed', 'ok',
		'A10. ... and skipped as the docs spell it (ARRAY[\'"Ext Sch"."Orders".id\'])');
}

# A11 (the fifth review and audit, 0abbf4b..1ea288d)
{
	my $d = owner_db('read_fifth');
	# a uuid domain whose default calls sno_new(), and a uuid[] column defaulting to one: both read
	sql(q{CREATE DOMAIN suid AS uuid DEFAULT sno_new()::uuid;
		CREATE TABLE ud (id suid); INSERT INTO ud VALUES (sno_from_parts(clock_timestamp() + interval '30 s', 0, 9, 9)::uuid);
		CREATE TABLE ua (ids uuid[] DEFAULT ARRAY[kuid_new()::uuid]);
		INSERT INTO ua VALUES (ARRAY[kuid_upper_bound(clock_timestamp() + interval '30 s')::uuid, 'ffffffff-ffff-4fff-bfff-ffffffffffff']);}, db => $d);
	is(try(q{SELECT string_agg(tab::text || ':' || generator, ',' ORDER BY tab::text) FROM flakeid_advance_past_all() WHERE tab IN ('ud'::regclass, 'ua'::regclass);
		SELECT sno_new()::uuid > (SELECT id FROM ud ORDER BY id DESC LIMIT 1), kuid_new() > (SELECT ids[1]::kuid FROM ua)}, db => $d),
		"ua:kuid,ud:sno\nt|t", 'A11. 1ea288d: a uuid domain with a sno_new() default and a uuid[] column with a kuid_new() default are read');
	# a column whose partitions' defaults call two generators is one column to skip
	sql(q{CREATE TABLE pu (id uuid, k int) PARTITION BY LIST (k);
		CREATE TABLE pu0 PARTITION OF pu FOR VALUES IN (0); CREATE TABLE pu1 PARTITION OF pu FOR VALUES IN (1);
		ALTER TABLE pu0 ALTER id SET DEFAULT sno_new()::uuid; ALTER TABLE pu1 ALTER id SET DEFAULT kuid_new()::uuid;}, db => $d);
	is(try(q{SELECT string_agg(DISTINCT coalesce(skipped, 'advanced'), ',') FROM flakeid_advance_past_all(skip => '{pu.id}') WHERE tab = 'pu'::regclass}, db => $d),
		'named in skip', 'A11. 1ea288d: a column whose defaults call two generators is skipped as one (it was 42702, "ambiguous")');
	# a sub-partition of a partition whose detach is pending: the pending partition's privileges, not its own
	sql(q{CREATE TABLE st (id sno, k int) PARTITION BY LIST (k);
		CREATE TABLE sp PARTITION OF st FOR VALUES IN (1) PARTITION BY LIST (k);
		CREATE TABLE sp1 PARTITION OF sp FOR VALUES IN (1);
		INSERT INTO st VALUES (sno_new(), 1); GRANT SELECT ON st, sp TO auditor;}, db => $d);
	leave_detach_pending($d, 'st', 'sp');
	is(sqlstate_of($node, q{SET ROLE auditor; SELECT flakeid_advance_past_read('st', 'id', 1::int2, 'sno')}, db => $d), 'ok',
		'A11. 1ea288d: the partitions under a partition whose detach is pending are read with it (a false 42501 for sp1)');
	# a child moved from a table not yet read to one already read while the call waits: refused (55000)
	sql(q{SET ROLE owner; CREATE TABLE mto (id sno); CREATE TABLE mfrom (id sno); CREATE TABLE moved () INHERITS (mfrom);
		INSERT INTO moved VALUES (sno_from_parts(clock_timestamp() + interval '30 s', 0, 10, 10));}, db => $d);
	my ($waited, $status, $out, $err) = while_waiting($d, 'mfrom', 'ALTER TABLE moved NO INHERIT mfrom; ALTER TABLE moved INHERIT mto',
		q{SELECT count(*) FROM flakeid_advance_past_all(skip => '{pu.id}')});
	ok($waited && $status != 0 && $err =~ /column "id" of table public\.moved appeared while flakeid_advance_past_all ran/,
		'A11. 1ea288d: a child moved to a table already read while the call waited: refused (55000), not left unread')
	  or diag("waited $waited, status $status: $out $err");
	# a lock held on a partition: the message says the table or one under it
	my $locker = session($node, db => $d);
	$locker->query('BEGIN; LOCK TABLE sp1 IN ACCESS EXCLUSIVE MODE');
	like(message_of($node, q{SET lock_timeout = '1s'; SELECT count(*) FROM flakeid_advance_past_all(skip => '{pu.id}')}, db => $d),
		qr/ERROR:  could not lock table public\.st \(or a table under it\) to read column "id"/,
		'A11. 1ea288d: a lock on a partition: the 55P03 names its partitioned table, "or a table under it"');
	$locker->query('ROLLBACK');
	$locker->close;
}

# A12 (the sixth audit, 1ea288d..fe5ee05)
{
	my $d = db('read_sixth');
	# arrays to any depth: an array of a domain over sno[], a domain over uuid[] with a default, a
	# domain over uuid[] whose column has the default, a bigint[] defaulting to snowflakes
	sql(q{CREATE DOMAIN da AS sno[]; CREATE TABLE t_da (x da[]);
		INSERT INTO t_da VALUES (ARRAY[ARRAY[sno_from_parts(clock_timestamp() + interval '20 s', 0, 11, 11)]::da]);
		CREATE DOMAIN dua AS uuid[] DEFAULT ARRAY[sno_new()::uuid]; CREATE TABLE t_dua (x dua);
		INSERT INTO t_dua VALUES (ARRAY[sno_from_parts(clock_timestamp() + interval '21 s', 0, 12, 12)::uuid]);
		CREATE DOMAIN dua2 AS uuid[]; CREATE TABLE t_dua2 (x dua2 DEFAULT ARRAY[kuid_new()::uuid]);
		INSERT INTO t_dua2 VALUES (ARRAY[kuid_upper_bound(clock_timestamp() + interval '22 s')::uuid]);
		CREATE TABLE t_i8a (x bigint[] DEFAULT ARRAY[snowflake_new()]);
		INSERT INTO t_i8a VALUES (ARRAY[snowflake_from_parts(clock_timestamp() + interval '23 s', 31, 31, 4095), 1]);}, db => $d);
	is(try(q{SELECT string_agg(tab::text || ':' || generator, ',' ORDER BY tab::text) FROM flakeid_advance_past_all() WHERE skipped IS NULL AND tab IS NOT NULL;
		SELECT sno_new() > (SELECT (x[1])[1] FROM t_da), sno_new()::uuid > (SELECT x[1] FROM t_dua),
		       kuid_new() > (SELECT x[1]::kuid FROM t_dua2), snowflake_new() > (SELECT x[1] FROM t_i8a)}, db => $d),
		"t_da:sno,t_dua:sno,t_dua2:kuid,t_i8a:snowflake\nt|t|t|t",
		'A12. fe5ee05: arrays of domains over arrays, domains over uuid[] and bigint[] defaulting to a generator are read (left out without a word)');
	# a column's own default beside its domain's, and a domain whose default calls two generators: each read
	sql(q{CREATE DOMAIN suid AS uuid DEFAULT sno_new()::uuid;
		CREATE TABLE t_both (id suid DEFAULT kuid_new()::uuid);
		INSERT INTO t_both VALUES (kuid_upper_bound(clock_timestamp() + interval '24 s')::uuid);
		CREATE DOMAIN k96 AS uuid DEFAULT kuid96(kuid_new())::uuid; CREATE TABLE t_k96 (id k96);
		INSERT INTO t_k96 VALUES (kuid96(kuid_upper_bound(clock_timestamp() + interval '25 s'))::uuid);}, db => $d);
	is(try(q{SELECT string_agg(tab::text || ':' || generator, ',' ORDER BY tab::text, generator) FROM flakeid_advance_past_all()
		WHERE tab IN ('t_both'::regclass, 't_k96'::regclass) AND advanced_past IS NOT NULL;
		SELECT kuid_new()::uuid > (SELECT id FROM t_both), kuid96(kuid_new())::uuid > (SELECT id FROM t_k96)}, db => $d),
		"t_both:kuid,t_k96:kuid\nt|t",
		'A12. fe5ee05: a uuid column\'s own default beside its domain\'s, and a domain default calling kuid96(kuid_new()), are read by each generator');
	is(try(q{SELECT 'jit=off' = ANY (proconfig) FROM pg_proc WHERE proname = 'flakeid_advance_past_all'}, db => $d), 't',
		'A12. fe5ee05: the call runs without JIT (its listing plan compiled for 10 s a pass on a large catalog)');
	# a transaction that only read, prepared by any role, does not hold up the cutover
	sql(q{GRANT CREATE ON SCHEMA public TO auditor}, db => $d);
	sql(q{SET ROLE auditor; BEGIN; SELECT 1; PREPARE TRANSACTION 'only_read'}, db => $d);
	is(sqlstate_of($node, q{SELECT count(*) FROM flakeid_advance_past_all()}, db => $d), 'ok',
		'A12. fe5ee05: a prepared transaction that only read does not refuse the call (55000, which the operator could not end)');
	sql(q{ROLLBACK PREPARED 'only_read'}, db => $d);
	# the foreign-table hint reads an array's largest element, not the largest array
	sql(q{CREATE EXTENSION file_fdw; CREATE SERVER files FOREIGN DATA WRAPPER file_fdw;
		CREATE FOREIGN TABLE fa (ids sno[]) SERVER files OPTIONS (filename '/dev/null');}, db => $d);
	like(message_of($node, q{SELECT count(*) FROM flakeid_advance_past_all()}, db => $d),
		qr/HINT: .*\(SELECT max\(e1\.v\) FROM public\.fa AS t, unnest\(t\.ids\) AS e1\(v\)\)/,
		'A12. fe5ee05: the foreign-table hint for an array column reads its largest element (max of the arrays is by dictionary order)');
}

# A13 (the seventh audit, fe5ee05..ea94fac)
{
	my $d = db('read_seventh');
	# a prepared transaction of any role that wrote a shared catalog (ALTER ROLE) or locked rows FOR
	# UPDATE wrote no row here: the call runs
	sql(q{GRANT CREATE ON SCHEMA public TO auditor; CREATE TABLE w (id sno); GRANT SELECT, UPDATE ON w TO auditor;
		CREATE SEQUENCE s; GRANT USAGE ON SEQUENCE s TO auditor;}, db => $d);
	sql(q{SET ROLE auditor; BEGIN; ALTER ROLE auditor SET work_mem = '8MB'; PREPARE TRANSACTION 'role_setting'}, db => $d);
	sql(q{SET ROLE auditor; BEGIN; SELECT * FROM w FOR UPDATE; PREPARE TRANSACTION 'for_update'}, db => $d);
	sql(q{SET ROLE auditor; BEGIN; SELECT nextval('s'); PREPARE TRANSACTION 'next_value'}, db => $d);
	is(sqlstate_of($node, q{SELECT count(*) FROM flakeid_advance_past_all()}, db => $d), 'ok',
		'A13. ea94fac: prepared transactions that wrote a shared catalog, locked rows FOR UPDATE or called nextval() do not refuse the call');
	sql(q{ROLLBACK PREPARED 'role_setting'; ROLLBACK PREPARED 'for_update'; ROLLBACK PREPARED 'next_value'; ALTER ROLE auditor RESET work_mem}, db => $d);
	# a chain of nine domains whose defaults each call three generators: listed in a bound, not in
	# their power (the listing's rows grew four times a level; nine took minutes)
	sql(join('', map {
		my $base = $_ == 0 ? 'uuid' : 'e' . ($_ - 1);
		"CREATE DOMAIN e$_ AS $base DEFAULT coalesce(sno_new()::uuid, siq_new('user')::uuid, kuid96(kuid_new())::uuid);"
	} 0 .. 8) . ' CREATE TABLE chain (id e8)', db => $d);
	is(sqlstate_of($node, q{SET statement_timeout = '60s'; SELECT count(*) FROM flakeid_advance_past_all()}, db => $d), 'ok',
		'A13. ea94fac: nine domains whose defaults call three generators each: the call ends within 60 s');
	# a bigint column defaulting to snowflake_new_at() is a snowflake column
	sql(q{CREATE TABLE at_ (id bigint DEFAULT snowflake_new_at(now()));
		INSERT INTO at_ VALUES (snowflake_from_parts(clock_timestamp() + interval '26 s', 31, 31, 4095));}, db => $d);
	is(try(q{SELECT count(*) FROM flakeid_advance_past_all() WHERE tab = 'at_'::regclass AND generator = 'snowflake';
		SELECT snowflake_new() > (SELECT id FROM at_)}, db => $d), "1\nt",
		'A13. ea94fac: a bigint column defaulting to snowflake_new_at() is read (only snowflake_new() counted)');
	# the foreign-table hint: one unnest for each level of an array of a domain over an array
	sql(q{CREATE DOMAIN d_i8arr AS bigint[] DEFAULT ARRAY[snowflake_new()];
		CREATE EXTENSION file_fdw; CREATE SERVER files FOREIGN DATA WRAPPER file_fdw;
		CREATE FOREIGN TABLE fn (a d_i8arr[]) SERVER files OPTIONS (filename '/dev/null');}, db => $d);
	like(message_of($node, q{SELECT count(*) FROM flakeid_advance_past_all()}, db => $d),
		qr/HINT: .*\(SELECT max\(e2\.v\) FROM public\.fn AS t, unnest\(t\.a\) AS e1\(v\), unnest\(e1\.v\) AS e2\(v\)\)/,
		'A13. ea94fac: the foreign-table hint unnests each level of an array of a domain over an array');
}

# A14 (the eighth review and audit, ea94fac..e18af53)
{
	my $d = db('read_eighth');
	# prepared transactions that wrote nothing here: a large object read, and FOR UPDATE with a writer
	# waiting for it (whose own lock was counted as the prepared transaction's)
	sql(q{GRANT CREATE ON SCHEMA public TO auditor; CREATE TABLE w (id sno); INSERT INTO w VALUES (sno_new());
		GRANT SELECT, UPDATE ON w TO auditor; SELECT lo_from_bytea(4242, 'x'); ALTER LARGE OBJECT 4242 OWNER TO auditor;}, db => $d);
	sql(q{SET ROLE auditor; BEGIN; SELECT lo_get(4242); PREPARE TRANSACTION 'lo_read'}, db => $d);
	sql(q{SET ROLE auditor; BEGIN; SELECT * FROM w FOR UPDATE; PREPARE TRANSACTION 'for_update'}, db => $d);
	my $writer = psql_start($node, q{UPDATE w SET id = id}, db => $d);
	ok($node->poll_query_until($d, q{SELECT EXISTS (SELECT FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted)}),
		'A14. (a writer waits for the prepared FOR UPDATE)');
	is(sqlstate_of($node, q{SELECT count(*) FROM flakeid_advance_past_all()}, db => $d), 'ok',
		'A14. e18af53: a prepared large-object read, and a prepared FOR UPDATE with a writer waiting for it, do not refuse the call');
	sql(q{ROLLBACK PREPARED 'lo_read'; ROLLBACK PREPARED 'for_update'}, db => $d);
	psql_finish($writer);
	# a function of the user's named like a generator is no generator
	sql(q{SET ROLE owner; CREATE FUNCTION snowflake_new_at(text) RETURNS bigint LANGUAGE sql AS 'SELECT 9000000000000000000::bigint';
		CREATE TABLE own_gen (x bigint DEFAULT snowflake_new_at('a')); INSERT INTO own_gen DEFAULT VALUES;}, db => $d);
	is(try(q{SELECT count(*) FROM flakeid_advance_past_all() WHERE tab = 'own_gen'::regclass}, db => $d), '0',
		'A14. e18af53: a column defaulting to the user\'s own snowflake_new_at(text) is not a snowflake column (it was refused 22023)');
	# a chain of 4,000 domains over bigint: walked from the column down, not across pg_type at each level
	sql(q{SET ROLE owner; DO $$ BEGIN
			CREATE DOMAIN c0 AS bigint DEFAULT snowflake_new();
			FOR i IN 1..3999 LOOP EXECUTE format('CREATE DOMAIN c%s AS c%s', i, i - 1); END LOOP;
		END $$; CREATE TABLE deep (x c3999);
		INSERT INTO deep VALUES (snowflake_from_parts(clock_timestamp() + interval '27 s', 31, 31, 4095));}, db => $d);
	is(try(q{SET statement_timeout = '60s'; SELECT count(*) FROM flakeid_advance_past_all() WHERE tab = 'deep'::regclass;
		SELECT snowflake_new() > (SELECT x FROM deep)}, db => $d), "1\nt",
		'A14. e18af53: a column of the last of 4,000 domains over bigint is read, within 60 s (83 s on e18af53)');
}

# A15 (the ninth review, e18af53..9f4109d)
{
	my $d = db('read_ninth');
	# a column at every level of a chain of 3,000 domains: each type walked once, not once for each
	# column type above it (3,000 * 3,000 / 2 steps; any role can make them in pg_temp)
	sql(q{SET ROLE owner; DO $$ BEGIN
			CREATE DOMAIN k0 AS bigint DEFAULT snowflake_new(); CREATE TABLE comb0 (x k0);
			FOR i IN 1..2999 LOOP
				EXECUTE format('CREATE DOMAIN k%s AS k%s', i, i - 1);
				EXECUTE format('CREATE TABLE comb%s (x k%s)', i, i);
			END LOOP;
		END $$;
		INSERT INTO comb2999 VALUES (snowflake_from_parts(clock_timestamp() + interval '28 s', 31, 31, 4095));}, db => $d);
	is(try(q{SET statement_timeout = '60s'; SELECT count(*) FROM flakeid_advance_past_all() WHERE tab::text LIKE 'comb%';
		SELECT snowflake_new() > (SELECT x FROM comb2999)}, db => $d), "3000\nt",
		'A15. 9f4109d: columns of each of 3,000 domains in a chain are read, within 60 s (over 60 s on 9f4109d)');
	# a function of a user's in the extension's schema that returns sno is no generator of ours
	sql(q{SET ROLE owner; CREATE FUNCTION my_sno(text) RETURNS sno LANGUAGE sql AS 'SELECT $1::sno';
		CREATE TABLE own_sno (u uuid DEFAULT my_sno('x')::uuid);
		INSERT INTO own_sno VALUES ((sno_lower_bound(now() + interval '1 day'))::uuid);}, db => $d);
	is(try(q{SELECT count(*) FROM flakeid_advance_past_all() WHERE tab = 'own_sno'::regclass}, db => $d), '0',
		'A15. 9f4109d: a uuid column defaulting to a user\'s own function returning sno is not an sno column (it was refused 22023)');
}

# A16 (the tenth review, 9f4109d..ed34037)
{
	my $d = db('read_tenth');
	# the listing's helper, PUBLIC's, given no type (OID 0): no row, not a crash of the server
	is(try(q{SET ROLE auditor; SELECT count(*) FROM flakeid_advance_past_types('{0}', '{}')}, db => $d), '0',
		'A16. ed34037: flakeid_advance_past_types of OID 0 is no row (a NULL dereference crashed the server)');
	# an array nested 3,000 deep through a chain of domains: the read's recursion stops at
	# max_stack_depth (54001), it does not run past the stack
	my $expr = 'ARRAY[sno_new()]::n0';
	$expr = "ARRAY[$expr]::n$_" for 1 .. 3000;
	# (7MB: the parser's own recursion over the nested expression)
	sql(q{SET max_stack_depth = '7MB'; SET ROLE owner; DO $$ BEGIN
			CREATE DOMAIN n0 AS sno[];
			FOR i IN 1..3000 LOOP EXECUTE format('CREATE DOMAIN n%s AS n%s[]', i, i - 1); END LOOP;
		END $$;} . "CREATE TABLE deepnest (v n3000); INSERT INTO deepnest VALUES ($expr);", db => $d);
	is(sqlstate_of($node, q{SET max_stack_depth = '100kB'; SELECT flakeid_advance_past_read('deepnest', 'v', 1::int2, 'n3000')}, db => $d),
		'54001', 'A16. ed34037: reading an array nested 3,000 deep stops at max_stack_depth (the recursion was unchecked)');
	is(try(q{SELECT flakeid_advance_past_read('deepnest', 'v', 1::int2, 'n3000') IS NOT NULL}, db => $d), 't',
		'A16. ... and at the default max_stack_depth it is read');
	sql(q{DROP TABLE deepnest}, db => $d);
	# a chain of 2,000 tables inheriting one another, the default at its foot: pg_inherits is
	# looked up by its index, once a table, not scanned whole at each level of the chain
	sql(q{SET ROLE owner; DO $$ BEGIN
			CREATE TABLE h0 (x bigint);
			FOR i IN 1..2000 LOOP EXECUTE format('CREATE TABLE h%s () INHERITS (h%s)', i, i - 1); END LOOP;
			ALTER TABLE h2000 ALTER x SET DEFAULT snowflake_new();
		END $$;
		SELECT pg_stat_force_next_flush();}, db => $d);   # (a backend's counts reach the view once flushed: before it is idle)
	my $before = sql(q{SET stats_fetch_consistency = none; SELECT seq_scan FROM pg_stat_sys_tables WHERE relname = 'pg_inherits'}, db => $d);
	like(try(q{SELECT count(*) FROM flakeid_advance_past_all() WHERE tab = 'h0'::regclass; SELECT pg_stat_force_next_flush()}, db => $d),
		qr/^1\b/, 'A16. (the chain is read once, at its top)');
	my $after = sql(q{SET stats_fetch_consistency = none; SELECT seq_scan FROM pg_stat_sys_tables WHERE relname = 'pg_inherits'}, db => $d);
	cmp_ok($after - $before, '<', 100,
		"A16. ed34037: the listing of a chain of 2,000 inheriting tables scans pg_inherits whole fewer than 100 times (it scanned it at each level; here @{[ $after - $before ]})");
}

# A17 (the tenth audit, e18af53..ed34037)
{
	my $d = db('read_tenth_audit');
	# another session's temporary tables of 1,600 columns each, beside 100 entries of skip: one row a
	# table, and the entries matched by hashed equalities (160,000 rows and 114 s on 6617ce4).  The
	# rows are what is checked: the statement's time is printed, not asserted (CI's loaded machine
	# once took over 60 s; the statement_timeout is only a backstop against a hang)
	sql(q{DO $$ BEGIN FOR t IN 1..100 LOOP EXECUTE format('CREATE TABLE s%s (id sno)', t); END LOOP; END $$}, db => $d);
	my $temp = session($node, connstr => $node->connstr($d) . ' user=auditor');
	$temp->query(q{DO $$ BEGIN FOR t IN 1..100 LOOP
		EXECUTE format('CREATE TEMP TABLE f%s (%s)', t, (SELECT string_agg(format('c%s sno', i), ', ') FROM generate_series(0, 1599) i));
		END LOOP; END $$});
	my $listed_at = time;
	is(try(q{SET statement_timeout = '600s';
		SELECT count(*) FILTER (WHERE skipped LIKE 'a temporary table of another session%(1600 columns)' AND col IS NULL)
		       || '/' || count(*) FILTER (WHERE skipped = 'named in skip') || '/' || count(*)
		FROM flakeid_advance_past_all(skip => ARRAY(SELECT 's' || i || '.id' FROM generate_series(1, 100) i))}, db => $d), '100/100/200',
		'A17. 6617ce4: 100 temporary tables of 1,600 columns of another session are 100 rows, and 100 entries of skip are matched: 200 rows in all');
	note(sprintf('A17: the listing took %.1f s', time - $listed_at));
	$temp->close;
	# a default that calls a generator where nothing is read for it: reported, not left out without a word
	sql(q{CREATE TABLE vb (id uuid PRIMARY KEY, note text); CREATE VIEW vv AS SELECT * FROM vb;
		ALTER VIEW vv ALTER id SET DEFAULT sno_new()::uuid;
		CREATE TABLE tx (id text DEFAULT sno_new()::text);}, db => $d);
	is(try(q{SELECT string_agg(tab || '.' || col || ' ' || generator || ': ' || split_part(skipped, ':', 1), '; ' ORDER BY tab::text)
		FROM flakeid_advance_past_all() WHERE tab IN ('vv'::regclass, 'tx'::regclass)}, db => $d),
		"tx.id sno: its default calls a sno generator, but a column of type text is not read for it; vv.id sno: a view's default calls a sno generator",
		'A17. 6617ce4: a view\'s default and a text column\'s that call sno_new() are reported in rows (no row said so)');
	# a prepared transaction that holds only a lock no write takes (SHARE) does not refuse the call; one
	# that built an index holds ACCESS EXCLUSIVE on a relation it made, which no one can tell from a
	# table it made and filled: refused, saying only that it may have written rows
	sql(q{CREATE TABLE ix (id sno); BEGIN; LOCK TABLE ix IN SHARE MODE; PREPARE TRANSACTION 'share'}, db => $d);
	is(sqlstate_of($node, q{SELECT count(*) FROM flakeid_advance_past_all()}, db => $d), 'ok',
		'A17. 6617ce4: a prepared transaction holding SHARE on a table does not refuse the call (it wrote no row)');
	sql(q{ROLLBACK PREPARED 'share'; BEGIN; CREATE INDEX ON ix (id); PREPARE TRANSACTION 'built'}, db => $d);
	like(message_of($node, q{SELECT count(*) FROM flakeid_advance_past_all()}, db => $d),
		qr/DETAIL:  It holds a lock that writing rows takes .* the rows it may have written are seen by no one until it commits/,
		'A17. 6617ce4: a prepared CREATE INDEX is refused saying it may have written rows (it said "the rows it wrote")');
	sql(q{ROLLBACK PREPARED 'built'}, db => $d);
	# a partition whose detach is pending, unreadable for the caller: the 42501 says how to end it
	sql(q{CREATE TABLE dpa (k int, id sno) PARTITION BY LIST (k);
		CREATE TABLE dpa1 PARTITION OF dpa FOR VALUES IN (1); GRANT SELECT ON dpa TO auditor;}, db => $d);
	leave_detach_pending($d, 'dpa', 'dpa1');
	like(message_of($node, q{SET ROLE auditor; SELECT flakeid_advance_past_read('dpa', 'id', 2::int2, 'sno')}, db => $d),
		qr/HINT:  Its detach from public\.dpa is pending .* ALTER TABLE public\.dpa DETACH PARTITION public\.dpa1 FINALIZE/,
		'A17. 6617ce4: the 42501 of a partition whose detach is pending hints at DETACH ... FINALIZE (no hint; skip cannot name it)');
}

# A18 (the eleventh review, 6617ce4..841911f)
{
	my $d = owner_db('read_eleventh');
	# a column of a child's own climbs no parent: 200 defaults of a table under a chain of 500
	sql(q{SET ROLE owner; DO $$ BEGIN
			CREATE TABLE g0 (k int);
			FOR i IN 1..500 LOOP EXECUTE format('CREATE TABLE g%s () INHERITS (g%s)', i, i - 1); END LOOP;
			EXECUTE format('CREATE TABLE gb (%s) INHERITS (g500)',
			               (SELECT string_agg(format('x%s bigint DEFAULT snowflake_new()', j), ', ') FROM generate_series(1, 200) j));
		END $$;}, db => $d);
	is(try(q{SELECT count(*) FROM flakeid_advance_past_defaults(ARRAY(SELECT 'gb'::regclass::oid FROM generate_series(1, 200)),
		ARRAY(SELECT ('x' || j)::name FROM generate_series(1, 200) j), ARRAY(SELECT 'snowflake' FROM generate_series(1, 200)))}, db => $d),
		'200', 'A18. 841911f: 200 defaults of a table\'s own columns, under a chain of 500 parents without them: 200 rows (100,200 on 841911f)');
	# a default changed to call another generator while the call waited: refused (55000), not left unread
	sql(q{SET ROLE owner; CREATE TABLE ga (id sno); CREATE TABLE gt (u uuid DEFAULT sno_new()::uuid); INSERT INTO gt DEFAULT VALUES}, db => $d);
	my ($waited, $status, $out, $err) = while_waiting($d, 'ga', 'ALTER TABLE gt ALTER u SET DEFAULT kuid_new()::uuid; INSERT INTO gt DEFAULT VALUES');
	ok($waited && $status != 0 && $err =~ /column "u" of table public\.gt appeared while flakeid_advance_past_all ran/,
		'A18. 841911f: a default changed to another generator while the call waited: refused (55000), not its kuid IDs left unread')
	  or diag("waited $waited, status $status: $out $err");
	sql(q{DROP TABLE gt}, db => $d);
	# another session's temporary child made while the call waited: reported
	# (a table's child is made by its owner: gp is the auditor's, who holds no other right)
	sql(q{CREATE TABLE gp (id sno); ALTER TABLE gp OWNER TO auditor; SET ROLE owner; CREATE TABLE gq (id sno)}, db => $d);
	my $owner = session($node, connstr => $node->connstr($d) . ' user=owner');
	$owner->query("BEGIN; LOCK TABLE gq IN ACCESS EXCLUSIVE MODE");
	my $job = psql_start($node, q{SET lock_timeout = '300s'; SELECT string_agg(tab::text || ':' || coalesce(skipped, 'advanced'), ',' ORDER BY tab::text)
		FROM flakeid_advance_past_all() WHERE tab::text ~ '(^|\.)(gp|gq|gc)$'}, db => $d);
	ok($node->poll_query_until($d, q{SELECT EXISTS (SELECT FROM pg_locks WHERE relation = 'gq'::regclass AND NOT granted)}),
		'A18. (the call waits for gq, gp already read)');
	my $temp = session($node, connstr => $node->connstr($d) . ' user=auditor');
	$temp->query(q{CREATE TEMP TABLE gc () INHERITS (gp); INSERT INTO gc VALUES (sno_new())});
	$owner->query('COMMIT');
	($status, $out, $err) = psql_finish($job);
	like($out, qr/^gp:advanced,gq:advanced,pg_temp_\d+\.gc:a temporary table of another session/,
		'A18. 841911f: another session\'s temporary child made while the call waited is reported (no row said so)')
	  or diag("$status: $out $err");
	$temp->close;
	$owner->close;
	# another session's temporary tables of 1,600 columns under 3,000 parents: their parents are not
	# aggregated for each column (96 MB of text and 37 s a listing on 841911f)
	sql(q{DO $$ BEGIN FOR i IN 0..2999 LOOP EXECUTE format('CREATE TABLE gq%s (); ALTER TABLE gq%1$s OWNER TO auditor', i); END LOOP; END $$}, db => $d);
	$temp = session($node, connstr => $node->connstr($d) . ' user=auditor');
	$temp->query(q{DO $$ BEGIN FOR t IN 0..9 LOOP
		EXECUTE format('CREATE TEMP TABLE gw%s (%s) INHERITS (%s)', t,
		               (SELECT string_agg(format('c%s sno', i), ', ') FROM generate_series(0, 1599) i),
		               (SELECT string_agg('public.gq' || i, ', ') FROM generate_series(0, 2999) i));
		END LOOP; END $$});
	is(try(q{SET statement_timeout = '30s'; SELECT count(*) FROM flakeid_advance_past_all() WHERE skipped LIKE '%(1600 columns)'}, db => $d), '10',
		'A18. 841911f: 10 temporary tables of 1,600 columns under 3,000 parents: 10 rows, within 30 s (over 30 s on 841911f)');
	$temp->close;
	# a partition whose detach is pending in a schema the caller may not use: the hint names USAGE
	sql(q{CREATE SCHEMA hid; CREATE TABLE hp (k int, id sno) PARTITION BY LIST (k);
		CREATE TABLE hid.hp1 PARTITION OF hp FOR VALUES IN (1); GRANT SELECT ON hp TO auditor}, db => $d);
	leave_detach_pending($d, 'hp', 'hid.hp1');
	like(message_of($node, q{SET ROLE auditor; SELECT flakeid_advance_past_read('hp', 'id', 2::int2, 'sno')}, db => $d),
		qr/ERROR:  permission denied for schema hid\nHINT:  .* which needs USAGE on schema hid /,
		'A18. 841911f: a detach-pending partition in a schema the caller may not use: the hint names USAGE on it (it said SELECT)');
}

# A19 (the eleventh audit, 6617ce4^..841911f)
{
	my $d = db('read_eleventh_audit');
	# flakeid_advance_past_types given 2,000,000 generators (one real) over a chain of 400 domains:
	# each level's set is of the distinct generators (a bitmap of 2,000,000 bits a level on a6ac7e2)
	sql(q{DO $$ BEGIN
			CREATE DOMAIN m0 AS bigint DEFAULT snowflake_new();
			FOR i IN 1..400 LOOP EXECUTE format('CREATE DOMAIN m%s AS m%s', i, i - 1); END LOOP;
		END $$}, db => $d);
	my ($before, $rows, $after) = split /\n/, try(q{
		SELECT substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\s+(\d+)');
		SELECT count(*) FROM flakeid_advance_past_types(ARRAY(SELECT ('m' || i)::regtype::oid FROM generate_series(0, 400) i),
			array_fill(0::oid, ARRAY[2000000]) || 'snowflake_new()'::regprocedure::oid);
		SELECT substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\s+(\d+)')}, db => $d) // '';
	ok(defined $after && $rows == 401 && $after - $before < 60000,
		'A19. a6ac7e2: flakeid_advance_past_types of 2,000,000 generators over 400 domains grows the backend by less than 60 MB (here ' . (($after // 0) - ($before // 0)) . ' kB)');
	# a default that calls a generator through an operator whose function it is: read
	sql(q{CREATE OPERATOR !# (RIGHTARG = int, FUNCTION = sno_new);
		CREATE TABLE t_op (id uuid DEFAULT (!# 0)::uuid);
		INSERT INTO t_op VALUES (sno_from_parts(clock_timestamp() + interval '30 s', 0, 1, 0)::uuid)}, db => $d);
	is(try(q{SELECT count(*) FROM flakeid_advance_past_all() WHERE tab = 't_op'::regclass AND generator = 'sno';
		SELECT sno_new() > (SELECT max(id::sno) FROM t_op)}, db => $d), "1\nt",
		'A19. a6ac7e2: a uuid column defaulting through an operator over sno_new() is read (no row, and new IDs below its rows)');
}

# A20 (the twelfth review and audit, 841911f..a66d6d0)
{
	my $d = db('read_twelfth');
	# PUBLIC's made-up column names: looked up by pg_attribute's index, so no negative catalog-cache
	# entry outlives the call (a6ac7e2 left one a name: 1 GB of a backend after a million)
	sql(q{CREATE TABLE up0 (id bigint); CREATE TABLE up1 () INHERITS (up0)}, db => $d);
	my ($cache_before, $rows, $cache_after) = split /\n/, try(q{
		SELECT sum(total_bytes) FROM pg_backend_memory_contexts WHERE name = 'CacheMemoryContext';
		SELECT count(*) FROM flakeid_advance_past_defaults(array_fill('up1'::regclass::oid, ARRAY[200000]),
			ARRAY(SELECT ('n' || i)::name FROM generate_series(1, 200000) i), array_fill('sno'::text, ARRAY[200000]));
		SELECT sum(total_bytes) FROM pg_backend_memory_contexts WHERE name = 'CacheMemoryContext'}, db => $d) // '';
	ok(defined $cache_after && $rows == 200000 && $cache_after - $cache_before < 4_000_000,
		'A20. a66d6d0: 200,000 made-up column names leave the catalog cache less than 4 MB larger (here '
		  . int((($cache_after // 0) - ($cache_before // 0)) / 1024) . ' kB)');
	# a generator that is none of the five is refused: a caller's own names each climbed every parent
	is(sqlstate_of($node, q{SELECT count(*) FROM flakeid_advance_past_defaults(ARRAY['up1'::regclass::oid], ARRAY['id'::name], ARRAY['g1'])},
			db => $d), '22023',
		'A20. a66d6d0: flakeid_advance_past_defaults refuses a generator that is none of the five (22023; 20,000 names under 201 parents gave 4 M rows)');
	# PUBLIC's distinct OIDs as generators: only the extension's functions are kept, so 5,000,000
	# distinct OIDs cost what 5,000,000 repeated ones do (36 bytes of hash each on a66d6d0)
	my $peak = sub {
		my ($oid) = @_;
		my ($before, $n, $after) = split /\n/, try(qq{
			SELECT substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\\s+(\\d+)');
			SELECT count(*) FROM flakeid_advance_past_types(ARRAY['int8'::regtype::oid], ARRAY(SELECT ($oid)::oid FROM generate_series(1, 5000000) g));
			SELECT substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\\s+(\\d+)')}, db => $d) // '';
		return defined $after && $n == 1 ? $after - $before : undef;
	};
	my ($repeated, $distinct) = ($peak->('g % 2'), $peak->('g'));
	ok(defined $distinct && defined $repeated && $distinct - $repeated < 40000,
		'A20. a66d6d0: flakeid_advance_past_types of 5,000,000 distinct OIDs grows the backend no more than of 5,000,000 repeated ones, within 40 MB (here '
		  . ($distinct // 'none') . ' kB against ' . ($repeated // 'none') . ' kB)');
	# a detach-pending partition's hint names who may finish the detach (the parent's owner), and all the read needs
	sql(q{CREATE ROLE part_owner; CREATE SCHEMA hid2; CREATE TABLE hq (k int, id sno) PARTITION BY LIST (k);
		CREATE TABLE hid2.hq1 PARTITION OF hq FOR VALUES IN (1); GRANT SELECT ON hq TO auditor;
		ALTER TABLE hid2.hq1 OWNER TO part_owner}, db => $d);
	leave_detach_pending($d, 'hq', 'hid2.hq1');
	like(message_of($node, q{SET ROLE auditor; SELECT flakeid_advance_past_read('hq', 'id', 2::int2, 'sno')}, db => $d),
		qr/HINT:  Its detach from public\.hq is pending .*: the owner of public\.hq or a superuser finishes it with ALTER TABLE public\.hq DETACH PARTITION hid2\.hq1 FINALIZE; .* which needs USAGE on schema hid2 and SELECT on hid2\.hq1 /,
		'A20. a66d6d0: the hint names the partitioned table\'s owner, who may finish the detach ("its owner" read as the partition\'s), and USAGE and SELECT both');
}

# A21 (the thirteenth audit, a66d6d0..d9ce36e)
{
	my $d = db('read_thirteenth');
	# PUBLIC's made-up type OIDs: pg_type read by its index, so no negative catalog-cache entry
	# outlives the call (d9ce36e kept one an OID: 150 MB of a backend after a million)
	my ($cache_before, $rows, $cache_after) = split /\n/, try(q{
		SELECT sum(total_bytes) FROM pg_backend_memory_contexts WHERE name = 'CacheMemoryContext';
		SELECT count(*) FROM flakeid_advance_past_types(ARRAY(SELECT g::oid FROM generate_series(200000000, 200299999) g), '{}');
		SELECT sum(total_bytes) FROM pg_backend_memory_contexts WHERE name = 'CacheMemoryContext'}, db => $d) // '';
	ok(defined $cache_after && $rows == 300000 && $cache_after - $cache_before < 4_000_000,
		'A21. d9ce36e: 300,000 made-up type OIDs leave the catalog cache less than 4 MB larger (here '
		  . int((($cache_after // 0) - ($cache_before // 0)) / 1024) . ' kB)');
}

# 8. snowflake_adopt advances the generator past the maximum: with the clock stepped back 5 s
# right after it (before the generator's own counter reached the old keys), new keys still sort after them
{
	my $d = db('adopt');
	sql(q{CREATE TABLE legacy (id bigserial PRIMARY KEY, note text);
		INSERT INTO legacy (id, note) VALUES (snowflake_lower_bound(clock_timestamp() - interval '200 ms'), 'old');
		SELECT snowflake_adopt('legacy', 'id');}, db => $d);
	is(try(q{SET flakeid.debug_clock_offset_ms = -5000;
		SELECT count(*) FILTER (WHERE v <= (SELECT max(id) FROM legacy)) FROM (SELECT snowflake_new() AS v FROM generate_series(1, 100)) s},
		db => $d), '0', '8. b583abf: snowflake_adopt: after a clock step back of 5 s, 0 of 100 new snowflakes sort at or before the old keys');
}

# R3. the update from 1.3: what an operator granted on 1.3's functions (the new signature of
# flakeid_advance_past_all included), and a grant to PUBLIC, outlive ALTER EXTENSION UPDATE; a
# table owner granted snowflake_adopt alone adopts (it needs no right to snowflake_advance_past);
# pg_dump still dumps the carried grant (pg_init_privs as a fresh install's)
{
	my $d = 'from_13';
	fresh_db($node, $d);
	sql(q{CREATE EXTENSION flakeid VERSION '1.3';
		GRANT CREATE ON SCHEMA public TO owner;
		GRANT EXECUTE ON FUNCTION flakeid_advance_past_all(timestamptz) TO operator;
		GRANT EXECUTE ON FUNCTION snowflake_adopt(regclass, name) TO owner;
		GRANT EXECUTE ON FUNCTION sno_advance_past(sno) TO PUBLIC;
		ALTER EXTENSION flakeid UPDATE;
		CREATE TABLE orders (id sno); INSERT INTO orders VALUES (sno_new());
		CREATE TABLE other (id sno);
		GRANT SELECT ON orders TO operator;}, db => $d);
	is(sqlstate_of($node, q{SET ROLE operator; SELECT count(*) FROM flakeid_advance_past_all(skip => '{other.id}')}, db => $d), 'ok',
		"R3. updated from 1.3: the operator granted flakeid_advance_past_all in 1.3 calls 1.4's (with skip)");
	is(sqlstate_of($node, q{SET ROLE auditor; SELECT sno_advance_past(sno_upper_bound(clock_timestamp() - interval '1 hour'))}, db => $d), 'ok',
		"R3. 6281a75: ... a grant to PUBLIC on sno_advance_past made in 1.3 is kept");
	sql(q{SET ROLE owner;
		CREATE TABLE legacy (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text);
		INSERT INTO legacy OVERRIDING SYSTEM VALUE VALUES (snowflake_lower_bound(clock_timestamp() - interval '200 ms'), 'old');},
		db => $d);
	is(sqlstate_of($node, q{SET ROLE owner; SELECT snowflake_adopt('legacy', 'id')}, db => $d) . ' '
		. (try(q{SET flakeid.debug_clock_offset_ms = -5000;
		SELECT count(*) FILTER (WHERE v <= (SELECT max(id) FROM legacy)) FROM (SELECT snowflake_new() AS v FROM generate_series(1, 100)) s},
		db => $d) // 'failed'), 'ok 0',
		'R3. ... a table owner granted snowflake_adopt alone adopts, and after a clock step back of 5 s 0 of 100 new snowflakes sort at or before the old keys');
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'pg_dump', '-d', $node->connstr($d) ], '>', \$out, '2>', \$err);
	like($out, qr/^GRANT ALL ON FUNCTION public\.flakeid_advance_past_all\(past timestamp with time zone, skip text\[\].*\) TO operator;$/m,
		"R3. ... and pg_dump dumps the operator's carried grant (the new function's initial privileges are a fresh install's)");
}

# 1. another session's temporary table: reported in a row, not an abort
{
	my $d = db('temp_other');
	sql("CREATE TABLE orders (id sno); INSERT INTO orders VALUES (sno_new())", db => $d);
	my $auditor = session($node, connstr => $node->connstr($d) . ' user=auditor');
	$auditor->query('CREATE TEMP TABLE t (id sno); INSERT INTO t VALUES (sno_new())');
	is(sqlstate_of($node, 'SELECT flakeid_advance_past_all()', db => $d), 'ok',
		"1. b583abf: another session's temporary table does not abort flakeid_advance_past_all");
	is((try(q{SELECT string_agg(tab || '.' || col || ': ' || coalesce(skipped, 'advanced past ' || (advanced_past IS NOT NULL)), '; ' ORDER BY tab::text)
		FROM flakeid_advance_past_all()}, db => $d) // '') =~ s/pg_temp_\d+/pg_temp_N/r,
		"orders.id: advanced past true; pg_temp_N.t.id: a temporary table of another session (or left by a crash): no other session can read it",
		'1. b583abf: ... it is reported in its row, and the other table advanced');
	# R6. a temporary table of another session named like one of the database's, and skip's duplicates
	# (other sessions' temporary tables are left out by their row's reason, not by the name: a session
	# that has just ended may still be dropping its own, whose regclass then reads as a bare OID; CI of
	# 368a37c on 18 saw that row)
	my $not_others = q{coalesce(skipped, '') NOT LIKE 'a temporary table of another session%'};
	$auditor->query('CREATE TEMP TABLE orders (id sno)');
	is(try(qq{SELECT string_agg(coalesce(skipped, 'advanced'), '; ' ORDER BY tab::text, skipped)
		FROM flakeid_advance_past_all(skip => ARRAY['orders.id', 'orders.id', 'public.orders.id', '"orders"."id"']) WHERE $not_others}, db => $d),
		'named in skip', "R6. 6281a75: skip naming orders.id twice and as public.orders.id, beside another session's temporary orders: no 42702, the column left out");
	is(sqlstate_of($node, q{CREATE TEMP TABLE orders (id sno); SELECT flakeid_advance_past_all(skip => '{orders.id}')}, db => $d), '42702',
		"R6. b583abf: ... while this session's own temporary orders and public.orders make orders.id ambiguous (42702)");
	is(try(qq{CREATE TEMP TABLE orders (id sno);
		SELECT string_agg(x, '; ' ORDER BY x) FROM (SELECT coalesce(skipped, 'advanced') AS x
		FROM flakeid_advance_past_all(skip => '{pg_temp.orders.id}') WHERE $not_others) s}, db => $d),
		'advanced; named in skip', "R6. b583abf: ... and pg_temp.orders.id names this session's own");
	# an orphan of a crash: the session's temporary tables stay after an immediate stop (once the
	# checks' own sessions have dropped theirs: a backend drops them after psql has gone)
	ok($node->poll_query_until($d, q{SELECT count(*) = 2 FROM pg_class WHERE relpersistence = 't' AND relkind = 'r'}),
		"1. (only the auditor's two temporary tables are left)");
	$node->stop('immediate');
	eval { $auditor->close };
	$node->start;
	is(try(q{SELECT count(*) FILTER (WHERE skipped LIKE 'a temporary table of another session%') || '/' || count(*) FROM flakeid_advance_past_all()},
		db => $d), '2/3', "1. b583abf: temporary tables left by a crash are reported too");
}

# 2. row-level security.  (a) a policy calling a function that advances the snowflake generator
# 59 s ahead, which its owner could not call: run as the operator, it must not run
{
	my $d = db('rls_code');
	sql(q{SET ROLE owner;
		CREATE TABLE t (id bigint DEFAULT snowflake_new(), hidden boolean DEFAULT false);
		INSERT INTO t (hidden) VALUES (false), (true);
		CREATE FUNCTION visible(bigint) RETURNS boolean LANGUAGE plpgsql AS $$
			BEGIN PERFORM public.snowflake_advance_past(public.snowflake_lower_bound(clock_timestamp() + interval '59 s')); RETURN true; END $$;
		CREATE POLICY p ON t USING (visible(id));
		ALTER TABLE t ENABLE ROW LEVEL SECURITY;
		GRANT SELECT ON t TO operator;}, db => $d);
	is(sqlstate_of($node, 'SET ROLE operator; SELECT flakeid_advance_past_all()', db => $d), '42501',
		"2. b583abf: the operator's call on a table under row-level security is refused (42501)");
	within(try(q{SELECT extract(epoch FROM snowflake_time(snowflake_new()) - clock_timestamp())}, db => $d), -60, 40,
		"2. b583abf: ... and the policy's code did not run as the operator: snowflake_new() is not 59 s ahead");
	is(try(q{SELECT advanced_past::bigint = (SELECT max(id) FROM t) FROM flakeid_advance_past_all()}, db => $d), 't',
		'2. a superuser bypasses the policy and advances past the true maximum');
}
# (b) a policy hiding the largest ID: the operator never takes a filtered maximum
{
	my $d = db('rls_hide');
	sql(q{SET ROLE owner;
		CREATE TABLE t (id sno, hidden boolean);
		INSERT INTO t VALUES (sno_new(), false), (sno_from_parts(clock_timestamp() + interval '20 s', 255, 65535, 65535, 1), true);
		CREATE POLICY p ON t USING (NOT hidden);
		ALTER TABLE t ENABLE ROW LEVEL SECURITY;
		GRANT SELECT ON t TO operator;}, db => $d);
	is(sqlstate_of($node, 'SET ROLE operator; SELECT flakeid_advance_past_all()', db => $d), '42501',
		'2. b583abf: a policy hiding rows: refused (42501), no filtered maximum');
	is(try(q{SET ROLE operator; SELECT sno_new() > (SELECT max(id) FROM t WHERE NOT hidden)}, db => $d), 't',
		'2. (the operator sees the smaller ID only)');
	like(try(q{SET ROLE operator; SELECT skipped FROM flakeid_advance_past_all(skip => '{t.id}')}, db => $d), qr/^named in skip$/,
		'2. b583abf: the operator may leave the table out knowingly (skip), and the row says so');
}

# 3. R4. domains over every type, domains over bigint that are snowflakes (a column default calling
# snowflake_new(), or the domain's own), and arrays: each column in a database of its own, each
# further ahead than the one before of its generator, so that each check needs its own column
{
	my $domains = q{CREATE DOMAIN d_sno AS sno; CREATE DOMAIN d_siq AS siq; CREATE DOMAIN d_kuid AS kuid; CREATE DOMAIN d_kuid96 AS kuid96;
		CREATE DOMAIN d_big AS bigint; CREATE DOMAIN d_flake AS bigint DEFAULT snowflake_new(); CREATE DOMAIN d_flake2 AS d_flake;};
	my @columns = (
		[ 'sno1', 'd_sno', 'sno_from_parts(%s, 255, 65535, 65535, 1)', 20, 'sno_new() > max(v)', '%s::sno', 'a domain over sno' ],
		[ 'sno2', 'd_sno[]', 'ARRAY[sno_from_parts(%s, 255, 65535, 65535, 1)::d_sno]', 21, 'sno_new() > max(v)', 'unnest(%s)::sno', 'an array of it' ],
		[ 'siq1', 'd_siq', "siq_from_parts(%s, 255, 4294967295, 'message', 0)", 20, "siq_new('message') > max(v)", '%s::siq', 'a domain over siq' ],
		[ 'siq2', 'd_siq[]', "ARRAY[siq_from_parts(%s, 255, 4294967295, 'message', 0)::d_siq]", 21, "siq_new('message') > max(v)", 'unnest(%s)::siq', 'an array of it' ],
		[ 'kuid1', 'd_kuid', 'kuid_upper_bound(%s)', 20, 'kuid_new() > max(v)', '%s::kuid', 'a domain over kuid' ],
		[ 'kuid2', 'd_kuid[]', 'ARRAY[kuid_upper_bound(%s)::d_kuid]', 21, 'kuid_new() > max(v)', 'unnest(%s)::kuid', 'an array of it' ],
		[ 'kuid3', 'd_kuid96', "kuid96(kuid_upper_bound(%s), $own)", 22, 'kuid96_new() > max(v)', '%s::kuid96', 'a domain over kuid96' ],
		[ 'kuid4', 'd_kuid96[]', "ARRAY[kuid96(kuid_upper_bound(%s), $own)::d_kuid96]", 23, 'kuid96_new() > max(v)', 'unnest(%s)::kuid96', 'an array of it' ],
		[ 'flake1', 'd_big DEFAULT snowflake_new()', 'snowflake_upper_bound(%s)', 20, 'snowflake_new() > max(v)', '%s::bigint',
			'a domain over bigint, the column DEFAULT snowflake_new()' ],
		[ 'flake2', 'd_flake', 'snowflake_upper_bound(%s)', 21, 'snowflake_new() > max(v)', '%s::bigint', 'a domain over bigint DEFAULT snowflake_new()' ],
		[ 'flake3', 'd_flake2', 'snowflake_upper_bound(%s)', 22, 'snowflake_new() > max(v)', '%s::bigint', 'a domain over that domain' ],
		[ 'flake4', 'd_flake[]', 'ARRAY[snowflake_upper_bound(%s)::d_flake]', 23, 'snowflake_new() > max(v)', 'unnest(%s)::bigint', 'an array of that domain' ]);
	for my $c (@columns)
	{
		my ($col, $type, $value, $ahead, $check, $elements, $name) = @$c;
		my $d = db("domain_$col");
		sql("$domains CREATE TABLE t ($col $type); INSERT INTO t ($col) VALUES (" . sprintf($value, "clock_timestamp() + interval '$ahead s'") . ')',
			db => $d);
		is(try("SELECT count(*) FILTER (WHERE tab = 't'::regclass AND advanced_past IS NOT NULL) > 0 FROM flakeid_advance_past_all();
			SELECT $check FROM (SELECT " . sprintf($elements, $col) . " AS v FROM t) s", db => $d), "t\nt",
			"3. R4. b583abf: $name ($col $type): advanced past, and then $check");
	}
}

# 4. one far-future row, put in by an INSERT-only role: named with its column, with a hint that is
# true whatever the cause, refused before any generator is advanced, and skippable
{
	my $d = db('far');
	sql(q{CREATE TABLE early (id sno); INSERT INTO early VALUES (sno_from_parts(clock_timestamp() + interval '58 s', 0, 0, 0));
		CREATE TABLE events (id sno); INSERT INTO events VALUES (sno_new()); GRANT INSERT ON events TO auditor;
		SET ROLE auditor; INSERT INTO events VALUES (sno_from_parts('2078-01-01', 0, 0, 0));}, db => $d);
	is(sqlstate_of($node, 'SELECT flakeid_advance_past_all()', db => $d), '22023', '4. a far-future row: 22023');
	within(try(q{SELECT extract(epoch FROM sno_time(sno_new()) - clock_timestamp())}, db => $d), -60, 30,
		'4. R5. b583abf: ... refused before anything is advanced: sno_new() is not 58 s ahead (the table before it was not advanced past)');
	like(message_of($node, 'SELECT flakeid_advance_past_all()', db => $d),
		qr/ERROR:  the largest ID of column "id" of table (public\.)?events lies \d+\.\d+ s ahead of this server's clock\n(.*\n)*HINT:  Either this server's clock is behind the one that issued it .* or the row's time is wrong: .*skip => '\{public\.events\.id\}'/,
		'4. b583abf: ... naming the table and the column, with a hint that names both causes (the clocks, or the row) and skip');
	is(try(q{SELECT skipped FROM flakeid_advance_past_all(skip => '{public.events.id, early.id}') WHERE tab = 'events'::regclass}, db => $d), 'named in skip',
		'4. b583abf: skip leaves it out, and the row says so');
	is(sqlstate_of($node, q{SELECT flakeid_advance_past_all(skip => '{events.nope}')}, db => $d), '42703',
		'4. b583abf: skip naming no such column is an error (a typo does not leave another column in)');
}

# 5. a table the caller cannot read: an error naming it, unless skipped, before anything is advanced;
# R5. SELECT on the column alone is enough (6281a75 refused at LOCK TABLE, which wants the table's,
# after it had advanced the generators of the tables before it)
{
	my $d = db('unreadable');
	sql(q{CREATE TABLE secret (id sno); INSERT INTO secret VALUES (sno_from_parts(clock_timestamp() + interval '20 s', 255, 65535, 65535, 1))}, db => $d);
	is(sqlstate_of($node, 'SET ROLE operator; SELECT flakeid_advance_past_all()', db => $d), '42501',
		'5. b583abf: a table the operator cannot read: 42501, not a silent skip');
	like(message_of($node, 'SET ROLE operator; SELECT flakeid_advance_past_all()', db => $d), qr/column "id" of table (public\.)?secret/,
		'5. b583abf: ... naming it');
	is(sqlstate_of($node, q{SET ROLE operator; SELECT flakeid_advance_past_all(clock_timestamp() + interval '55 s')}, db => $d)
		. ' ' . (try(q{SELECT sno_time(sno_new()) < clock_timestamp() + interval '45 s'}, db => $d) // 'failed'), '42501 t',
		'5. b583abf: refused before anything is advanced: with past 55 s ahead, sno_new() is not');
	is(try(q{SET ROLE operator; SELECT skipped FROM flakeid_advance_past_all(skip => '{secret.id}')}, db => $d), 'named in skip',
		'5. b583abf: skipped only when named');
	my $e = db('column_grant');
	sql(q{CREATE TABLE later (id kuid, note text); INSERT INTO later VALUES (kuid_upper_bound(clock_timestamp() + interval '30 s'), 'x');
		GRANT SELECT (id) ON later TO operator;}, db => $e);
	is(try(q{SET ROLE operator; SELECT string_agg(tab || ' ' || (advanced_past IS NOT NULL), ', ' ORDER BY tab::text) FROM flakeid_advance_past_all();
		RESET ROLE; SELECT kuid_new() > (SELECT max(id) FROM later)}, db => $e), "later true\nt",
		'5. R5. 6281a75: an operator with SELECT on the flakeid column alone (not the table): advanced past it');
}

# 6. a table locked ACCESS EXCLUSIVE by another transaction: with lock_timeout 0 the wait ends
# within 10 s (a 16 s statement_timeout backs the check), the error names the table, nothing is
# advanced before it (R5), and the caller's lock_timeout is as it was afterwards (R2)
{
	my $d = db('locks');
	sql(q{CREATE TABLE early (id sno); INSERT INTO early VALUES (sno_from_parts(clock_timestamp() + interval '59 s', 0, 0, 0));
		CREATE TABLE busy (id sno)}, db => $d);
	my $holder = session($node, db => $d);
	$holder->query('BEGIN; LOCK TABLE busy IN ACCESS EXCLUSIVE MODE');
	my $t0 = time;
	is(sqlstate_of($node, q{SET statement_timeout = '16s'; SELECT flakeid_advance_past_all()}, db => $d), '55P03',
		'6. b583abf: behind an ACCESS EXCLUSIVE lock, with lock_timeout 0: 55P03, not an endless wait');
	within(time - $t0, 5, 14, '6. b583abf: ... after 10 s (and a margin)');
	within(try(q{SELECT extract(epoch FROM sno_time(sno_new()) - clock_timestamp())}, db => $d), -60, 30,
		'6. R5. b583abf: ... and nothing was advanced before it: sno_new() is not 59 s ahead (the table before it was read, not advanced past)');
	like(message_of($node, q{SET lock_timeout = '200ms'; SELECT flakeid_advance_past_all()}, db => $d), qr/could not lock table (public\.)?busy/,
		"6. b583abf: with the session's lock_timeout: the error names the table");
	$holder->query('ROLLBACK');
	$holder->close;
	sql('DELETE FROM early', db => $d);
	is(try(q{BEGIN; SELECT count(*) FROM flakeid_advance_past_all(); SHOW lock_timeout; COMMIT;
		BEGIN; SET LOCAL lock_timeout = '3s'; SELECT count(*) FROM flakeid_advance_past_all(); SHOW lock_timeout; COMMIT;
		SET lock_timeout = '0'; SELECT count(*) FROM flakeid_advance_past_all(); SHOW lock_timeout;}, db => $d),
		"2\n0\n2\n3s\n2\n0", "6. R2. 6281a75: the caller's lock_timeout is as it was after the call (0 in a transaction, SET LOCAL 3s, a session's 0)");
}

# R7. a siq column with a btree index: its largest ID is one descent of the index, not a full read;
# and new siq of every kind sort after it, whatever the kinds in it
{
	my $d = db('siq_index');
	sql(q{CREATE TABLE s (id siq PRIMARY KEY);
		INSERT INTO s SELECT siq_new('message') FROM generate_series(1, 20000);
		INSERT INTO s VALUES (siq_from_parts(clock_timestamp() + interval '20 s', 0, 0, 'message', 0));
		ANALYZE s;}, db => $d);
	is(try(q{BEGIN;
		CREATE TEMP TABLE before AS SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables WHERE relid = 's'::regclass;
		SELECT count(*) FROM flakeid_advance_past_all() WHERE tab = 's'::regclass;
		SELECT x.seq_scan - b.seq_scan || ' ' || (x.idx_scan > b.idx_scan) FROM pg_stat_xact_user_tables x, before b WHERE x.relid = 's'::regclass;
		COMMIT;}, db => $d) =~ s/^\d+\n//r, '0 true',
		"R7. b583abf 6281a75: a siq column with an index: its maximum from the index, no sequential scan");
	is(try(q{SELECT count(*) FILTER (WHERE v <= (SELECT max(id) FROM s)) FROM (SELECT siq_new(k) AS v
		FROM unnest('{ternary,multi,manytomany,content,thread,message,user,tag,group,event,channel,invite,application,collection,premium}'::text[]) k) x}, db => $d),
		'0', 'R7. b583abf 6281a75: ... and 0 of 15 new siq, one of each kind, sort at or before its largest ID (of kind message)');
}

# 7. R1. kuid96's lead: an ID of a node above this server's is passed only at the end of its
# 256-second window.  1.3 took the generator there at once (up to 315 s ahead of the clock); 6281a75
# refused where that end lay more than 60 s ahead (3 calls in 4).  Now the call waits until it lies
# within 60 s.  The session's clock is moved forward (debug offset) to an instant L s before the
# end of a window; each step after the previous one's reach.  (Last in the file: the generators
# stay ahead of the unshifted clock.)
{
	my $d = db('kuid96_lead');
	sql('CREATE TABLE k (id kuid96); GRANT INSERT ON k TO auditor', db => $d);
	# the offset (ms) that puts the clock L s (and a fraction) before the end of a full window, at
	# or after the instant FROM, and that instant (whole seconds)
	my $place = sub {
		my ($left, $from) = @_;
		my $now = sql('SELECT floor(extract(epoch FROM clock_timestamp()))::bigint');
		for my $x (2 .. 1200)
		{
			next if $now + $x < ($from // 0);
			my $sec = ($now + $x) % 1_000_000;
			my $start = $sec - $sec % 256;
			return ($x * 1000, $now + $x) if $start + 255 <= 999_999 && $start + 256 - $sec == $left;
		}
		die 'no window found';
	};
	my $lead = sub {
		my ($offset, $f) = @_;
		return try("SET flakeid.debug_clock_offset_ms = $offset;
			SELECT extract(epoch FROM ${f}_time(${f}_new())) - extract(epoch FROM clock_timestamp()) - $offset / 1000.0", db => $d);
	};
	my ($offset, $at) = $place->(65);
	my $id = sql("SELECT kuid96(kuid_upper_bound(to_timestamp($at + 1)), $own + 1)");
	my $t0 = time;
	is(try("SET flakeid.debug_clock_offset_ms = $offset; SELECT kuid96_advance_past('$id') = '$id'", db => $d), 't',
		'7. R1. 6281a75: kuid96_advance_past of an ID of a higher node whose window ends 65 s ahead: taken');
	within(time - $t0, 3, 8, '7. R1. b583abf: ... after waiting for that end to come within 60 s of the clock (4 to 5 s, and a margin)');
	within($lead->($offset, 'kuid'), -1, 60.5, '7. R1. b583abf: ... kuid_new() lies at most 60 s ahead of the clock');
	within($lead->($offset, 'kuid96'), -1, 60.5, '7. R1. b583abf: ... and kuid96_new() too');
	is(try("SELECT count(*) FILTER (WHERE v <= '$id') FROM (SELECT kuid96_new() AS v FROM generate_series(1, 100)) s", db => $d), '0',
		'7. R1. 6281a75: ... and 0 of 100 new kuid96 sort at or before the ID');
	# the wait ends on a cancel (statement_timeout), and nothing is advanced then
	($offset, $at) = $place->(75, $at + 70);
	$id = sql("SELECT kuid96(kuid_upper_bound(to_timestamp($at + 1)), $own + 1)");
	is(sqlstate_of($node, "SET flakeid.debug_clock_offset_ms = $offset; SET statement_timeout = '1s'; SELECT kuid96_advance_past('$id')", db => $d),
		'57014', '7. R1. b583abf 6281a75: the wait for a window ending 75 s ahead ends on a cancel (57014)');
	within($lead->($offset, 'kuid'), -1, 5, '7. R1. b583abf: ... and nothing was advanced');
	# the same from a row an INSERT-only role put in: flakeid_advance_past_all takes it too
	($offset, $at) = $place->(65, $at + 80);
	$id = sql("SELECT kuid96(kuid_upper_bound(to_timestamp($at + 1)), $own + 1)");
	sql("SET ROLE auditor; INSERT INTO k VALUES ('$id')", db => $d);
	is(try("SET flakeid.debug_clock_offset_ms = $offset; SELECT advanced_past = '$id' FROM flakeid_advance_past_all() WHERE tab = 'k'::regclass", db => $d), 't',
		'7. R1. 6281a75: flakeid_advance_past_all past that row of a higher node whose window ends 65 s ahead: taken');
	within($lead->($offset, 'kuid'), -1, 60.5, '7. R1. b583abf: ... kuid_new() lies at most 60 s ahead of the clock');
	is(try("SELECT count(*) FILTER (WHERE v <= (SELECT max(id) FROM k)) FROM (SELECT kuid96_new() AS v FROM generate_series(1, 100)) s", db => $d), '0',
		'7. R1. 6281a75: ... and 0 of 100 new kuid96 sort at or before it');
	# a window ending within the lead: taken at once
	($offset, $at) = $place->(30, $at + 70);
	$id = sql("SELECT kuid96(kuid_upper_bound(to_timestamp($at + 1)), $own + 1)");
	$t0 = time;
	is(try("SET flakeid.debug_clock_offset_ms = $offset; SELECT kuid96_advance_past('$id') = '$id';
		SELECT count(*) FILTER (WHERE v <= '$id') FROM (SELECT kuid96_new() AS v FROM generate_series(1, 100)) s", db => $d), "t\n0",
		'7. a higher node whose window ends 30 s ahead: advanced, and 0 of 100 new kuid96 sort at or before it');
	within(time - $t0, 0, 2, '7. ... without a wait');
}

stop_checked($node);
done_testing();
