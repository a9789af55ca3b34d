# The ways out of a damaged or missing state file repeat nothing, live or
# back-filled (issue 60, part 2).  1.3's hints said to remove the file (and
# the witness) "once the clock is past every ID issued"; back-filled IDs lie
# in the past, so the next back-fill at an earlier time gave an ID given
# before (a unique index refused it: 23505).  Now each refusal's hint says:
# set flakeid.start_afresh = on and restart.  The file is set aside, the
# generators resume 62 s ahead of the clock (past any mark a save leaves),
# and back-fill before that start is refused (55000) until an operator sets
# flakeid.accept_backfill_loss; the floor is saved, WAL-logged and kept
# across restarts and by a promoted standby.
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use File::Copy ();
use List::Util ();
use PostgreSQL::Test::Utils qw(slurp_file);

my $node = flakeid_node('afresh', 'flakeid.allow_debug_clock_offset' => 'on');
# (times past the floor, 62 s ahead of the clock, are back-filled on a clock moved ahead for the session)
my $ahead = 'SET flakeid.debug_clock_offset_ms = 90000;';
my $datadir = $node->data_dir;
sub sql { return $node->safe_psql('postgres', $_[0]); }
sub afresh_off    # afresh_off(NODE): restarted with flakeid.start_afresh off again, as the log's hint says
{
	my ($n) = @_;
	$n->stop('fast');
	my $conf = slurp_file($n->data_dir . '/postgresql.conf') =~ s/flakeid.start_afresh = on\n//gr;
	open(my $fh, '>', $n->data_dir . '/postgresql.conf') or die $!;
	print $fh $conf;
	close $fh;
	$n->start;
}
my $past = "'2024-01-01 00:00:00+00'";
# Where a start afresh resumes: 62 s ahead of the clock at the start (past
# any mark a save leaves), or, where an earlier case back-filled IDs
# further ahead (85 s, below), just past them: the stop's save, its marks
# more than 62 s ahead of its clock, kept them in flakeid.state.ahead, and
# the start afresh folds them in.  Resumed 62 s ahead, the live generator
# reached their units 23 s later, the record of units filled ahead gone
# with the state (1.5's fourth reviewer's class).
sub resumed_where
{
	my ($resumed) = @_;
	return "SELECT '$resumed'::timestamptz BETWEEN greatest(pg_postmaster_start_time() + interval '55 s', a) "
	  . "AND greatest(pg_postmaster_start_time() + interval '64 s', a + interval '4 s') "
	  . "FROM (SELECT max(snowflake_time(id)) a FROM ids WHERE how = 'after') s";
}
my $sysid = sql('SELECT system_identifier FROM pg_control_system()');
sql('CREATE TABLE ids (id bigint PRIMARY KEY, how text)');
sql("INSERT INTO ids SELECT snowflake_new_at($past), 'back-filled' FROM generate_series(1, 100)");
sql("INSERT INTO ids SELECT snowflake_new(), 'live' FROM generate_series(1, 100)");

