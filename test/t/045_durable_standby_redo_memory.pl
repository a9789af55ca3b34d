# The standby's startup process does not grow per replayed PREPARE (issue
# 59, item 2).  A primary keeps 8 prepared transactions that issued IDs
# open and runs a loop of two-phase transactions that issue one (pgbench);
# the standby replays a PREPARED record, and saves flakeid.prepared, for
# each.  b583abf's replay allocated in TopMemoryContext and never freed
# (about 41 kB per PREPARE); replay now allocates in a context reset after
# each record.  The check reads the startup process's private memory
# (RssAnon of /proc/PID/status: VmRSS counts the shared buffers it touches
# too, and is reported beside it) after a first round, which sets up what
# replay keeps, and after FLAKEID_REDO_LOOPS (default 5,000) more, which
# must add less than 2 MB: at b583abf's 41 kB each they would add 200 MB,
# and a leak of 400 bytes a PREPARE is caught (this tree added 4 and 496 kB
# over 20,000; 20,000 took 7 minutes on each major under the test
# command's load).
#
# And it does not save flakeid.prepared per replayed PREPARE (issue 62, 1.3's
# seed 2052): 1.3 wrote and fsynced the file for each, so behind a slow disk
# replay fell a minute behind the WAL the standby had flushed (a synchronous
# standby confirms the flush, so the primary never slowed), and after a
# crash restart of the primary the standby replayed that backlog silently
# for 4 minutes before it reconnected, every commit on the primary waiting
# for it meanwhile (a replay with each of its fsyncs delayed 2 ms: 278 s;
# this tree's, 0.8 s).  Now it saves at most once a second.  The check counts
# the startup process's write calls (syscw of /proc/PID/io) over the loops:
# fewer than one for every two PREPAREs (c3ac3f9^ made 5,015 over 5,000 and
# fails it; this tree 3 in 2 s alone, 24 to 29 in 9 to 11 s under the test
# command's load: the loops would have to take some 15 minutes to reach the
# bound).
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use File::Temp ();

my $loops = $ENV{FLAKEID_REDO_LOOPS} // 5000;
my $primary = flakeid_node('redo_memory_primary', max_prepared_transactions => 10);
my ($standby) = flakeid_standby($primary, 'redo_memory_standby');
sub psql_on { my ($node, $sql) = @_; return $node->safe_psql('postgres', $sql); }

psql_on($primary, "BEGIN; SELECT sno_new(); PREPARE TRANSACTION 'open$_'") for 1 .. 8;
my $script = File::Temp->new(SUFFIX => '.sql');
print $script "BEGIN;\nSELECT sno_new();\nPREPARE TRANSACTION 'g';\nCOMMIT PREPARED 'g';\n";
close($script);

# runs N loops on the primary and waits for the standby to replay them (bound: poll_query_until's)
sub loop_and_replay
{
	my ($n) = @_;
	PostgreSQL::Test::Utils::system_or_bail('pgbench', '-n', '-c', '1', '-t', $n, '-f', "$script",
		$primary->connstr('postgres'));
	my $lsn = psql_on($primary, 'SELECT pg_current_wal_lsn()');
	$standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn")
	  or die "the standby did not replay up to $lsn";
}

sub startup_pid { return psql_on($standby, "SELECT pid FROM pg_stat_activity WHERE backend_type = 'startup'"); }

# kB of the startup process's VmRSS and RssAnon
sub startup_memory
{
	my $pid = startup_pid();
	my $status = PostgreSQL::Test::Utils::slurp_file("/proc/$pid/status");
	return map { $status =~ /^$_:\s+(\d+) kB/m ? $1 : die "no $_ in /proc/$pid/status" } qw(VmRSS RssAnon);
}

# the startup process's write calls so far (its pid, to check it is the same process after)
sub startup_writes
{
	my $pid = startup_pid();
	my $io = PostgreSQL::Test::Utils::slurp_file("/proc/$pid/io");
	return ($pid, $io =~ /^syscw:\s+(\d+)/m ? $1 : die "no syscw in /proc/$pid/io");
}

loop_and_replay(1000);
my ($rss_before, $anon_before) = startup_memory();
my ($pid_before, $writes_before) = startup_writes();
my $began = time;
loop_and_replay($loops);
my $took = time - $began;
my ($rss_after, $anon_after) = startup_memory();
my ($pid_after, $writes_after) = startup_writes();
is($pid_after, $pid_before, 'the same startup process replayed the loops');
diag("startup process: " . ($writes_after - $writes_before) . " write calls over $loops replayed PREPAREs in $took s");
cmp_ok($writes_after - $writes_before, '<', $loops / 2,
	"the startup process does not write per replayed PREPARE (fewer than one write call for two over $loops)");
diag("startup process after 1000 and after 1000 + $loops replayed PREPAREs: VmRSS $rss_before kB -> $rss_after kB, RssAnon $anon_before kB -> $anon_after kB");
cmp_ok($anon_after - $anon_before, '<', 2 * 1024, "the startup process's private memory grows by less than 2 MB over $loops replayed PREPAREs");
psql_on($primary, "COMMIT PREPARED 'open$_'") for 1 .. 8;
stop_checked($standby, $primary);
done_testing();
