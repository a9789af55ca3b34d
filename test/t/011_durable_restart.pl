# Restarts: IDs minted before a crash (immediate stop) or a clean stop are
# never minted again after the server comes back with its clock set back,
# for every stateful generator.  A clean stop saves the high-water mark, so
# restarts do not creep ahead of the clock.  A negative control shows that
# the saved state is what makes the difference.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $per_run = 20000;
my @generators = formats(stateful => 't');
my $node = flakeid_node('restart', 'flakeid.allow_debug_clock_offset' => 'on');
sub sql { return $node->safe_psql('postgres', $_[0]); }
my $datadir = $node->data_dir;
sql('CREATE TABLE restart_ids (run int, generator text, id text)');

sub mint   # mint(RUN): $per_run IDs of every generator
{
	my ($run) = @_;
	sql("INSERT INTO restart_ids SELECT $run, '$_->{format}', $_->{new}::text FROM generate_series(1, $per_run)") for @generators;
	is(sql("SELECT count(*) FROM restart_ids WHERE run = $run"), $per_run * @generators,
		"run $run: $per_run IDs of each of " . scalar(@generators) . ' generators');
}
sub no_duplicates
{
	my ($description) = @_;
	is(sql("SELECT count(*) - count(DISTINCT id) FROM restart_ids WHERE generator = '$_->{format}'"), '0',
		"$_->{format}: $description") for @generators;
}

mint(1);
ok(-s "$datadir/flakeid.state", 'the generator state is saved in the data directory');

# clean restarts save the high-water mark: a restart resumes where the
# server stopped, not the 2 s reserve ahead of the clock (2 s more per restart)
my $latest_time = join(' ', map { "WHEN '$_->{format}' THEN $_->{time}(id::$_->{type})" } @generators);
sub latest_id_us   # the time of the latest ID this test minted, whatever its generator
{
	return sql("SELECT (extract(epoch FROM max(CASE generator $latest_time END)) * 1e6)::int8 FROM restart_ids");
}
sub creep_run   # one clean stop and start; IDs minted before it; the mark saved at the stop
{
	my ($run) = @_;
	sql("INSERT INTO restart_ids SELECT $run, 'kuid', kuid_new()::text FROM generate_series(1, 1000)");
	my $last = latest_id_us();
	$node->stop('fast');
	my $stopped_mark = state_file_mark($datadir);
	$node->start;
	ok($stopped_mark > $last && $stopped_mark <= $last + 1100,
		"clean stop $run: the saved mark is just past the latest ID (" . ($stopped_mark - $last) . " us), not 2 s ahead of the clock");
}
creep_run(101);
creep_run(102);
is(sql("SELECT kuid_time(kuid_new()) - clock_timestamp() < interval '1 s'"), 't',
	'after two clean restarts in a row, new IDs are at the clock, not 4 s ahead of it');