# each way the state file is lost, then the hint followed
# (a directory in its place, and a file without permission: start afresh could not set either aside,
# since PostgreSQL's durable_rename opens the file itself, and never acted: 1.4's auditor)
# (and an unreadable one beside this cluster's "no ID yet" witness, which the renewer writes beside a
# refused state: 51b3aa9 would not rewrite it, and start afresh failed: 1.4's last fresh eyes)
for my $case ('damaged', 'missing', 'a directory', 'unreadable', 'unreadable beside "no ID yet"')
{
	$node->stop('fast');
	if ($case eq 'damaged')
	{
		open(my $fh, '+<', "$datadir/flakeid.state") or die $!;
		seek($fh, 20, 0);
		print $fh "\xff" x 8;
		close $fh;
	}
	elsif ($case eq 'missing')
	{
		unlink("$datadir/flakeid.state") or die $!;
	}
	elsif ($case eq 'a directory')
	{
		unlink("$datadir/flakeid.state") or die $!;
		mkdir("$datadir/flakeid.state") or die $!;
	}
	else
	{
		chmod(0000, "$datadir/flakeid.state") or die $!;
		if ($case =~ /no ID yet/)
		{
			open(my $wf, '>', "$datadir/flakeid.issued") or die $!;
			print $wf "flakeid runs, and has issued no ID yet, in the cluster with system identifier $sysid\n";
			close $wf;
		}
	}
	$node->start;
	is(sqlstate_of($node, 'SELECT snowflake_new()'), 'XX001', "$case: generation is refused");
	like(message_of($node, "SELECT snowflake_new_at($past)"), qr/HINT:  .*[Ss]et flakeid.start_afresh = on and restart the server/,
		"$case: the hint says to start afresh");
	unlike(message_of($node, 'SELECT snowflake_new()'), qr/remove "flakeid.state"|once the clock is past every ID/,
		"$case: no hint says to remove the file once the clock is past the IDs");
	# (one the server may not read: given back, nothing is lost, where a start afresh refuses
	# back-fill; 1.5's fifth auditor was told it was damaged, and offered the start afresh alone;
	# not a directory in its place, whose content is gone: 1.5's sixth reviewer)
	if ($case =~ /unreadable/)
	{
		like(message_of($node, 'SELECT snowflake_new()'),
			qr/ERROR:  flakeid's generator state file cannot be read, so generation is refused.*HINT:  Give the file back to the server's operating-system user, readable and writable by it \(mode 0600\), and restart the server: nothing is lost/s,
			"$case: refused as a file that cannot be read, the hint to give it back first");
	}
	else
	{
		unlike(message_of($node, 'SELECT snowflake_new()'), qr/cannot be read/, "$case: not refused as a file that cannot be read");
	}
	# the hint followed
	$node->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
	$node->restart;
	ok(log_count($node, qr/flakeid started its generators afresh, as flakeid.start_afresh says/) >= 1, "$case: the log says it started afresh");
	if ($case ne 'missing')
	{
		my @aside = glob("$datadir/flakeid.state.set-aside-*");
		ok(@aside && -f "$datadir/flakeid.state", "$case: the file was set aside, not removed, and a new one saved");
		system('rm', '-rf', @aside);    # (the next case's is then the only one)
	}
	my $live = sql("SELECT snowflake_new() > (SELECT max(id) FROM ids WHERE how = 'live')");
	is($live, 't', "$case: live IDs resume above every earlier one");
	my $resumed = sql('SELECT snowflake_time(snowflake_new())');
	is(sql(resumed_where($resumed)), 't',
		"$case: 62 s ahead of the clock at the start (past any mark a save leaves), or just past the IDs an earlier case back-filled further ahead");
	is(sqlstate_of($node, "INSERT INTO ids SELECT snowflake_new_at($past), 'again' FROM generate_series(1, 100)"), '55000',
		"$case: back-fill before the new start is refused (1.3 repeated a back-filled ID: 23505)");
	like(message_of($node, "SELECT snowflake_new_at($past)"), qr/holds no record of the IDs back-filled before .*HINT:  .*flakeid.accept_backfill_loss = on/s,
		"$case: the message says why, and what an operator may do");
	is(sqlstate_of($node, "SELECT sno_new_at($past), kuid96_new_at($past), siq_new_at($past, 'user'), kuid_new_at($past), flax_new_at($past)"),
		'55000', "$case: for every generator");
	is(sqlstate_of($node, "$ahead INSERT INTO ids SELECT snowflake_new_at(clock_timestamp() + interval '85 s'), 'after' FROM generate_series(1, 10)"), 'ok',
		"$case: back-fill after the floor works");
	# (5 s before where the live generator resumed, at the floor: "clock + 55 s" assumed the check
	# came within 7 s of the start, which a loaded machine's did not)
	is(sqlstate_of($node, "$ahead SELECT snowflake_new_at('$resumed'::timestamptz - interval '5 s')"), '55000',
		"$case: the floor lies 62 s ahead of the start, where the live generator resumed (back-fill may lie up to its position)");
	# across a restart, with the setting off again
	afresh_off($node);
	is(sqlstate_of($node, "SELECT snowflake_new_at($past)"), '55000', "$case: the floor is kept across a restart");
}

