# Back-fill (*_new_at) draws from one ledger per server: parallel workers,
# reconnecting sessions, and sessions after a clean restart and after a
# crash never give the same ID twice over the same instants, for every
# stateful generator.  Back-fill of the present draws from the live
# generator, so it never repeats a live ID; a time the live generator has not
# reached is refused; a unit's pool used up is ERROR 54000.  (1.1 kept a
# ledger per backend: each of these repeats there.)
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my @generators = formats(stateful => 't');
my $parallel = 'SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = off;';
my $node = flakeid_node('backfill');
sub sql { return $node->safe_psql('postgres', $_[0]); }
# 2,000 instants, one a millisecond, 25 rows each
sql("CREATE TABLE instants AS SELECT timestamptz '2021-03-04 05:06:07+00' + (g % 2000) * interval '1 ms' AS ts
     FROM generate_series(1, 50000) g; ANALYZE instants");

# what each generator has drawn, kept in the server (its primary key finds a
# repeat), and how many in all: 3.8 million IDs held in this script's memory
# (about 390 MB) made each of its later psql forks slow, and 012 the
# heaviest file of the test command on a VM whose page faults are dear
sql("CREATE UNLOGGED TABLE drawn (format text, id text, PRIMARY KEY (format, id))");
my (%total, %repeated);
sub draw   # draw(GENERATOR, FROM-SQL, [SQL-PREFIX]): back-fills every row of FROM-SQL
{
	my ($g, $from, $prefix) = @_;
	my $call = backfill_call($g, 'ts');
	# (CREATE TABLE AS may run its query in parallel workers, as COPY (query) does; INSERT's may not)
	my ($drawn, $added) = split /\|/, sql(($prefix // '') . " CREATE UNLOGGED TABLE draw AS SELECT ${call}::text AS id FROM $from;
		WITH added AS (INSERT INTO drawn SELECT '$g->{format}', id FROM draw ON CONFLICT DO NOTHING RETURNING 1)
		SELECT (SELECT count(*) FROM draw), (SELECT count(*) FROM added); DROP TABLE draw");
	$total{ $g->{format} } += $drawn;
	$repeated{ $g->{format} } += $drawn - $added;
}
sub repeats { my ($g) = @_; return $repeated{ $g->{format} } // 0; }

like(sql("$parallel EXPLAIN (COSTS OFF) CREATE UNLOGGED TABLE draw AS SELECT sno_new_at(ts)::text AS id FROM instants") =~ s/\n/ /gr,
	qr/Workers Planned: 2.*Parallel Seq Scan/, 'the back-fill query runs in parallel workers');

for my $g (@generators)
{
	draw($g, 'instants', $parallel) for 1 .. 12;
	is("$total{$g->{format}} " . repeats($g), '600000 0',
		"$g->{format}: 12 parallel runs (2 workers each, 24 in all) over the same 2,000 instants give 600,000 IDs, none repeated");
}

# 20 loaders, each a new session, over the same instants
for my $g (@generators)
{
	draw($g, '(SELECT DISTINCT ts FROM instants) i') for 1 .. 20;
	is("$total{$g->{format}} " . repeats($g), '640000 0',
		"$g->{format}: and 20 reconnecting sessions over those instants add 40,000, none repeated");
}

# the present: drawn from the live generator, so never one of its IDs (4,000 at
# most share a unit, fewer than any pool: a unit the live generator used up is
# 54000).  Before the restarts, which leave the live counters up to 2 s ahead.
for my $g (@generators)
{
	my $present = backfill_call($g, 'clock_timestamp()');
	is(sql("SELECT count(*) - count(DISTINCT id) FROM (SELECT $g->{new}::text, ${present}::text FROM generate_series(1, 2000)) s(a, b),
	        LATERAL (VALUES (a), (b)) v(id)"), '0',
		"$g->{format}: back-fill of the present interleaved with $g->{new}: 4,000 IDs, none repeated");
	is(sqlstate_of($node, 'SELECT ' . backfill_call($g, "clock_timestamp() + interval '1 min'")), '22023',
		"$g->{format}: back-fill a minute ahead of the clock is ERROR 22023");
}
# sno's present judged by its own clock: back-fill of the present alternating
# with sno_new() counts no clock regression and leaves the tick-tock alone (1.2
# judged it by the precise clock, 2-6 ms ahead of sno's coarse one, and moved
# the live counter past it: 22 regressions in 50 alternations and a toggle)
my $regressions_and_ticktock = "SELECT clock_regressions || ' ' || ticktock FROM flakeid_generators WHERE generator = 'sno'";
my ($regressions, $ticktock) = split ' ', sql($regressions_and_ticktock);
sql(join('', map { "SELECT sno_new_at(clock_timestamp()); SELECT sno_new(); SELECT pg_sleep(0.002);\n" } 1 .. 200));
is(sql($regressions_and_ticktock), ($regressions + 0) . " $ticktock",
	'sno: 200 back-fills of the present alternating with sno_new() count no clock regression, and the tick-tock stays');
# across restarts: a clean one and a crash, each followed by the same back-fill
for my $mode (qw(fast immediate))
{
	$node->stop($mode);
	$node->start;
	for my $g (@generators)
	{
		draw($g, '(SELECT DISTINCT ts FROM instants) i');
		is(repeats($g), 0, "$g->{format}: after a restart (-m $mode) the same instants repeat none of the IDs before it");
	}
}

like(message_of($node, "SELECT snowflake_new_at(now() + interval '1 min')"),
	qr/ERROR:  cannot back-fill a snowflake ID for .*, a time the live generator has not reached/,
	'the message says the live generator has not reached that time');

# a unit's pool: snowflake's 4,096 sequences of one millisecond, less what earlier lifetimes used
is(sqlstate_of($node, "SELECT count(snowflake_new_at('2021-01-01 00:00:00+00')) FROM generate_series(1, 5000)"), '54000',
	'5,000 snowflakes back-filled into one millisecond: ERROR 54000, not a wrap');
is(sqlstate_of($node, "SELECT count(snowflake_new_at('2021-01-01 00:00:00.001+00')) FROM generate_series(1, 1000)"), 'ok',
	'the next millisecond has its own pool');
stop_checked($node);
done_testing();