is(log_count($node, qr/LOG:  saved the generators' high-water mark/), 2, 'the server logs the high-water mark at each clean stop');
no_duplicates('no duplicates across two clean restarts');
# a crash keeps the rule it had: resume after the saved mark, renewed ahead of the IDs
sql("INSERT INTO restart_ids SELECT 103, 'kuid', kuid_new()::text FROM generate_series(1, 1000)");
$node->stop('immediate');
my $crash_mark = state_file_mark($datadir);
$node->start;
is(sql("SELECT kuid_time(kuid_new()) >= to_timestamp($crash_mark / 1e6) - interval '2 ms'"), 't',
	'after a crash, IDs resume after the saved mark (which is ahead of the clock)');
sql('DELETE FROM restart_ids WHERE run > 100');

# a crash, then the clock 2 s behind
sql('ALTER SYSTEM SET flakeid.debug_clock_offset_ms = -2000');
$node->stop('immediate');
$node->start;
is(sql('SHOW flakeid.debug_clock_offset_ms'), '-2000', 'restarted after a crash with the clock 2 s behind');
mint(2);
no_duplicates('no duplicates across a crash and a clock set back by 2 s');

# a clean stop, then the clock 4 s behind
sql('ALTER SYSTEM SET flakeid.debug_clock_offset_ms = -4000');
$node->restart;
mint(3);
no_duplicates('no duplicates across a clean restart and a clock set back by 4 s');
is(sql("SELECT count(*) FROM (SELECT run, max(id::bigint) FROM restart_ids WHERE generator = 'snowflake' GROUP BY run) a
	JOIN (SELECT run, min(id::bigint) FROM restart_ids WHERE generator = 'snowflake' GROUP BY run) b ON b.run = a.run + 1
	WHERE b.min <= a.max"), '0', 'snowflake: every run starts above the last (monotonic generators resume at the saved mark)');

# A state file that vanished is not a first start: the cluster's witness,
# flakeid.issued, says it issued IDs, so every generator refuses
# (XX001) until the file is restored.  1.2 read a missing file as a first
# start, and repeated IDs with the clock behind the lost mark (below).
sql('ALTER SYSTEM RESET flakeid.debug_clock_offset_ms');
$node->stop('fast');
ok(-f "$datadir/flakeid.issued", 'the witness flakeid.issued exists once IDs were issued');
rename("$datadir/flakeid.state", "$datadir/flakeid.state.kept") or die "flakeid.state: $!";
$node->start;
is(join(' ', map { sqlstate_of($node, "SELECT $_") } 'sno_new()', 'kuid_new()', 'snowflake_new()', "siq_new('user')",
		'kuid96_new()', 'sno_new_at(now())'),
	'XX001 XX001 XX001 XX001 XX001 XX001', 'flakeid.state deleted: every generator refuses (XX001), back-fill too');
my $missing = message_of($node, 'SELECT sno_new()');
like($missing, qr/ERROR:  flakeid's generator state file is missing, although this cluster may have issued IDs/, 'the message says the file is missing');
like($missing, qr/HINT:  If the file was moved or renamed, put that very file back .*not an older copy.* Otherwise set flakeid.start_afresh = on/,
	'the hint says to put the very file back, or to start afresh (test/t/055_durable_start_afresh.pl)');
$node->stop('fast');
symlink('/nonexistent/flakeid.state', "$datadir/flakeid.state") or die "symlink: $!";
$node->start;
is(sqlstate_of($node, 'SELECT kuid_new()'), 'XX001', 'flakeid.state a link to a file that is gone: refused too');
$node->stop('fast');
unlink("$datadir/flakeid.state");
rename("$datadir/flakeid.state.kept", "$datadir/flakeid.state") or die "flakeid.state: $!";
$node->start;
is(sqlstate_of($node, 'SELECT kuid_new()'), 'ok', 'the file restored: the generators work again');

# negative control: without the saved state and its witness, a clock set
# back into the time of run 1 makes kuid (which carries no node) repeat run
# 1's IDs.  Every call aims the clock anew at the first tick of run 1 (ceil:
# it lands at or just after that tick's start, inside the 1.024 ms tick), so
# the stateless generator issues there again however slowly the calls come.
# Still, the first call lands where the clock is when it reads it: on a
# machine too busy to read it within run 1's few milliseconds (a
# CPU-bound CI lane, once), it lands after them and counts on there, above
# them.  So the file is removed and the aim taken again, up to 20 times,
# until a run repeats (the bound only says how long a machine may take).
my $repeats = 0;
for my $attempt (1 .. 20)
{
	$node->stop('fast');
	for my $file ("$datadir/flakeid.state", "$datadir/flakeid.issued")
	{
		unlink($file) or $!{ENOENT} or die "$file: $!";
	}
	$node->start;
	$repeats = sql("CREATE TEMP TABLE again AS
		SELECT kuid_new()::text AS id
		FROM (SELECT min(kuid_time(id::kuid)) AS first FROM restart_ids WHERE run = 1 AND generator = 'kuid') r,
		     generate_series(1, $per_run) g,
		     LATERAL (SELECT set_config('flakeid.debug_clock_offset_ms',
		                                ceil(extract(epoch FROM r.first - clock_timestamp()) * 1000)::bigint::text, false)
		              WHERE g IS NOT NULL) aim;
		SELECT count(*) FROM again JOIN restart_ids r ON r.generator = 'kuid' AND r.id = again.id");
	last if $repeats > 0;
}
cmp_ok($repeats, '>', 0, "negative control: with the state file removed, kuid repeats $repeats IDs of run 1 (the test can see duplicates)");
stop_checked($node);
done_testing();
