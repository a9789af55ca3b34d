# A prepared transaction's IDs stay above every horizon a promoted standby
# gives (issue 47): the standby is made first, then the primary prepares a
# transaction that inserted IDs of every stateful generator, so only the
# WAL carries its holding.  The primary stops, the standby is promoted and
# waits until its clock is past the prepared IDs' time; its horizon must stay at or below
# them, and after COMMIT PREPARED there every committed ID lies at or above
# the horizon given before.  (1.2 kept holdings in flakeid.prepared only:
# the promoted standby's horizon passed them, and a poller would skip the
# committed rows.)  A second prepared transaction, rolled back on the new
# primary, lets the horizon move on.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my @generators = formats(stateful => 't');
# identities set as an operator sets them for failover: the standby takes them over (the base backup copies them)
my $primary = flakeid_node('prep_primary', max_prepared_transactions => 10, 'flakeid.sno_partition' => 5,
	'flakeid.siq_shard' => 6, 'flakeid.kuid_node' => 'db@one', 'flakeid.snowflake_worker' => 7,
	'flakeid.snowflake_process' => 8);
my ($standby) = flakeid_standby($primary, 'prep_standby');
sub psql_on { my ($node, $sql) = @_; return $node->safe_psql('postgres', $sql); }

psql_on($primary, join('', map { "CREATE TABLE ids_$_->{format} (id $_->{type});\n" } @generators));
psql_on($primary, 'BEGIN; ' . join('', map { "INSERT INTO ids_$_->{format} SELECT $_->{new} FROM generate_series(1, 100);\n" } @generators)
	  . "PREPARE TRANSACTION 'held'");
psql_on($primary, 'BEGIN; ' . join('', map { "INSERT INTO ids_$_->{format} SELECT $_->{new} FROM generate_series(1, 5);\n" } @generators)
	  . "PREPARE TRANSACTION 'dropped'");
# every prepared ID lies at or before this instant (a primary that never crashed issues at its clock)
my $prepared_by = psql_on($primary, 'SELECT clock_timestamp()');
my $lsn = psql_on($primary, 'SELECT pg_current_wal_lsn()');
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"), 'the standby replayed the two prepares');
$primary->stop('fast');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
is(psql_on($standby, 'SELECT count(*) FROM pg_prepared_xacts'), '2', 'the promoted standby holds both prepared transactions');
# the clock moves past the prepared IDs' units: a horizon of the clock alone would now pass them
ok(wait_clock_past($standby, "'$prepared_by'::timestamptz"), "the promoted server's clock has left the prepared IDs' units");

my %horizon;
for my $g (@generators)
{
	my $f = $g->{format};
	$horizon{$f} = psql_on($standby, "SELECT ${f}_horizon()::text");
}
psql_on($standby, "COMMIT PREPARED 'held'");
for my $g (@generators)
{
	my ($f, $type) = @$g{qw(format type)};
	is(psql_on($standby, "SELECT count(*) FILTER (WHERE id < '$horizon{$f}'::$type) || '/' || count(*) FROM ids_$f"), '0/100',
		"$f: every ID of the transaction prepared on the old primary and committed on the new one lies at or above the horizon the new one gave before the commit");
}
psql_on($standby, "ROLLBACK PREPARED 'dropped'");
# The promoted server resumes above the old primary's mark, which is kept
# at most 2 s ahead of the latest ID (docs/OPERATIONS.md, "How far ahead of
# the clock"): its first IDs may lie that far ahead of its clock, and the
# horizon, the clock's unit at most, passes them once the clock has left
# their unit.
my $minted_by = psql_on($standby, join('', map { "INSERT INTO ids_$_->{format} SELECT $_->{new};\n" } @generators)
	  . 'SELECT clock_timestamp()');
for my $g (@generators)
{
	my ($f, $type, $time) = @$g{qw(format type time)};
	is(psql_on($standby, "SELECT max($time(id)) <= '$minted_by'::timestamptz + interval '2 s 5 ms' FROM ids_$f"), 't',
		"$f: the IDs minted after the promotion lie at most the mark's 2 s (and one unit) ahead of the clock")
	  or diag(psql_on($standby, "SELECT max($time(id)) - '$minted_by'::timestamptz FROM ids_$f"));
	wait_clock_past($standby, "(SELECT max($time(id)) FROM ids_$f)");
	is(psql_on($standby, "SELECT ${f}_horizon() > max(id) FROM ids_$f"), 't',
		"$f: with both ended, the horizon passes every ID once the clock has left their units")
	  or diag(psql_on($standby, "SELECT ${f}_horizon()::text || ' ' || max(id)::text FROM ids_$f"));
}
stop_checked($standby);
done_testing();
