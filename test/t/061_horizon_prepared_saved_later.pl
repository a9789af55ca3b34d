# A PREPARE writes no file: its holding goes to the table and the WAL, and
# flakeid.prepared is saved afterwards (by the renewer, the startup process,
# and the postmaster at a clean stop: issue 59, item 5).  A restart then
# finds every prepared transaction's holding whatever the file missed:
# recovery replays the PREPARED records after its redo point, and if the
# file's last save came before that point, every transaction that could
# have been prepared before it holds the horizon at the floors the save
# recorded, until each has ended.  Three ways a file can miss a holding:
#   1. the save is under way (paused) when a checkpoint and a crash come;
#   2. the operator removed the file, as 1.3's hint said, with a
#      transaction still prepared (1.3 then lost its holding: the horizon
#      passed its IDs, and a reader missed them when it committed);
#   3. a clean stop: the postmaster saves the file, and the next start
#      holds nothing more than the transactions themselves.
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use PostgreSQL::Test::Utils qw(slurp_file);
use Time::HiRes ();

my $node = flakeid_node('saved_later', max_prepared_transactions => 10, 'flakeid.allow_debug_clock_offset' => 'on');
sub psql_on { my ($sql) = @_; return $node->safe_psql('postgres', $sql); }
psql_on('CREATE TABLE ids (id sno, gid text)');
psql_on("BEGIN; INSERT INTO ids SELECT sno_new(), 'warm' FROM generate_series(1, 10); COMMIT");

my %ids;

# --- 1. a save under way when a checkpoint and a crash come ---------------------------------
my $log = crash_with_prepared_save_paused($node, sub { $ids{p1} = prepare_ids($node, 'p1', 'ids') });
like($log, qr/"flakeid.prepared" was last saved at \S+, before the redo point/,
	'the start says the file was saved before the redo point');
held_then_released($node, $ids{p1}, 'p1', 'ids', 'a crash after a checkpoint, the save unfinished');

# --- 2. the file removed, a transaction still prepared ------------------------------------------
$ids{p2} = prepare_ids($node, 'p2', 'ids');
$node->stop('fast');
unlink($node->data_dir . '/flakeid.prepared') or die "unlink: $!";
my $log_at = -s $node->logfile;
$node->start;
like(substr(slurp_file($node->logfile), $log_at), qr/"flakeid.prepared" was last saved at 0\/0, before the redo point/,
	'with no file, the start holds what it cannot know');
held_then_released($node, $ids{p2}, 'p2', 'ids', 'the file removed');

# --- 3. a clean stop saves the file -----------------------------------------------------------------
$ids{p3} = prepare_ids($node, 'p3', 'ids');
$node->stop('fast');
ok(-s $node->data_dir . '/flakeid.prepared', 'a clean stop leaves the file');
$log_at = -s $node->logfile;
$node->start;
unlike(substr(slurp_file($node->logfile), $log_at), qr/before the redo point/,
	'after a clean stop the file holds everything: nothing more is held');
is(psql_on("SELECT string_agg(DISTINCT coalesce(gid, '?'), ',') FROM flakeid_horizon_holders WHERE prepared"), 'p3',
	"the prepared transactions holding the horizon: p3 alone");
held_then_released($node, $ids{p3}, 'p3', 'ids', 'a clean stop');

stop_checked($node);
done_testing();
