# Faults of the state file's storage, injected into the server by a
# preloaded fsync (test/lib/fsync_fault.c) while a switch file exists:
#  - an fsync that fails (EIO) is an ERROR of the call that needed the save,
#    with an I/O SQLSTATE naming the file, never a PANIC (data_sync_retry is
#    off, as by default); the renewer backs off instead of exiting every
#    second; a clean stop still stops cleanly (its save fails, so the next
#    start refuses the unsealed file: start afresh); all is well once it passes;
#  - an fsync that stalls: a call waiting for the state file's lock ends
#    at once on a cancel;
#  - a state file that cannot be written (its temporary name taken by a
#    directory): the same I/O error, naming the file; and a first ID ahead
#    of the clock, whose unit must be saved first, is not given.
# 1.1 PANICked on the failed fsync (data_sync_elevel) and waited out the
# stall in LWLockAcquire.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();

my $work = PostgreSQL::Test::Utils::tempdir();
my $switch = "$work/switch";
system('cc', '-shared', '-fPIC', '-O2', '-o', "$work/fsync_fault.so", tree_root() . '/test/lib/fsync_fault.c', '-ldl') == 0
  or BAIL_OUT('cannot build the fault');
# (fsync on: PostgreSQL::Test::Cluster turns it off, and pg_fsync() then never calls fsync)
my $node = flakeid_node('state_faults', data_sync_retry => 'off', fsync => 'on');
sub sql { return $node->safe_psql('postgres', $_[0]); }
my $pgdata = $node->data_dir;
sub start_with_fault
{
	local $ENV{LD_PRELOAD} = "$work/fsync_fault.so";
	local $ENV{FLAKEID_FAULT_SWITCH} = $switch;
	$node->start;
}
sub switch_to { PostgreSQL::Test::Utils::append_to_file($switch, "$_[0]\n"); }
$node->stop('fast');
start_with_fault();
is(sql('SELECT count(kuid_new()) FROM generate_series(1, 1000)'), '1000', 'with the fault loaded but off, generation works');

