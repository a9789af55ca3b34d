# flakeid.mark_synchronous: a failover to a synchronous standby never
# repeats an ID a client received, even though the IDs themselves (plain
# SELECTs, no commit) replicate nothing.  A primary whose clock runs 30 s
# ahead mints snowflakes; its synchronous standby is cut off (stopped) while it
# goes on minting for 4 s; the primary crashes; the standby is started and
# promoted with the same identities and mints with the real clock.
#  - off (the default, and the negative control): the primary renewed its
#    mark past what the standby knows, and the promoted server repeats IDs
#    that clients received;
#  - on: renewals wait for the standby, so calls past the last mark it has
#    fail (statement_timeout, 57014) instead, and nothing repeats; the wait
#    ends on a cancel or terminate although it holds flakeid_lock (a call
#    renewing the mark itself, and a fast shutdown).
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();

sub failover
{
	my ($name, $synchronous) = @_;
	my $primary = flakeid_node("${name}_primary",
		'flakeid.allow_debug_clock_offset' => 'on', 'flakeid.snowflake_worker' => 6, 'flakeid.snowflake_process' => 7,
		'flakeid.mark_synchronous' => $synchronous);
	my ($standby) = flakeid_standby($primary, "${name}_standby");
	# (only once the standby exists: commits wait for it from then on)
	$primary->safe_psql('postgres', "ALTER SYSTEM SET synchronous_standby_names = '*'; SELECT pg_reload_conf()");
	ok($primary->poll_query_until('postgres', "SELECT sync_state = 'sync' FROM pg_stat_replication"),
		"$name: the standby streams synchronously");
	# (synchronous_commit = local, as a session that wants fast commits sets it: the
	# mark's wait must not depend on it)
	my $mint = "SET flakeid.debug_clock_offset_ms = 30000; SET statement_timeout = '1s';
	            SET synchronous_commit = local; SELECT snowflake_new() FROM generate_series(1, 20000)";
	my @received = split /\n/, $primary->safe_psql('postgres', $mint);
	my $lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
	$standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn");
	$standby->stop('fast');
	my $cancelled;
	if ($synchronous eq 'on')
	{
		# A call far past the mark renews it itself (nothing has been minted
		# since the last renewal, so the renewer is idle), holding
		# flakeid_lock while it waits for the standby that is gone: its
		# statement_timeout must still end the wait.
		my ($err, $timed_out, $began) = ('', 0, time);
		$primary->psql('postgres',
			"SET flakeid.debug_clock_offset_ms = 630000; SET statement_timeout = '2s'; SELECT snowflake_new()",
			stderr => \$err, timeout => 60, timed_out => \$timed_out);
		$cancelled = !$timed_out && $err =~ /canceling statement due to statement timeout/;
		diag("the call past the mark: " . ($timed_out ? "still waiting after 60 s" : $err)) unless $cancelled;
	}

	# cut off: what the clients receive meanwhile; a failed statement gives
	# them nothing.  For 4 s, and with the setting off until a received ID
	# lies past the mark the primary had saved at the cut-off (which the
	# standby knows at most): only those can meet the promoted server's,
	# which resumes after that mark.  A loaded machine's few bursts in a
	# fixed 4 s all lay below it, and the negative control met 0 of 80,000
	# (CI of 4cc6fd9 on 15; once on 19 before).  The mark is renewed at
	# most 2 s ahead of the IDs, so a minter passes it within seconds: 120 s
	# is the bound of a machine that stalls.
	my $cut_mark = state_file_mark($primary->data_dir);
	my ($failures, $deadline, $passed) = (0, time + 4, $synchronous eq 'on');
	my $bound = time + 120;
	while (time < $deadline || (!$passed && time < $bound))
	{
		my ($out, $err) = ('', '');
		# (a psql and a backend of its own per call, as before the suite's
		# sessions: through one session, one run on 19 met 0 repeats of 2.5 M
		# IDs received; 15 met 346,440 of 1.1 M)
		FlakeidSessions::fresh_psql($primary, 'postgres', $mint, stdout => \$out, stderr => \$err);
		if ($err =~ /ERROR:/) { $failures++; $primary->psql('postgres', 'SELECT pg_sleep(0.2)'); }
		else
		{
			my @burst = split /\n/, $out;
			push @received, @burst;
			$passed ||= @burst && $primary->safe_psql('postgres',
				"SELECT (extract(epoch FROM snowflake_time($burst[-1])) * 1e6)::int8 > $cut_mark") eq 't';
		}
	}
	ok($passed, "$name: the clients received IDs past the mark saved at the cut-off") if $synchronous ne 'on';
	my $stopped;
	if ($synchronous eq 'on')
	{
		# the renewer, or a call, waits for the standby with flakeid_lock held
		# by now: a fast shutdown terminates them, and must end
		local $ENV{PGCTLTIMEOUT} = 60;
		$stopped = $primary->stop('fast', fail_ok => 1);
	}
	$primary->stop('immediate');
	$standby->start;
	$standby->promote;
	my %received = map { $_ => 1 } @received;
	# The promoted server resumes at the last mark the standby knows, 1.5 to
	# 2 s past its primary's IDs at the cut-off, and counts on from there far
	# ahead of its own clock, through every ID of its identities (4,096 a
	# ms).  It mints, a million at a time, until it passes the last ID a
	# client received: every received ID at or past where it resumed is then
	# met, however sparse the bursts the primary minted in the 4 s after the
	# cut-off (a fixed 10 M IDs, 2.4 s of ID time, met none on a loaded
	# machine: its bursts all lay past that span).  At most 64 M.  The
	# comparison is the server's, against the received IDs copied in.  It
	# mints with its clock an hour back: its real clock reaches its resume
	# point 32 s after the cut-off, and a loaded machine's failover took
	# longer (CI of cb4cd05 on 17 and another major: 0 of 60,000 and of
	# 80,000 met), so the promoted server minted at its clock, past the
	# span and sparse, and met none; a failover delayed by 36 s here met 0
	# of 720,000 the same way.
	my $file = "$PostgreSQL::Test::Utils::tmp_check/received_$name";
	open(my $fh, '>', $file) or die "$file: $!";
	print $fh "$_\n" for keys %received;
	close($fh);
	my ($repeats, $batches) = split ' ', $standby->safe_psql('postgres',
		"CREATE TABLE received (id bigint PRIMARY KEY); COPY received FROM '$file'; ANALYZE received;
		 SET flakeid.debug_clock_offset_ms = -3600000;
		 DO \$\$ DECLARE top bigint := (SELECT max(id) FROM received); met bigint := 0; n bigint; hi bigint; batches int := 0;
		 BEGIN
			LOOP
				SELECT count(r.id), max(m.id) INTO n, hi
				  FROM (SELECT snowflake_new() AS id FROM generate_series(1, 1000000)) m LEFT JOIN received r ON r.id = m.id;
				met := met + n;
				batches := batches + 1;
				EXIT WHEN hi >= top OR batches >= 64;
			END LOOP;
			CREATE TABLE met AS SELECT met, batches;
		 END \$\$;
		 SELECT met, batches FROM met", extra_params => ['-F', ' ']);
	note("$name: the promoted server minted $batches million IDs to pass the last one received");
	$standby->stop;
	return ($repeats, $failures, scalar keys %received, $primary, $cancelled, $stopped);
}

my ($repeats, $failures, $received) = failover('async_mark', 'off');
cmp_ok($repeats, '>', 0,
	"mark_synchronous off (negative control): the promoted server repeats $repeats of the $received IDs clients received");
is($failures, 0, 'mark_synchronous off: the cut-off primary went on minting without an error');

my ($primary, $cancelled, $stopped);
($repeats, $failures, $received, $primary, $cancelled, $stopped) = failover('sync_mark', 'on');
ok($cancelled, "mark_synchronous on: a call renewing the mark itself, waiting for the standby that is gone, ends on its statement_timeout (57014)");
ok($stopped, "mark_synchronous on: a fast shutdown of the cut-off primary ends, its waits for the standby with it");
is($repeats, 0, "mark_synchronous on: the promoted server repeats none of the $received IDs clients received");
cmp_ok($failures, '>', 0, "mark_synchronous on: the cut-off primary refused calls past its last confirmed mark ($failures statements)");
like(slurp_file($primary->logfile), qr/ERROR:  canceling statement due to statement timeout|the synchronous standbys did not confirm/,
	'they failed on the statement timeout while waiting for the mark');

# --- a lost synchronous standby: the waits behind it end ---------------------------------------
# With synchronous_standby_names naming a standby that is gone, a renewal
# holds flakeid_lock while it waits.  sno after a clock step back takes that
# lock: a cancel must end its wait (1.2 waited with a plain LWLockAcquire,
# deaf to cancel, statement_timeout and terminate).  Clearing the setting
# and reloading, the standard way out, must release the renewal itself (1.2
# read the backend's own copy of the setting once, and waited on).
{
	my $node = flakeid_node('lost_standby', 'flakeid.allow_debug_clock_offset' => 'on', 'flakeid.mark_synchronous' => 'on');
	$node->safe_psql('postgres', "SELECT sno_new(), snowflake_new()");
	$node->safe_psql('postgres', "ALTER SYSTEM SET synchronous_standby_names = 'gone'; SELECT pg_reload_conf()");
	# (the checkpointer publishes the setting after the reload)
	$node->poll_query_until('postgres', "SELECT current_setting('synchronous_standby_names') = 'gone'");
	sleep 1;
	my $renewing = psql_start($node, "SET flakeid.debug_clock_offset_ms = 630000; SELECT snowflake_new(), extract(epoch FROM clock_timestamp())");
	ok($node->poll_query_until('postgres',
			"SELECT count(*) > 0 FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND query LIKE '%630000%'"),
		'a renewal past the mark waits for the synchronous standby that is gone, holding flakeid_lock');
	my ($err) = ('');
	$node->psql('postgres', q{
		SET statement_timeout = '300ms';
		SET flakeid.debug_clock_offset_ms = -60000;
		DO $$
		BEGIN
			PERFORM sno_new();
			RAISE NOTICE 'issued';
		EXCEPTION WHEN query_canceled THEN
			RAISE NOTICE 'cancelled after % ms', round(extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000);
		END $$}, stderr => \$err, timeout => 30, timed_out => \my $timed_out);
	my ($after_ms) = $err =~ /cancelled after (\d+) ms/;
	ok(defined $after_ms && $after_ms < 1000,
		'sno_new() after a clock step back, waiting for that lock, ends on its statement_timeout (300 ms) within 1 s')
	  or diag($err eq '' ? 'no answer in 30 s' : $err);
	diag("the cancel ended the wait after $after_ms ms") if defined $after_ms;

	$node->safe_psql('postgres', "ALTER SYSTEM RESET synchronous_standby_names");
	my $reloaded_at = $node->safe_psql('postgres', 'SELECT extract(epoch FROM clock_timestamp()) FROM pg_reload_conf()');
	# wait for the call to end (however long this machine takes), then hold
	# it to the bound on the server's clock: from the reload to the call's
	# return.  docs/OPERATIONS.md: "every renewal waiting for it returns
	# within a few milliseconds of the checkpointer taking up the reload"
	my $released = poll_until(sub { $node->safe_psql('postgres',
			"SELECT count(*) = 0 FROM pg_stat_activity WHERE query LIKE '%630000%' AND pid <> pg_backend_pid()") eq 't' },
		interval => 0.05);
	my ($status, $out) = $released ? psql_finish($renewing) : (-1, '');
	my ($snowflake, $returned_at) = split /\|/, $out;
	my $took = defined $returned_at ? $returned_at - $reloaded_at : undef;
	ok($released && defined $took && $took < 2,
		'clearing synchronous_standby_names and reloading releases the waiting renewal within 2 s of the reload (server clock)')
	  or diag($released ? 'it took ' . (defined $took ? sprintf('%.3f s', $took) : "?: $out") : 'still waiting after the timeout');
	note(sprintf('released %.3f s after the reload', $took)) if defined $took;
	ok($status == 0 && defined $snowflake && $snowflake =~ /^\d+$/, '... and the call returns its snowflake');
	$node->stop('immediate') unless $released;
	stop_checked($node) if $released;
}
done_testing();
