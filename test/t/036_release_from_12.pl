# A data directory of flakeid 1.2, started with this flakeid after a crash
# (issue 47): 1.2 is built from its release commit (eb799e4, from the tree's
# git history) into a copy of this PostgreSQL installation, mints IDs of
# every type and back-fills, and is killed with SIGKILL after a checkpoint,
# so that its state file (version 3) and its WAL records (BOUNDS) are all
# that carry its bounds.  This flakeid then starts on the same directory:
# crash recovery replays 1.2's records, the state file is read and
# rewritten as version 4, and every new ID lies after 1.2's, with no
# back-filled ID repeated.  The release's source comes from the git history
# in FLAKEID_GIT_DIR (scripts/test_major sets it) or the tree's .git; the
# test is skipped, saying so, without one, or when the release does not
# build here.
use strict;
use warnings;
use File::Basename qw(dirname);
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $release = 'eb799e4';
my $root = tree_root();

# a copy of this installation (its paths as they are, under a new root) with
# flakeid built from COMMIT; (install path, '') or (undef, why not)
sub release_install
{
	my ($commit) = @_;
	# the checkout's history (scripts/test_major runs a copy without it), or this tree's
	my $git_dir = $ENV{FLAKEID_GIT_DIR} // "$root/.git";
	return (undef, 'the tree has no git history') unless -e $git_dir;
	return (undef, 'git is not installed') if system('git --version >/dev/null 2>&1') != 0;
	my $git = "git -c safe.directory='*' --git-dir='$git_dir'";
	return (undef, "the tree's history lacks $commit") if system("$git cat-file -e $commit 2>/dev/null") != 0;
	my %dir = map { my $d = `pg_config --$_`; chomp $d; ($_ => $d) } qw(bindir pkglibdir sharedir);
	my $prefix = dirname($dir{bindir});
	my $tmp = PostgreSQL::Test::Utils::tempdir();
	my $log = "$tmp/build.log";
	my $script = join(' && ',
		"mkdir -p '$tmp/src' '$tmp$prefix' '$tmp$dir{sharedir}' '$tmp$dir{pkglibdir}'",
		"$git archive $commit | tar -x -C '$tmp/src'",
		"cp -a '$prefix/.' '$tmp$prefix/'",
		"cp -a '$dir{sharedir}/.' '$tmp$dir{sharedir}/'",
		"cp -a '$dir{pkglibdir}/.' '$tmp$dir{pkglibdir}/'",
		"rm -f '$tmp$dir{sharedir}'/extension/flakeid* '$tmp$dir{pkglibdir}'/flakeid.*",
		"make -C '$tmp/src' -s -j2 with_llvm=no PG_CFLAGS=",
		"make -C '$tmp/src' -s with_llvm=no install DESTDIR='$tmp/dest'",
		"cp -a '$tmp/dest$dir{pkglibdir}'/flakeid.so '$tmp$dir{pkglibdir}/'",
		"cp -a '$tmp/dest$dir{sharedir}'/extension/flakeid* '$tmp$dir{sharedir}/extension/'");
	return (undef, "flakeid $commit does not build here (" . (split /\n/, slurp_file($log))[-1] . ')')
	  if system("($script) > '$log' 2>&1") != 0;
	return ("$tmp$prefix", '');
}

my ($install, $why) = release_install($release);
if (!$install)
{
	plan skip_all => "flakeid 1.2 cannot be had: $why";
}

my @generators = formats(stateful => 't');
my $node = PostgreSQL::Test::Cluster->new('release12', install_path => $install);
$node->init(extra => [ '--encoding=UTF8', '--locale=C.UTF-8' ]);
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'flakeid'\nmax_prepared_transactions = 5\n");
$node->start;
sub sql { return $node->safe_psql('postgres', $_[0]); }
sql('CREATE EXTENSION flakeid');
is(sql("SELECT extversion FROM pg_extension WHERE extname = 'flakeid'"), '1.2', 'the release built from eb799e4 is 1.2');
sql(join('', map { "CREATE TABLE live_$_->{format} (id $_->{type}); CREATE TABLE filled_$_->{format} (id $_->{type});\n" } @generators));
sql(join('', map { "INSERT INTO live_$_->{format} SELECT $_->{new} FROM generate_series(1, 5000);\n" } @generators));
sql('CHECKPOINT');
my $checkpoint = sql('SELECT pg_current_wal_lsn()');
# after the checkpoint: the back-fill's low-waters and the renewals are in 1.2's BOUNDS records only
sql(join('', map { "INSERT INTO filled_$_->{format} SELECT " . backfill_call($_, "'2021-01-01 00:00:00+00'") . " FROM generate_series(1, 300);\n" } @generators));
sql(join('', map { "INSERT INTO live_$_->{format} SELECT $_->{new} FROM generate_series(1, 5000);\n" } @generators));
sleep(1);    # the renewer saves once more
my %last = map { ($_->{format} => sql("SELECT max(id)::text FROM live_$_->{format}")) } @generators;
# the server's processes (those pg_stat_activity shows; the logger too, if any, exits with them)
my @processes = ($node->{_pid}, split /\n/, sql('SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()'));
$node->kill9;
# the backends notice and exit (until then a start finds the shared memory in use)
ok(poll_until(sub { !grep { kill(0, $_) } @processes }), 'after the SIGKILL, every process of the server exits')
  or diag('still there: ' . join(' ', grep { kill(0, $_) } @processes));

# the same directory, this flakeid: the node's binaries are the default installation's again
$node->{_install_path} = undef;
$node->start;
is(log_count($node, qr/PANIC/), 0, "crash recovery replays 1.2's records without a PANIC");
sql('CREATE EXTENSION pg_walinspect');
cmp_ok(sql("SELECT count(*) FROM pg_get_wal_records_info('$checkpoint', pg_current_wal_lsn())
            WHERE resource_manager = 'flakeid' AND record_type = 'BOUNDS'"), '>=', 2,
	"the WAL it replayed holds 1.2's BOUNDS records after the checkpoint (the back-fill's, the renewals')");
is(log_count($node, qr/upgraded the generator state file from version 3 to version 4/), 1,
	"1.2's state file (version 3) is read and rewritten as version 4");
sql('ALTER EXTENSION flakeid UPDATE');
my ($current) = slurp_file(tree_root() . '/flakeid.control') =~ /^default_version = '([^']+)'/m;
is(sql("SELECT extversion FROM pg_extension WHERE extname = 'flakeid'"), $current, "ALTER EXTENSION flakeid UPDATE: $current");
for my $g (@generators)
{
	my ($f, $type) = @$g{qw(format type)};
	is(sql("SELECT count(*) FROM (SELECT $g->{new} AS id FROM generate_series(1, 1000)) n WHERE id <= '$last{$f}'::$type"), '0',
		"$f: every new ID lies after the last one 1.2 issued");
	sql("INSERT INTO filled_$f SELECT " . backfill_call($g, "'2021-01-01 00:00:00+00'") . ' FROM generate_series(1, 300)');
	is(sql("SELECT count(*) - count(DISTINCT id) FROM filled_$f"), '0',
		"$f: back-fill into the unit 1.2 back-filled repeats none of its IDs");
}
stop_checked($node);
done_testing();
