# A standby that replays holdings of transactions that never prepared
# stays up (issue 59, item 1b: the negative control the overflow test,
# 044, could not be).  flakeid writes a transaction's holding to the WAL
# at PRE_PREPARE, before PostgreSQL writes the PREPARE record; a backend
# that dies between the two leaves a holding whose transaction neither
# commits nor aborts in the commit log (crash recovery ends it without a
# record).  A standby cannot tell such a phantom from a transaction still
# prepared, so it keeps it: b583abf's standby kept each in its table of
# holdings, and once more than twice max_prepared_transactions had come
# its startup process stopped with "cannot hold the horizon for more
# prepared transactions" and recovery could not start again.  Now they
# merge into the overflow entry, which a promotion drops.
#
# The backend is stopped between the two records with gdb (a breakpoint
# at StartPrepare, which PrepareTransaction calls after the PRE_PREPARE
# callbacks), the WAL is flushed past flakeid's record by another commit
# and replayed by the standby, and the backend is killed: the postmaster
# restarts after the crash.  gdb runs where the server runs; a root
# without it is a skip, said so.
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use File::Temp qw(tempdir);

my $gdb = `command -v gdb 2>/dev/null`;
chomp $gdb;
plan skip_all => 'gdb is not installed where this server runs (it stops a backend between two WAL records)'
  unless $gdb;

my $max_prepared = 2;
my $primary = flakeid_node('phantom_primary', max_prepared_transactions => $max_prepared, restart_after_crash => 'on');
my ($standby) = flakeid_standby($primary, 'phantom_standby');
sub psql_on { my ($node, $sql) = @_; return $node->safe_psql('postgres', $sql); }
psql_on($primary, 'CREATE TABLE ids (id sno, round int)');
psql_on($primary, 'CREATE TABLE flush (n int)');

my $dir = tempdir(CLEANUP => 1);
# more phantoms than twice max_prepared_transactions: b583abf's standby stopped at the fifth
my $rounds = 2 * $max_prepared + 3;
for my $round (1 .. $rounds)
{
	my $session = session($primary);
	my $pid = $session->query('SELECT pg_backend_pid()');
	$session->query("BEGIN; INSERT INTO ids SELECT sno_new(), $round FROM generate_series(1, 3)");
	my ($armed, $hit, $go) = map { "$dir/$_.$round" } qw(armed hit go);
	# gdb: the breakpoint set (the backend stopped while it is), then on, then held at the breakpoint until "go"
	my $gdb_run = IPC::Run::start(
		[ $gdb, '-p', $pid, '-batch', '-ex', 'break StartPrepare', '-ex', "shell touch $armed", '-ex', 'continue',
		  '-ex', "shell touch $hit; while [ ! -e $go ]; do sleep 0.05; done", '-ex', 'kill' ],
		'>', \my $gdb_out, '2>', \my $gdb_err);
	ok(poll_until(sub { -e $armed }, timeout => 60), "round $round: gdb holds a breakpoint in the backend")
	  or diag($gdb_err), last;
	# (the session's PREPARE is sent without waiting for it: it stops at the breakpoint)
	$session->{in} .= "PREPARE TRANSACTION 'p$round';\n";
	$session->{run}->pump_nb;
	ok(poll_until(sub { $session->{run}->pump_nb; -e $hit }, timeout => 60),
		"round $round: the backend stopped after flakeid's holding record, before the PREPARE record")
	  or diag($gdb_out, $gdb_err), last;
	# another commit flushes the WAL past flakeid's record; the standby replays it
	psql_on($primary, "INSERT INTO flush VALUES ($round)");
	my $lsn = psql_on($primary, 'SELECT pg_current_wal_flush_lsn()');
	ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"),
		"round $round: the standby replayed the holding");
	open(my $fh, '>', $go) or die "$go: $!";
	close $fh;
	$gdb_run->finish;
	eval { $session->{run}->finish };    # (psql sees its server gone)
	ok(poll_until(sub { answers($primary) }, timeout => 120, interval => 0.2),
		"round $round: the primary is back after the crash");
	is(psql_on($primary, "SELECT count(*) FROM pg_prepared_xacts WHERE gid = 'p$round'"), '0',
		"round $round: the transaction was never prepared");
	is($standby->psql('postgres', 'SELECT 1'), 0, "round $round: the standby answers");
}
my $lsn = psql_on($primary, 'SELECT pg_current_wal_lsn()');
psql_on($primary, 'INSERT INTO flush VALUES (0)');
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"),
	'the standby replays on past every phantom');
is(log_count($standby, qr/cannot hold the horizon/), 0, "the standby's log has no refused holding");

# it starts again: its restartpoint lies before the phantoms, so it replays them all once more
$standby->stop('immediate');
ok($standby->start(fail_ok => 1), 'the standby starts again after an immediate stop');
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"),
	'and replays up to where it was');
is(log_count($standby, qr/cannot hold the horizon/), 0, 'still no refused holding');

# promoted, no phantom holds its horizon: it passes every ID issued
$primary->stop('fast');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
psql_on($standby, 'INSERT INTO ids SELECT sno_new(), 0');
my $last = psql_on($standby, 'SELECT max(id)::text FROM ids');
ok(wait_clock_past($standby, "sno_time('$last')"), "the promoted standby's clock left the last ID's unit");
is(psql_on($standby, 'SELECT sno_horizon() > max(id) FROM ids'), 't',
	'the promoted standby gives a horizon above every ID: no phantom holds it');
stop_checked($standby);
done_testing();
