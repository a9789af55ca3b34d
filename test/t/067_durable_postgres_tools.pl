# PostgreSQL's own tools beside every file flakeid writes (issue 80, item
# 1), on every major, on a cluster with data checksums (18's initdb
# default):
#
# 1. pg_basebackup, plain and tar, verifying checksums as it does by
#    default, and pg_verifybackup on what it made (tar from 18, the first
#    that reads tar).  1.4 kept its witness in global/, where base backups
#    take every file for a relation's segment: on 15 the backup failed
#    ("invalid segment number 0 in file "flakeid.issued"").
# 2. pg_checksums --check, --disable and --enable on the stopped primary:
#    on 1.4 every major failed on global/flakeid.issued.  The server comes
#    back and mints above what it minted before; pg_basebackup without
#    checksums too.
# 3. pg_rewind of the old primary from its promoted standby, which then
#    follows it.
# 4. pg_upgrade --check of the primary into a new cluster of the same major.
# 5. A data directory laid out by 1.4 (the witness in global/, its
#    leftover temporary file beside it): the start moves the witness to the
#    top (a rename: the place it names is still its own, so the server is
#    no copy and mints), and a cp -a copy of such a directory is still told
#    apart (its moved witness has another inode: a derived identity is
#    refused, 55000).
# 6. Leftover, read-only temporary files (flakeid.state.tmp,
#    flakeid.issued.tmp: a crash between a write and its rename, or an
#    operator's copy): the saves remove them and write, the clean stop's
#    too, and the next start takes up its own latest state.  1.4 opened
#    them with O_TRUNC: every save failed, and the next start refused the
#    server's latest state as an older copy (1.4's audit, item 4).
#
# Negative control: on ff78d13 (1.4) parts 1 (on 15), 2, 5 and 6 fail.
use strict;
use warnings;
use File::Copy ();
use File::Find ();
use FlakeidTest;
use PostgreSQL::Test::RecursiveCopy;
use PostgreSQL::Test::Utils;
use Test::More;

my @stateful = formats(stateful => 't');
my $primary = flakeid_node('tools', max_prepared_transactions => 5, wal_keep_size => '256MB',    # (for pg_rewind)
	'flakeid.sno_sequence_min' => 0, 'flakeid.sno_sequence_max' => 7);
sub sql { return $primary->safe_psql('postgres', $_[0]); }
my $bindir = $primary->config_data('--bindir');
my $major = $primary->pg_version->major;
is(sql('SHOW data_checksums'), 'on', 'the primary has data checksums');

# every file flakeid writes: the state and its witness, the prepared
# holdings (a prepared transaction that generated IDs), the record of deep
# units (one past unit back-filled past its share of sno's pool of 8)
sql('CREATE TABLE ids (run int, format text, id text)');
sub mint    # mint(RUN): 100 IDs of every stateful generator
{
	my ($run) = @_;
	sql("INSERT INTO ids SELECT $run, '$_->{format}', $_->{new}::text FROM generate_series(1, 100)") for @stateful;
}
mint(1);
sql("BEGIN; INSERT INTO ids SELECT 0, 'sno', sno_new()::text; PREPARE TRANSACTION 'held'");
sql("SELECT sno_new_at('2020-01-01 00:00:00+00') FROM generate_series(1, 3)");
my $datadir = $primary->data_dir;
my @files = qw(flakeid.state flakeid.issued flakeid.prepared flakeid.deep);
ok(-f "$datadir/$_", "the primary has written $_") for @files;

# nothing of flakeid's where PostgreSQL's tools look for relation files
sub misplaced    # misplaced(DATADIR): flakeid's files under global/, base/ or pg_tblspc/
{
	my ($dir) = @_;
	my @found;
	File::Find::find({ wanted => sub { push @found, $File::Find::name if /flakeid/ }, follow => 0 },
		grep { -d } map { "$dir/$_" } qw(global base pg_tblspc));
	return join(' ', @found);
}
is(misplaced($datadir), '', 'no file of flakeid under global/, base/ or pg_tblspc/');

# 1. base backups, plain and tar, checksums verified
my $backups = PostgreSQL::Test::Utils::tempdir;
for my $format ('plain', 'tar')
{
	my $dir = "$backups/$format";
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ 'pg_basebackup', '-D', $dir, '-X', 'stream', '-c', 'fast', '-d', $primary->connstr('postgres'),
		$format eq 'tar' ? ('-F', 't') : () ], '>', \$out, '2>', \$err);
	ok($ok, "pg_basebackup ($format, checksums verified) succeeds") or diag($err);
	unlike($err, qr/flakeid|invalid segment|checksum/i, "pg_basebackup ($format) says nothing of flakeid's files");
	if ($format eq 'plain')
	{
		ok(-f "$dir/$_", "the plain backup carries $_") for grep { $_ ne 'flakeid.prepared' || -f "$datadir/$_" } @files;
	}
	if ($format eq 'plain' || $major >= 18)
	{
		command_ok([ 'pg_verifybackup', $format eq 'tar' ? ('-n') : (), $dir ], "pg_verifybackup of the $format backup");
	}
}

