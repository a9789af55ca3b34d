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
my $renewer = "(SELECT pid FROM pg_stat_activity WHERE backend_type = 'flakeid mark renewer')";
# whether the server's log says the renewer paused in a save of the file, after byte AT
sub renewer_paused
{
	my ($at) = @_;
	my $pid = psql_on("SELECT $renewer");
	return substr(slurp_file($node->logfile), $at) =~ /\[$pid\] LOG:  flakeid pauses at "prepared_saving"/;
}

psql_on('CREATE TABLE ids (id sno, gid text)');
psql_on("BEGIN; INSERT INTO ids SELECT sno_new(), 'warm' FROM generate_series(1, 10); COMMIT");

# prepares GID with ten IDs, returns when it is prepared; its IDs, as text
my %ids;
sub prepare_ids
{
	my ($gid) = @_;
	my $out = psql_on("BEGIN; INSERT INTO ids SELECT sno_new(), '$gid' FROM generate_series(1, 10) RETURNING id::text;
		PREPARE TRANSACTION '$gid'");
	$ids{$gid} = [ grep { /^\S{16}$/ } split /\n/, $out ];
	die "prepare_ids($gid): " . scalar(@{ $ids{$gid} }) . ' IDs' unless @{ $ids{$gid} } == 10;
}

# after a restart: the horizon, read once the clock has left GID's IDs' units,
# lies at or below each of them; once GID commits, a horizon passes them all
sub held_then_released
{
	my ($gid, $what) = @_;
	my $list = join(',', map { "'$_'::sno" } @{ $ids{$gid} });
	ok(wait_clock_past($node, "(SELECT max(sno_time(i)) FROM unnest(ARRAY[$list]) i)"),
		"$what: the clock leaves $gid\'s IDs' units");
	my $horizon = psql_on('SELECT sno_horizon()::text');
	is(psql_on("SELECT count(*) FILTER (WHERE i < '$horizon'::sno) || '/' || count(*) FROM unnest(ARRAY[$list]) i"),
		'0/10', "$what: the horizon lies at or below every ID of the prepared $gid");
	psql_on("COMMIT PREPARED '$gid'");
	ok($node->poll_query_until('postgres', "SELECT sno_horizon() > (SELECT max(id) FROM ids WHERE gid = '$gid')"),
		"$what: once $gid has committed, a horizon passes its IDs");
	is(psql_on("SELECT count(*) FROM ids WHERE gid = '$gid'"), '10', "$what: $gid\'s rows are there");
}

# --- 1. a save under way when a checkpoint and a crash come ---------------------------------
psql_on("ALTER SYSTEM SET flakeid.debug_pause_ms = 60000");
psql_on("ALTER SYSTEM SET flakeid.debug_pause_at = 'prepared_saving'");
psql_on('SELECT pg_reload_conf()');
my $log_at = -s $node->logfile;
prepare_ids('p1');
ok(poll_until(sub { renewer_paused($log_at) }), "the renewer's save of the file pauses before its write");
# the pause stays for the renewer, which read it; no other process reads the file's setting again
psql_on('ALTER SYSTEM RESET flakeid.debug_pause_at');
psql_on('ALTER SYSTEM RESET flakeid.debug_pause_ms');
psql_on('CHECKPOINT');
$node->stop('immediate');
$log_at = -s $node->logfile;
$node->start;
like(substr(slurp_file($node->logfile), $log_at), qr/"flakeid.prepared" was last saved at \S+, before the redo point/,
	'the start says the file was saved before the redo point');
held_then_released('p1', 'a crash after a checkpoint, the save unfinished');

# --- 2. the file removed, a transaction still prepared ------------------------------------------
prepare_ids('p2');
$node->stop('fast');
unlink($node->data_dir . '/flakeid.prepared') or die "unlink: $!";
$log_at = -s $node->logfile;
$node->start;
like(substr(slurp_file($node->logfile), $log_at), qr/"flakeid.prepared" was last saved at 0\/0, before the redo point/,
	'with no file, the start holds what it cannot know');
held_then_released('p2', 'the file removed');

# --- 3. a clean stop saves the file -----------------------------------------------------------------
prepare_ids('p3');
$node->stop('fast');
ok(-s $node->data_dir . '/flakeid.prepared', 'a clean stop leaves the file');
$log_at = -s $node->logfile;
$node->start;
unlike(substr(slurp_file($node->logfile), $log_at), qr/before the redo point/,
	'after a clean stop the file holds everything: nothing more is held');
is(psql_on("SELECT string_agg(DISTINCT coalesce(gid, '?'), ',') FROM flakeid_horizon_holders WHERE prepared"), 'p3',
	"the prepared transactions holding the horizon: p3 alone");
held_then_released('p3', 'a clean stop');

stop_checked($node);
done_testing();
