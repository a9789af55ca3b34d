# A standby restarted while its primary has as many prepared transactions
# as max_prepared_transactions starts again, and keeps their holdings (found
# by the fault campaign, test/chaos: a standby stopped at its next start
# with "flakeid cannot hold the horizon for more prepared transactions than
# max_prepared_xacts").  After a restart, recovery starts from the last
# restartpoint: it loads flakeid.prepared as saved at the last record it
# replayed (the four transactions prepared last), then replays the four
# prepared, and committed, before them again.  The table held
# max_prepared_xacts holdings: the first replayed one did not fit.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $primary = flakeid_node('prep_restart_primary', max_prepared_transactions => 4);
my ($standby) = flakeid_standby($primary, 'prep_restart_standby');
sub psql_on { my ($node, $sql) = @_; return $node->safe_psql('postgres', $sql); }

psql_on($primary, 'CREATE TABLE ids (id sno, round int)');
# four prepared and committed, then four prepared and left open: no checkpoint
# between (the standby's restartpoint stays before the first)
for my $round (1, 2)
{
	psql_on($primary, "BEGIN; INSERT INTO ids SELECT sno_new(), $round FROM generate_series(1, 10); PREPARE TRANSACTION 'r${round}_$_'")
	  for 1 .. 4;
	psql_on($primary, "COMMIT PREPARED 'r1_$_'") for $round == 1 ? (1 .. 4) : ();
}
# (every prepared ID lies before this moment: the two servers share the machine's clock)
my ($lsn, $prepared_by) = split /\|/, psql_on($primary, 'SELECT pg_current_wal_lsn(), clock_timestamp()');
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"),
	'the standby replayed eight prepares, four commits of them');

$standby->stop('immediate');
ok($standby->start(fail_ok => 1), 'the standby starts again after an immediate stop');
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"),
	'and replays up to where it was');
is(log_count($standby, qr/cannot hold the horizon/), 0, 'its log has no holding refused');

# the holdings of the four open ones survived: promoted, its horizon stays below them
$primary->stop('fast');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
# The check means something only once sno's clock has left the prepared
# IDs' units: a horizon that lost their holdings would then lie above them
# all.  Wait for that (100 ms past them: the unit is 4 ms, and the coarse
# clock sno may read lags 6-10 ms, docs/OPERATIONS.md).
ok($standby->poll_query_until('postgres', "SELECT clock_timestamp() > '$prepared_by'::timestamptz + interval '100 ms'"),
	"the promoted server's clock moves past the prepared IDs' units");
my $horizon = psql_on($standby, 'SELECT sno_horizon()::text');
psql_on($standby, "COMMIT PREPARED 'r2_$_'") for 1 .. 4;
is(psql_on($standby, "SELECT count(*) FILTER (WHERE id < '$horizon'::sno) || '/' || count(*) FROM ids WHERE round = 2"),
	'0/40', 'every ID of the four prepared transactions left open lies at or above the horizon the promoted standby gave');
stop_checked($standby);
done_testing();