# 3. pg_rewind: a standby promoted, the primary goes on, then follows it
my ($standby) = flakeid_standby($primary, 'tools_standby');
{
	my $lsn = sql('SELECT pg_current_wal_lsn()');
	$standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'") or die 'the standby did not catch up';
}
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'the standby was not promoted';
$standby->safe_psql('postgres', 'CREATE TABLE diverged AS SELECT sno_new() AS id FROM generate_series(1, 10)');
$standby->safe_psql('postgres', 'CHECKPOINT');
mint(2);
sql("COMMIT PREPARED 'held'");
$primary->stop('fast');
# (pg_rewind copies the source's configuration files: the target's own is
# put back, as PostgreSQL's RewindTest does and docs/OPERATIONS.md says)
my $own_conf = slurp_file("$datadir/postgresql.conf");
command_ok([ 'pg_rewind', '-D', $datadir, '--source-server', $standby->connstr('postgres'), '-R' ],
	'pg_rewind of the old primary from its promoted standby');
{
	open(my $fh, '>', "$datadir/postgresql.conf") or die $!;
	print $fh $own_conf;
	close($fh);
}
$primary->start;
ok($primary->poll_query_until('postgres', 'SELECT pg_is_in_recovery()'), 'the rewound primary comes back as a standby of it');
my $target = $standby->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
ok($primary->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$target'"), 'and replays its WAL');
is(misplaced($datadir), '', 'after pg_rewind, no file of flakeid under global/, base/ or pg_tblspc/');
$primary->stop('fast');
$standby->stop('fast');

# a server of its own for the rest
my $node = flakeid_node('tools_tools', max_prepared_transactions => 5,
	'flakeid.sno_sequence_min' => 0, 'flakeid.sno_sequence_max' => 7);
sub nsql { return $node->safe_psql('postgres', $_[0]); }
nsql('CREATE TABLE ids (run int, format text, id text)');
sub nmint    # nmint(RUN): 100 IDs of every stateful generator on $node
{
	my ($run) = @_;
	nsql("INSERT INTO ids SELECT $run, '$_->{format}', $_->{new}::text FROM generate_series(1, 100)") for @stateful;
}
sub above_before    # above_before(RUN, WHAT): RUN's IDs of each generator above every earlier run's
{
	my ($run, $what) = @_;
	for my $f (@stateful)
	{
		is(nsql("SELECT min(id::$f->{type}) > (SELECT max(id::$f->{type}) FROM ids WHERE format = '$f->{format}' AND run < $run)"
			  . " FROM ids WHERE format = '$f->{format}' AND run = $run"), 't', "$f->{format}: $what");
	}
}
nmint(1);
my $ndir = $node->data_dir;

# 2. pg_checksums on the stopped server
$node->stop('fast');
command_ok([ 'pg_checksums', '--check', '-D', $ndir ], 'pg_checksums --check');
command_ok([ 'pg_checksums', '--disable', '-D', $ndir ], 'pg_checksums --disable');
$node->start;
is(nsql('SHOW data_checksums'), 'off', 'the server runs without checksums');
nmint(2);
above_before(2, 'minted above the IDs before pg_checksums --disable');
{
	my ($out, $err) = ('', '');
	ok(IPC::Run::run([ 'pg_basebackup', '-D', "$backups/unchecked", '-X', 'fetch', '-c', 'fast', '-d', $node->connstr('postgres') ],
		'>', \$out, '2>', \$err), 'pg_basebackup without checksums') or diag($err);
	ok(-f "$backups/unchecked/flakeid.issued", 'and it carries flakeid.issued');
}
$node->stop('fast');
command_ok([ 'pg_checksums', '--enable', '-D', $ndir ], 'pg_checksums --enable');
command_ok([ 'pg_checksums', '--check', '-D', $ndir ], 'pg_checksums --check after --enable');
$node->start;
is(nsql('SHOW data_checksums'), 'on', 'the server runs with checksums again');
nmint(3);
above_before(3, 'minted above the IDs before pg_checksums --enable');

# 4. pg_upgrade --check into a new cluster of the same major, with checksums
$node->stop('fast');
{
	my $new = PostgreSQL::Test::Cluster->new('tools_upgraded');
	$new->init(extra => [ '--encoding=UTF8', '--locale=C.UTF-8', '--data-checksums' ]);
	my $sockets = PostgreSQL::Test::Utils::tempdir_short;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ 'pg_upgrade', '--check', '-b', $bindir, '-B', $bindir, '-d', $ndir, '-D', $new->data_dir,
		'-p', $node->port, '-P', $new->port, '-s', $sockets ], '>', \$out, '2>', \$err, init => sub { chdir $sockets });
	ok($ok, 'pg_upgrade --check of the cluster into another of its major') or diag("$out\n$err");
	like($out, qr/Clusters are compatible/, 'and it finds the clusters compatible');
}

