# A cutover by logical replication (docs/OPERATIONS.md, "Moving to another
# server"): rows of every type replicate from a publisher whose clock runs
# 20 s ahead of the subscriber's, then writes move to the subscriber.
# Without the documented step the subscriber's IDs sort below rows it
# already holds, so a reader by cursor or horizon would skip them (shown
# first); with it (flakeid_advance_past_all(), or each *_advance_past from
# the replicated maxima), none does, and a horizon poller that follows the
# cutover with its cursor reads every row exactly once.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

# kuid96 orders by a 256-second window before the node: a subscriber whose node sorts below the
# publisher's would be advanced to the window's end, waiting until that end lies within the 60 s
# lead (056 tests that); here its node sorts above
# (fingerprints 212647847 and 212647748, checked below)
my $publisher = flakeid_node('cutover_publisher', wal_level => 'logical', 'flakeid.kuid_node' => 'cutover@old',
	-env => clock_env(fixed => '+20s'));
sub psql_on { my ($n, $sql) = @_; return $n->safe_psql('postgres', $sql); }
my $subscriber = flakeid_node('cutover_subscriber', 'flakeid.kuid_node' => 'cutover@new');
is(psql_on($subscriber, "SELECT identity_value FROM flakeid_identities() WHERE generator = 'kuid96'") . '>'
	  . psql_on($publisher, "SELECT identity_value FROM flakeid_identities() WHERE generator = 'kuid96'"),
	'212647847>212647748', "the subscriber's kuid96 node sorts after the publisher's");

# type => [column type, default, horizon]
my %types = (
	sno => [ 'sno', 'sno_new()', 'sno_horizon()' ],
	siq => [ 'siq', "siq_new('user')", 'siq_horizon()' ],
	kuid => [ 'kuid', 'kuid_new()', 'kuid_horizon()' ],
	kuid96 => [ 'kuid96', 'kuid96_new()', 'kuid96_horizon()' ],
	snowflake => [ 'bigint', 'snowflake_new()', 'snowflake_horizon()' ],
);
my @types = sort keys %types;
my $schema = join('', map { "CREATE TABLE t_$_ (id $types{$_}[0] PRIMARY KEY DEFAULT $types{$_}[1], n int, at text);\n" } @types)
	# back-filled IDs, which replicate as any row (kuid has no identity, and both servers keep
	# snowflake's default one; the step reads bf_kuid, not bf_snowflake, a bigint column without
	# a generator default: its floor comes from `past`)
	. "CREATE TABLE bf_kuid (id kuid PRIMARY KEY);\nCREATE TABLE bf_snowflake (id bigint PRIMARY KEY);\n";
psql_on($_, $schema) for $publisher, $subscriber;
psql_on($publisher, 'CREATE PUBLICATION everything FOR ALL TABLES');
(my $connstr = $publisher->connstr('postgres')) =~ s/'/''/g;
psql_on($subscriber, "CREATE SUBSCRIPTION follow CONNECTION '$connstr' PUBLICATION everything");

# the poller (README's poll_outbox): the horizon first, then [cursor, horizon) in a snapshot taken
# after it, on one server; the cursor carried along
my (%cursor, %seen);
sub poll
{
	my ($n, $type) = @_;
	my $t = $types{$type}[0];
	my $h = psql_on($n, "SELECT $types{$type}[2]::text");
	my $from = defined $cursor{$type} ? "'$cursor{$type}'::$t" : 'NULL';
	my $ids = psql_on($n, "SELECT id::text FROM t_$type WHERE ($from IS NULL OR id >= $from) AND id < '$h'::$t");
	$seen{$type}{$_}++ for grep { $_ ne '' } split /\n/, $ids;
	# the cursor never moves back (a horizon of a server whose clock is behind reads nothing yet)
	$cursor{$type} = $h
	  if !defined $cursor{$type} || psql_on($n, "SELECT '$h'::$t > '$cursor{$type}'::$t") eq 't';
}

for my $round (1 .. 10)
{
	psql_on($publisher, join('', map { "INSERT INTO t_$_ (n, at) SELECT i, 'publisher' FROM generate_series(1, 100) i;\n" } @types));
	poll($publisher, $_) for @types;
}
# the failure without the step: the subscriber's IDs of now sort below the rows it holds (not
# kuid96's when this server's node sorts after the publisher's: they pass in the same 256-second window).
# The publisher writes one row of each type last, and the check follows its replication at once:
# the subscriber's clock stays behind that row's time for the publisher's lead (20 s) less the
# catchup, however long the rounds above took (CI's run of 61e38ea, on a machine 2-3 times slower
# than usual, failed all four checks against rows written before the back-fills and the catchup)
psql_on($publisher, join('', map { "INSERT INTO t_$_ (n, at) VALUES (0, 'publisher');\n" } @types));
# (every table's initial copy done first: the apply worker's catchup does not
# wait for the table sync workers, which take two tables at a time, and a
# quick machine checked before the last two had theirs: 1001/1001/1001/0/0)
ok($subscriber->poll_query_until('postgres', "SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate <> 'r'"),
	'every table of the subscription is synchronized');
