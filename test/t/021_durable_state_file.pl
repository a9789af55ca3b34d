# The generator state file across versions.  test/fixtures/flakeid-1.0.state
# was written by flakeid 1.0 (see test/fixtures/README): its server's clock
# was faked to 2040-01-01, so its mark lies years ahead of any real clock.
# A server of this version, with its clock faked to just before the
# fixture's IDs, must read the file, rewrite it in the current version, and
# issue every generator's IDs above the mark.  A file of a newer version,
# and a damaged one, make the generators refuse with messages that say so.
# Each case starts a server of its own.
use strict;
use warnings;
use Compress::Zlib ();
use File::Compare ();
use File::Copy ();
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $fixture_mark = '2040-01-01 00:00:03.866103+00';    # the fixture's mark, read from its bytes 8..15
my $clock = '2039-12-31 23:59:30';    # UTC, behind every ID the fixture covers (they end at 00:00:01.889) by
# 32 s: a loaded machine took 5 s to start the server and ask (within the 62 s a plausible mark may lead)
my $work = PostgreSQL::Test::Utils::tempdir();
File::Copy::copy(tree_root() . '/test/fixtures/flakeid-1.0.state', "$work/v1.state") or die "the fixture: $!";
sub file_version { open(my $fh, '<:raw', $_[0]) or die "$_[0]: $!"; read($fh, my $head, 8); return unpack('x4 L<', $head); }
is(file_version("$work/v1.state"), 1, 'the fixture is a version 1 file (flakeid 1.0)');

# every stateful generator, live and back-fill (a time long past)
my @calls = ((map { $_->{new} } formats(stateful => 't')), map { backfill_call($_, "'2020-01-01'") } formats(stateful => 't'));
my $refused_by_all = sub { my ($node) = @_; return join(' ', map { sqlstate_of($node, "SELECT $_") } @calls); };

# server(STATE-FILE, SETTING => VALUE, ...): a server whose flakeid.state is STATE-FILE (none
# for undef) when it starts with its clock at $clock (test/lib/clock_offset.c with a fixed
# offset, which every process of the server inherits).  The clock is faked from that start on, not from
# initdb, so a slow machine does not eat the seconds $clock lies behind the fixture.
my $cases = 0;
sub server
{
	my ($state, %settings) = @_;
	my $node = flakeid_node('state_file_' . ++$cases, %settings);
	$node->stop('fast');
	unlink($node->data_dir . '/flakeid.state', $node->data_dir . '/flakeid.issued');
	if (defined $state)
	{
		File::Copy::copy($state, $node->data_dir . '/flakeid.state') or die "$state: $!";
		chmod(0600, $node->data_dir . '/flakeid.state');
	}
	start_at_clock($node);
	return $node;
}
sub start_at_clock
{
	my ($node) = @_;
	my $env = clock_env(fixed => (`date -d '$clock UTC' +%s` - time));
	local @ENV{ keys %$env } = values %$env;
	$node->start;
}
sub sql { my ($node, $sql) = @_; return $node->safe_psql('postgres', $sql); }
sub unchanged { my ($node, $file) = @_; return File::Compare::compare($node->data_dir . '/flakeid.state', $file) == 0 ? 'unchanged' : 'rewritten'; }

# 1.0's file: read, upgraded in place, and every generator resumes above its mark
my $node = server("$work/v1.state");
is(sql($node, "SELECT now() < '2040-01-01 00:00:01.889+00'"), 't', "the server's clock is behind every ID the 1.0 file covers");
is(log_count($node, qr/upgraded the generator state file from version 1 to version 4/), 1,
	'the server logs that it upgraded the file from version 1 to 4');
