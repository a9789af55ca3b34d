# A horizon given before a restart stays a floor for sno after it.  sno's
# tick-tock lets it follow a clock stepped back (docs/spec/sno.md §5.1),
# below IDs it issued before; within a server's life the floor (the highest
# horizon given) stops a toggle below a horizon, but it lived in shared
# memory only: after a clock step back and a restart, sno toggled to the
# clock, below the cursor of a poller that had read a horizon before, and
# the rows of its new IDs were never delivered (the fault campaign, seeds
# 3003 and 3037: 2,867 committed rows).  Now sno resumes with its floor at
# its marks, and counts on from them until the clock gets there.
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use Time::HiRes ();

my $node = flakeid_node('sno_horizon_restart', 'flakeid.allow_debug_clock_offset' => 'on');
sub sql { return $node->safe_psql('postgres', $_[0]); }
sql('CREATE TABLE ids (id sno)');
my $step_ms = 0;
for my $mode (qw(fast immediate))
{
	# a writer and a poller: the poller's cursor is the last horizon it read
	sql('INSERT INTO ids SELECT sno_new() FROM generate_series(1, 2000)') for 1 .. 3;
	my $cursor = sql('SELECT sno_horizon()::text');
	# the clock steps back 5 s more (every new session and the renewer, on reload)
	$step_ms -= 5000;
	sql("ALTER SYSTEM SET flakeid.debug_clock_offset_ms = $step_ms");
	sql('SELECT pg_reload_conf()');
	ok(poll_until(sub { sql('SHOW flakeid.debug_clock_offset_ms') eq $step_ms }), "($mode: the clock is stepped back to ${step_ms} ms)");
	# sno counts on above the horizon (its floor), and its saved mark with it: minting until the
	# state file's sno mark lies past the horizon, however long this machine takes
	my $cursor_us = sql("SELECT (extract(epoch FROM sno_time('$cursor'::sno)) * 1000000)::int8");
	ok(poll_until(sub { sql('INSERT INTO ids SELECT sno_new() FROM generate_series(1, 2000)');
			state_file_sno_mark($node->data_dir) > $cursor_us }), "($mode: sno's saved mark passed the horizon)");
	my $later = sql('SELECT sno_horizon()::text');
	$cursor = $later if $later gt $cursor;
	$node->stop($mode);
	$node->start;
	my $first = sql('INSERT INTO ids SELECT sno_new() RETURNING id::text');
	ok($first ge $cursor, "$mode restart after a step back: sno's first ID $first lies at or above the horizon $cursor given before it (a poller's cursor)");
	is(sql("SELECT count(*) FROM (SELECT sno_new() AS id FROM generate_series(1, 5000)) s WHERE id < '$cursor'::sno"), '0',
		"$mode: and none of the next 5,000");
	# (a horizon after the restart may lie below the cursor, the clock being behind: a poller keeps
	# the greater of the two, and nothing is issued below its cursor)
}
# sno idle between the horizon and a fast stop: the stop saves its mark in the unit the horizon
# closed, one below the horizon's, and as the clock stepped back passes through that unit sno
# toggled into it, below the cursor (a reviewer of 75eeaad: 1 row in a million, 1.5 s after the start)
# (a server of its own, its clock not stepped yet: sno is not ahead of it)
stop_checked($node);
$node = flakeid_node('sno_horizon_idle', 'flakeid.allow_debug_clock_offset' => 'on');
sql('CREATE TABLE ids (id sno)');
sql('INSERT INTO ids SELECT sno_new() FROM generate_series(1, 1000)');
# (sno idle: the horizon read once the clock has left the last ID's unit, 4 ms)
ok(poll_until(sub { sql("SELECT clock_timestamp() > (SELECT max(sno_time(id)) FROM ids) + interval '8 ms'") eq 't' }, interval => 0.01),
	'(idle: the clock has left the last ID\'s unit)');
my $cursor = sql('SELECT sno_horizon()::text');
sql('ALTER SYSTEM SET flakeid.debug_clock_offset_ms = -1500');
sql('SELECT pg_reload_conf()');
ok(poll_until(sub { sql('SHOW flakeid.debug_clock_offset_ms') eq '-1500' }), '(idle: the clock is stepped back 1.5 s)');
$node->stop('fast');
$node->start;
sql('TRUNCATE ids');
# a writer from the start until the clock has passed the cursor's unit again (1.5 s and a margin)
# (one statement: no unit passes between two calls unminted)
sql(q{DO $$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
	WHILE clock_timestamp() < t0 + interval '3 s' LOOP INSERT INTO ids SELECT sno_new() FROM generate_series(1, 50); END LOOP; END $$});
my ($below, $example) = split /\|/, sql("SELECT count(*), coalesce(min(id::text) || ' ' || sno_time(min(id)) || ' tick-tock ' || sno_ticktock(min(id)), '')
                                         FROM ids WHERE id < '$cursor'::sno");
is($below, '0', 'idle before a fast stop: none of the IDs minted while the clock made up the step lies below the horizon given before it')
  or diag("lowest below: $example; the horizon: " . sql("SELECT '$cursor' || ' ' || sno_time('$cursor'::sno) || ' tick-tock ' || sno_ticktock('$cursor'::sno)"));
stop_checked($node);
done_testing();