# 5. a data directory as 1.4 laid it out: the witness under global/
my $inode = (stat "$ndir/flakeid.issued")[1];
rename("$ndir/flakeid.issued", "$ndir/global/flakeid.issued") or die $!;
{
	open(my $fh, '>', "$ndir/global/flakeid.issued.tmp") or die $!;
	close($fh);
}
my $copy = PostgreSQL::Test::Cluster->new('tools_copy');
PostgreSQL::Test::RecursiveCopy::copypath($ndir, $copy->data_dir);
chmod(0700, $copy->data_dir);
$copy->append_conf('postgresql.conf', 'port = ' . $copy->port . "\n");
$node->start;
ok(-f "$ndir/flakeid.issued" && (stat "$ndir/flakeid.issued")[1] == $inode,
	"1.4's witness is moved to the top of the data directory, the same file (inode)");
is(misplaced($ndir), '', 'and nothing of flakeid is left under global/');
ok(log_count($node, qr/LOG:  moved "global\/flakeid.issued" to "flakeid.issued"/) == 1, 'the log says so');
nmint(4);
above_before(4, "minted after the move (the moved witness names this data directory: no copy)");
$copy->start;
ok(-f $copy->data_dir . '/flakeid.issued' && misplaced($copy->data_dir) eq '', "a cp -a copy of 1.4's layout moves its witness too");
is(sqlstate_of($copy, 'SELECT sno_new()'), '55000', 'and is still told apart from its original: a derived identity is refused (55000)');
$copy->stop('fast');

# 6. leftover temporary files that cannot be written
for my $leftover ('flakeid.state.tmp', 'flakeid.issued.tmp')
{
	open(my $fh, '>', "$ndir/$leftover") or die $!;
	print $fh "left over\n";
	close($fh);
	chmod(0400, "$ndir/$leftover") or die $!;
}
unlink("$ndir/flakeid.issued") or die $!;    # (written again at the next save, through its temporary file)
nmint(5);
$node->stop('fast');
ok(!-e "$ndir/flakeid.state.tmp" && !-e "$ndir/flakeid.issued.tmp", 'the saves removed both leftovers');
ok(-f "$ndir/flakeid.issued", 'and wrote the witness again');
is(log_count($node, qr/could not (create|remove) file "flakeid\.(state|issued)\.tmp"/), 0, 'no save failed on them');
$node->start;
nmint(6);
above_before(6, 'minted after the restart: its own latest state taken up');
is(log_count($node, qr/older copy|ERROR:/), 0, 'no refusal, no error in the log');
is(nsql("SELECT count(*) - count(DISTINCT (format, id)) FROM ids"), '0', 'no ID twice');

# 7. the state taken up by another cluster (pg_upgrade's step 3) without
# flakeid.deep: back-fill into past units is refused, and the hint names
# the file to copy (1.4's said to start afresh, which raises the floor)
nsql("SELECT sno_new_at('2021-01-01 00:00:00+00') FROM generate_series(1, 3)");
my $sysid = nsql('SELECT system_identifier FROM pg_control_system()');
$node->stop('fast');
ok(-s "$ndir/flakeid.deep", 'the server has a record of deep units');
my $upgraded = flakeid_node('tools_taken_up', -extension => 0, 'flakeid.accept_state_from' => $sysid);
$upgraded->stop('fast');
File::Copy::copy("$ndir/flakeid.state", $upgraded->data_dir . '/flakeid.state') or die $!;
chmod(0600, $upgraded->data_dir . '/flakeid.state');
$upgraded->start;
$upgraded->safe_psql('postgres', 'CREATE EXTENSION flakeid');
like(message_of($upgraded, "SELECT sno_new_at('2021-01-01 00:00:00+00')"),
	qr/ERROR:  back-fill's record of deep units "flakeid.deep" could not be read at start.*HINT:  After pg_upgrade, copy the old cluster's "flakeid.deep"/s,
	'the state copied without flakeid.deep: back-fill into past units is refused, and the hint says to copy it');
$upgraded->stop('fast');
File::Copy::copy("$ndir/flakeid.deep", $upgraded->data_dir . '/flakeid.deep') or die $!;
chmod(0600, $upgraded->data_dir . '/flakeid.deep');
$upgraded->start;
is(sqlstate_of($upgraded, "SELECT sno_new_at('2022-01-01 00:00:00+00')"), 'ok', 'with it copied as the hint says, back-fill into past units is given');
$upgraded->stop('fast');
$node->start;
stop_checked($node);
done_testing();