is(log_count($node, qr/generators resume after their saved marks: siq after 2040-01-01 00:00:03.866103[^;]*; kuid after 2040-01-01 00:00:03.866103[^;]*; snowflake after 2040-01-01 00:00:03.866103/), 1, 'the server logs the mark it resumes after');
is(file_version($node->data_dir . '/flakeid.state'), 4, 'the file on disk is now version 4');
File::Copy::copy($node->data_dir . '/flakeid.state', "$work/foreign.state") or die "foreign.state: $!";
is(sql($node, "SELECT count(*) FILTER (WHERE t <= '$fixture_mark'), count(*)
	FROM generate_series(1, 1000), LATERAL (VALUES (sno_time(sno_new())), (siq_time(siq_new('user'))),
	     (siq_time(siq_new('tag'))), (kuid_time(kuid_new())), (kuid96_time(kuid96_new())),
	     (snowflake_time(snowflake_new()))) ids(t)"), '0|6000',
	'sno, siq (two kinds), kuid, kuid96 and snowflake: all 6000 IDs lie after the 1.0 mark');
is(sql($node, "SELECT sno_new() > 'fqsohofg2222g3cw'::sno, siq_new('user') > '0087AKYG7HV60R000000030'::siq,
	            kuid_new() > '.7cE4c6O057'::kuid, snowflake_new() > 3308963608716779924"), 't|t|t|t',
	'each new ID sorts above the largest ID the 1.0 server issued');
is(sql($node, "SELECT count(*) FILTER (WHERE last_time < '$fixture_mark'::timestamptz - interval '4 ms'),
	            count(*) FILTER (WHERE issued > 0 AND last_time <= '$fixture_mark') FROM flakeid_generators"), '0|0',
	"flakeid_generators: every counter resumed in the mark's unit, and those that minted are past it");
stop_checked($node);

# negative control: the same clock without the file issues IDs the 1.0 server issued times for
$node = server(undef);
is(sql($node, "SELECT kuid_time(kuid_new()) < '2040-01-01 00:00:01.888832+00'"), 't',
	'negative control: without the file, the same clock gives kuid times the 1.0 server already used');
stop_checked($node);

# a newer version's file: refused with both versions named, and left as it is
{
	my $raw = slurp_file("$work/v1.state");
	my ($mark, $other, $ticktock) = unpack('q< q< L<', substr($raw, 8));
	my $body = pack('q< q< L< L<', $mark, $other, $ticktock, 0) . 'new fields';
	my $head = pack('L< L< L< L<', 0x464C4B31, 99, length($body), 0);
	open(my $fh, '>:raw', "$work/v99.state") or die;
	print $fh $head . $body . pack('L<', Compress::Zlib::crc32($head . $body));
	close($fh);
}
$node = server("$work/v99.state");
is($refused_by_all->($node), join(' ', ('55000') x @calls), 'a version 99 file: every generator, live and back-fill, is ERROR 55000');
my $message = message_of($node, 'SELECT kuid_new()');
like($message, qr/ERROR:  flakeid.s generator state file was written by a newer version of flakeid/, 'the message says a newer flakeid wrote the file');
like($message, qr/DETAIL:  The file "flakeid.state" has state version 99; this version of flakeid reads versions 1 to 4\./, 'the detail names both versions');
is(sql($node, "SELECT sno_time('brpk4q72xwf2m63l'), length(flax_new()::text)"), '2031-05-08 23:03:34.976+00|16', 'the types, and flax_new(), still work');
is(log_count($node, qr/LOG:  the generator state file "flakeid.state" was written by a newer version of flakeid/) . ' ' . unchanged($node, "$work/v99.state"),
	'1 unchanged', 'the server logs it at start, and no generator call changes a byte of the file');
stop_checked($node);

# a damaged file (one bit of the mark flipped): refused as damaged
{
	my $raw = slurp_file("$work/v1.state");
	substr($raw, 9, 1) = chr(ord(substr($raw, 9, 1)) ^ 0x10);
	open(my $fh, '>:raw', "$work/damaged.state") or die;
	print $fh $raw;
	close($fh);
}
$node = server("$work/damaged.state");
is($refused_by_all->($node), join(' ', ('XX001') x @calls), 'a damaged file: every generator, live and back-fill, is ERROR XX001');
like(message_of($node, 'SELECT snowflake_new()'), qr/ERROR:  flakeid.s generator state file is damaged, so generation is refused/,
	'the message says the file is damaged');
is(log_count($node, qr/the generator state file "flakeid.state" is damaged/) . ' ' . unchanged($node, "$work/damaged.state"),
	'1 unchanged', 'the server logs it at start, and no generator call changes a byte of the file');
stop_checked($node);
# files of versions 1 and 2 name no cluster (issue 59, item 7): taken up only where this
# cluster could have written them.  A mark no save writes (negative, INT64_MAX), or one
# further ahead of the clock than a save leaves one (60 s of advance lead and the 2 s
# reserve), is damage; so is an old file beside this cluster's flakeid.issued,
# which 1.3 writes with its first save, after which every save is of version 4.
sub v1_file    # v1_file(NAME, MARK, OTHER): a version 1 file with a good checksum, as 1.0 laid it out
{
	my ($name, $mark, $other) = @_;
	my $head = pack('L< L< q< q< L< L<', 0x464C4B31, 1, $mark, $other, 0, 0);
	open(my $fh, '>:raw', "$work/$name") or die "$name: $!";
	print $fh $head . pack('L<', Compress::Zlib::crc32($head)) . ("\0" x 4);
	close($fh);
	return "$work/$name";
}
for my $case ([ '2080.state', 3471292800000000, 0, 'a version 1 file with a mark in 2080 (40 years ahead of the clock)' ],
	[ 'lead.state', 2208988797000000 + 70_000_000, 0, 'a version 1 file with a mark 70 s ahead of the clock' ],
	[ 'max.state', 9223372036854775807, 0, 'a version 1 file with the mark INT64_MAX' ],
	[ 'negative.state', -5, 0, 'a version 1 file with the mark -5' ],
	[ 'other.state', 2208988800000000, -1, "a version 1 file with sno's other mark -1" ])
{
	my ($name, $mark, $other, $what) = @$case;
	$node = server(v1_file($name, $mark, $other));
	is($refused_by_all->($node), join(' ', ('XX001') x @calls), "$what: every generator, live and back-fill, is ERROR XX001");
	is(log_count($node, qr/the generator state file "flakeid.state" is damaged/) . ' ' . unchanged($node, "$work/$name"),
		'1 unchanged', "$what: the server logs it as damaged at start, and the file stays as it is");
	stop_checked($node);
}
# the fixture, 6.9 s ahead of the clock, beside this cluster's witness: refused
$node = flakeid_node('state_file_' . ++$cases);
my $system = sql($node, 'SELECT system_identifier FROM pg_control_system()');
$node->stop('fast');
File::Copy::copy("$work/v1.state", $node->data_dir . '/flakeid.state') or die "v1.state: $!";
chmod(0600, $node->data_dir . '/flakeid.state');
# (the witness of a cluster that issued IDs: from 1.4 a server that issued none has one saying so)
unlink($node->data_dir . '/flakeid.issued');
PostgreSQL::Test::Utils::append_to_file($node->data_dir . '/flakeid.issued',
	"flakeid issued IDs in the cluster with system identifier $system\n");
start_at_clock($node);
is($refused_by_all->($node), join(' ', ('XX001') x @calls),
	"the 1.0 fixture beside this cluster's flakeid.issued: every generator, live and back-fill, is ERROR XX001");
ok(log_count($node, qr/DETAIL:  It has state version 1, but "flakeid.issued" says this cluster has written version 4 since/) == 1,
	'the server log says why');
stop_checked($node);

# Version 3 (1.2) names its cluster, and the same rules hold for it (the
# review of issue 59: a crafted version 3 file naming no cluster, or a stale
# one of this cluster's own with a mark in 2080, was taken up).
sub v3_file    # v3_file(NAME, SYSTEM, MARK): a version 3 file as 1.2 laid it out, every mark MARK
{
	my ($name, $system, $mark) = @_;
	my $bounds = pack('q< q< q< L<', $mark, $mark, $mark, 0) . pack('L<18', (1 << 16) x 18);
	$bounds .= "\0" x (104 - length $bounds);
	my $body = pack('Q< q<', $system, 1420070400000) . $bounds . ("\0" x 104);
	my $head = pack('L< L< L< L<', 0x464C4B31, 3, length($body), 0);
	open(my $fh, '>:raw', "$work/$name") or die "$name: $!";
	print $fh $head . $body . pack('L<', Compress::Zlib::crc32($head . $body));
	close($fh);
	return "$work/$name";
}
for my $case ([ 'v3_none.state', 0, 2208988800000000, 0, 'a version 3 file that names no cluster' ],
	[ 'v3_2080.state', undef, 3471292800000000, 0, "a version 3 file of this cluster's with its marks in 2080" ],
	[ 'v3_stale.state', undef, 2208988800000000, 1, "a version 3 file of this cluster's beside its flakeid.issued" ])
{
	my ($name, $system, $mark, $witness, $what) = @$case;
	$node = flakeid_node('state_file_' . ++$cases);
	$system //= sql($node, 'SELECT system_identifier FROM pg_control_system()');
	$node->stop('fast');
	unlink($node->data_dir . '/flakeid.issued');
	PostgreSQL::Test::Utils::append_to_file($node->data_dir . '/flakeid.issued',
		"flakeid issued IDs in the cluster with system identifier $system\n") if $witness;
	File::Copy::copy(v3_file($name, $system, $mark), $node->data_dir . '/flakeid.state') or die "$name: $!";
	chmod(0600, $node->data_dir . '/flakeid.state');
	start_at_clock($node);
	is($refused_by_all->($node), join(' ', ('XX001') x @calls), "$what: every generator, live and back-fill, is ERROR XX001");
	is(log_count($node, qr/the generator state file "flakeid.state" is damaged/) . ' ' . unchanged($node, "$work/$name"),
		'1 unchanged', "$what: the server logs it as damaged at start, and the file stays as it is");
	stop_checked($node);
}

# An old release's file refused for a mark ahead of a clock that was behind (a VM started before
# its clock was set): once the clock has caught up, the next start takes it up.  (A witness written
# "issued" during the refused lifetime made it "an older copy" for good: 1.4's reviewer.)
{
	$node = flakeid_node('state_file_' . ++$cases);
	my $system = sql($node, 'SELECT system_identifier FROM pg_control_system()');
	$node->stop('fast');
	unlink($node->data_dir . '/flakeid.issued');
	my $mark = (`date -d '$clock UTC' +%s` + 600) * 1_000_000;
	File::Copy::copy(v3_file('v3_behind.state', $system, $mark), $node->data_dir . '/flakeid.state') or die "v3_behind.state: $!";
	chmod(0600, $node->data_dir . '/flakeid.state');
	start_at_clock($node);
	is(sqlstate_of($node, 'SELECT sno_new()'), 'XX001', "a version 3 file of this cluster's, the clock 10 minutes behind its marks: refused");
	ok(poll_until(sub { -e $node->data_dir . '/flakeid.issued' }, timeout => 60), 'the refusing lifetime has written its witness');
	$node->stop('fast');
	{
		my $env = clock_env(fixed => (`date -d '$clock UTC' +%s` - time + 700));
		local @ENV{ keys %$env } = values %$env;
		$node->start;
	}
	is(sqlstate_of($node, 'SELECT sno_new()') . ' ' . file_version($node->data_dir . '/flakeid.state'), 'ok 4',
		'once the clock has passed its marks, the next start takes the file up (upgraded to version 4) and issues');
	stop_checked($node);
}

# An old release's file taken up, whose upgrade at start fails (a directory in the place of
# flakeid.state.tmp): the witness written beside it does not say IDs were issued, so that the next
# start, the directory gone, upgrades it.  (1.4's eleventh fresh eyes: the start wrote "issued"
# before the upgrade, and a crash or a failed save between them refused the latest state at every
# start after as an older copy, "version 4 written since", which it was not.)
{
	$node = flakeid_node('state_file_' . ++$cases);
	my $system = sql($node, 'SELECT system_identifier FROM pg_control_system()');
	$node->stop('fast');
	my $witness = $node->data_dir . '/flakeid.issued';
	unlink($witness);
	my $mark = (`date -d '$clock UTC' +%s` - 600) * 1_000_000;    # 10 minutes behind the clock: taken up
	File::Copy::copy(v3_file('v3_upgrade_fails.state', $system, $mark), $node->data_dir . '/flakeid.state') or die "v3_upgrade_fails.state: $!";
	chmod(0600, $node->data_dir . '/flakeid.state');
	mkdir($node->data_dir . '/flakeid.state.tmp') or die $!;
	start_at_clock($node);
	is(file_version($node->data_dir . '/flakeid.state'), 3, "a version 3 file of this cluster's, taken up, whose upgrade at start fails: still version 3");
	ok(poll_until(sub { -e $witness }, timeout => 60) && slurp_file($witness) !~ /^flakeid issued IDs/,
		'the witness written beside it does not say IDs were issued')
	  or diag(-e $witness ? slurp_file($witness) : 'no witness');
	$node->stop('fast');
	rmdir($node->data_dir . '/flakeid.state.tmp') or die $!;
	start_at_clock($node);
	is(sqlstate_of($node, 'SELECT sno_new()') . ' ' . file_version($node->data_dir . '/flakeid.state'), 'ok 4',
		'the directory gone, the next start upgrades it (version 4) and issues');
	stop_checked($node);
}

# An old release's file refused for its marks (1.2 counting on after a clock
# step back, then this release): start afresh, as the refusal's hint says,
# resumes after the file's marks, not at the clock + 62 s below them.  (1.4's
# auditor: the refused file's marks were dropped before start afresh read
# them, and 6,545 snowflakes were minted twice once the clock reached them.)
{
	$node = flakeid_node('state_file_' . ++$cases);
	my $system = sql($node, 'SELECT system_identifier FROM pg_control_system()');
	$node->stop('fast');
	unlink($node->data_dir . '/flakeid.issued');
	my $mark = (`date -d '$clock UTC' +%s` + 600) * 1_000_000;    # 10 minutes ahead of the clock the server starts at
	File::Copy::copy(v3_file('v3_ahead.state', $system, $mark), $node->data_dir . '/flakeid.state') or die "v3_ahead.state: $!";
	chmod(0600, $node->data_dir . '/flakeid.state');
	start_at_clock($node);
	is($refused_by_all->($node), join(' ', ('XX001') x @calls),
		"a version 3 file of this cluster's with its marks 10 minutes ahead of the clock: every generator, live and back-fill, is ERROR XX001");
	$node->stop('fast');
	$node->append_conf('postgresql.conf', 'flakeid.start_afresh = on');
	# a start afresh whose save fails (a directory where its temporary file goes): the refused file
	# stays in place, and the next start reads its marks again (1.4's reviewer: moved aside first,
	# the failed save left no state file, and the next start resumed at the clock, below them)
	mkdir($node->data_dir . '/flakeid.state.tmp') or die $!;
	start_at_clock($node);
	is(join(' ', sqlstate_of($node, 'SELECT snowflake_new()'), unchanged($node, "$work/v3_ahead.state")), 'XX001 unchanged',
		'start afresh whose save fails: generation is still refused, and the refused file stays as it was');
	like(message_of($node, 'SELECT snowflake_new()'), qr/starting afresh failed, so generation is refused.*HINT:  Correct what the log names/s,
		'and the refusal says start afresh was tried and failed (not to set it on, which it is)');
	$node->stop('fast');
	rmdir($node->data_dir . '/flakeid.state.tmp') or die $!;
	start_at_clock($node);
	my @stateful = formats(stateful => 't');
	is(join(' ', map { sql($node, "SELECT $_->{time}($_->{new}) >= to_timestamp($mark / 1e6)") } @stateful), join(' ', ('t') x @stateful),
		'start afresh after it: every stateful generator\'s first live ID lies at or after the refused file\'s marks ('
		  . join(', ', map { $_->{format} } @stateful) . ')');
	stop_checked($node);

	# the snowflake epoch of the IDs that file covers goes on through the start afresh (1.4's
	# reviewer: it was dropped, a later epoch was taken, and snowflakes equalled older ones)
	$node = flakeid_node('state_file_' . ++$cases, 'flakeid.snowflake_epoch_ms' => 1600000000000, 'flakeid.start_afresh' => 'on');
	my $epoch_system = sql($node, 'SELECT system_identifier FROM pg_control_system()');
	$node->stop('fast');
	unlink($node->data_dir . '/flakeid.issued');
	File::Copy::copy(v3_file('v3_ahead_epoch.state', $epoch_system, $mark), $node->data_dir . '/flakeid.state') or die $!;
	chmod(0600, $node->data_dir . '/flakeid.state');
	start_at_clock($node);
	is(sqlstate_of($node, 'SELECT snowflake_new()') . ' ' . sqlstate_of($node, 'SELECT sno_new()'), '55000 ok',
		'start afresh from a file of snowflakes under the 2015 epoch, with a later epoch configured: snowflake_new() refused (55000), sno issues');
	stop_checked($node);
}

# a truncated and an unreadable file: refused as damaged, back-fill included
PostgreSQL::Test::Utils::append_to_file("$work/truncated.state", substr(slurp_file("$work/v1.state"), 0, 20));
$node = server("$work/truncated.state");
is($refused_by_all->($node), join(' ', ('XX001') x @calls), 'a truncated file: every generator, live and back-fill, is ERROR XX001');
stop_checked($node);
$node = server("$work/v1.state");
$node->stop('fast');
chmod(0000, $node->data_dir . '/flakeid.state');
start_at_clock($node);
is($refused_by_all->($node), join(' ', ('XX001') x @calls), 'an unreadable file: every generator, live and back-fill, is ERROR XX001');
stop_checked($node);

# another cluster's file (the upgraded one above, which records its system identifier): refused
# until an operator names that cluster in flakeid.accept_state_from
my $foreign_system = unpack('Q<', substr(slurp_file("$work/foreign.state"), 24, 8));   # version 4: the SYSTEM entry first
cmp_ok($foreign_system, '>', 0, "a version 4 file records its cluster's system identifier ($foreign_system)");
$node = server("$work/foreign.state");
# (the data directories of a run are copies of one initdb, each given a system identifier of its own: test/lib/InitdbTemplate.pm)
isnt(sql($node, 'SELECT system_identifier FROM pg_control_system()'), $foreign_system,
	'the cluster it is put into has a system identifier of its own');
is($refused_by_all->($node), join(' ', ('XX001') x @calls), "another cluster's file: every generator, live and back-fill, is ERROR XX001");
$message = message_of($node, 'SELECT sno_new()');
like($message, qr/ERROR:  flakeid.s generator state file belongs to another cluster, so generation is refused/,
	'the message says the file belongs to another cluster');
like($message, qr/HINT:  .*set flakeid.accept_state_from = '$foreign_system' and restart the server/,
	"the hint names the setting and the file's system identifier");
is(log_count($node, qr/the generator state file "flakeid.state" belongs to another cluster/), 1, 'the server logs it at start');
stop_checked($node);
# a value with junk after the number is refused as the server starts (1.2
# read it with sscanf, took the number and accepted the file)
$node = server("$work/foreign.state", 'flakeid.accept_state_from' => "${foreign_system}junk");
is(sqlstate_of($node, 'SELECT sno_new()'), 'XX001', 'flakeid.accept_state_from with junk after the number: the file stays refused');
cmp_ok(log_count($node, qr/invalid value for parameter "flakeid.accept_state_from"/), '>=', 1, 'the server says the value is invalid');
stop_checked($node);
$node = server("$work/foreign.state", 'flakeid.accept_state_from' => $foreign_system);
is(sql($node, "SELECT count(*) FILTER (WHERE t <= '$fixture_mark'), count(*)
	FROM generate_series(1, 1000), LATERAL (VALUES (sno_time(sno_new())), (kuid_time(kuid_new())),
	     (snowflake_time(snowflake_new()))) ids(t)"), '0|3000', 'accepted with flakeid.accept_state_from: every ID lies after the file\'s mark');
is((state_file_fields($node->data_dir))[0], sql($node, 'SELECT system_identifier FROM pg_control_system()'),
	"and the file is rewritten with this cluster's system identifier");
stop_checked($node);

# version 4's entries (docs/FORMATS.md): one appended to that file, taken up
# by the next cluster through flakeid.accept_state_from.  A counter slot this
# flakeid lacks, or an unknown entry marked required, is a later release's:
# refused (55000), since dropping it could repeat IDs; an unknown entry not
# marked required is skipped.
my $own_system = (state_file_fields($node->data_dir))[0];
File::Copy::copy($node->data_dir . '/flakeid.state', "$work/v4.state") or die "v4.state: $!";
sub with_entry    # with_entry(NAME, TAG, FLAGS, PAYLOAD[, EDIT]): v4.state with that entry appended, as NAME
{
	# (TAG undef: none appended; PAYLOAD a code ref: called after the walk; EDIT(TAG, BYTES): each
	# entry's bytes as they go in, undef to leave it out)
	my ($name, $tag, $flags, $payload, $edit) = @_;
	my $bytes = slurp_file("$work/v4.state");
	# (without the entry naming its flakeid.deep, tag 7: the fixture's cluster's record does not come along)
	my ($body, $at, $entries) = ('', 0, substr($bytes, 16, length($bytes) - 20));
	while ($at < length $entries)
	{
		my ($t, undef, $len) = unpack('S< S< L<', substr($entries, $at, 8));
		my $entry = $t == 7 ? undef : substr($entries, $at, 8 + $len);
		$entry = $edit->($t, $entry) if defined $entry && $edit;
		$body .= $entry if defined $entry;
		$at += 8 + $len;
	}
	$payload = $payload->() if ref $payload eq 'CODE';
	$body .= pack('S< S< L<', $tag, $flags, length($payload)) . $payload if defined $tag;
	my $head = pack('L< L< L< L<', 0x464C4B31, 4, length($body), 0);
	open(my $fh, '>:raw', "$work/$name") or die "$name: $!";
	print $fh $head . $body . pack('L<', crc32c($head . $body));
	close($fh);
	return "$work/$name";
}
# an EDIT for with_entry: this cluster's own latest mark (MARKS, tag 3, its side 0) an hour later,
# where the mark goes into $$ahead; with AT (Unix µs), that mark and each generator's own (MARK,
# tag 14, side 0: its last 8 bytes) at AT
sub own_mark_hour_ahead
{
	my ($ahead, $at) = @_;
	return sub {
		my ($t, $entry) = @_;
		if ($t == 3 && ord(substr($entry, 8, 1)) == 0)
		{
			$$ahead = $at // unpack('q<', substr($entry, 17, 8)) + 3600 * 1_000_000;
			substr($entry, 17, 8) = pack('q<', $$ahead);
		}
		substr($entry, -8) = pack('q<', $at) if defined $at && $t == 14 && ord(substr($entry, 8, 1)) == 0;
		return $entry;
	};
}
my $later_slot = 'gen of 1.9';
for my $case (
	[ with_entry('slot.state', 4, 1, pack('C C', 0, length $later_slot) . $later_slot . pack('L<', 5)), '55000',
		qr/DETAIL:  The file names the counter "gen of 1.9", which this version of flakeid does not have/,
		'a back-fill low-water of a counter slot this flakeid lacks',
		# (the error's own DETAIL said "has state version 4; this version reads versions 1 to 4")
		qr/DETAIL:  The file "flakeid.state" has state version 4, which this version of flakeid reads, but holds an entry/ ],
	[ with_entry('required.state', 99, 1, 'abc'), '55000', qr/written by a newer version of flakeid/,
		'an entry of an unknown tag marked required',
		qr/DETAIL:  The file "flakeid.state" has state version 4, which this version of flakeid reads, but holds an entry/ ],
	[ with_entry('optional.state', 99, 0, 'abc'), 'ok', undef, 'an entry of an unknown tag not marked required' ],
	# (a generator's own mark, tag 14, not required: one of a generator this
	# flakeid has no monotonic mark for, a later release's, is skipped, and
	# the latest mark covers it; 1.5's auditor saw it refused as written by a
	# newer version, of a version this flakeid reads)
	[ with_entry('mark.state', 14, 0, pack('C C', 0, length $later_slot) . $later_slot . pack('q<', 1)), 'ok', undef,
		'the own mark of a generator this flakeid lacks (tag 14, not required)' ],
	[ with_entry('sno_mark.state', 14, 0, pack('C C', 0, 3) . 'sno' . pack('q<', 1)), 'ok', undef,
		'an own mark naming sno, whose marks are its flags\' (tag 14, not required)' ])
{
	my ($file, $expected, $log, $what, $detail) = @$case;
	$node = server($file, 'flakeid.accept_state_from' => $own_system);
	is($refused_by_all->($node), join(' ', ($expected) x @calls), "$what: every generator, live and back-fill, gives $expected");
	ok(log_count($node, $log) >= 1, "$what: the server log says why") if $log;
	like(message_of($node, 'SELECT sno_new()'), $detail, "$what: 346ffdf: the error's detail does not contradict itself") if $detail;
	stop_checked($node);
}

# A later release's generator whose own mark is the latest (it minted an
# hour ahead): this release skips its entry, but its mark must outlive a
# save here, which writes MARKS[0] as the latest of this release's own
# marks: each of them is raised to it (1.5's reviewer: else MARKS[0] fell
# to the clock, and the later release, back again, resumed that generator
# below what it had issued).
{
	my $ahead;
	with_entry('later_ahead.state', 14, 0,
		sub { pack('C C', 0, length $later_slot) . $later_slot . pack('q<', $ahead) }, own_mark_hour_ahead(\$ahead));
	$node = server("$work/later_ahead.state", 'flakeid.accept_state_from' => $own_system);
	cmp_ok(sql($node, 'SELECT extract(epoch FROM snowflake_time(snowflake_new()) - clock_timestamp())'), '>', 3500,
		"a later release's generator's own mark, an hour ahead and the latest: this release's generators resume after it");
	$node->stop('fast');
	cmp_ok(state_file_mark($node->data_dir), '>=', $ahead, '... and the save at the clean stop keeps it where 1.4 and later releases read the latest mark');
}

# A later release's file that names a counter this release lacks (a
# required entry: refused, 55000), whose marks lie an hour ahead: the start
# afresh the refusal's hint asks for resumes after them (1.5's second
# reviewer: they were emptied with the refusal, and the start afresh
# resumed at the clock + 62 s, below IDs minted ahead).  (The mark two
# hours past the server's clock: the fixture's lie about a minute past it.)
{
	my $ahead;
	with_entry('slot_ahead.state', 4, 1, pack('C C', 0, length $later_slot) . $later_slot . pack('L<', 5),
		own_mark_hour_ahead(\$ahead, (`date -d '$clock UTC' +%s` + 7200) * 1_000_000));
	$node = server("$work/slot_ahead.state", 'flakeid.accept_state_from' => $own_system, 'flakeid.start_afresh' => 'on');
	ok(log_count($node, qr/names the counter "gen of 1.9"/) >= 1, "a later release's file naming a counter this one lacks is refused");
	cmp_ok(sql($node, 'SELECT extract(epoch FROM snowflake_time(snowflake_new()) - clock_timestamp())'), '>', 3500,
		'... and the start afresh resumes after its marks, an hour ahead');
	stop_checked($node);
}
done_testing();

