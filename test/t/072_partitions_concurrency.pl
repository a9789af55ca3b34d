# Partitions that keep themselves beside other sessions (issue 82, 1.5's
# eleventh reviewer and auditor; docs/OPERATIONS.md, "Partitions that keep
# themselves"):
#   * a role with PUBLIC's rights holds the most it can take on the
#     registrations (ROW EXCLUSIVE) and is refused every stronger lock, FOR
#     UPDATE, UPDATE and DELETE (42501), while an owner registers, sets, runs
#     and forgets, and pg_dump dumps: all succeed;
#   * a row and its referencing row (ON DELETE CASCADE) committed while a
#     partition for their interval is being made: the referencing row
#     survives (the default partition is locked before its rows are read);
#   * a table with a foreign key comes last in a run: a writer of the
#     table it references waits for that table's making, not for the
#     whole run.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes;

my $node = flakeid_node('upkeep_concurrency', -extension => 0);
my $db = 'upkeep_concurrency';
fresh_db($node, $db);
$node->safe_psql('postgres', "ALTER DATABASE $db SET timezone = 'UTC'");
sub sql { my ($sql, $in) = @_; return $node->safe_psql($in // $db, "SET client_min_messages = warning; $sql"); }
sql('CREATE EXTENSION flakeid');
# A partition left pending detach, as a DETACH ... CONCURRENTLY cancelled
# leaves it: the detach waits for a snapshot another session holds, and its
# statement_timeout ends it (certain on any machine: the snapshot is held
# until after it).
sub left_pending
{
	my ($table, $part) = @_;
	my $holder = session($node, connstr => $node->connstr($db) . ' user=upkeep_app');
	$holder->query("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM $table");
	$node->psql($db, "SET ROLE upkeep_app; SET statement_timeout = '1s'; ALTER TABLE $table DETACH PARTITION $part CONCURRENTLY");
	$holder->query('COMMIT');
	$holder->close;
	return;
}
my $work = PostgreSQL::Test::Utils::tempdir();

# --- a role with PUBLIC's rights beside an owner's upkeep ---------------------------------
# (UPDATE and DELETE granted to PUBLIC let any role lock the registrations
# ACCESS EXCLUSIVE, every run failing after its 1 s lock_timeout and
# flakeid_partition_by_time, forget and pg_dump waiting without end, or lock
# other owners' rows FOR UPDATE, their runs skipping: 1.5's eleventh reviewer)
sql(q{CREATE ROLE upkeep_app LOGIN; CREATE ROLE upkeep_public LOGIN;
      GRANT CREATE ON SCHEMA public TO upkeep_app;
      SET ROLE upkeep_app;
      CREATE TABLE app_events (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id);
      CREATE TABLE app_later (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id);
      SELECT count(*) FROM flakeid_partition_by_time('app_events', '1 day', premake => 1, retain => '3 days')});
my $public = session($node, connstr => $node->connstr($db) . ' user=upkeep_public');
$public->query("\\set VERBOSITY sqlstate\nSELECT 1");
$public->query('BEGIN; LOCK TABLE flakeid_partitions IN ROW EXCLUSIVE MODE');
my @tries = ('LOCK TABLE flakeid_partitions IN ACCESS EXCLUSIVE MODE', 'LOCK TABLE flakeid_partitions IN SHARE MODE',
	'LOCK TABLE flakeid_partitions IN SHARE UPDATE EXCLUSIVE MODE', 'SELECT * FROM flakeid_partitions FOR UPDATE',
	'SELECT * FROM flakeid_partitions FOR KEY SHARE', 'UPDATE flakeid_partitions SET premake = 0', 'DELETE FROM flakeid_partitions',
	'LOCK TABLE flakeid_partition_requests IN ACCESS EXCLUSIVE MODE', 'SELECT * FROM flakeid_partition_requests FOR UPDATE');
my @refused;
for my $try (@tries)
{
	# (each in a savepoint: refused, the ROW EXCLUSIVE held before stays; granted, it is held on)
	my $state = eval { $public->query("SAVEPOINT try; $try"); 'granted' } // ($@ =~ /ERROR:\s+([0-9A-Z]{5})/ ? $1 : $@);
	$public->query('ROLLBACK TO SAVEPOINT try') if $state ne 'granted';
	push @refused, "$state: $try" if $state ne '42501';
}
is(join("\n", @refused), '', 'a role with PUBLIC\'s rights, holding ROW EXCLUSIVE on the registrations, is refused (42501) every stronger lock, FOR UPDATE, UPDATE and DELETE');
# the owner's upkeep meanwhile: each statement within 20 s (without end, before)
my %owner_calls = (
	"SELECT count(*) FROM flakeid_partition_by_time('app_later', '1 day', premake => 1)" => 'registers',
	"SELECT premake FROM flakeid_partition_set('app_events', premake => 2)" => 'sets',
	"SELECT count(*) FILTER (WHERE action IN ('failed', 'skipped')) FROM flakeid_partition_maintenance()" => 'runs every table',
	"SELECT count(*) FILTER (WHERE action IN ('failed', 'skipped')) FROM flakeid_partition_maintenance('app_events', now() + interval '5 days')" => 'runs one table',
	"SELECT flakeid_partition_forget('app_later')" => 'forgets');
my @owner_failed;
for my $call (sort keys %owner_calls)
{
	my ($out, $err) = ('', '');
	$node->psql($db, "SET statement_timeout = '20s'; SET ROLE upkeep_app; $call", stdout => \$out, stderr => \$err, extra_params => [ '-v', 'ON_ERROR_STOP=1' ]);
	push @owner_failed, "$owner_calls{$call}: $out $err" unless $out =~ /^(0|1|2|t|3)$/m && $err eq '';
}
is(join("\n", @owner_failed), '', 'meanwhile the owner registers, sets, runs (nothing failed or skipped) and forgets');
# (its COPY of the registrations waited without end, before: pg_dump sets its
# own statement_timeout and lock_timeout to 0, so an outer bound ends it)
$node->command_ok([ 'timeout', '60', 'pg_dump', '--lock-wait-timeout=20s', '-f', "$work/beside.sql", '-d', $node->connstr($db) ], '... and pg_dump dumps the database');
$public->query('ROLLBACK');
$public->close;
is(sql(q{SELECT parent::text || ' ' || premake FROM flakeid_partitions ORDER BY 1}), 'app_events 2', '... the registrations as the owner left them');

# --- requests are never stored ----------------------------------------------------------
# (stored and deleted, a role's millions of requests, refused or not, left as
# many dead rows that every owner's request scanned: 1.5's thirteenth reviewer)
sql(q{GRANT CREATE ON SCHEMA public TO upkeep_public;
      SET ROLE upkeep_public; CREATE TABLE public_own (id sno PRIMARY KEY) PARTITION BY RANGE (id)});
sql(q{SET ROLE upkeep_public;
      DO $$ BEGIN FOR i IN 1 .. 2000 LOOP
          BEGIN INSERT INTO flakeid_partition_requests (parent, request) VALUES ('public_own', 'set');
          EXCEPTION WHEN others THEN NULL; END; END LOOP; END $$});
sql(q{SET ROLE upkeep_app; SELECT count(*) FROM generate_series(1, 200) g, flakeid_partition_set('app_events', premake => 2)});
is(sql(q{SELECT pg_relation_size('flakeid_partition_requests') || ' ' || (SELECT count(*) FROM flakeid_partition_requests)}),
	'0 0', '2,000 refused requests of a role with PUBLIC\'s rights and 200 of an owner leave the request table of no size: no row is ever stored');
is(sqlstate_of($node, q{SET ROLE upkeep_app; INSERT INTO flakeid_partition_requests (parent, request) VALUES ('app_events', 'bogus')}, db => $db),
	'22023', '... and a request of no known kind is refused (22023), as its table\'s CHECK is never reached');

# --- a row and its referencing row committed while a partition is made -------------------------
# (the referencing rows were checked for before the default partition was
# locked: a row inserted with its ON DELETE CASCADE child, committed while
# the make waited for the lock, was moved, and the child deleted: 1.5's
# eleventh reviewer)
sql(q{CREATE TABLE fk_parent (id sno PRIMARY KEY) PARTITION BY RANGE (id);
      SELECT count(*) FROM flakeid_partition_by_time('fk_parent', '1 day', premake => 0);
      CREATE TABLE fk_parent_default PARTITION OF fk_parent DEFAULT;
      CREATE TABLE fk_child (cid int PRIMARY KEY, ref sno REFERENCES fk_parent (id) ON DELETE CASCADE)});
my $x = session($node, db => $db);
$x->query(q{BEGIN; INSERT INTO fk_parent VALUES (sno_lower_bound(now() - interval '3 days')); INSERT INTO fk_child SELECT 1, id FROM fk_parent});
my $make = psql_start($node, q{SET lock_timeout = '120s'; SELECT action || ': ' || coalesce(detail, '') FROM flakeid_partition_make('fk_parent', now() - interval '3 days')}, db => $db);
ok($node->poll_query_until($db, q{SELECT count(*) > 0 FROM pg_locks WHERE NOT granted AND relation = 'fk_parent_default'::regclass}),
	'the make waits for the default partition, which the uncommitted rows hold');
$x->query('COMMIT');
$x->close;
my ($make_status, $make_out, $make_err) = psql_finish($make);
like($make_out, qr/^skipped: not made: rows of this interval are in the default partition .*a foreign key references/,
	'the rows committed, the make reads them under its lock and skips the interval, saying why') or diag($make_err);
is(sql(q{SELECT (SELECT count(*) FROM fk_child) || ' ' || (SELECT count(*) FROM fk_parent_default)}), '1 1', '... the referencing row survives, and the row stays in the default partition');

# --- a writer of a referenced table beside a run of many tables ------------------------------
# (attaching a partition of a table with a foreign key copies the key, which
# takes SHARE ROW EXCLUSIVE on the referenced table until the run's
# transaction ends: first in the run, it stalled that table's writers for
# the whole run, 10.75 s in one of 33 tables: 1.5's eleventh auditor)
my $tables = 30;
sql(q{CREATE TABLE ref_target (id int PRIMARY KEY);
      INSERT INTO ref_target VALUES (1);
      CREATE TABLE fk_first (id sno PRIMARY KEY DEFAULT sno_new(), target int NOT NULL REFERENCES ref_target) PARTITION BY RANGE (id);
      SELECT count(*) FROM flakeid_partition_by_time('fk_first', '1 day', premake => 4)});
sql(join("\n", map { "CREATE TABLE many_$_ (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id);
                     SELECT count(*) FROM flakeid_partition_by_time('many_$_', '1 day', premake => 4);" } 1 .. $tables - 1));
sql(q{CREATE TABLE run_done (run interval);
      CREATE TABLE writer_done (longest interval, inserts int);
      CREATE PROCEDURE writer() LANGUAGE plpgsql AS $$
      DECLARE
          t0 timestamptz;
          longest interval := '0';
          n int := 0;
      BEGIN
          LOOP
              EXIT WHEN EXISTS (SELECT 1 FROM run_done);
              t0 := clock_timestamp();
              INSERT INTO ref_target VALUES (n + 2);
              COMMIT;
              longest := greatest(longest, clock_timestamp() - t0);
              n := n + 1;
              PERFORM pg_sleep(0.002);
          END LOOP;
          INSERT INTO writer_done VALUES (longest, n);
          COMMIT;
      END $$});
my $writer = psql_start($node, 'CALL writer()', db => $db);
ok($node->poll_query_until($db, q{SELECT count(*) > 20 FROM ref_target}), 'the writer of the referenced table inserts');
# one run of every table, 5 days on (5 partitions each to make, none to drop)
sql(q{DO $$
      DECLARE t0 timestamptz := clock_timestamp();
      BEGIN
          PERFORM count(*) FROM flakeid_partition_maintenance(NULL, now() + interval '5 days');
          INSERT INTO run_done VALUES (clock_timestamp() - t0);
      END $$});
my ($writer_status, $writer_out, $writer_err) = psql_finish($writer);
is($writer_status, 0, 'the writer ends once the run is done') or diag($writer_err);
# the same run of the table with the foreign key alone, 10 days on: its own
# making, the span in which the referenced table is locked once it comes last
my $alone = sql(q{SELECT extract(epoch FROM clock_timestamp() - now()) FROM (SELECT count(*) FROM flakeid_partition_maintenance('fk_first', now() + interval '10 days')) x});
my ($run, $longest, $inserts, $made) = split /\|/, sql(q{SELECT extract(epoch FROM r.run), extract(epoch FROM w.longest), w.inserts,
        (SELECT count(*) FROM pg_inherits i WHERE i.inhparent IN (SELECT parent FROM flakeid_partitions WHERE parent::text ~ '^(fk_first|many_)'))
        FROM run_done r, writer_done w});
# The bound: the referenced table is locked from the making of fk_first's
# first partition to the run's end; fk_first last, with nothing to drop, that
# is fk_first's own making, which its run alone measures ($alone s), one of
# $tables tables' equal shares; twice that and 100 ms for the machine's noise.
# First in the run, the lock spanned the whole run, $tables times as long.
my $bound = 2 * $alone + 0.1;
note("run of $tables tables: $run s ($made partitions in all); fk_first alone: $alone s; the writer's longest insert: $longest s of $inserts; the bound: $bound s");
cmp_ok($run, '>', 2 * $bound, "the run of $tables tables takes more than twice the bound ($run s), so that the check tells the orders apart");
cmp_ok($longest, '<', $bound, "the writer of the referenced table waits at most twice the making of the table with the foreign key, and 100 ms ($bound s): it comes last in the run");

# --- a role's lock on a partition of its own table ---------------------------------------------
# (flakeid_partition_of filtered a join over pg_class with pg_get_expr, which
# locks what it prints; with analyzed catalogs the generic plan ran it on
# every partition of the database, and a role with PUBLIC's rights holding
# ACCESS EXCLUSIVE on a partition of its own made by_time register a table
# with no partition, every insert then refused, and every run fail:
# 1.5's fifteenth auditor.  Index scans off too, the plan the auditor saw.)
sql(q{GRANT CREATE ON SCHEMA public TO upkeep_public; SET ROLE upkeep_public;
      CREATE TABLE pub_parts (k int) PARTITION BY RANGE (k)});
sql(join('; ', 'SET ROLE upkeep_public', map { "CREATE TABLE pub_parts_$_ PARTITION OF pub_parts FOR VALUES FROM ($_) TO (" . ($_ + 1) . ')' } 1 .. 100));
sql(q{ANALYZE pg_catalog.pg_inherits; ANALYZE pg_catalog.pg_class});
my $locker = session($node, connstr => $node->connstr($db) . ' user=upkeep_public');
$locker->query('BEGIN; LOCK TABLE pub_parts_7 IN ACCESS EXCLUSIVE MODE');
my %locked_out;
for my $plan ('', 'SET enable_indexscan = off; SET enable_nestloop = off;')
{
	my $t = $plan eq '' ? 'locked_a' : 'locked_b';
	$locked_out{$t} = eval { sql(qq{$plan SET ROLE upkeep_app;
	    CREATE TABLE $t (id kuid PRIMARY KEY DEFAULT kuid_new(), v text) PARTITION BY RANGE (id);
	    SELECT string_agg(DISTINCT action, ',') FROM flakeid_partition_by_time('$t', '1 hour', premake => 2);
	    INSERT INTO $t (v) VALUES ('x');
	    SELECT string_agg(DISTINCT action, ',') FROM flakeid_partition_maintenance('$t', now() + interval '1 day')}) }
	  // ($@ =~ /(ERROR:[^\n]*)/ ? $1 : $@);
}
is(join(' / ', map { "$_: $locked_out{$_}" } sort keys %locked_out), "locked_a: made\nmade / locked_b: made\nmade",
	'a role with PUBLIC\'s rights holding ACCESS EXCLUSIVE on a partition of its own: an owner registers, writes and runs, with any plan');
$locker->query('ROLLBACK');
$locker->close;
# (a first run that cannot make the partitions: the registration's call fails
# and nothing stays registered; a 'failed' row and a WARNING left a table
# registered with no partition behind a call that looked done, the same auditor)
sql(q{SET ROLE upkeep_app; CREATE TABLE locked_c (id kuid PRIMARY KEY DEFAULT kuid_new()) PARTITION BY RANGE (id)});
$locker = session($node, connstr => $node->connstr($db) . ' user=upkeep_app');
$locker->query('BEGIN; LOCK TABLE locked_c IN SHARE UPDATE EXCLUSIVE MODE');
my ($rc, $out, $err) = $node->psql($db, q{SET ROLE upkeep_app; SELECT count(*) FROM flakeid_partition_by_time('locked_c', '1 day', premake => 1)});
like($err, qr/ERROR:  the partition of the present interval of (public\.)?locked_c could not be made: another maintenance run/, 'a registration whose first run cannot make its partitions fails, saying why');
$locker->query('ROLLBACK');
$locker->close;
is(sql(q{SELECT count(*) FROM flakeid_partitions WHERE parent = 'locked_c'::regclass}), 0, '... and nothing stays registered');
is(sql(q{SET ROLE upkeep_app; SELECT string_agg(DISTINCT action, ',') FROM flakeid_partition_by_time('locked_c', '1 day', premake => 1)}), 'made',
	'... called again once the lock is gone, it registers and makes them');

# (what the first run reports but leaves the present's partition made is no
# refusal: a row of the default partition no interval holds, an old interval
# a foreign key keeps in the default partition, a retention drop that waits
# for a writer's lock; 1.5's sixteenth reviewer found each refused)
sql(q{SET ROLE upkeep_app;
      CREATE TABLE sf_neg (id bigint PRIMARY KEY DEFAULT snowflake_new(), v int) PARTITION BY RANGE (id);
      CREATE TABLE sf_neg_default PARTITION OF sf_neg DEFAULT;
      INSERT INTO sf_neg VALUES (-5, 1);
      CREATE TABLE k_ref (id kuid PRIMARY KEY DEFAULT kuid_new(), v int) PARTITION BY RANGE (id);
      CREATE TABLE k_ref_default PARTITION OF k_ref DEFAULT;
      CREATE TABLE k_child (rid kuid REFERENCES k_ref);
      INSERT INTO k_ref VALUES (kuid_new_at('2020-06-01'), 1);
      CREATE TABLE k_ret (id kuid PRIMARY KEY DEFAULT kuid_new(), v int) PARTITION BY RANGE (id);
      SELECT count(*) FROM flakeid_partition_by_time('k_ret', '1 day', premake => 1);
      SELECT count(*) FROM flakeid_partition_maintenance('k_ret', now() - interval '10 days');
      SELECT flakeid_partition_forget('k_ret')});
$locker = session($node, connstr => $node->connstr($db) . ' user=upkeep_app');
$locker->query('BEGIN; INSERT INTO k_ret (v) VALUES (1)');
my %first_run;
for my $call ("'sf_neg', '1 day', premake => 1", "'k_ref', '1 day', premake => 1", "'k_ret', '1 day', premake => 1, retain => '3 days'")
{
	my ($t) = $call =~ /^'(\w+)'/;
	$first_run{$t} = eval { sql(qq{SET ROLE upkeep_app;
	    SELECT string_agg(DISTINCT action, ',' ORDER BY action) FROM flakeid_partition_by_time($call);
	    SELECT count(*) FROM flakeid_partitions WHERE parent = '$t'::regclass}) } // ($@ =~ /(ERROR:[^\n]*)/ ? $1 : $@);
}
$locker->query('ROLLBACK');
$locker->close;
is(join(' / ', map { "$_: " . ($first_run{$_} =~ s/\n/ registered /r) } sort keys %first_run),
	'k_ref: made,skipped registered 1 / k_ret: skipped registered 1 / sf_neg: failed,made registered 1',
	'a registration whose first run leaves a row no interval holds, an old interval a foreign key keeps, or a drop for the next run, is made and says so');

# (decided from facts, not from the run's words: a partition made by hand
# whose name spelled the words of a type's own skip hid the failure of the
# present's partition, and the table stayed registered with no partition
# for the present, every insert refused: 1.5's eighteenth reviewer)
sql(q{SET ROLE upkeep_app; CREATE TABLE named_in (id sno PRIMARY KEY DEFAULT sno_new(), v int) PARTITION BY RANGE (id)});
sql(q{SET ROLE upkeep_app; DO $$ BEGIN
          EXECUTE format('CREATE TABLE %I PARTITION OF named_in FOR VALUES FROM (%L) TO (%L)', 'hand holds no ID of the interval x',
                         sno_lower_bound(now() + interval '10 milliseconds'), sno_lower_bound(now() + interval '1 day'));
      END $$});
($rc, $out, $err) = $node->psql($db, q{SET ROLE upkeep_app; SELECT count(*) FROM flakeid_partition_by_time('named_in', '1 day', premake => 1)});
is(($err =~ /ERROR:  the partition of the present interval of (public\.)?named_in could not be made/ ? 'refused' : "not refused: $err")
   . ', registered ' . sql(q{SELECT count(*) FROM flakeid_partitions WHERE parent = 'named_in'::regclass}),
	'refused, registered 0', 'a partition whose name spells a skip\'s words hides no failure: the registration is refused, nothing registered');

# (the check of the present runs within the run's lock_timeout: under the
# caller's default of none, the call waited without end behind a writer of
# a referenced table, whose other writers queued behind it; and a partition
# pending detach, which takes no row, does not count as the present's:
# 1.5's nineteenth reviewer)
sql(q{SET ROLE upkeep_app; CREATE TABLE fk_ref (id int PRIMARY KEY);
      CREATE TABLE fk_parted (id sno PRIMARY KEY DEFAULT sno_new(), r int REFERENCES fk_ref) PARTITION BY RANGE (id)});
$locker = session($node, connstr => $node->connstr($db) . ' user=upkeep_app');
$locker->query('BEGIN; INSERT INTO fk_ref VALUES (2)');
my $began = Time::HiRes::time();
eval { ($rc, $out, $err) = $node->psql($db, q{SET ROLE upkeep_app; SELECT count(*) FROM flakeid_partition_by_time('fk_parted', '1 day', premake => 1)},
	timeout => 60); 1 } or $err = "no answer within 60 s: $@";
my $took = Time::HiRes::time() - $began;
$locker->query('ROLLBACK');
$locker->close;
like($err, qr/ERROR:  the partition of the present interval of (public\.)?fk_parted could not be made: not made: a lock was not granted/,
	"a writer of a referenced table holding its lock: by_time fails (55P03) within its locks' bounds ($took s), under the caller's lock_timeout of none");
sql(q{SET ROLE upkeep_app; CREATE TABLE pending (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id);
      SELECT count(*) FROM flakeid_partition_by_time('pending', '1 day', premake => 1);
      SELECT flakeid_partition_forget('pending')});
my $today_part = sql(q{SELECT i.inhrelid::regclass FROM pg_inherits i WHERE i.inhparent = 'pending'::regclass ORDER BY i.inhrelid::regclass::text LIMIT 1});
left_pending('pending', $today_part);
($rc, $out, $err) = $node->psql($db, q{SET ROLE upkeep_app; SELECT count(*) FROM flakeid_partition_by_time('pending', '1 day', premake => 1)});
is(sql(q{SELECT count(*) FILTER (WHERE inhdetachpending) FROM pg_inherits WHERE inhparent = 'pending'::regclass}) . ' pending, '
   . ($err =~ /ERROR:  the partition of the present interval of (public\.)?pending could not be made/ ? 'refused' : "not refused: $err")
   . ', registered ' . sql(q{SELECT count(*) FROM flakeid_partitions WHERE parent = 'pending'::regclass}),
	'1 pending, refused, registered 0', 'the present\'s partition pending detach (a cancelled DETACH CONCURRENTLY) is not the present\'s: refused, nothing registered');
# (its make's failure said only "would overlap": 1.5's twenty-second auditor)
like($err, qr/would overlap partition .*; \S+ is pending detach \(a DETACH \.\.\. CONCURRENTLY that did not end\): ALTER TABLE \S+ DETACH PARTITION \S+ FINALIZE ends it/,
	'... and the failure names the partition pending detach and FINALIZE');

# (a default partition does not take the present's rows while a child
# pending detach holds their range: registered, the table refused every
# insert; and a drop not done stops the table's later drops in the run, not
# only in the list the loop had begun with: 1.5's twentieth reviewer)
sql(q{SET ROLE upkeep_app; CREATE TABLE pending_default PARTITION OF pending DEFAULT});
($rc, $out, $err) = $node->psql($db, q{SET ROLE upkeep_app; SELECT count(*) FROM flakeid_partition_by_time('pending', '1 day', premake => 1)});
is(($err =~ /ERROR:  the partition of the present interval of (public\.)?pending could not be made/ ? 'refused' : "not refused: $err")
   . ', registered ' . sql(q{SELECT count(*) FROM flakeid_partitions WHERE parent = 'pending'::regclass}),
	'refused, registered 0', '... with a default partition too, which cannot take the rows of a range a child pending detach holds');
sql(q{SET ROLE upkeep_app; CREATE TABLE kept_order (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id);
      SELECT count(*) FROM flakeid_partition_by_time('kept_order', '1 day', premake => 1, retain => '2 days', keep_table => true);
      SELECT count(*) FROM flakeid_partition_maintenance('kept_order', now() - interval '5 days')});
my $oldest_part = sql(q{SELECT i.inhrelid::regclass FROM pg_inherits i WHERE i.inhparent = 'kept_order'::regclass ORDER BY i.inhrelid::regclass::text LIMIT 1});
left_pending('kept_order', $oldest_part);
# (a partition pending detach under keep_table was refused its plain DETACH
# by every run, and the table's retention stopped there for good, each run
# saying "the next run tries again": its detach is finalized now; a drop
# refused for good, by a view on the partition, is said so, and the table's
# later partitions wait behind it: 1.5's twenty-first reviewer)
is(sql(q{SET ROLE upkeep_app; SELECT string_agg(action || CASE WHEN detail LIKE '%(its pending detach finalized)' THEN ' (finalized)' ELSE '' END, ',' ORDER BY starts)
         FROM flakeid_partition_maintenance('kept_order') WHERE action IN ('detached', 'skipped', 'failed')})
   . ', ' . sql(q{SELECT count(*) FILTER (WHERE inhdetachpending) FROM pg_inherits WHERE inhparent = 'kept_order'::regclass}) . ' pending',
	'detached (finalized),detached, 0 pending',
	'keep_table: the oldest partition pending detach (a cancelled DETACH CONCURRENTLY) has its detach finalized, and the later ones are detached after it');
# (without keep_table, a partition pending detach is dropped as any other: untested until
# 1.5's twenty-sixth reviewer named it)
sql(q{SET ROLE upkeep_app; CREATE TABLE dropped_order (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id);
      SELECT count(*) FROM flakeid_partition_by_time('dropped_order', '1 day', premake => 1, retain => '2 days');
      SELECT count(*) FROM flakeid_partition_maintenance('dropped_order', now() - interval '5 days')});
my $dropped_oldest = sql(q{SELECT i.inhrelid::regclass FROM pg_inherits i WHERE i.inhparent = 'dropped_order'::regclass ORDER BY i.inhrelid::regclass::text LIMIT 1});
left_pending('dropped_order', $dropped_oldest);
is(sql(q{SELECT count(*) FROM pg_inherits WHERE inhdetachpending AND inhparent = 'dropped_order'::regclass}), '1',
	'... a second table with its oldest partition left pending detach');
is(sql(q{SET ROLE upkeep_app; SELECT string_agg(action, ',' ORDER BY starts) FROM flakeid_partition_maintenance('dropped_order')
         WHERE action IN ('dropped', 'detached', 'skipped', 'failed')})
   . ', ' . sql("SELECT to_regclass('$dropped_oldest') IS NULL") . ', '
   . sql(q{SELECT count(*) FILTER (WHERE inhdetachpending) FROM pg_inherits WHERE inhparent = 'dropped_order'::regclass}) . ' pending',
	'dropped,dropped, t, 0 pending',
	'without keep_table: the partition pending detach is dropped, and the later one after it');
sql(q{SET ROLE upkeep_app; CREATE TABLE viewed (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id);
      SELECT count(*) FROM flakeid_partition_by_time('viewed', '1 day', premake => 1, retain => '2 days');
      SELECT count(*) FROM flakeid_partition_maintenance('viewed', now() - interval '5 days')});
my $viewed_oldest = sql(q{SELECT i.inhrelid::regclass FROM pg_inherits i WHERE i.inhparent = 'viewed'::regclass ORDER BY i.inhrelid::regclass::text LIMIT 1});
sql("SET ROLE upkeep_app; CREATE VIEW on_oldest AS SELECT id FROM $viewed_oldest");
my $viewed_partitions = sql(q{SELECT count(*) FROM pg_inherits WHERE inhparent = 'viewed'::regclass});
($rc, $out, $err) = $node->psql($db, q{SET ROLE upkeep_app; SELECT action || ': ' || detail FROM flakeid_partition_maintenance('viewed') WHERE action IN ('dropped', 'skipped', 'failed') ORDER BY starts});
like($out, qr/\Afailed: not dropped: cannot drop table \S+ because other objects depend on it \(view (public\.)?on_oldest depends on table \S+\) \(SQLSTATE 2BP01\); the table's retention stops at this partition, the later ones kept, until what refused it is mended\z/,
	'a drop refused by a view on the oldest partition is failed, said to stop the table\'s retention there until mended (not "the next run tries again"), and nothing after it is dropped');
like($err, qr/WARNING:  flakeid partition upkeep of (public\.)?viewed: failed /, '... and a WARNING says so');
is(sql(q{SELECT count(*) FROM pg_inherits WHERE inhparent = 'viewed'::regclass}), $viewed_partitions, '... every partition kept');
sql('SET ROLE upkeep_app; DROP VIEW on_oldest');
is(sql(q{SET ROLE upkeep_app; SELECT string_agg(action, ',' ORDER BY starts) FROM flakeid_partition_maintenance('viewed') WHERE action IN ('dropped', 'skipped', 'failed')}),
	'dropped,dropped', '... the view dropped, the next run drops the two old partitions, oldest first');
# (a foreign key that references the table makes every drop of a partition
# fail, 2BP01; the report hid PostgreSQL's DETAIL, which names the key:
# 1.5's twenty-second auditor.  A detach first would lock the referencing
# table to the run's end, the twenty-third reviewer: not done, said.)
sql(q{SET ROLE upkeep_app; CREATE TABLE referenced (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id);
      CREATE TABLE referencing (r sno REFERENCES referenced);
      SELECT count(*) FROM flakeid_partition_by_time('referenced', '1 day', premake => 1, retain => '2 days');
      SELECT count(*) FROM flakeid_partition_maintenance('referenced', now() - interval '5 days');
      INSERT INTO referenced VALUES (sno_from_parts(date_trunc('day', now()) - interval '5 days' + interval '1 hour', 0, 0, 0)),
                                    (sno_from_parts(date_trunc('day', now()) - interval '4 days' + interval '1 hour', 0, 0, 0));
      INSERT INTO referencing SELECT id FROM referenced WHERE id > sno_lower_bound(date_trunc('day', now()) - interval '4 days')});
($rc, $out, $err) = $node->psql($db, q{SET ROLE upkeep_app; SELECT action || ': ' || detail FROM flakeid_partition_maintenance('referenced') WHERE action IN ('dropped', 'skipped', 'failed') ORDER BY starts});
like($out, qr/\Afailed: not dropped: a foreign key references the table \(constraint referencing_r_fkey on table (public\.)?referencing\): PostgreSQL drops none of its partitions, and a detach would lock the referencing table to the run's end \(SQLSTATE 2BP01\); the table's retention stops at this partition/,
	'a table a foreign key references: its oldest partition is not dropped, and the report names the key');
# (with keep_table, the detach locked the referencing table ACCESS EXCLUSIVE
# to the run's end: 1.5's twenty-fourth reviewer)
sql(q{SET ROLE upkeep_app; SELECT flakeid_partition_set('referenced', keep_table => true)});
is(sql(q{SET ROLE upkeep_app; BEGIN;
         SELECT string_agg(action || ': ' || substring(detail FROM '^not \w+'), ',') FROM flakeid_partition_maintenance('referenced') WHERE action IN ('detached', 'failed');
         SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND relation = 'referencing'::regclass;
         COMMIT}),
	"failed: not detached\n0", '... with keep_table, not detached either, and the referencing table not locked by the run');

# (a child pending detach of other bounds than an interval's, that covers the
# present, with a default partition made after it: the default partition
# does not take the present's rows, and the check runs; matched by its
# bounds' text alone, it was not, and the table registered refused every
# insert; and its bounds, read under the caller's lock_timeout, waited
# without end behind a lock on it: 1.5's twenty-second reviewer and auditor)
sql(q{SET ROLE upkeep_app; CREATE TABLE pending_wide (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id);
      CREATE TABLE pending_wide_hand PARTITION OF pending_wide FOR VALUES FROM (sno_lower_bound(now() - interval '2 days')) TO (sno_lower_bound(now() + interval '2 days'))});
left_pending('pending_wide', 'pending_wide_hand');
sql(q{SET ROLE upkeep_app; CREATE TABLE pending_wide_default PARTITION OF pending_wide DEFAULT});
($rc, $out, $err) = $node->psql($db, q{SET ROLE upkeep_app; SELECT count(*) FROM flakeid_partition_by_time('pending_wide', '1 day', premake => 1)});
is(($err =~ /ERROR:  the partition of the present interval of (public\.)?pending_wide could not be made: .*HINT:  Nothing was registered: end the detach \(ALTER TABLE (public\.)?pending_wide DETACH PARTITION (public\.)?pending_wide_hand FINALIZE\)/s ? 'refused' : "not refused: $err")
   . ', registered ' . sql(q{SELECT count(*) FROM flakeid_partitions WHERE parent = 'pending_wide'::regclass}),
	'refused, registered 0', 'a child pending detach of other bounds that covers the present, a default partition: refused, nothing registered, FINALIZE named');
$locker = session($node, connstr => $node->connstr($db) . ' user=upkeep_app');
$locker->query('BEGIN; LOCK TABLE pending_wide_hand IN ACCESS EXCLUSIVE MODE');
$began = Time::HiRes::time();
eval { ($rc, $out, $err) = $node->psql($db, q{SET ROLE upkeep_app; SELECT count(*) FROM flakeid_partition_by_time('pending_wide', '1 day', premake => 1)},
	timeout => 60); 1 } or $err = "no answer within 60 s: $@";
$took = Time::HiRes::time() - $began;
$locker->query('ROLLBACK');
$locker->close;
like($err, qr/ERROR:  the partition of the present interval of (public\.)?pending_wide could not be made: .*FINALIZE/s,
	"the child pending detach locked by another session: its bounds read without a lock, by_time answers within its locks' bounds ($took s), under the caller's lock_timeout of none");

# (flakeid_partition_keys ran its exception blocks in a parallel query
# under force_parallel_mode, which 15 and 16 refuse: the registration
# failed, and every run; 1.5's twenty-fifth reviewer)
my $parallel_setting = sql('SHOW server_version_num') >= 160000 ? 'debug_parallel_query' : 'force_parallel_mode';
sql(q{SET ROLE upkeep_app; CREATE TABLE parallel_forced (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id)});
($rc, $out, $err) = $node->psql($db, "SET ROLE upkeep_app; SET $parallel_setting = on;
    SELECT count(*) FILTER (WHERE action = 'failed') FROM flakeid_partition_by_time('parallel_forced', '1 day', premake => 1, retain => '2 days');
    SELECT count(*) FILTER (WHERE action = 'failed') FROM flakeid_partition_maintenance('parallel_forced', now() + interval '3 days')");
is($out . ($err =~ /ERROR/ ? " $err" : ''), "0\n0", "under $parallel_setting = on, a registration and a run go through, nothing failed");

# (make named FINALIZE after an overlap with any partition while a child
# was pending detach, one of an old interval too: 1.5's twenty-fourth
# reviewer)
sql(q{SET ROLE upkeep_app; CREATE TABLE overlap_other (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id);
      SELECT count(*) FROM flakeid_partition_by_time('overlap_other', '1 day', premake => 0);
      SELECT count(*) FROM flakeid_partition_maintenance('overlap_other', now() - interval '10 days');
      CREATE TABLE overlap_other_hand PARTITION OF overlap_other
          FOR VALUES FROM (sno_lower_bound(date_trunc('day', now()) + interval '2 days 12 hours')) TO (sno_lower_bound(date_trunc('day', now()) + interval '3 days 12 hours'))});
left_pending('overlap_other', sql(q{SELECT min(i.inhrelid::regclass::text) FROM pg_inherits i
                                     WHERE i.inhparent = 'overlap_other'::regclass AND i.inhrelid <> 'overlap_other_hand'::regclass}));
($rc, $out, $err) = $node->psql($db, q{SET ROLE upkeep_app; SELECT action || ': ' || detail FROM flakeid_partition_maintenance('overlap_other', now() + interval '2 days') WHERE action = 'failed'});
like($out, qr/^failed: not made: partition "\S+" would overlap partition "overlap_other_hand"/, 'an interval that overlaps a partition made by hand fails, saying so');
unlike($out, qr/FINALIZE/, '... and names no FINALIZE of the old partition pending detach, which is not in the way');

# (a child pending detach of another interval than the present's, with a
# default partition: the default partition takes the present's rows, and the
# registration goes through; the check of the present, run for any child
# pending detach, refused it for a writer holding the default partition,
# 1.5's twenty-first reviewer)
sql(q{SET ROLE upkeep_app; CREATE TABLE pending_other (id sno PRIMARY KEY DEFAULT sno_new()) PARTITION BY RANGE (id);
      SELECT count(*) FROM flakeid_partition_by_time('pending_other', '1 day', premake => 0);
      SELECT count(*) FROM flakeid_partition_maintenance('pending_other', now() - interval '5 days');
      SELECT flakeid_partition_forget('pending_other')});
my ($other_oldest, $other_newest) = split /\|/, sql(q{SELECT min(i.inhrelid::regclass::text) || '|' || max(i.inhrelid::regclass::text) FROM pg_inherits i WHERE i.inhparent = 'pending_other'::regclass});
# (the present's partition gone, so that the run and the check have it to make)
sql("SET ROLE upkeep_app; DROP TABLE $other_newest");
left_pending('pending_other', $other_oldest);
sql(q{SET ROLE upkeep_app; CREATE TABLE pending_other_default PARTITION OF pending_other DEFAULT});
$locker = session($node, connstr => $node->connstr($db) . ' user=upkeep_app');
$locker->query(q{BEGIN; INSERT INTO pending_other_default VALUES (sno_from_parts(now() - interval '30 days', 0, 0, 0))});
($rc, $out, $err) = $node->psql($db, q{SET ROLE upkeep_app; SELECT count(*) FROM flakeid_partition_by_time('pending_other', '1 day', premake => 1)}, timeout => 60);
$locker->query('ROLLBACK');
$locker->close;
is(($err =~ /ERROR:/ ? "refused: $err" : 'not refused') . ', registered ' . sql(q{SELECT count(*) FROM flakeid_partitions WHERE parent = 'pending_other'::regclass})
   . ', ' . sql(q{SELECT count(*) FILTER (WHERE inhdetachpending) FROM pg_inherits WHERE inhparent = 'pending_other'::regclass}) . ' pending',
	'not refused, registered 1, 1 pending',
	'a child pending detach of an old interval, a default partition held by a writer: the default partition takes the present\'s rows, the registration goes through');

stop_checked($node);
done_testing();
