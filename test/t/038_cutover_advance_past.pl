# *_advance_past, the setval of flakeid (README, "Moving to flakeid and
# between servers"): after the call, this server's live generator issues
# only IDs that sort after the given one, whatever that ID's other fields,
# live, after a clock step back, after a crash and a clean restart, and on a
# standby promoted after it; the errors of API.md.  Each ID advanced past
# is one another server could have issued 20 to 30 s ahead of this clock,
# with its other fields at their largest (kuid96: of a node below and equal
# to this server's; one of a node above, which this server's IDs pass only
# at the end of its 256-second window, waits until that end lies within
# the 60 s lead, up to 256 s: 056 tests it, with the clock placed in the
# window);
# without the call, every check below fails (the first case shows it).
use strict;
use warnings;
use FlakeidTest;
use Test::More;

# (kuid_node set: the promoted standby keeps the primary's node, as a failover's would, so that
# "node below" and "same node" stay what they say there; a derived node changes with the timeline)
my $node = flakeid_node('advance_primary', 'flakeid.allow_debug_clock_offset' => 'on', 'flakeid.kuid_node' => 'advance@primary');
sub psql_on { my ($n, $sql) = @_; return $n->safe_psql('postgres', $sql); }
my $own = psql_on($node, "SELECT identity_value FROM flakeid_identities() WHERE generator = 'kuid96'");

# name => [type, ID of another server AHEAD seconds ahead, the call that mints]
my %cases = (
	sno => [ 'sno', "sno_from_parts(clock_timestamp() + interval 'AHEAD s', 255, 65535, 65535, 1)", 'sno_new()' ],
	siq => [ 'siq', "siq_from_parts(clock_timestamp() + interval 'AHEAD s', 255, 4294967295, 'user', 0)", "siq_new('user')" ],
	kuid => [ 'kuid', "kuid_upper_bound(clock_timestamp() + interval 'AHEAD s')", 'kuid_new()' ],
	'kuid96 node below' => [ 'kuid96', "kuid96(kuid_upper_bound(clock_timestamp() + interval 'AHEAD s'), $own - 1)", 'kuid96_new()' ],
	'kuid96 same node' => [ 'kuid96', "kuid96(kuid_upper_bound(clock_timestamp() + interval 'AHEAD s'), $own)", 'kuid96_new()' ],
	snowflake => [ 'int8', "snowflake_from_parts(clock_timestamp() + interval 'AHEAD s', 31, 31, 4095)", 'snowflake_new()' ],
);
my @order = ('sno', 'siq', 'kuid96 node below', 'kuid96 same node', 'kuid', 'snowflake');
sub advance_fn { my ($type) = @_; return ($type eq 'int8' ? 'snowflake' : $type) . '_advance_past'; }
sub foreign_id { my ($case, $ahead) = @_; (my $sql = $cases{$case}[1]) =~ s/AHEAD/$ahead/; return $sql; }