# the state file and the witness both gone, start afresh on (a refused file removed by hand after a
# start afresh that failed, the witness with it): started afresh, never a first start at the clock
# (1.4's last fresh eyes: 10,396 snowflakes again)
$node->stop('fast');
unlink("$datadir/flakeid.state", "$datadir/flakeid.issued");
my $afresh_before = log_count($node, qr/flakeid started its generators afresh, as flakeid.start_afresh says/);
$node->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
$node->start;
my $first = sql('SELECT snowflake_time(snowflake_new())');
is(sql(resumed_where($first)) . ' '
	  . (log_count($node, qr/flakeid started its generators afresh, as flakeid.start_afresh says/) - $afresh_before), 't 1',
	'the state file and the witness gone, start afresh on: started afresh, 62 s ahead, not a first start at the clock');
afresh_off($node);

# back-fill's record of deep units (flakeid.deep) damaged: back-fill into past units is refused, and
# the way on is the same setting: the floor moves up to the new start, the record starts empty
$node->stop('fast');
{
	open(my $fh, '+<', "$datadir/flakeid.deep") or die "flakeid.deep: $!";
	print $fh "\xff" x 8;
	close $fh;
}
$node->start;
my $recent = sql("SELECT clock_timestamp() + interval '85 s'");    # (past the last start's floor)
# (a live ID at the session's clock first: $recent is then a past unit, which the ledger gives)
is(sqlstate_of($node, "$ahead SELECT snowflake_new(); SELECT snowflake_new_at('$recent')"), 'XX001', 'flakeid.deep damaged: back-fill into a past unit is refused');
like(message_of($node, "$ahead SELECT snowflake_new_at('$recent')"), qr/HINT:  .*not an older copy.*set flakeid.start_afresh = on/,
	'flakeid.deep damaged: the hint says to start afresh');
