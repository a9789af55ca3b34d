# What a save of flakeid.prepared records must hold across crashes (the
# review of issue 59, item 5, found both on the first cut):
#   1. The WAL position a save records lies in WAL that survives a crash.
#      The first cut recorded the insert position: a crash lost the WAL
#      inserted but not flushed, new WAL was written over that range, and a
#      PREPARE there, then a checkpoint and a second crash, found the file
#      "saved after the redo point": the transaction's holding was lost and
#      the horizon passed its IDs.
#   2. A file that cannot vouch for what it holds is taken as knowing
#      nothing: another cluster's (the auditor of the first cut: its
#      position was trusted, and every holding of this cluster's own was
#      dropped), 1.3's (saved at each PREPARE, but a copy restored later
#      holds only what it held then), and floors past the clock (a crafted
#      one held nothing, and was carried into every later save).
#   3. An overflow entry's end is judged in 64 bits: compared in 32, an
#      overflow that ended counted again 2^31 transactions later (here: a
#      crafted file, and pg_resetwal moving the next transaction ID), and
#      held every horizon at its floor.
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use PostgreSQL::Test::Utils qw(slurp_file system_or_bail);
use File::Copy ();

my $node = flakeid_node('save_position', max_prepared_transactions => 10, 'flakeid.allow_debug_clock_offset' => 'on',
	wal_writer_delay => '10s', wal_buffers => '16MB', bgwriter_lru_maxpages => '0', checkpoint_timeout => '1h',
	autovacuum => 'off');
sub psql_on { my ($sql) = @_; return $node->safe_psql('postgres', $sql); }
my $file_sql = "SELECT encode(pg_read_binary_file('flakeid.prepared'), 'hex')";

psql_on('CREATE TABLE ids (id sno, gid text)');
psql_on('CREATE TABLE pad (x text)');
my %ids;

# --- 1. the position recorded survives a crash -------------------------------------------------
$ids{p0} = prepare_ids($node, 'p0', 'ids');
psql_on("COMMIT PREPARED 'p0'");
psql_on('CHECKPOINT');
ok(poll_until(sub { psql_on("SELECT count(*) = 0 FROM flakeid_horizon_holders WHERE prepared") eq 't' }),
	'p0 ended: nothing holds');