# how many of 2000 fresh IDs (minted on NODE in one statement, with SETUP first) sort at or before X
sub at_or_before
{
	my ($n, $case, $x, $setup) = @_;
	my ($type, undef, $mint) = @{ $cases{$case} };
	return psql_on($n, ($setup // '') . "SELECT count(*) FILTER (WHERE v <= '$x'::$type) || '/' || count(*)
		FROM (SELECT $mint AS v FROM generate_series(1, 2000)) s");
}
sub advance
{
	my ($n, $case, $ahead) = @_;
	return psql_on($n, 'SELECT ' . advance_fn($cases{$case}[0]) . '(' . foreign_id($case, $ahead) . ')::text');
}

# without the call, the IDs of now sort below one of 20 s ahead (the failure a cutover meets); not
# kuid96's of a node below, whose IDs this server's pass in the same 256-second window already
for my $case (grep { $_ ne 'kuid96 node below' } @order)
{
	my $x = psql_on($node, 'SELECT (' . foreign_id($case, 20) . ')::text');
	is(at_or_before($node, $case, $x), '2000/2000', "$case: without advance_past, all 2000 fresh IDs sort below an ID 20 s ahead");
}

# live
for my $case (@order)
{
	my $x = psql_on($node, 'SELECT (' . foreign_id($case, 20) . ')::text');
	is(psql_on($node, 'SELECT ' . advance_fn($cases{$case}[0]) . "('$x')::text"), $x, "$case: advance_past returns its argument");
	is(at_or_before($node, $case, $x), '0/2000', "$case: after it, 0 of 2000 fresh IDs sort at or before it");
	is(psql_on($node, 'SELECT ' . advance_fn($cases{$case}[0]) . "('$x')::text"), $x, "$case: a second call with it changes nothing");
}

# a clock step back of 5 s after the call (the session's debug clock): still after it
for my $case (@order)
{
	my $x = advance($node, $case, 25);
	is(at_or_before($node, $case, $x, 'SET flakeid.debug_clock_offset_ms = -5000; '), '0/2000',
		"$case: with the clock stepped back 5 s after the call, 0 of 2000 sort at or before it");
}

# the raise is durable: a crash right after the call, then a clean restart right after another
for my $stop ('immediate', 'fast')
{
	my %x = map { $_ => advance($node, $_, 25) } @order;
	$node->stop($stop);
	$node->start;
	is(at_or_before($node, $_, $x{$_}), '0/2000', "$_: after a stop ($stop) and a start, 0 of 2000 sort at or before the ID advanced past")
	  for @order;
}

# a standby promoted after the call resumes after it (the raise travels in the WAL)
my ($standby) = flakeid_standby($node, 'advance_standby');
is(sqlstate_of($standby, 'SELECT ' . advance_fn('sno') . '(' . foreign_id('sno', 20) . ')'), '55000',
	'advance_past during recovery: 55000');
my %x = map { $_ => advance($node, $_, 25) } @order;
my $lsn = psql_on($node, 'SELECT pg_current_wal_lsn()');
$standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn");
$node->stop('immediate');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
is(at_or_before($standby, $_, $x{$_}), '0/2000', "$_: on the standby promoted after the call, 0 of 2000 sort at or before it")
  for @order;
$node->start;

# errors
for my $case (@order)
{
	my $fn = advance_fn($cases{$case}[0]);
	is(sqlstate_of($standby, "SELECT $fn(" . foreign_id($case, 61) . ')'), '22023', "$case: an ID 61 s ahead of the clock: 22023");
	is(sqlstate_of($standby, "CREATE ROLE r_$fn; SET ROLE r_$fn; SELECT $fn(" . foreign_id($case, 1) . ')'), '42501',
		"$case: $fn is not for PUBLIC: 42501") unless $case =~ /kuid96 same node/;
}
# (the ID is made 90 s after a reading of the clock, floored to its 4 ms
# unit, and the call reads the clock again a moment later, sno's coarse
# clock, which may trail the precise one by its tick (docs/OPERATIONS.md,
# "The clock"): within 50 ms of 90 s, however fast the machine)
my $message = message_of($standby, 'SELECT sno_advance_past(' . foreign_id('sno', 90) . ')');
like($message, qr/ERROR:  the sno ID lies \d+\.\d+ s ahead of this server's clock\nDETAIL:  An ID to advance past may lie at most 60 s ahead of the clock/,
	'the message says how far ahead, and the lead');
my ($ahead) = $message =~ /lies (\d+\.\d+) s ahead/;
ok(defined $ahead && $ahead > 80 && $ahead <= 90.05, 'the distance it gives is the ID\'s: about 90 s') or diag($message);
is(sqlstate_of($standby, "CREATE ROLE r_granted; GRANT EXECUTE ON FUNCTION sno_advance_past(sno) TO r_granted;
	SET ROLE r_granted; SELECT sno_advance_past(sno_new())"), 'ok', 'a role granted EXECUTE may call it');
is(sqlstate_of($standby, "SELECT siq_advance_past(siq_from_bytea(substring(siq_to_bytea(siq_new('user')) FROM 1 FOR 12) || '\\x0012'::bytea))"),
	'22023', 'a siq of an unassigned kind (qualifier value 50), which no generator issues: 22023');
is(psql_on($standby, 'SELECT snowflake_advance_past(-5)'), '-5', 'a negative bigint, below every snowflake: returned, nothing raised');
is(sqlstate_of($standby, 'SELECT sno_advance_past(NULL)'), 'ok', 'NULL: NULL (STRICT)');
# the largest lead taken, last (it moves the generators 55 s ahead)
is(sqlstate_of($standby, 'SELECT ' . advance_fn($cases{$_}[0]) . '(' . foreign_id($_, 55) . ')'), 'ok', "$_: an ID 55 s ahead is taken")
  for @order;

# The server's own IDs minted ahead of the clock (an excursion: here a
# session's clock an hour ahead), where the generator goes on: passing them
# takes it no further ahead, and is taken, not refused as lying ahead of
# the clock (1.5's fifth auditor: sno_advance_past(max(id)) gave 22023, "the
# sno ID lies 3573.270 s ahead of this server's clock", blaming the clocks)
for my $t ('sno', 'int8', 'kuid96')
{
	my $new = $t eq 'int8' ? 'snowflake_new()' : "${t}_new()";
	my $own_ahead = psql_on($standby,
		"SET flakeid.debug_clock_offset_ms = 3600000; SELECT max(x)::text FROM (SELECT $new x FROM generate_series(1, 100)) s");
	is(sqlstate_of($standby, 'SELECT ' . advance_fn($t) . "('$own_ahead'::$t)"), 'ok',
		"$new: its own IDs, minted an hour ahead of the clock, are passed");
	is(psql_on($standby, "SELECT $new > '$own_ahead'::$t"), 't', '... and its next ID sorts after them');
}
is(sqlstate_of($standby, 'SELECT sno_advance_past(' . foreign_id('sno', 7200) . ')'), '22023',
	'an ID two hours ahead, past where the generator is: still refused');

stop_checked($standby, $node);
done_testing();
