# pg_partman (5.2 and later) on flakeid's IDs (docs/OPERATIONS.md,
# "Partitions that make and drop themselves: pg_partman"), on the real
# pg_partman of this major (scripts/debian_extension installs it; without it the file
# skips, saying why).
#   * sno, flax, siq, kuid and kuid96: pg_partman refuses each as a control
#     column, by its type's name, even with flakeid's encoder and decoder;
#     the documented limit, held here so that the day pg_partman accepts
#     them this file fails and the documentation changes with it.  flakeid
#     keeps their partitions itself: test/t/070_partitions_upkeep.pl.
#   * bigint snowflakes, by the documented calls: create_parent by day from
#     today with premade days and a default partition; earlier days made for
#     back-fill; an insert through DEFAULT snowflake_new() and back-filled
#     IDs (a day's first and last millisecond among them) each in the
#     partition of its own UTC day; run_maintenance premaking from the newest
#     ID; retention dropping exactly the partitions every ID of which is older
#     than the newest ID less the retention; pruning when the plan is made
#     for constants (the IMMUTABLE two-argument snowflake_lower_bound) and
#     when it starts for now() and the STABLE one-argument form; an existing
#     table moved in by partition_data_proc.
#   * pg_dump and pg_restore of every set, and pg_partman's maintenance going
#     on in the restored database.
# Every check derives "today" from the statement it checks (one
# transaction's now(), or the newest ID), so a run across midnight UTC holds.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = flakeid_node('partman', -extension => 0);
if (my $why = partman_unavailable($node))
{
	$node->stop;
	plan skip_all => $why;
}
my $partman = $node->safe_psql('postgres', "SELECT max(version) FROM pg_available_extension_versions WHERE name = 'pg_partman'");
note("pg_partman $partman");
my $work = PostgreSQL::Test::Utils::tempdir();
my $db = 'partman';
sub sql { my ($sql, $in) = @_; return $node->safe_psql($in // $db, "SET client_min_messages = warning; $sql"); }

sub setup_db
{
	my ($name) = @_;
	fresh_db($node, $name);
	$node->safe_psql('postgres', "ALTER DATABASE $name SET timezone = 'UTC'");
	sql("CREATE EXTENSION flakeid; CREATE SCHEMA partman; CREATE EXTENSION pg_partman SCHEMA partman", $name);
}

# --- sno, flax, siq, kuid, kuid96: the documented limit ------------------------
setup_db('partman_refused');
for my $f (formats(fixed => 't'))
{
	my ($type, $table) = ($f->{type}, "refused_$f->{format}");
	sql("CREATE TABLE $table (id $type PRIMARY KEY DEFAULT $f->{new}, body text) PARTITION BY RANGE (id)", 'partman_refused');
	my $error = message_of($node, "SELECT partman.create_parent('public.$table', 'id', '1 day',
	             p_time_encoder := '$f->{format}_lower_bound', p_time_decoder := '$f->{time}')", db => 'partman_refused');
	my $left = sql("SELECT (SELECT count(*) FROM partman.part_config) + (SELECT count(*) FROM pg_inherits WHERE inhparent = '$table'::regclass)",
		'partman_refused');
	ok($error =~ /^ERROR:.*only supports partitioning of data types.*Supplied column is of type \Q$type\E$/m && $left eq '0',
		"$type: pg_partman $partman refuses it as a control column by its type's name, leaving nothing made (the documented limit)")
	  or diag("error: $error\nconfiguration rows and partitions left: $left");
}

# --- the same IDs in a uuid column: pg_partman's time encoder and decoder ------
# (DEFAULT <type>_new()::uuid, the README's migration path, whose cast keeps
# the IDs' order).  pg_partman runs the functions under search_path =
# partman, pg_catalog: unqualified, create_parent cannot find them; with
# flakeid's IMMUTABLE pair, schema-qualified, it makes the days, a new row
# lands in today's, and a constant range prunes when the plan is made.
for my $f (formats(fixed => 't'))
{
	my ($type, $table) = ($f->{type}, "uuid_$f->{format}");
	sql("CREATE TABLE $table (id uuid PRIMARY KEY DEFAULT $f->{new}::uuid, body text) PARTITION BY RANGE (id);
	     CREATE TABLE ${table}_unqualified (id uuid PRIMARY KEY DEFAULT $f->{new}::uuid) PARTITION BY RANGE (id)", 'partman_refused');
	# (5.5 runs them under search_path = partman, pg_catalog and cannot find
	# them unqualified; 5.2.4 under the caller's, and finds them)
	my $unqualified = message_of($node, "SELECT partman.create_parent('public.${table}_unqualified', 'id', '1 day',
	             p_time_encoder := '$type\_uuid_lower_bound', p_time_decoder := '$type\_uuid_time')", db => 'partman_refused');
	ok($unqualified eq '' || $unqualified =~ /ERROR:.*function $type\_uuid_lower_bound\([a-z ]*\) does not exist/s,
		"$type in a uuid column, the pair unqualified: pg_partman $partman " . ($unqualified eq '' ? 'finds them (the caller\'s search_path)' : 'cannot find them (its own search_path)'))
	  or diag($unqualified);
	is(sql("SELECT partman.create_parent('public.$table', 'id', '1 day',
	             p_time_encoder := 'public.$type\_uuid_lower_bound', p_time_decoder := 'public.$type\_uuid_time');
	        INSERT INTO $table (body) VALUES ('now') RETURNING tableoid::regclass::text = '$table\_p' || to_char(now() AT TIME ZONE 'UTC', 'YYYYMMDD');
	        SELECT provolatile FROM pg_proc WHERE proname IN ('$type\_uuid_lower_bound', '$type\_uuid_time') GROUP BY 1", 'partman_refused'),
		"t\nt\ni", "$type in a uuid column: schema-qualified, create_parent takes flakeid's IMMUTABLE pair, and DEFAULT $f->{new}::uuid lands in today's partition");
	# (a constant range: pruned when the plan is made)
	my $const = sql("SELECT public.$type\_uuid_lower_bound(date_trunc('day', now(), 'UTC') + interval '1 day') || '|' || public.$type\_uuid_lower_bound(date_trunc('day', now(), 'UTC') + interval '2 days')", 'partman_refused');
	my ($lo, $hi) = split /\|/, $const;
	my @scanned = sql("EXPLAIN (COSTS OFF) SELECT * FROM $table WHERE id >= '$lo' AND id < '$hi'", 'partman_refused') =~ /\bon ($table\_p\d+)/g;
	my $tomorrow = sql(q{SELECT to_char(now() AT TIME ZONE 'UTC' + interval '1 day', 'YYYYMMDD')}, 'partman_refused');
	my %seen = map { $_ => 1 } @scanned;
	is(join(',', sort keys %seen), "$table\_p$tomorrow", "$type in a uuid column: a constant day's range pruned to that day's partition when the plan is made");
	# (pg_partman 5.5 calls the decoder with text: with the uuid one alone, its
	# maintenance skipped the set and show_partitions failed, 1.5's ninth auditor)
	my $before = sql("SELECT count(*) FROM pg_inherits WHERE inhparent = 'public.$table'::regclass", 'partman_refused');
	sql("UPDATE partman.part_config SET premake = premake + 2 WHERE parent_table = 'public.$table';
	     SELECT partman.run_maintenance('public.$table')", 'partman_refused');
	# (kuid96's bounds move back to their window: where a midnight lies inside
	# one, every other day, pg_partman reads the newest partition's end as the
	# day before, and makes one day fewer)
	my $made = sql("SELECT count(*) FROM pg_inherits WHERE inhparent = 'public.$table'::regclass", 'partman_refused') - $before;
	ok($made == 2 || ($type eq 'kuid96' && $made == 1),
		"$type in a uuid column: pg_partman's run_maintenance keeps the set, $made more days made for 2 more premade");
	ok(sql("SELECT count(*) FROM partman.show_partitions('public.$table')", 'partman_refused') > 0, '... and show_partitions lists them');
}

# --- bigint snowflakes ---------------------------------------------------------
setup_db($db);
is(sql("SHOW flakeid.snowflake_epoch_ms"), '1420070400000', 'the snowflake epoch is the default, 2015-01-01 00:00 UTC: a day of IDs starts at midnight UTC');
# days_of(PARENT): each partition of PARENT but the default, the UTC day its
# lower bound lies in, and whether its bounds are exactly the first IDs of
# that day and of the next
sql(q{CREATE FUNCTION days_of(parent regclass, OUT partition text, OUT day date, OUT exact boolean, OUT lo bigint, OUT hi bigint)
      RETURNS SETOF record LANGUAGE sql AS $$
        SELECT c.relname::text, (snowflake_time(b[1]) AT TIME ZONE 'UTC')::date,
               b[1] = snowflake_lower_bound(date_trunc('day', snowflake_time(b[1]), 'UTC'))
               AND b[2] = snowflake_lower_bound(date_trunc('day', snowflake_time(b[1]), 'UTC') + interval '1 day'), b[1], b[2]
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid,
             LATERAL (SELECT (regexp_match(pg_get_expr(c.relpartbound, c.oid), '^FOR VALUES FROM \(''?(-?\d+)''?\) TO \(''?(-?\d+)''?\)$'))::bigint[] AS b) m
        WHERE i.inhparent = parent AND b IS NOT NULL ORDER BY b[1]
      $$});
# the documented calls, and what they made, in one transaction: one now()
is(sql(q{BEGIN;
         CREATE TABLE events (id bigint PRIMARY KEY DEFAULT snowflake_new(), body text) PARTITION BY RANGE (id);
         SELECT FROM partman.create_parent('public.events', 'id', '362387865600000',
                p_start_partition := snowflake_lower_bound(now())::text, p_premake := 4);
         SELECT array_agg(day - (now() AT TIME ZONE 'UTC')::date ORDER BY day), bool_and(exact),
                (SELECT count(*) FROM pg_partition_tree('events') WHERE relid = 'events_default'::regclass AND isleaf)
           FROM days_of('events');
         SELECT FROM partman.create_partition_id('public.events', ARRAY(SELECT snowflake_lower_bound(d)
                FROM generate_series(date_trunc('day', now(), 'UTC') - interval '3 days', now() - interval '1 day', interval '1 day') d));
         SELECT array_agg(day - (now() AT TIME ZONE 'UTC')::date ORDER BY day), bool_and(exact) FROM days_of('events');
         COMMIT}),
	"{0,1,2,3,4}|t|1\n{-3,-2,-1,0,1,2,3,4}|t",
	'create_parent by day from today, premake 4: today and the next 4 days, each from its first ID to the next day\'s, and a default partition; '
	  . 'create_partition_id adds the 3 days before');

# an insert now, and back-fill at the first and last millisecond and the
# middle of each earlier day
sql(q{INSERT INTO events (body) VALUES ('now');
      INSERT INTO events (id, body)
      SELECT snowflake_new_at(d + offs), 'back-fill' FROM days_of('events') p,
             LATERAL (SELECT snowflake_time(p.lo) AS d) t,
             LATERAL unnest(ARRAY[interval '0', interval '13 hours 20 minutes', interval '1 day' - interval '1 ms']) offs
      WHERE p.hi <= (SELECT id FROM events WHERE body = 'now')});
is(sql(q{SELECT p.day = (snowflake_time(e.id) AT TIME ZONE 'UTC')::date AND p.exact,
                abs(extract(epoch FROM clock_timestamp() - snowflake_time(e.id))) < 300
         FROM events e JOIN days_of('events') p ON p.partition = e.tableoid::regclass::text WHERE e.body = 'now'}),
	't|t', 'DEFAULT snowflake_new(): the row is in the partition of the present day');
is(sql(q{SELECT count(*), count(*) FILTER (WHERE p.day = (snowflake_time(e.id) AT TIME ZONE 'UTC')::date AND p.exact),
                (SELECT count(*) FROM events_default)
         FROM events e JOIN days_of('events') p ON p.partition = e.tableoid::regclass::text WHERE e.body = 'back-fill'}),
	'9|9|0', "snowflake_new_at(t), at each earlier day's first and last millisecond and its middle: each row in the partition of t's day, none in the default");

# a back-fill before the first partition goes to the default partition;
# partition_data_proc moves it into a partition it makes for its day
is(sql(q{INSERT INTO events (id, body) VALUES (snowflake_new_at((SELECT snowflake_time(min(lo)) FROM days_of('events')) - interval '6 days 5 hours'), 'before');
         SELECT count(*) FROM events_default}) . '|'
	  . sql(q{CALL partman.partition_data_proc('public.events')}) . sql(q{
         SELECT p.day = (snowflake_time(e.id) AT TIME ZONE 'UTC')::date AND p.exact, (SELECT count(*) FROM events_default)
         FROM events e JOIN days_of('events') p ON p.partition = e.tableoid::regclass::text WHERE e.body = 'before'}),
	'1|t|0', 'a back-fill before the first partition lands in the default partition; partition_data_proc moves it into a partition made for its day');

# maintenance premakes from the newest ID
is(sql(q{UPDATE partman.part_config SET premake = 6 WHERE parent_table = 'public.events';
         SELECT FROM partman.run_maintenance('public.events');
         WITH newest AS (SELECT (snowflake_time(max(id)) AT TIME ZONE 'UTC')::date AS day FROM events)
         SELECT array_agg(p.day - newest.day ORDER BY p.day) FILTER (WHERE p.day > newest.day), bool_and(exact)
         FROM days_of('events') p, newest}),
	'{1,2,3,4,5,6}|t', 'run_maintenance with premake 6: the 6 days after the newest ID\'s day, each a partition of its own');

# pruning
# scanned_of(PARENT, PLAN): the partitions of PARENT that PLAN reads
sub scanned_of { my ($parent, $plan) = @_; my %s; $s{$1} = 1 while $plan =~ /\bon (\Q$parent\E_(?:p?\d+|default))\b/g; return join(',', sort keys %s); }
sub scanned { return scanned_of('events', $_[0]); }
sub removed { return $_[0] =~ /Subplans Removed: (\d+)/ ? $1 : 'none'; }
my $all = sql(q{SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass});
my ($expect, @plan) = split /\n/, sql(q{BEGIN;
	SELECT string_agg(partition, ',' ORDER BY partition) || ',events_default' FROM days_of('events')
	 WHERE hi > snowflake_lower_bound(now() - interval '1 day');
	EXPLAIN (COSTS OFF) SELECT * FROM events WHERE id >= snowflake_lower_bound(now() - interval '1 day');
	COMMIT});
my $plan = join("\n", @plan);
my $kept = () = $expect =~ /,/g;
ok(scanned($plan) eq join(',', sort split /,/, $expect) && removed($plan) eq $all - $kept - 1,
	"id >= snowflake_lower_bound(now() - interval '1 day'): pruned when the query starts (Subplans Removed: "
	  . ($all - $kept - 1) . " of $all), reading the partitions from yesterday's on and the default")
  or diag("expected $expect\n$plan");
my ($day, $next, $one) = split /\|/, sql(q{SELECT p.day, p.day + 1, p.partition FROM days_of('events') p ORDER BY day OFFSET 2 LIMIT 1});
$plan = sql("EXPLAIN (COSTS OFF) SELECT * FROM events WHERE id >= snowflake_lower_bound('$day', '2015-01-01 00:00+00')
             AND id < snowflake_lower_bound('$next', '2015-01-01 00:00+00')");
ok(scanned($plan) eq $one && removed($plan) eq 'none' && $plan !~ /snowflake_lower_bound/,
	"a constant day through snowflake_lower_bound(ts, epoch) (IMMUTABLE): pruned when the plan is made, to that day's partition alone")
  or diag($plan);
$plan = sql("EXPLAIN (COSTS OFF) SELECT * FROM events WHERE id >= snowflake_lower_bound('$day') AND id < snowflake_lower_bound('$next')");
ok(scanned($plan) eq $one && removed($plan) eq $all - 1,
	"the same day through snowflake_lower_bound(ts) (STABLE, it reads the epoch setting): pruned when the query starts, Subplans Removed: " . ($all - 1))
  or diag($plan);

# retention: every partition whose last ID's time is older than the newest
# ID's less 2 days goes, and no other
my ($want_kept, $want_gone, $want_rows) = split /\|/, sql(q{
	WITH newest AS (SELECT snowflake_time(max(id)) AS t FROM events)
	SELECT string_agg(partition, ',' ORDER BY partition) FILTER (WHERE snowflake_time(hi) - interval '1 ms' >= t - interval '2 days'),
	       string_agg(partition, ',' ORDER BY partition) FILTER (WHERE snowflake_time(hi) - interval '1 ms' < t - interval '2 days'),
	       (SELECT count(*) FROM events e, newest WHERE e.id >= (SELECT min(lo) FROM days_of('events') WHERE snowflake_time(hi) - interval '1 ms' >= t - interval '2 days'))
	FROM days_of('events'), newest});
sql(q{UPDATE partman.part_config SET retention = ((2 * 86400000::bigint) << 22)::text, retention_keep_table = false
      WHERE parent_table = 'public.events';
      SELECT FROM partman.run_maintenance('public.events')});
my @gone = split /,/, $want_gone;
is(sql(q{SELECT string_agg(partition, ',' ORDER BY partition) FROM days_of('events')}) . '|'
	  . sql("SELECT count(*) FROM pg_class WHERE relname IN ('" . join("','", @gone) . "')") . '|' . sql('SELECT count(*) FROM events'),
	"$want_kept|0|$want_rows",
	'retention of 2 days of IDs (retention_keep_table off): dropped exactly the ' . scalar(@gone)
	  . ' partition(s) every ID of which is older than the newest ID less 2 days, and their rows; kept the rest');
ok(@gone >= 1 && $want_kept =~ /,/, 'and the check above dropped some and kept some: it is not vacuous') or diag("kept $want_kept; gone $want_gone");

# an existing table moved in (docs/OPERATIONS.md)
sql(q{CREATE TABLE legacy (id bigint PRIMARY KEY DEFAULT snowflake_new(), body text);
      INSERT INTO legacy (id, body) SELECT snowflake_new_at(now() - k * interval '7 hours'), 'old ' || k FROM generate_series(1, 40) k;
      CREATE TABLE legacy_ids AS SELECT id FROM legacy;
      CREATE TABLE legacy_p (LIKE legacy INCLUDING ALL) PARTITION BY RANGE (id);
      SELECT FROM partman.create_parent('public.legacy_p', 'id', '362387865600000',
             p_start_partition := snowflake_lower_bound(now())::text, p_premake := 4)});
sql(q{CALL partman.partition_data_proc('public.legacy_p', p_source_table := 'public.legacy')});
is(sql(q{SELECT (SELECT count(*) FROM legacy), (SELECT count(*) FROM legacy_p),
                (SELECT count(*) FROM (SELECT id FROM legacy_p EXCEPT SELECT id FROM legacy_ids) d),
                count(*) FILTER (WHERE p.day = (snowflake_time(e.id) AT TIME ZONE 'UTC')::date AND p.exact),
                (SELECT count(*) FROM legacy_p_default)
         FROM legacy_p e JOIN days_of('legacy_p') p ON p.partition = e.tableoid::regclass::text}),
	'0|40|0|40|0', 'partition_data_proc moved an existing table\'s 40 rows, 7 hours apart, each into the partition of its day, which it made');

# pg_dump and pg_restore of the sets
sub partitions { return sql(q{SELECT inhparent::regclass || ' ' || c.relname || ' ' || pg_get_expr(c.relpartbound, c.oid)
                              FROM pg_inherits JOIN pg_class c ON c.oid = inhrelid ORDER BY 1}, $_[0]); }
sub rows { return sql(q{SELECT tableoid::regclass, id, body FROM events ORDER BY id; SELECT tableoid::regclass, id FROM legacy_p ORDER BY id}, $_[0]); }
sub config { return sql(q{SELECT parent_table, control, partition_interval, premake, retention, retention_keep_table, partition_type
                          FROM partman.part_config ORDER BY 1}, $_[0]); }
$node->command_ok([ 'pg_dump', '-Fc', '-f', "$work/partman.dump", '-d', $node->connstr($db) ], 'pg_dump -Fc of the database');
fresh_db($node, 'partman_restored');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('partman_restored'), "$work/partman.dump" ], 'pg_restore into a new database');
ok(partitions('partman_restored') eq partitions($db) && rows('partman_restored') eq rows($db) && config('partman_restored') eq config($db),
	'restored: the same partitions with the same bounds, every row in the same partition, pg_partman\'s configuration of both sets');
is(sql(q{UPDATE partman.part_config SET premake = 7 WHERE parent_table = 'public.events';
         SELECT FROM partman.run_maintenance();
         SELECT max(day) - (SELECT (snowflake_time(max(id)) AT TIME ZONE 'UTC')::date FROM events), bool_and(exact) FROM days_of('events')},
		'partman_restored') . '|'
	  . sql(q{INSERT INTO events (body) VALUES ('after the restore') RETURNING tableoid::regclass = (SELECT partition::regclass FROM days_of('events')
	          WHERE day = (snowflake_time(id) AT TIME ZONE 'UTC')::date)}, 'partman_restored'),
	'7|t|t', 'the restored set goes on: maintenance premakes one more day, and DEFAULT snowflake_new() lands in today\'s partition');
stop_checked($node);
done_testing();
