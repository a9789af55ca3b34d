# A PREPARE that waits for another's save of flakeid.prepared ends on a
# cancel (issue 59, item 5).  Session A prepares a transaction that issued
# an ID and pauses in its save after the write (flakeid.debug_pause_at =
# 'save_written', with the file's lock held); session B then prepares one
# too, and waits for A's save.  b583abf waited in a plain LWLockAcquire,
# which ignores cancels until A's pause ends (20 s); B now waits on a
# condition variable, and a cancel ends it at once.
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use Time::HiRes qw(time);

my $node = flakeid_node('prep_cancel', max_prepared_transactions => 10, 'flakeid.allow_debug_clock_offset' => 'on');
sub psql_on { my ($sql) = @_; return $node->safe_psql('postgres', $sql); }

# waits until SQL returns 't', at most BOUND seconds; whether it did
sub within
{
	my ($bound, $sql) = @_;
	my $deadline = time + $bound;
	while (time < $deadline)
	{
		return 1 if psql_on($sql) eq 't';
		Time::HiRes::sleep(0.05);
	}
	return 0;
}

# (the pause is set after the ID, so that only the PREPARE's save pauses, not a save of the state file)
my $a = psql_start($node, "BEGIN; SELECT sno_new(); SET flakeid.debug_pause_ms = 20000;
	SET flakeid.debug_pause_at = 'save_written'; PREPARE TRANSACTION 'a'");
ok(within(20, "SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%TRANSACTION ''a''%' AND wait_event = 'Extension'"),
	'A pauses in its save (within 20 s)');
psql_on('SELECT sno_new()');    # (the state is saved before B's ID is drawn, not while A pauses)
my $b = psql_start($node, "BEGIN; SELECT sno_new(); PREPARE TRANSACTION 'b'");
my $b_waits = "SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%TRANSACTION ''b''%' AND wait_event IS NOT NULL";
ok(within(20, $b_waits), 'B waits (within 20 s)');
is(psql_on("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%TRANSACTION ''b''%' AND pid <> pg_backend_pid()"),
	't', 'B is sent a cancel');
ok(within(10, "SELECT count(*) = 0 FROM pg_stat_activity WHERE query LIKE '%TRANSACTION ''b''%' AND state = 'active' AND pid <> pg_backend_pid()"),
	"B's PREPARE ends within 10 s of the cancel, while A is still paused");
ok(within(1, "SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%TRANSACTION ''a''%' AND wait_event = 'Extension'"),
	'(A was still paused then)');
my ($b_status, undef, $b_err) = psql_finish($b);
like($b_err, qr/canceling statement due to user request/, "B's PREPARE failed with the cancel");
my ($a_status, undef, $a_err) = psql_finish($a);
is($a_status, 0, "A's PREPARE completes once its pause ends") or diag($a_err);
is(psql_on('SELECT string_agg(gid, \',\') FROM pg_prepared_xacts'), 'a', 'only A is prepared');
psql_on("COMMIT PREPARED 'a'");
stop_checked($node);
done_testing();
