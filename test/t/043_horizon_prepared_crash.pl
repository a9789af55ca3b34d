# After a crash with prepared transactions that issued IDs, the server
# starts again (issue 59, item 1).  flakeid.prepared is saved at PREPARE, so
# it may name a transaction whose commit-log page is not on disk yet:
# recovery replays from the checkpoint before 'y', and b583abf's replay of
# y's PREPARED record asked the commit log about 'x', 33,000 transaction
# IDs later ("could not access status of transaction"), and every start
# failed.  Recovery now never asks about a transaction at or past the next
# transaction ID.  A streaming standby, stopped the same way, meets the same
# file and starts again too.  Then both transactions resolve, and the
# horizon stays below their IDs until they do.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $primary = flakeid_node('prep_crash', max_prepared_transactions => 10, checkpoint_timeout => '1h',
	max_wal_size => '4GB');
my ($standby) = flakeid_standby($primary, 'prep_crash_standby');
sub psql_on { my ($node, $sql) = @_; return $node->safe_psql('postgres', $sql); }

# the lowest and highest ID a prepared transaction named GID inserted
sub prepare_with_ids
{
	my ($gid) = @_;
	return split /\|/, psql_on($primary, "BEGIN;
		WITH i AS (INSERT INTO ids SELECT sno_new(), '$gid' FROM generate_series(1, 10) RETURNING id)
		SELECT min(id)::text || '|' || max(id)::text FROM i;
		PREPARE TRANSACTION '$gid'");
}

psql_on($primary, 'CREATE TABLE ids (id sno, gid text)');
psql_on($primary, 'CREATE PROCEDURE burn_xids(n int) LANGUAGE plpgsql AS $$
	BEGIN FOR i IN 1 .. n LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END $$');
psql_on($primary, 'CHECKPOINT');
my ($y_low) = prepare_with_ids('y');
psql_on($primary, 'CALL burn_xids(33000)');
my ($x_low, $x_high) = prepare_with_ids('x');
my $lsn = psql_on($primary, 'SELECT pg_current_wal_lsn()');
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"),
	'the standby replayed both prepares');

$primary->stop('immediate');
ok($primary->start(fail_ok => 1), 'the primary starts again after an immediate stop');
is(log_count($primary, qr/could not access status of transaction/), 0, "the primary's log has no commit-log lookup that failed");
$standby->stop('immediate');
ok($standby->start(fail_ok => 1), 'the standby starts again after an immediate stop');
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"),
	'and replays up to where it was');
is(log_count($standby, qr/could not access status of transaction/), 0, "the standby's log has no commit-log lookup that failed");

is(psql_on($primary, 'SELECT string_agg(gid, \',\' ORDER BY gid) FROM pg_prepared_xacts'), 'x,y', 'both transactions are still prepared');
# the clock's unit is past every prepared ID once a new ID is above them (bound: poll_query_until's)
ok($primary->poll_query_until('postgres', "SELECT sno_new() > '$x_high'::sno"), "the clock moved past x's IDs");
is(psql_on($primary, "SELECT sno_horizon() <= '$y_low'::sno AND sno_horizon() <= '$x_low'::sno"), 't',
	'the horizon stays at or below the IDs of both prepared transactions');
psql_on($primary, "COMMIT PREPARED 'y'");
is(psql_on($primary, "SELECT sno_horizon() <= '$x_low'::sno"), 't', "with y committed, the horizon stays at or below x's IDs");
psql_on($primary, "COMMIT PREPARED 'x'");
ok($primary->poll_query_until('postgres', 'SELECT sno_horizon() > max(id) FROM ids'),
	'with both committed, the horizon passes every ID they inserted');
stop_checked($standby, $primary);
done_testing();