$publisher->wait_for_catchup('follow');
is(psql_on($subscriber, 'SELECT ' . join(' || \'/\' || ', map { "(SELECT count(*) FROM t_$_)" } @types)),
	join('/', (1001) x 5), '1001 rows of each type replicated');
for my $type (grep { $_ ne 'kuid96' } @types)
{
	is(psql_on($subscriber, "SELECT count(*) FILTER (WHERE v <= (SELECT max(id) FROM t_$type)) FROM
		(SELECT $types{$type}[1] AS v FROM generate_series(1, 500)) s"), '500',
		"$type: without the step, 500 of 500 new IDs on the subscriber sort at or below the replicated maximum")
	  or diag(psql_on($subscriber, "SELECT clock_timestamp()") . " on the subscriber; the publisher's: " . psql_on($publisher, "SELECT clock_timestamp()"));
}

# the publisher back-fills two past milliseconds, 200 IDs each
my $backfilled = "'2021-03-04 05:06:07.123+00'";
psql_on($publisher, "INSERT INTO bf_kuid SELECT kuid_new_at($backfilled) FROM generate_series(1, 200);
	INSERT INTO bf_snowflake SELECT snowflake_new_at($backfilled) FROM generate_series(1, 200)");
# and, its kuid generator advanced 30 s ahead of its clock (as after a clock step back), 50 kuid
# for 25 s ahead of its clock: above the clock it will give as `past` (the review of ca63933: a
# floor at `past` alone let the subscriber give them again, once its clock got there).  (25 s,
# not 3: a run from a new machine's state took longer than 3 s to the cutover, and `past` passed
# them; the floor, 45 s ahead of the subscriber's clock then, stays under the 60 s a step allows)
my $ahead = psql_on($publisher, "SELECT kuid_advance_past(kuid_upper_bound(clock_timestamp() + interval '30 s'));
	SELECT (clock_timestamp() + interval '25 s')::text");
$ahead = (split /\n/, $ahead)[-1];
psql_on($publisher, "INSERT INTO bf_kuid SELECT kuid_new_at('$ahead') FROM generate_series(1, 50)");
$publisher->wait_for_catchup('follow');
is(psql_on($subscriber, "SELECT (SELECT count(*) FROM bf_kuid) || '/' || (SELECT count(*) FROM bf_snowflake)"),
	'250/200', '250 back-filled IDs of kuid and 200 of snowflake replicated');

# the cutover: writes stop on the publisher, the subscription is dropped, the step, writes on the subscriber
psql_on($subscriber, 'DROP SUBSCRIPTION follow');
my $past = psql_on($publisher, 'SELECT clock_timestamp()');    # its writers and readers have stopped
my $steps = psql_on($subscriber, "SELECT count(*) FROM flakeid_advance_past_all('$past')");
is($steps, 3 + 15 + 4 + 15 + 1, "flakeid_advance_past_all(the publisher's clock): every generator past it, every column past its maximum (siq: every kind)");
# Back-fill across the cutover (issue 62: the fault campaign's cutover found
# it repeating the publisher's back-filled IDs): the subscriber holds no
# record of what the publisher back-filled, so the step, given the
# publisher's clock, raises the back-fill floor there, and back-fill before
# it is refused.  (9e7338c: the subscriber's kuid and snowflake back-fill for the
# same millisecond gave the publisher's IDs again.)
for my $type ('kuid', 'snowflake')
{
	my $state = sqlstate_of($subscriber, "DO \$\$ BEGIN
		IF EXISTS (SELECT FROM (SELECT ${type}_new_at($backfilled) AS v FROM generate_series(1, 200)) s JOIN bf_$type b ON b.id = s.v) THEN
			RAISE EXCEPTION 'repeated' USING ERRCODE = 'P0001';
		END IF; END \$\$");
	is($state, '55000', "$type: back-fill on the subscriber for a millisecond the publisher back-filled is refused (55000), never a repeat (P0001)");
}
# (a back-fill for a time the clock has not reached is refused, 22023, with or without a floor:
# wait until the subscriber's clock, 20 s behind the publisher's, is past it; the floor refuses it
# at once, then as before)
ok(wait_clock_past($subscriber, "'$ahead'::timestamptz"), "the subscriber's clock passes the time the publisher back-filled ahead of its own");
my $ahead_state = sqlstate_of($subscriber, "DO \$\$ BEGIN
	IF EXISTS (SELECT FROM (SELECT kuid_new_at('$ahead') AS v FROM generate_series(1, 50)) s JOIN bf_kuid b ON b.id = s.v) THEN
		RAISE EXCEPTION 'repeated' USING ERRCODE = 'P0001';
	END IF; END \$\$");
is($ahead_state, '55000', "kuid: back-fill on the subscriber for the time the publisher back-filled ahead of its clock is refused (55000), never a repeat (P0001; ca63933's floor at past repeated them)");
is(psql_on($subscriber, "SELECT flakeid_backfill_floor() = (SELECT max(kuid_time(id)) FROM bf_kuid) AND flakeid_backfill_floor() > '$past'::timestamptz"), 't',
	"the step raised the subscriber's back-fill floor to the latest of past (the publisher's clock) and its columns' largest IDs' times");
my $floor = psql_on($subscriber, 'SELECT flakeid_backfill_floor()');
like(message_of($subscriber, "SELECT kuid_new_at('2021-05-06 07:08:09+00')"),
	qr/holds no record of the IDs back-filled before .*flakeid_advance_past_all.*HINT:  .*flakeid.accept_backfill_loss = on/s,
	'the refusal says why (the cutover) and what to do');
$subscriber->restart;
is(psql_on($subscriber, "SELECT flakeid_backfill_floor() = '$floor'::timestamptz"), 't', 'the floor is saved: the same after a restart');
# who may raise it: the cutover's operator (EXECUTE on flakeid_advance_past_all and every
# *_advance_past it calls), not PUBLIC, not a role that could not run the whole step; never more
# than 60 s ahead
my $advances = join(', ', map { "${_}_advance_past($_)" } qw(sno siq kuid kuid96)) . ', snowflake_advance_past(bigint)';
psql_on($subscriber, "CREATE ROLE plain LOGIN; CREATE ROLE operator LOGIN; CREATE ROLE half LOGIN;
	GRANT EXECUTE ON FUNCTION flakeid_advance_past_all(timestamptz, text[]), $advances TO operator;
	GRANT EXECUTE ON FUNCTION flakeid_advance_past_all(timestamptz, text[]) TO half;
	GRANT SELECT ON ALL TABLES IN SCHEMA public TO operator, half");
{
	local $ENV{PGUSER} = 'plain';
	is(sqlstate_of($subscriber, "SELECT flakeid_backfill_floor_raise(now())"), '42501', 'an ordinary role may not raise the back-fill floor (42501)');
}
{
	# (the review of ca63933: the step raised the floor, then was refused its first advance, and the floor stayed)
	local $ENV{PGUSER} = 'half';
	is(sqlstate_of($subscriber, "SELECT count(*) FROM flakeid_advance_past_all(clock_timestamp() + interval '50 s')"), '42501',
		'a role granted the step but not each *_advance_past: the step is refused (42501) ...');
	is(psql_on($subscriber, "SELECT flakeid_backfill_floor() = '$floor'::timestamptz"), 't', '... before it raised the floor');
}
{
	local $ENV{PGUSER} = 'operator';
	is(sqlstate_of($subscriber, "SELECT flakeid_backfill_floor_raise(now() + interval '2 minutes')"), '22023',
		'a floor more than 60 s ahead of the clock is refused (22023)');
	is(psql_on($subscriber, "SELECT flakeid_backfill_floor_raise('2020-01-01+00') = '$floor'::timestamptz"), 't',
		'the operator may call it, and an earlier instant never lowers the floor');
}
# a function of the same name beside the extension's (a role with CREATE on its schema) is neither
# taken for it nor makes the check ambiguous (fa672da looked the step's functions up by name alone:
# 42725 "not unique", which refused the operator's step)
psql_on($subscriber, "CREATE FUNCTION public.sno_advance_past(int) RETURNS int LANGUAGE sql AS 'SELECT 1';
	GRANT EXECUTE ON FUNCTION public.sno_advance_past(int) TO half");
{
	local $ENV{PGUSER} = 'operator';
	is(sqlstate_of($subscriber, "SELECT flakeid_backfill_floor_raise('2020-01-01+00')"), 'ok',
		'beside a same-named function of another signature, the operator still raises the floor');
}
{
	local $ENV{PGUSER} = 'half';
	is(sqlstate_of($subscriber, "SELECT flakeid_backfill_floor_raise('2020-01-01+00')"), '42501',
		'and a role granted only that one and the step is still refused (42501)');
}
psql_on($subscriber, 'DROP FUNCTION public.sno_advance_past(int)');
# the documented way on, for a server whose back-fill cannot meet the old one's: the opt-in
psql_on($subscriber, "ALTER SYSTEM SET flakeid.accept_backfill_loss = on; SELECT pg_reload_conf()");
ok(poll_until(sub { sqlstate_of($subscriber, "SELECT kuid_new_at('2021-05-06 07:08:09+00')") eq 'ok' }),
	'with flakeid.accept_backfill_loss = on, back-fill before the floor is given');
psql_on($subscriber, "ALTER SYSTEM RESET flakeid.accept_backfill_loss; SELECT pg_reload_conf()");
ok(poll_until(sub { sqlstate_of($subscriber, "SELECT kuid_new_at('2021-05-06 07:08:09+00')") eq '55000' }),
	'and refused again once it is reset');
for my $round (1 .. 5)
{
	psql_on($subscriber, join('', map { "INSERT INTO t_$_ (n, at) SELECT i, 'subscriber' FROM generate_series(1, 100) i;\n" } @types));
	poll($subscriber, $_) for @types;
}
for my $type (@types)
{
	is(psql_on($subscriber, "SELECT count(*) FROM t_$type WHERE at = 'subscriber'
		AND id <= (SELECT max(id) FROM t_$type WHERE at = 'publisher')"), '0',
		"$type: after the step, 0 of 500 rows written on the subscriber sort at or below a replicated row");
}
# the subscriber's clock catches up with the IDs it issued ahead of it: the poller then reads them all
my $rows = 5 * 1501;
for (my $until = time + 60; time < $until; sleep 1)
{
	poll($subscriber, $_) for @types;
	last if $rows == grep { $_ == 1 } map { values %{ $seen{$_} } } @types;
}
for my $type (@types)
{
	my @rows = split /\n/, psql_on($subscriber, "SELECT id::text FROM t_$type");
	my $missed = grep { !$seen{$type}{$_} } @rows;
	my $twice = grep { $_ > 1 } values %{ $seen{$type} };
	is("$missed/$twice/" . scalar(@rows), '0/0/1501', "$type: the poller that followed the cutover read all 1501 rows once")
	  or diag(psql_on($subscriber, "SELECT at, count(*), min(id)::text, max(id)::text, '$cursor{$type}' FROM t_$type
		WHERE id::text NOT IN (" . join(',', map { "'$_'" } keys %{ $seen{$type} }) . ") GROUP BY at"));
}

# the step without `past` on the server that issued the IDs (as pg_upgrade's step 5, whose new
# cluster carries the record of back-fill over) raises no floor: back-fill it can give stays given
# (the review of c15f23d: a floor from the columns' maxima refused it, with a false reason)
psql_on($publisher, 'SELECT count(*) FROM flakeid_advance_past_all()');
is(psql_on($publisher, 'SELECT flakeid_backfill_floor() IS NULL'), 't', 'without past, the step raises no back-fill floor');
is(sqlstate_of($publisher, "SELECT kuid_new_at($backfilled), snowflake_new_at(now() - interval '1 hour')"), 'ok',
	'and back-fill on the server that issued the IDs is given as before');

# the restore of a logical backup into a new cluster (pg_dump, pg_restore): the same step, given the
# publisher's clock at the dump, then minting
my $restored = flakeid_node('cutover_restored', -extension => 0);
my $dump = $publisher->basedir . '/cutover.dump';
my $dumped_at = psql_on($publisher, 'SELECT clock_timestamp()');
$publisher->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $publisher->connstr('postgres') ], 'pg_dump of the publisher');
$restored->command_ok([ 'pg_restore', '-d', $restored->connstr('postgres'), $dump ], 'pg_restore into a new cluster');
psql_on($restored, "SELECT count(*) FROM flakeid_advance_past_all('$dumped_at')");
is(sqlstate_of($restored, "SELECT kuid_new_at($backfilled)"), '55000',
	'restored from pg_dump, after the step given the clock at the dump, back-fill before it is refused (55000)');
for my $type (@types)
{
	psql_on($restored, "INSERT INTO t_$type (n, at) SELECT i, 'restored' FROM generate_series(1, 500) i");
	is(psql_on($restored, "SELECT count(*) FROM t_$type WHERE at = 'restored'
		AND id <= (SELECT max(id) FROM t_$type WHERE at = 'publisher')"), '0',
		"$type: restored from pg_dump, after the step, 0 of 500 new rows sort at or below a restored one");
}

stop_checked($restored, $subscriber, $publisher);
done_testing();
