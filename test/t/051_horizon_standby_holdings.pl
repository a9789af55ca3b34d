# A standby that generates (flakeid.generate_on_standby) gives horizons of
# its own: a prepared transaction replayed from its primary holds them while
# it is prepared, and no longer once its COMMIT PREPARED is replayed (the
# review of issue 59: the first cut of the holdings' overflow judged no
# holding ended during recovery, so one prepared transaction on the primary
# froze a generating standby's horizon until the next PREPARE was replayed).
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $primary = flakeid_node('holdings_primary', max_prepared_transactions => 4, 'flakeid.sno_partition' => 5);
my ($standby) = flakeid_standby($primary, 'holdings_standby');
restart_with($standby, 'flakeid.sno_partition' => 9, 'flakeid.generate_on_standby' => 'on');
sub on { my ($node, $sql) = @_; return $node->safe_psql('postgres', $sql); }
sub replayed
{
	my $lsn = on($primary, 'SELECT pg_current_wal_lsn()');
	return $standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn");
}

on($standby, 'SELECT sno_new()');    # (the standby's own counter has issued: its horizons are of its clock)
my $prepared = on($primary, "BEGIN; SELECT sno_new()::text; PREPARE TRANSACTION 'p'");
my ($prepared_at) = on($primary, 'SELECT clock_timestamp()');
ok(replayed(), 'the standby replayed the PREPARE');
ok(wait_clock_past($standby, "'$prepared_at'::timestamptz"), "the standby's clock is past the prepared transaction's ID");
is(on($standby, "SELECT sno_horizon() <= '$prepared'::sno"), 't',
	'while it is prepared, the replayed holding holds the standby\'s horizon at or below its ID');
is(on($standby, "SELECT count(*) FROM flakeid_horizon_holders() WHERE prepared"), '1', 'flakeid_horizon_holders lists it');

on($primary, "COMMIT PREPARED 'p'");
ok(replayed(), 'the standby replayed the COMMIT PREPARED');
my $minted = on($standby, 'SELECT sno_new()::text');
ok(wait_clock_past($standby, "sno_time('$minted')"), "the standby's clock has left its own latest ID's unit");
is(on($standby, "SELECT sno_horizon() > '$minted'::sno"), 't',
	'once the COMMIT PREPARED is replayed, the standby\'s horizon passes its own IDs (no PREPARE replayed since)')
  or diag(on($standby, "SELECT sno_horizon()::text || ' ' || sno_time(sno_horizon())::text"));
is(on($standby, 'SELECT count(*) FROM flakeid_horizon_holders()'), '0', 'and nothing holds it any more');
stop_checked($standby, $primary);
done_testing();
