# A pause at a save (flakeid.debug_pause_at = save_*) runs under
# flakeid_lock, which holds interrupts off: a cancel or statement_timeout
# must still end it (issue 59, item 8), the save then failing as on an I/O
# error and the lock released.  1.3 ignored the cancel until the pause ran
# out.  The pause is 60 s; the call must end within 10 s of the cancel.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();

my $node = flakeid_node('save_pause_cancel', 'flakeid.allow_debug_clock_offset' => 'on');
my $datadir = $node->data_dir;
sub sql { return $node->safe_psql('postgres', $_[0]); }
sql('SELECT snowflake_new()');
my $day = 0;

# paused(POINT): whether a call is paused at POINT within 30 s
sub paused
{
	my ($point) = @_;
	for (1 .. 300)
	{
		return 1 if ($point eq 'save_renamed' || -e "$datadir/flakeid.state.tmp")
		  && sql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%snowflake_new_at(%' AND wait_event_type = 'Extension'") eq '1';
		Time::HiRes::sleep(0.1);
	}
	return 0;
}

for my $point (qw(save_written save_synced save_renamed))
{
	# each back-fill of a day not seen lowers a deep range: a save, paused at $point
	$day++;
	$node->restart;
	my $job = psql_start($node, "SET flakeid.debug_pause_at = '$point'; SET flakeid.debug_pause_ms = 60000;
		SELECT snowflake_new_at('2019-01-0$day 00:00:00+00')");
	ok(paused($point), "$point: a save is paused there");
	my $started = Time::HiRes::time();
	sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%snowflake_new_at(%' AND wait_event_type = 'Extension'");
	my ($status, $out, $err) = psql_finish($job);
	my $took = Time::HiRes::time() - $started;
	ok($took < 10, sprintf("$point: a cancel ends the paused call within 10 s of 60 (%.1f s)", $took));
	like($err, qr/canceling statement due to user request/, "$point: with the cancel's error");
	is(sqlstate_of($node, "SELECT snowflake_new_at('2019-01-0$day 00:00:00+00'), snowflake_new(), sno_new()"), 'ok',
		"$point: flakeid_lock is free again: the same back-fill, and live calls, work");
}

# statement_timeout ends it as well
$node->restart;
my $job = psql_start($node, "SET flakeid.debug_pause_at = 'save_written'; SET flakeid.debug_pause_ms = 60000;
	SET statement_timeout = '2s'; SELECT snowflake_new_at('2019-01-09 00:00:00+00')");
my $started = Time::HiRes::time();
my ($status, $out, $err) = psql_finish($job);
my $took = Time::HiRes::time() - $started;
like($err, qr/canceling statement due to statement timeout/, 'save_written: statement_timeout = 2s ends the pause with its error');
ok($took < 12, sprintf('save_written: within 12 s of the call (%.1f s)', $took));
stop_checked($node);
done_testing();
