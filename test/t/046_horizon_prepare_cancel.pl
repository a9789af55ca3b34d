# A PREPARE never waits for a save of flakeid.prepared (issue 59, item 5).
# b583abf saved the file in every PREPARE of a transaction that issued IDs,
# under a lock taken uncancellably: PREPAREs queued behind one another's
# fsyncs, and a cancel did not end the wait.  1.4's first fix made the wait
# cancellable; now a PREPARE writes no file at all (its holding goes to the
# table and the WAL, and the renewer saves the file afterwards).  Here the
# renewer's save is held paused before its write, with the file's lock held
# (flakeid.debug_pause_at = 'prepared_saving', set by ALTER SYSTEM), while
# twenty sessions prepare transactions that issued IDs, each under a
# statement_timeout: none waits.  When the renewer goes on, the file holds
# them all across an immediate stop.
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use PostgreSQL::Test::Utils qw(slurp_file);

my $node = flakeid_node('prep_cancel', max_prepared_transactions => 30, 'flakeid.allow_debug_clock_offset' => 'on');
sub psql_on { my ($sql) = @_; return $node->safe_psql('postgres', $sql); }
my $renewer = "(SELECT pid FROM pg_stat_activity WHERE backend_type = 'flakeid mark renewer')";

psql_on('CREATE TABLE t (id sno)');
psql_on('CREATE TABLE w (x int)');
psql_on("ALTER SYSTEM SET flakeid.debug_pause_ms = 600000");
psql_on("ALTER SYSTEM SET flakeid.debug_pause_at = 'prepared_saving'");
psql_on('SELECT pg_reload_conf()');
my $log_at = -s $node->logfile;
my $pid = psql_on("SELECT $renewer");
psql_on("BEGIN; INSERT INTO t SELECT sno_new(); PREPARE TRANSACTION 'first'");
ok(poll_until(sub { substr(slurp_file($node->logfile), $log_at) =~ /\[$pid\] LOG:  flakeid pauses at "prepared_saving"/ }),
	"the renewer's save of flakeid.prepared pauses before its write, the file's lock held");

my @sessions = map {
	psql_start($node, "SET statement_timeout = '10s'; BEGIN; INSERT INTO t SELECT sno_new() FROM generate_series(1, 5);
		PREPARE TRANSACTION 'g$_'")
} 1 .. 20;
my @failed = grep { my ($status, undef, $err) = psql_finish($_); $status != 0 } @sessions;
is(scalar(@failed), 0, 'twenty PREPAREs of transactions that issued IDs complete while the save pauses, none timed out');
is(psql_on('SELECT count(*) FROM pg_prepared_xacts'), '21', 'all twenty-one are prepared');

# the renewer goes on: a terminate ends its pause, and the postmaster starts it again
my $file = $node->data_dir . '/flakeid.prepared';
sub file_bytes { return -e $file ? slurp_file($file) : ''; }
my $before = file_bytes();
psql_on('ALTER SYSTEM RESET flakeid.debug_pause_at');
psql_on('ALTER SYSTEM RESET flakeid.debug_pause_ms');
psql_on('SELECT pg_reload_conf()');
psql_on("SELECT pg_terminate_backend($renewer)");
ok($node->poll_query_until('postgres', "SELECT $renewer <> $pid"), 'a renewer runs again');
ok(poll_until(sub { file_bytes() ne $before }), 'and saves the file');
# WAL, then a checkpoint, move the redo point past the save: the renewer saves again, and the
# file alone has their holdings then (recovery replays none of their PREPARED records)
$before = file_bytes();
psql_on('INSERT INTO w VALUES (1)');
psql_on('CHECKPOINT');
ok(poll_until(sub { file_bytes() ne $before }), 'the renewer saves the file again after a checkpoint');
$node->stop('immediate');
$log_at = -s $node->logfile;
$node->start;
unlike(substr(slurp_file($node->logfile), $log_at), qr/before the redo point/, 'the start finds the file saved after the redo point');
is(psql_on("SELECT count(DISTINCT gid) FROM flakeid_horizon_holders WHERE prepared"), '21',
	'after an immediate stop, the twenty-one prepared transactions hold the horizon');
psql_on("COMMIT PREPARED '$_'") for ('first', map { "g$_" } 1 .. 20);
is(psql_on('SELECT count(*) FROM t'), '101', 'every row is there once they commit');
stop_checked($node);
done_testing();