sub renewer_exits { return log_count($node, qr/background worker "flakeid mark renewer" \(PID \d+\) exited with exit code 1/); }
# failing fsyncs: calls past the mark fail, the renewer keeps trying, slower and slower
my $exits_before = renewer_exits();
# (the renewer is a background worker: a loaded machine may not have started it when the server accepts connections)
my $renewer;
poll_until(sub { $renewer = sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'flakeid mark renewer'") })
  or BAIL_OUT('no renewer running');
# A session mints without a pause from before the fault until a call fails.
# The renewer renews once the latest ID is within 1.5 s of the mark, and
# a call once it is within 1 s: had the minting begun after the fault, a
# loaded machine's pause of a second before its first call left that call
# to renew (and fail) by itself, with no ID since the last renewal, and
# the renewer, idle by design, never tried (0 WARNINGs in a CI run).
# (bounded: were calls past the mark to stop failing, the loop ends and the check after fails)
my $minting = psql_start($node, q{DO $$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
	WHILE clock_timestamp() < t0 + interval '120 s' LOOP PERFORM kuid_new(); END LOOP; END $$});
poll_until(sub { sql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'DO %kuid_new()%' AND state = 'active'") eq '1' })
  or BAIL_OUT('the minting session never started');
switch_to('eio');
my (undef, undef, $state) = psql_finish($minting);
$state =~ s/^psql:<stdin>:\d+: //mg;
my ($first_error) = $state =~ /^(ERROR:.*)$/m;
like($state, qr/ERROR:  could not fsync file "flakeid.state.tmp": Input\/output error/,
	'a call past the mark fails with the fsync error, naming the file (' . ($first_error // 'no error') . ')');
is(sqlstate_of($node, 'SELECT kuid_new()'), '58030', 'its SQLSTATE is 58030 (io_error)');
is(sql('SELECT 1'), '1', 'the server is still up');
# The renewer tries again after 1 s, then 2, 4, ... up to a minute
# (docs/OPERATIONS.md, "Restarts, crashes, standbys and failover"): wait
# for four of its WARNINGs, however long this machine takes to log them,
# and hold the gaps between them, on the server's clock (the log's
# times), to that back-off.  A renewer retrying every 100 ms fails it.
my $renewer_warning = qr/\[$renewer\] WARNING:  could not fsync file "flakeid.state.tmp"/;
ok(poll_until(sub { log_count($node, $renewer_warning) >= 4 }), "the renewer (PID $renewer) warned four times")
  or diag('its WARNINGs so far: ' . log_count($node, $renewer_warning));
is(log_count($node, qr/PANIC/), 0, 'no PANIC in the log');
my @tries = log_times($node, $renewer_warning);
my @gaps = map { $tries[$_] - $tries[ $_ - 1 ] } 1 .. ($#tries < 3 ? $#tries : 3);
# (10 ms of slack: the log's times are milliseconds, and the wait sleeps at least as asked)
ok(@gaps == 3 && $gaps[0] >= 0.99 && $gaps[1] >= 1.99 && $gaps[2] >= 3.99,
	'it backs off (1 s, 2 s, 4 s, ...) rather than trying every 100 ms: its first gaps were '
	  . join(', ', map { sprintf('%.3f s', $_) } @gaps));
is(renewer_exits() - $exits_before, 0, 'the renewer never exits');

# a clean stop while fsyncs fail: the high-water save at exit logs its failure and the server stops
ok($node->stop('fast', fail_ok => 1), 'pg_ctl stop -m fast succeeds while the state file\'s fsyncs fail');
ok(!-e "$pgdata/postmaster.pid", 'and leaves no postmaster.pid behind');
is(log_count($node, qr/PANIC/), 0, 'still no PANIC in the log');
unlink($switch);
start_with_fault();
# (the save at that stop, which seals the file with it, failed: the file on disk cannot be told from an
# older copy, so the start refuses it, the safe side: docs/OPERATIONS.md, "An older copy is refused")
is(sqlstate_of($node, 'SELECT kuid_new()'), 'XX001', 'the stop could not seal the file: generation is refused at the next start');
like(message_of($node, 'SELECT kuid_new()'), qr/HINT:  .*set flakeid.start_afresh = on and restart the server/,
	'with the hint to start afresh');
$node->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
$node->stop('fast');
start_with_fault();
is(sql('SELECT count(DISTINCT kuid_new()) FROM generate_series(1, 1000)'), '1000', 'once the fault passes and the hint is followed, generation works again');

# a stalled fsync: the renewer holds the lock for 20 s; a call past the mark waits for it, and a cancel ends that wait
switch_to('20');
sql('SELECT pg_sleep(0.5)');
my $minter = psql_start($node, "SET application_name = 'stalled'; SELECT count(kuid_new()) FROM generate_series(1, 100000000)");
# It mints until the save stalls, and is then stuck: waiting for the lock
# the stalled renewer holds (wait_event_type Extension), or, when it found
# the mark running out first and renewed it itself, in the stalled fsync
# (it holds the temporary file open).  Wait for that, at two looks 0.3 s
# apart (a wait for the next unit, also Extension on 15 and 16, lasts 1 ms).
sub stalled_waits
{
	return 0 unless -e "$pgdata/flakeid.state.tmp";
	my ($pid, $waits) = split /\|/, sql("SELECT pid, wait_event_type IS NOT DISTINCT FROM 'Extension' FROM pg_stat_activity WHERE application_name = 'stalled'");
	return 0 unless $pid;
	return 1 if $waits eq 't';
	return scalar grep { (readlink($_) // '') =~ /flakeid\.state\.tmp$/ } glob("/proc/$pid/fd/*");
}
ok(poll_until(sub { stalled_waits() && Time::HiRes::sleep(0.3) && stalled_waits() }),
	'the minting session comes to be stuck behind (or in) the stalled save');
# The process in the stalled fsync (the renewer, or the minting session
# itself) shows it as core shows its own file syncs: wait event
# DataFileSync, type IO (1.4; 1.3 showed no wait at all), which tells a DBA
# a storage stall, that no cancel ends, from a wait of flakeid's own.
ok(poll_until(sub { sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'IO' AND wait_event = 'DataFileSync'") >= 1 }),
	'the process in the stalled fsync shows wait event IO / DataFileSync in pg_stat_activity');
my ($cancelled, $stalled_pid, $cancelled_at) = split /\|/, sql("SELECT pg_cancel_backend(pid), pid, extract(epoch FROM clock_timestamp())
	FROM pg_stat_activity WHERE application_name = 'stalled'");
is($cancelled, 't', 'the minting session, stuck behind the stalled save, is sent a cancel');
my (undef, undef, $stalled_err) = psql_finish($minter);
# "A call waiting for the lock (behind a save stuck in a storage stall ...)
# ends at once on a cancel" (docs/OPERATIONS.md; 032: within 1 s): from the
# cancel to its ERROR in the log, on the server's clock
my ($ended_at) = log_times($node, qr/\[$stalled_pid\] stalled ERROR:  canceling statement due to user request/);
my $took = defined $ended_at ? $ended_at - $cancelled_at : undef;
ok(defined $took && $took < 1, 'the cancel ended it at once: within 1 s (' . (defined $took ? sprintf('%.3f s', $took) : 'no ERROR logged')
	. '), the stall lasts 20 s');
like($stalled_err, qr/canceling statement due to user request/, 'as a canceled statement (' . ((split /\n/, $stalled_err)[0] // '') . ')');
unlink($switch);

# a read-only state file is replaced like any other (1.1 opened it for writing: 42501)
# (once the stalled save has ended, and minting on until a save comes: the
# test command's run of abf5721 here, on a loaded machine, made the file
# read-only after the stall and the renewals behind it had ended, minted
# once below the mark they left, and waited 180 s for a save that only
# more minting brings)
my $stall_over = poll_until(sub { !-e "$pgdata/flakeid.state.tmp"
	  && sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'DataFileSync'") == 0 }, timeout => 60);
chmod(0444, "$pgdata/flakeid.state");
# a save replaces the file (the call's own, past the mark, or the renewer's)
ok($stall_over && poll_until(sub { sql('SELECT count(kuid_new()) FROM generate_series(1, 1000)'); (stat("$pgdata/flakeid.state"))[2] & 0200 }, timeout => 60),
	'the file was replaced by a new one')
  or diag($stall_over ? 'no save replaced it' : 'the stalled save had not ended 60 s after the fault was lifted');
# and once the server's clock is past its mark (at most 2 s ahead of the
# latest ID: docs/OPERATIONS.md), the next call saves again
my $mark = state_file_mark($pgdata);
ok($node->poll_query_until('postgres', "SELECT clock_timestamp() > to_timestamp($mark / 1e6)"), "the server's clock passes the saved mark");
is(sqlstate_of($node, 'SELECT kuid_new()'), 'ok', 'a read-only flakeid.state does not stop the renewals that replace it');
ok((stat("$pgdata/flakeid.state"))[2] & 0200, 'the file is still a replaced one');
# a file that cannot be written: an I/O error naming it
$node->restart;
mkdir("$pgdata/flakeid.state.tmp") or die "flakeid.state.tmp: $!";
my $message = message_of($node, 'DO $$ BEGIN PERFORM pg_sleep(0.3), kuid_new() FROM generate_series(1, 20); END $$');
like($message, qr/ERROR:  could not remove file "flakeid.state.tmp": Is a directory/,
	'a state file that cannot be written: the error names it (' . ((split /\n/, $message)[0] // '') . ')');
is(sqlstate_of($node, 'SELECT kuid_new()'), '58030', 'with SQLSTATE 58030');
rmdir("$pgdata/flakeid.state.tmp");
is(sql('SELECT count(DISTINCT kuid_new()) FROM generate_series(1, 1000)'), '1000', 'and generation works once it can be written');

# The first unit a live counter issues in ahead of the clock is saved
# before its ID is given (docs/OPERATIONS.md, "Back-fill": the runs are
# saved).  While the file cannot be written, that ID fails with the I/O
# error and nothing is given; once it can, the ID is given, and after a
# restart back-fill in its unit is refused (55000), not given over it.
# (the advance's own save first, while the file can be written; 20 s ahead, so that a loaded machine's pauses between the calls below stay inside it: 3 s failed on every major in a run beside a campaign, and on a new machine's run)
sql(q{SELECT snowflake_advance_past(snowflake_from_parts(clock_timestamp() + interval '20 s', 0, 0, 0))});
mkdir("$pgdata/flakeid.state.tmp") or die "flakeid.state.tmp: $!";
is(sqlstate_of($node, 'SELECT snowflake_new()'), '58030',
	'the first snowflake ahead of the clock fails while its unit cannot be saved');
rmdir("$pgdata/flakeid.state.tmp");
my ($ahead_id, $ahead_t) = split /\|/, sql('SELECT id, snowflake_time(id) FROM (SELECT snowflake_new() AS id) s');
ok(sql("SELECT '$ahead_t'::timestamptz > clock_timestamp()") eq 't', "once it can be saved, it is given, ahead of the clock ($ahead_t)");
ok(wait_clock_past($node, "'$ahead_t'::timestamptz"), 'the clock passes it');
$node->restart;
is(sqlstate_of($node, "SELECT snowflake_new_at('$ahead_t'::timestamptz)"), '55000',
	'after a restart, back-fill in its unit is refused: the unit was saved with it');
stop_checked($node);
done_testing();
