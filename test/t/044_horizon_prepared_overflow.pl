# A standby that replays ten times max_prepared_transactions PREPAREs of
# transactions that issued IDs, each resolved later, with immediate
# restarts in between, stays up (issue 59, item 1b), and once promoted its
# horizon stays below the IDs of those still prepared and passes them once
# they end.  Between rounds the primary uses up transaction IDs, so that
# the holdings of the file name transactions on a commit-log page the
# standby has not written (b583abf stopped there with "could not access
# status of transaction"), and the standby's restartpoint stays at its base
# backup: each start replays every PREPARE again beside the file's
# holdings.  A table with no room merges holdings (the overflow entry)
# instead of stopping recovery with "cannot hold the horizon".
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $max_prepared = 4;
# (identities of its own, as docs/OPERATIONS.md advises)
my $primary = flakeid_node('prep_overflow_primary', max_prepared_transactions => $max_prepared,
	checkpoint_timeout => '1h', max_wal_size => '4GB', 'flakeid.sno_partition' => 5, 'flakeid.siq_shard' => 5,
	'flakeid.snowflake_worker' => 5, 'flakeid.snowflake_process' => 1);
my ($standby) = flakeid_standby($primary, 'prep_overflow_standby');
# (identities that sort above the primary's, so that the primary's prepared
# IDs in a held unit sort below a horizon that carried the standby's own)
restart_with($standby, 'flakeid.sno_partition' => 9, 'flakeid.siq_shard' => 9, 'flakeid.snowflake_worker' => 9);
sub psql_on { my ($node, $sql) = @_; return $node->safe_psql('postgres', $sql); }

psql_on($primary, 'CREATE TABLE ids (id sno, round int)');
psql_on($primary, 'CREATE PROCEDURE burn_xids(n int) LANGUAGE plpgsql AS $$
	BEGIN FOR i IN 1 .. n LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END $$');
my $rounds = 10 * $max_prepared;
for my $round (1 .. $rounds)
{
	psql_on($primary, "BEGIN; INSERT INTO ids SELECT sno_new(), $round FROM generate_series(1, 5); PREPARE TRANSACTION 'p$round'");
	# each is resolved three rounds later: max_prepared_transactions stay open
	my $old = $round - ($max_prepared - 1);
	psql_on($primary, ($old % 2 ? 'COMMIT' : 'ROLLBACK') . " PREPARED 'p$old'") if $old >= 1;
	next if $round % 10;
	psql_on($primary, 'CALL burn_xids(12000)');
	my $lsn = psql_on($primary, 'SELECT pg_current_wal_lsn()');
	ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"),
		"round $round: the standby replayed it");
	$standby->stop('immediate');
	ok($standby->start(fail_ok => 1), "round $round: the standby starts again after an immediate stop")
	  or last;
	ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"),
		"round $round: and replays up to where it was");
}
is(log_count($standby, qr/cannot hold the horizon|could not access status/), 0,
	"the standby's log has no refused holding and no failed commit-log lookup");

# promoted, its horizon stays below the IDs of the transactions still prepared
my @open = ($rounds - $max_prepared + 2 .. $rounds);
my $open_list = join(',', @open);
$primary->stop('fast');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
is(psql_on($standby, 'SELECT count(*) FROM pg_prepared_xacts'), scalar(@open), 'the promoted standby holds the open ones');
ok($standby->poll_query_until('postgres', "SELECT sno_new() > (SELECT max(id) FROM ids)"), 'its clock moved past the committed IDs');
my $horizon = psql_on($standby, 'SELECT sno_horizon()::text');
# The horizon is the smallest ID of its unit, of any identity: up to 1.4 it
# carried this server's own partition (shard; worker and process), and the
# IDs its primary left prepared in the held unit, of another identity, could
# sort below it (this file failed so when its rounds ran fast enough to
# share a unit).  kuid96's carries its node (its window comes first):
# docs/OPERATIONS.md says what that leaves.
is(psql_on($standby, "SELECT sno_horizon() = sno_lower_bound(sno_time(sno_horizon())),
	siq_shard(siq_horizon()), snowflake_worker(snowflake_horizon()), snowflake_process(snowflake_horizon())"),
	't|0|0|0', 'each horizon is the smallest ID of its unit, whatever the identity (sno: its lower bound; siq shard 0; snowflake worker and process 0)');
psql_on($standby, "COMMIT PREPARED 'p$_'") for @open;
is(psql_on($standby, "SELECT count(*) FILTER (WHERE id < '$horizon'::sno) FROM ids WHERE round IN ($open_list)"), '0',
	'every ID of the transactions left prepared lies at or above the horizon the promoted standby gave');
ok($standby->poll_query_until('postgres', 'SELECT sno_horizon() > max(id) FROM ids'),
	'once they are committed, the horizon passes every ID');
stop_checked($standby);
done_testing();
