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

	# cut off: what the clients receive meanwhile; a failed statement gives them nothing
	my ($failures, $deadline) = (0, time + 4);
	while (time < $deadline)
	{
		my ($out, $err) = ('', '');
		$primary->psql('postgres', $mint, stdout => \$out, stderr => \$err);
		if ($err =~ /ERROR:/) { $failures++; $primary->psql('postgres', 'SELECT pg_sleep(0.2)'); }
		else { push @received, split /\n/, $out; }
	}
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
	# ahead of its own clock.  The primary minted in bursts (20,000 IDs, a
	# few ms of ID time each) for 4 s after the cut-off, sparsely where a
	# statement takes long, so the promoted server mints 10 M IDs (2.4 s of
	# ID time at 4,096 a ms) and every burst in that span is met: 400,000
	# (0.1 s) once met none on a loaded machine.  The comparison is the
	# server's, against the received IDs copied in.
	my $file = "$PostgreSQL::Test::Utils::tmp_check/received_$name";
	open(my $fh, '>', $file) or die "$file: $!";
	print $fh "$_\n" for keys %received;
	close($fh);
	my $repeats = $standby->safe_psql('postgres',
		"CREATE TABLE received (id bigint); COPY received FROM '$file'; ANALYZE received;
		 SELECT count(*) FROM (SELECT snowflake_new() AS id FROM generate_series(1, 10000000)) n
		 WHERE id IN (SELECT id FROM received)");
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
done_testing();
