# A crash between any two steps of a save leaves a state that starts
# (issue 47): a back-fill's save of flakeid.state is paused after its
# temporary copy is written, after it is fsynced, and after it is renamed
# (flakeid.debug_pause_at), and the postmaster is killed with SIGKILL
# there.  Each time the server starts again, reads its state (no "damaged"
# in the log, generation not refused), and issues IDs after every ID it
# issued before the crash.  A temporary copy left behind, even a torn one,
# is never read.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();

my $node = flakeid_node('save_crash', 'flakeid.allow_debug_clock_offset' => 'on');
my $datadir = $node->data_dir;
sub sql { return $node->safe_psql('postgres', $_[0]); }
sql('CREATE TABLE ids (id sno, n bigint)');
my $day = 0;

for my $point (qw(save_written save_synced save_renamed))
{
	sql('INSERT INTO ids SELECT sno_new(), snowflake_new() FROM generate_series(1, 1000)');
	my ($sno_before, $snowflake_before) = split /\|/, sql('SELECT max(id), max(n) FROM ids');
	# the first back-fill of a server lifetime lowers a low-water: a save, paused at $point
	$node->restart if $day > 0;
	$day++;
	my $job = psql_start($node, "SET flakeid.debug_pause_at = '$point'; SET flakeid.debug_pause_ms = 60000;
		SELECT snowflake_new_at('2019-01-0$day 00:00:00+00')");
	my $paused = poll_until(sub { ($point eq 'save_renamed' ? 1 : -e "$datadir/flakeid.state.tmp")
		  && sql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%snowflake_new_at(%' AND wait_event_type = 'Extension'") eq '1' });
	ok($paused, "$point: a save is paused there");
	if ($point eq 'save_written')
	{
		# a copy that was never fsynced may be torn: a crash keeps any prefix of it
		truncate("$datadir/flakeid.state.tmp", 10) or die "truncate: $!";
	}
	my $postmaster = $node->{_pid};
	$node->kill9;
	psql_finish($job);
	# the postmaster gone, its children notice and exit, and the shared memory
	# is free; until then a start is refused, and the node is told it stopped
	poll_until(sub { !kill(0, $postmaster) });
	my $started = poll_until(sub {
		my $up = $node->start(fail_ok => 1);
		$node->{_pid} = undef unless $up;
		$up }, interval => 0.2);
	ok($started, "$point: after a SIGKILL of the postmaster there, the server starts");
	is(log_count($node, qr/flakeid\.state" is damaged|belongs to another cluster|written by a newer version/), 0,
		"$point: and reads its state file as a good one");
	is(sql("SELECT (sno_new() > '$sno_before'::sno) AND (snowflake_new() > $snowflake_before)"), 't',
		"$point: and issues after every ID it issued before the crash");
	is(sqlstate_of($node, "SELECT snowflake_new_at('2019-01-0$day 00:00:00+00')"), 'ok', "$point: back-fill works again");
}
stop_checked($node);
done_testing();
