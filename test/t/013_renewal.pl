# The mark renewer: a background worker keeps the saved mark ahead of the
# IDs being minted, so that generator calls do not renew it (and pay its
# fsyncs) themselves.  Each generator call that renews logs it at DEBUG1 in
# its own session, which is how this test counts them.  The control stops
# the worker (SIGSTOP): the same minting then renews in the calls, which
# shows the count can see them, and that calls go on without the worker.
# Then, a renewal that fails: a WARNING while the calls are covered.  Last,
# the WAL records the renewals wrote, as pg_walinspect describes them.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $node = flakeid_node('renewal');
sub sql { return $node->safe_psql('postgres', $_[0]); }
my $datadir = $node->data_dir;
sub renewals_in_calls { return log_count($node, qr/DEBUG:  a generator call renewed the saved mark/); }
sub mint   # mint(SECONDS): one session mints sno, kuid and snowflake IDs for that long, logging at DEBUG1
{
	sql("SET log_min_messages = debug1;
		DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
			WHILE clock_timestamp() < t0 + interval '$_[0] s' LOOP
				PERFORM sno_new(), kuid_new(), snowflake_new() FROM generate_series(1, 200);
				PERFORM pg_sleep(0.005);
			END LOOP; END \$\$");
}

my @workers = split /\n/, sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'flakeid mark renewer'");
is(scalar(@workers), 1, "one 'flakeid mark renewer' in pg_stat_activity");
my $worker = $workers[0];

mint(0.5);   # the renewer finds the generators in use
# A renewer kept off the CPU for about a second (a loaded 2-core machine:
# the suite of another major, a root being built beside it) lets the calls
# renew, as designed.  A window of 4 s with none shows the renewer keeps up;
# a renewer that does not run fails every window (the control below stops
# it: the calls renew at least twice in one window).  Up to 3 windows.
my ($before_calls, $before_mark, $after_mark, @in_calls);
for my $window (1 .. 3)
{
	$before_calls = renewals_in_calls();
	$before_mark = state_file_mark($datadir);
	mint(4);
	$after_mark = state_file_mark($datadir);
	push @in_calls, renewals_in_calls() - $before_calls;
	last if $in_calls[-1] == 0;
}
is($in_calls[-1], 0, '4 s of minting: no generator call renewed the mark')
	or diag('renewals in calls, window by window: ' . join(', ', @in_calls));
note('windows before one without renewals in calls: ' . (@in_calls - 1) . ' (' . join(', ', @in_calls) . ')');
cmp_ok($after_mark - $before_mark, '>=', 3000000,
	'the renewer moved the saved mark on with the clock (' . int(($after_mark - $before_mark) / 1000) . ' ms in 4 s)');

# stop_renewer(): SIGSTOP to the renewer while it sleeps between passes (its wait event, read
# once it is stopped), never inside a save, where it holds flakeid_lock: stopped there, every
# call that must renew waited for the lock (013 hung on 18 for 25 minutes once)
sub stop_renewer
{
	ok(poll_until(sub {
		kill 'STOP', $worker;
		return 1 if sql("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $worker") eq 'Extension';
		kill 'CONT', $worker;
		return 0;
	}, interval => 0.01), '(the renewer stopped while it sleeps between passes, holding no lock)');
}

# the control: the renewer stopped, the calls renew for themselves and go on
stop_renewer();
$before_calls = renewals_in_calls();
mint(4);
my $after_stopped = renewals_in_calls();
kill 'CONT', $worker;
cmp_ok($after_stopped - $before_calls, '>=', 2,
	'control, the renewer stopped: the calls renewed the mark themselves (' . ($after_stopped - $before_calls) . ' times in 4 s)');
is(sql("SELECT count(*) FROM pg_stat_activity WHERE pid = $worker"), '1', 'the renewer carries on after SIGCONT');

# a renewal that fails (its temporary file is a directory): a call still
# covered by the mark goes on with a WARNING; only past the mark is it an ERROR.
# The calls mint without a pause from before the fault until it stops them:
# had they begun after it, a loaded machine's pause of two seconds before
# the first call put that call past the mark at once (0 WARNINGs in a CI run).
mint(0.5);
stop_renewer();
my $minting = psql_start($node, "SET client_min_messages = warning;
	DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
		WHILE clock_timestamp() < t0 + interval '120 s' LOOP
			PERFORM sno_new() FROM generate_series(1, 50);
			PERFORM pg_sleep(0.01);
		END LOOP;
		RAISE WARNING 'no error in 120 s';
	EXCEPTION WHEN OTHERS THEN
		RAISE WARNING 'stopped by % at %', SQLSTATE, (extract(epoch FROM clock_timestamp()) * 1e6)::int8;
	END \$\$");
poll_until(sub { sql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SET client_min_messages%' AND state = 'active'") eq '1' })
  or BAIL_OUT('the minting session never started');
# (a directory where a save's temporary file is: made between two saves, never during one)
poll_until(sub { mkdir("$datadir/flakeid.state.tmp") }) or die "flakeid.state.tmp: $!";
my $mark = state_file_sno_mark($datadir);   # the calls mint sno: its own mark, the last saved
my (undef, undef, $out) = psql_finish($minting);
rmdir("$datadir/flakeid.state.tmp");
kill 'CONT', $worker;
my $warnings = () = $out =~ /WARNING:  could not create file "flakeid.state.tmp"/g;
ok($warnings >= 1 && $warnings <= 3, "failed renewals while covered: $warnings WARNINGs (at most one a second), and the calls went on");
my ($stopped_at) = $out =~ /stopped by [0-9A-Z]* at (\d+)/;
ok(defined $stopped_at && $stopped_at >= $mark,
	'the first ERROR came only past the saved mark (' . int((($stopped_at // 0) - $mark) / 1000) . ' ms after it)');
is(sql('SELECT count(sno_new()) FROM generate_series(1, 1000)'), '1000', 'with the file writable again, generation goes on');

# the renewals' WAL records, described in core's "key: value, ..." style (pg_waldump, a
# program without the extension, can only say custom149)
my $start = sql('SELECT pg_current_wal_lsn()');
sql('SELECT count(kuid_new()) FROM generate_series(1, 1000); SELECT pg_sleep(2.2); SELECT count(kuid_new()) FROM generate_series(1, 1000)');
sql('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
my $record = sql("SELECT record_type || ' ' || description FROM pg_get_wal_records_info('$start', pg_current_wal_lsn())
                  WHERE resource_manager = 'flakeid' LIMIT 1");
like($record, qr/^ISSUED mark: [0-9]+, sno mark 0: [0-9]+, sno mark 1: [0-9]+, sno tick-tock: [01], snowflake epoch: -?[0-9]+, back-fill low-waters: [0-9]+, deep units: [0-9]+$/,
	"pg_walinspect shows the renewals' records: $record");
stop_checked($node);
done_testing();