is(sqlstate_of($node, 'SELECT snowflake_new()'), 'ok', 'flakeid.deep damaged: live IDs are not concerned');
$node->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
$node->restart;
ok(log_count($node, qr/flakeid started back-fill's record of deep units afresh/) >= 1, 'flakeid.deep: the log says it started afresh');
ok(scalar(glob("$datadir/flakeid.deep.set-aside-*")), 'flakeid.deep: the damaged file was set aside');
is(sqlstate_of($node, "$ahead SELECT snowflake_new_at('$recent')"), '55000', 'flakeid.deep: back-fill before the new start is refused');
is(sqlstate_of($node, "SET flakeid.debug_clock_offset_ms = 150000; SELECT snowflake_new_at(clock_timestamp() + interval '145 s')"), 'ok',
	'flakeid.deep: back-fill after it works');
afresh_off($node);

# a flakeid.deep larger than any the appends write (2.2 GB, sparse): unreadable, too large, and
# left as it is (a66d6d0 read it short, and with errno ENOENT left by chance said it was "gone from
# the data directory")
$node->stop('fast');
my $deep_file = "$datadir/flakeid.deep";
my $deep_bytes = do { local $/; open(my $fh, '<:raw', $deep_file) or die "$deep_file: $!"; <$fh> };
truncate($deep_file, 2200 * 1024 * 1024) or die "$deep_file: $!";
my ($gone_before, $large_before) = (log_count($node, qr/It is gone from the data directory/), log_count($node, qr/It could not be read: File too large/));
$node->start;
is(log_count($node, qr/It could not be read: File too large/) - $large_before, 1,
	'a flakeid.deep of 2.2 GB: the log says it could not be read, being too large');
is(log_count($node, qr/It is gone from the data directory/) - $gone_before, 0, '... not that it is gone');
is(-s $deep_file, 2200 * 1024 * 1024, '... and the file is left as it was');
$node->stop('fast');
{ open(my $fh, '>:raw', $deep_file) or die "$deep_file: $!"; print $fh $deep_bytes; close $fh; }
$node->start;
is(sqlstate_of($node, "SET flakeid.debug_clock_offset_ms = 150000; SELECT snowflake_new_at(clock_timestamp() + interval '145 s')"), 'ok',
	'with the file put back, back-fill works again');

# a standby made now, then promoted, keeps the floor (it reaches it through the WAL and the file)
my ($standby) = flakeid_standby($node, 'afresh_standby');
sql('SELECT snowflake_new()');
my $lsn = sql('SELECT pg_current_wal_lsn()');
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"), 'the standby replayed it');
$node->stop('fast');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
is(sqlstate_of($standby, "SELECT snowflake_new_at($past)"), '55000', 'a promoted standby keeps the floor');

# the operator's opt-in
$node->start;
$node->append_conf('postgresql.conf', "flakeid.accept_backfill_loss = on\n");
$node->reload;
ok(poll_until(sub { sqlstate_of($node, "SELECT snowflake_new_at('2023-06-01 00:00:00+00')") eq 'ok' }, timeout => 30),
	'with flakeid.accept_backfill_loss = on, back-fill before the start is given');
is(sqlstate_of($node, "SELECT 1 FROM pg_settings WHERE name = 'flakeid.accept_backfill_loss' AND context = 'sighup'"), 'ok',
	'(a reload takes it)');
stop_checked($node, $standby);

# A flakeid.deep that is not the one the state names (another cluster's, an older or newer copy, or
# one made at a first start of a pg_upgrade's new cluster) is refused: 1.4's first record was taken
# silently, and back-fill repeated (1000 of 1000 in the review's pg_upgrade probe)
my $deep_a = flakeid_node('afresh_deep_a');
my $deep_b = flakeid_node('afresh_deep_b');
$deep_a->safe_psql('postgres', 'CREATE TABLE t (id bigint PRIMARY KEY)');
$deep_a->safe_psql('postgres', "INSERT INTO t SELECT snowflake_new_at('2020-01-01 00:00:00.123+00') FROM generate_series(1, 3000)");
$deep_a->stop('fast');
$deep_b->stop('fast');
File::Copy::copy($deep_b->data_dir . '/flakeid.deep', $deep_a->data_dir . '/flakeid.deep') or die "flakeid.deep: $!";
$deep_a->start;
is(sqlstate_of($deep_a, "INSERT INTO t SELECT snowflake_new_at('2020-01-01 00:00:00.123+00') FROM generate_series(1, 1000)"), 'XX001',
	'another flakeid.deep than the one the state names: back-fill into past units is refused, not repeated');
ok(log_count($deep_a, qr/It is not the record that goes with "flakeid.state"/) == 1, 'the log says why');
stop_checked($deep_a, $deep_b);

# Back-fill lost up to the live generator's position, which *_advance_past may
# put 60 s ahead: the floor lies 62 s ahead of the start, not at it (a floor at
# the clock let the next back-fill repeat IDs back-filled 40 s ahead)
my $lead = flakeid_node('afresh_lead');
$lead->safe_psql('postgres', 'CREATE TABLE t (id bigint PRIMARY KEY)');
$lead->safe_psql('postgres', "SELECT snowflake_advance_past(snowflake_lower_bound(clock_timestamp() + interval '55 s'))");
$lead->safe_psql('postgres', "INSERT INTO t SELECT snowflake_new_at(date_trunc('second', clock_timestamp()) + interval '40 s') FROM generate_series(1, 300)");
$lead->stop('fast');
unlink($lead->data_dir . '/flakeid.state') or die $!;
$lead->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
$lead->start;
is(sqlstate_of($lead, "INSERT INTO t SELECT snowflake_new_at(snowflake_time(min(id))) FROM t, generate_series(1, 300) GROUP BY generate_series"),
	'55000', 'back-fill lost 40 s ahead of the clock (after an advance) is behind the floor: refused, not repeated');
stop_checked($lead);

# A clock set back before the start afresh: the last checkpoint's time in pg_control, which the old
# clock wrote, bounds the lost marks (the marks at the new clock + 62 s repeated live IDs)
{
	my $work = PostgreSQL::Test::Utils::tempdir();
	my $offset = sub { PostgreSQL::Test::Utils::append_to_file("$work/o.new", "$_[0]\n"); rename("$work/o.new", "$work/offset") or die $!; };
	$offset->('+600');    # the clock 10 minutes fast
	my %fake = %{ clock_env("$work/offset") };
	my $fast = flakeid_node('afresh_fast', -env => \%fake);
	$fast->safe_psql('postgres', 'CREATE TABLE t (id bigint PRIMARY KEY)');
	$fast->safe_psql('postgres', 'INSERT INTO t SELECT snowflake_new() FROM generate_series(1, 1000)');
	$fast->stop('fast');
	$offset->('+0');      # the clock corrected, and the state lost
	unlink($fast->data_dir . '/flakeid.state') or die $!;
	$fast->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
	{
		local @ENV{ keys %fake } = values %fake;
		$fast->start;
	}
	is($fast->safe_psql('postgres', 'SELECT snowflake_new() > max(id) FROM t'), 't',
		'the clock set back 10 minutes, the state lost, start afresh: new IDs lie above the old ones');
	is(sqlstate_of($fast, 'INSERT INTO t SELECT snowflake_new() FROM generate_series(1, 1000)'), 'ok', 'and repeat none');
	stop_checked($fast);
}
# Restarts in quick succession after a start afresh, each issuing: no save leaves a mark more than
# 62 s ahead of its clock, the bound the next start afresh counts on.  Each start resumed after the
# last one's mark, 62 s ahead here, and renewed 2 s past it, so the marks ran further ahead with every
# restart quicker than 2 s, and a start afresh then repeated IDs (23505: 063, on a quick machine).
# Now the first ID past a mark more than 60 s ahead waits for the clock.
{
	my $quick = flakeid_node('afresh_quick');
	$quick->safe_psql('postgres', 'CREATE TABLE t (id bigint PRIMARY KEY)');
	$quick->safe_psql('postgres', 'INSERT INTO t SELECT snowflake_new() FROM generate_series(1, 100)');
	my $lose_state = sub {
		$quick->stop('fast');
		unlink($quick->data_dir . '/flakeid.state') or die $!;
		$quick->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
		$quick->start;
	};
	$lose_state->();
	afresh_off($quick);
	my @leads;
	for my $restart (1 .. 6)
	{
		# (the first ID after a start lies past the mark: it is renewed, saved, before the ID is given)
		$quick->safe_psql('postgres', 'INSERT INTO t SELECT snowflake_new() FROM generate_series(1, 100)');
		# the saved mark against a clock read after the save: no less ahead than it was then
		my $clock = $quick->safe_psql('postgres', 'SELECT (extract(epoch FROM clock_timestamp()) * 1e6)::bigint');
		push @leads, sprintf('%.3f', (state_file_mark($quick->data_dir) - $clock) / 1e6);
		$quick->stop('immediate');
		$quick->start;
	}
	cmp_ok(List::Util::max(@leads), '<=', 62,
		"six immediate stops after a start afresh, each after IDs: every saved mark lies at most 62 s ahead of the clock (@leads)");
	$lose_state->();
	# (a new ID below an old one: the clock reaches the old ones' milliseconds later, and repeats them)
	is($quick->safe_psql('postgres', 'SELECT snowflake_new() > max(id) FROM t'), 't',
		'then the state lost and started afresh: new IDs lie above every old one');
	is(sqlstate_of($quick, 'INSERT INTO t SELECT snowflake_new() FROM generate_series(1, 1000)'), 'ok', 'and repeat none');
	stop_checked($quick);
}

# state_lost_refused(NODE, CALL, WHAT, MODE): NODE stopped (MODE, fast by default), its state file
# removed by hand, started: CALL is refused as missing, never a first start at the clock
sub state_lost_refused
{
	my ($n, $call, $what, $mode) = @_;
	$n->stop($mode // 'fast');
	unlink($n->data_dir . '/flakeid.state') or die $!;
	$n->start;
	like(message_of($n, $call), qr/state file is missing/, $what);
}

# damaged_after_afresh(OFFSET, BYTES): $node, refused as the last case left it, started afresh and
# given an ID, then stopped with BYTES written over its new state file at OFFSET
sub damaged_after_afresh
{
	my ($offset, $bytes) = @_;
	$node->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
	$node->restart;
	sql('SELECT snowflake_new()');
	afresh_off($node);
	$node->stop('fast');
	open(my $fh, '+<', "$datadir/flakeid.state") or die $!;
	seek($fh, $offset, 0);
	print $fh $bytes;
	close $fh;
}

# A state file refused as damaged beside no witness: the witness then written says IDs were issued,
# so that the file removed by hand later is refused as missing, never a first start at the clock.
# (1.4's last fresh eyes: "no ID yet" there, then the file removed, resumed 53 s below issued IDs.)
# ($node was stopped above.)
chmod(0000, "$datadir/flakeid.state") or die $!;
unlink("$datadir/flakeid.issued");
$node->start;
is(sqlstate_of($node, 'SELECT snowflake_new()'), 'XX001', 'an unreadable state file beside no witness: refused');
ok(poll_until(sub { -e "$datadir/flakeid.issued" }, timeout => 60)
	  && slurp_file("$datadir/flakeid.issued") =~ /^flakeid issued IDs/,
	'the witness written in that lifetime says IDs were issued');
state_lost_refused($node, 'SELECT snowflake_new()', 'the file then removed by hand: refused as missing, not a first start at the clock');
# the same with a damaged file whose header says version 3 (a damaged byte): by the reason for the
# refusal, not the version (round 7 of fresh eyes: "no ID yet" beside it, 260 IDs twice)
damaged_after_afresh(4, "\x03");
unlink("$datadir/flakeid.issued");
$node->start;
is(sqlstate_of($node, 'SELECT snowflake_new()'), 'XX001', 'a damaged state file whose header says version 3, beside no witness: refused');
ok(poll_until(sub { -e "$datadir/flakeid.issued" }, timeout => 60)
	  && slurp_file("$datadir/flakeid.issued") =~ /^flakeid issued IDs/,
	'the witness written in that lifetime says IDs were issued');
state_lost_refused($node, 'SELECT snowflake_new()', 'the file then removed by hand: refused as missing, not a first start at the clock');
# A state file refused as damaged beside this cluster's "no ID yet" witness that names no place here
# (one without a place line; a standby's copied one on an earlier timeline, once promoted, is the
# same): the renewer writes this directory's place into it, and then "issued" too.  (1.4's eighth
# fresh eyes: writing the place noted the witness seen, the upgrade to "issued" looked no further,
# and the file removed later was taken for a first start at the clock.)
damaged_after_afresh(20, "\xff" x 8);
{
	open(my $wf, '>', "$datadir/flakeid.issued") or die $!;
	print $wf "flakeid runs, and has issued no ID yet, in the cluster with system identifier $sysid\n";
	close $wf;
}
$node->start;
is(sqlstate_of($node, 'SELECT snowflake_new()'), 'XX001', 'a damaged state file beside a "no ID yet" witness naming no place: refused');
ok(poll_until(sub { slurp_file("$datadir/flakeid.issued") =~ /^flakeid issued IDs.*\nplace: /s }, timeout => 60),
	'the witness is given this directory\'s place and says IDs were issued')
  or diag(slurp_file("$datadir/flakeid.issued"));
state_lost_refused($node, 'SELECT snowflake_new()', 'the file then removed by hand: refused as missing, not a first start at the clock');
# The same witness where no renewer runs (max_worker_processes too low for it: the calls renew the
# marks themselves, as documented) and no state file: a first start, allowed by "no ID yet".  The
# first call writes this directory's place into the witness and its save makes it say IDs were
# issued.  (1.4's ninth fresh eyes: the place written noted the witness seen in that backend, its
# saves looked no further, and with the state file lost later the next start was a first start.)
{
	my $lone = flakeid_node('afresh_no_renewer', max_worker_processes => 0);
	my $dir = $lone->data_dir;
	ok(log_count($lone, qr/too many background workers/) >= 1
		  && $lone->safe_psql('postgres', "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'flakeid mark renewer'") eq '0',
		'max_worker_processes = 0: no renewer runs');
	my $lone_sysid = $lone->safe_psql('postgres', 'SELECT system_identifier FROM pg_control_system()');
	$lone->stop('fast');
	unlink("$dir/flakeid.state");
	open(my $wf, '>', "$dir/flakeid.issued") or die $!;
	print $wf "flakeid runs, and has issued no ID yet, in the cluster with system identifier $lone_sysid\n";
	close $wf;
	$lone->start;
	# (sno: its first call reads the witness's place before its first save; snowflake's saved first)
	$lone->safe_psql('postgres', 'CREATE TABLE t (id sno PRIMARY KEY); INSERT INTO t SELECT sno_new() FROM generate_series(1, 100)');
	ok(-e "$dir/flakeid.state" && slurp_file("$dir/flakeid.issued") =~ /^flakeid issued IDs.*\nplace: /s,
		'a "no ID yet" witness naming no place, no renewer: after the first IDs it names this directory and says IDs were issued')
	  or diag(slurp_file("$dir/flakeid.issued"));
	state_lost_refused($lone, 'SELECT sno_new()', 'the state file then lost: refused as missing, not a first start at the clock');
	# the witness as FORM: none, this cluster's "no ID yet" naming no place, or naming this data
	# directory (its own inode, on timeline 1)
	my $lone_witness = "$dir/flakeid.issued";
	my $witness_as = sub {
		my ($form) = @_;
		unlink($lone_witness);
		return if $form eq 'none';
		open(my $fh, '>', $lone_witness) or die $!;
		close $fh;
		my $inode = (stat $lone_witness)[1];
		open($fh, '>', $lone_witness) or die $!;    # (the same inode, truncated)
		print $fh "flakeid runs, and has issued no ID yet, in the cluster with system identifier $lone_sysid\n"
		  . ($form eq 'own place' ? "place: timeline 1, inode $inode\n" : '');
		close $fh;
	};
	# start afresh beside a "no ID yet" witness, no renewer: the save at start makes it say IDs were
	# issued there and then (IDs below the marks saved at start need no other save; the witness was left
	# for the renewer: 1.4's ninth fresh eyes, and the tenth's auditor for one naming no place)
	for my $form ('own place', 'no place')
	{
		$lone->stop('fast');
		$witness_as->($form);
		my $afresh = log_count($lone, qr/flakeid started its generators afresh/);
		$lone->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
		$lone->start;
		ok(log_count($lone, qr/flakeid started its generators afresh/) == $afresh + 1
			  && slurp_file($lone_witness) =~ ($form eq 'own place' ? qr/^flakeid issued IDs.*\nplace: timeline 1, /s : qr/^flakeid issued IDs/),
			"started afresh beside a \"no ID yet\" witness ($form), no renewer: the witness says IDs were issued before any ID")
		  or diag(slurp_file($lone_witness));
		is(sqlstate_of($lone, 'SELECT snowflake_new()'), 'ok', "$form: and the server issues");
		afresh_off($lone);
		state_lost_refused($lone, 'SELECT snowflake_new()', "$form: its state file lost after it: refused as missing");
	}
	# a state file refused as damaged beside no witness, or a "no ID yet" one naming no place, no
	# renewer: the start writes it, saying IDs were issued (only the renewer wrote it, and the file
	# removed by hand later was a first start at the clock: 1.4's ninth and tenth fresh eyes)
	for my $form ('none', 'no place')
	{
		$lone->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
		$lone->restart;
		afresh_off($lone);
		$lone->stop('fast');
		open(my $sf, '+<', "$dir/flakeid.state") or die $!;
		seek($sf, 20, 0);
		print $sf "\xff" x 8;
		close $sf;
		$witness_as->($form);
		$lone->start;
		is(sqlstate_of($lone, 'SELECT snowflake_new()'), 'XX001', "a damaged state file beside the witness as $form, no renewer: refused");
		ok(-e $lone_witness && slurp_file($lone_witness) =~ /^flakeid issued IDs/, "$form: the start has made the witness say IDs were issued")
		  or diag(-e $lone_witness ? slurp_file($lone_witness) : 'no witness');
		state_lost_refused($lone, 'SELECT snowflake_new()', "$form: the file then removed by hand: refused as missing");
	}
	# a usable state file beside no witness (removed, as a copy's refusal says), no renewer: the start
	# writes it, saying IDs were issued (back-fill into deep units saves no state, and an immediate
	# stop none either: 1.4's tenth fresh eyes)
	$lone->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
	$lone->restart;
	afresh_off($lone);
	$lone->stop('fast');
	unlink($lone_witness) or die $!;
	$lone->start;
	ok(-e $lone_witness && slurp_file($lone_witness) =~ /^flakeid issued IDs/,
		'a usable state file beside no witness, no renewer: the start writes the witness, saying IDs were issued');
	state_lost_refused($lone, 'SELECT snowflake_new()', 'an immediate stop, then the file removed by hand: refused as missing', 'immediate');
	stop_checked($lone);
}
stop_checked($node);
done_testing();