my $file0 = psql_on($file_sql);
# a horizon call forgets p0's holding (the renewer saves), while an open transaction
# has about 2 MB of WAL inserted and not flushed (wal_writer_delay 10 s).  A save of the
# marks (the renewer's, at its own time) flushes the WAL; when one came before the poll saw
# the gap, the transaction is ended and made again (a run on a quick machine met it once)
my ($job, $unflushed);
for my $attempt (1 .. 5)
{
	$job = psql_start($node, "SELECT sno_horizon(); INSERT INTO pad SELECT repeat('x', 200) FROM generate_series(1, 10000);
		SELECT pg_sleep(600)");
	$unflushed = poll_until(sub { psql_on('SELECT pg_current_wal_insert_lsn() - pg_current_wal_flush_lsn() > 1000000') eq 't' },
		timeout => 30);
	last if $unflushed;
	psql_on("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(600)%' AND pid <> pg_backend_pid()");
	psql_finish($job);
}
ok($unflushed, 'WAL inserted, not flushed');
ok(poll_until(sub { psql_on($file_sql) ne $file0 }), 'the renewer saved the file meanwhile');
$node->stop('immediate');
psql_finish($job);
$node->start;

my $log = crash_with_prepared_save_paused($node, sub { $ids{p2} = prepare_ids($node, 'p2', 'ids') });
like($log, qr/before the redo point/, 'the start knows the file may miss p2 (its last save lies before the redo point)');
held_then_released($node, $ids{p2}, 'p2', 'ids', 'a PREPARE after a crash that lost unflushed WAL');

# --- 2. files that cannot vouch for what they hold ---------------------------------------------
# prepared_file(SYSTEM, SAVED-POSITION, FLOORS, HOLDINGS...): flakeid.prepared as a save writes it,
# crafted, on this server's timeline (SYSTEM 0 or SAVED-POSITION undef: that entry left out, as 1.3
# wrote none);
# FLOORS and each holding's units are [name, unit] pairs; a holding is [xid, pairs...]
my $system = psql_on('SELECT system_identifier FROM pg_control_system()');
my $timeline = psql_on('SELECT timeline_id FROM pg_control_checkpoint()');
sub entry { my ($tag, $payload) = @_; return pack('S<S<L<', $tag, 1, length $payload) . $payload; }
sub units { return join('', map { pack('C', length $_->[0]) . $_->[0] . pack('Q<', $_->[1]) } @_); }
sub prepared_file
{
	my ($system, $position, $floors, @holdings) = @_;
	my $body = ($system ? entry(2, pack('Q<', $system)) : '')
	  . (defined $position ? entry(11, pack('L<', $timeline)) : '')
	  . (defined $position ? entry(10, pack('Q<L<', $position, scalar @$floors) . units(@$floors)) : '')
	  . join('', map { my ($xid, @u) = @$_; entry(6, pack('Q<L<', $xid, scalar @u) . units(@u)) } @holdings);
	my $head = pack('L<L<L<L<', 0x464C4B48, 2, length $body, 0);
	open(my $fh, '>:raw', $node->data_dir . '/flakeid.prepared') or die $!;
	print $fh $head . $body . pack('L<', crc32c($head . $body));
	close $fh;
}
my $past = psql_on('SELECT pg_current_wal_lsn() - \'0/0\'::pg_lsn + 1000000000');    # (past any redo point here)
for my $case (
	[ '1.3\'s file (no save position, no cluster), empty', sub { prepared_file(0, undef, []) } ],
	[ 'a file saved past the redo point that names no cluster', sub { prepared_file(0, $past, []) } ],
	[ 'another cluster\'s file, saved past the redo point', sub { prepared_file($system + 1, $past, []) } ],
	[ 'a file whose floors lie past the clock', sub { prepared_file($system, 1, [ [ 'sno', 1 << 40 ] ]) } ])
{
	my ($what, $craft) = @$case;
	my $gid = 'f' . ++$ids{files};
	$ids{$gid} = prepare_ids($node, $gid, 'ids');
	$node->stop('fast');
	$craft->();
	$node->start;
	held_then_released($node, $ids{$gid}, $gid, 'ids', $what);
}

# a promoted standby's file, copied onto its old primary (the third audit of the change): the same
# cluster, its position on the standby's new timeline and past the primary's redo point
{
	my ($standby) = flakeid_standby($node, 'save_position_standby');
	$standby->promote;
	$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
	my $standby_file = $standby->data_dir . '/flakeid.prepared';
	my $before = -e $standby_file ? slurp_file($standby_file) : '';
	$standby->safe_psql('postgres', 'SELECT pg_switch_wal(), txid_current()') for 1 .. 4;
	$standby->safe_psql('postgres', 'CHECKPOINT');
	ok(poll_until(sub { -e $standby_file && slurp_file($standby_file) ne $before }),
		'the promoted standby saves its file after a checkpoint');
	$ids{g6} = prepare_ids($node, 'g6', 'ids');
	$standby->stop('fast');
	$node->stop('fast');
	File::Copy::copy($standby_file, $node->data_dir . '/flakeid.prepared') or die "copy: $!";
	my $log_at = -s $node->logfile;
	$node->start;
	like(substr(slurp_file($node->logfile), $log_at), qr/was saved on timeline 2, and this server starts on timeline 1/,
		'the start says the file was saved on another timeline');
	held_then_released($node, $ids{g6}, 'g6', 'ids', 'a promoted standby\'s file copied onto its old primary');
}

# --- 3. an overflow's end in 64 bits -----------------------------------------------------------------
psql_on('VACUUM FREEZE');    # (its rows stay visible once the next transaction ID is 2^31 past them)
$node->stop('fast');
# this cluster's, saved at a position past any redo point (so the start adds no overflow of its
# own), no floors; one overflow: transactions 3 to 100, sno held at 0
prepared_file($system, 0xFFFFFFFF00000000, [], [ 3, [ 'sno', 0 ], [ '(overflow through xid)', 100 ] ]);
# the next transaction ID more than 2^31 past 100 (at a commit-log segment's start)
system_or_bail('pg_resetwal', '-x', '0x90000000', $node->data_dir);
$node->start;
is(psql_on("SELECT count(*) FROM flakeid_horizon_holders WHERE prepared"), '0',
	'the overflow of transactions 3 to 100 holds nothing, the next transaction ID past 0x90000000');
# pg_resetwal wrote a checkpoint no save of flakeid saw: the state file is refused as not the one the
# last clean stop saved (docs/OPERATIONS.md, "An older copy is refused"); the way on is a fresh start
is(sqlstate_of($node, 'SELECT sno_new()'), 'XX001', 'after pg_resetwal, generation is refused: the state file is not sealed by its checkpoint');
$node->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
$node->restart;
is(psql_on("SELECT count(*) FROM flakeid_horizon_holders WHERE prepared"), '0', 'started afresh: the overflow still holds nothing');
my $minted = psql_on('SELECT sno_new()::text');
# (a fresh start resumes 62 s ahead of the clock: the horizon is read with flakeid's clock 70 s ahead)
is(psql_on("SET flakeid.debug_clock_offset_ms = 70000; SELECT sno_horizon() > '$minted'::sno"), 't',
	'and the horizon passes the latest ID');
stop_checked($node);
done_testing();
