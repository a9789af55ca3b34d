# Back-fill into a unit a horizon or an advance closed (issue 59, item 3).
# A horizon closes each live counter through the clock's unit - 1, and
# *_advance_past through the unit of the ID it is given: the counter keeps
# that unit with its sequence field full, and issues nothing more there.
# 1.3 sent a back-fill for that unit down the live path, met the closed
# word and refused it (54000, "every sequence of its pool of 4096 was
# issued") although none was.  Now it draws from the ledger, above the last
# sequence the live counter issued in the unit before the closing.
#
# 1. The issue's loop, for every format with a horizon: a horizon, then a
#    back-fill one unit behind the clock, 2,000 times in one statement, is
#    never refused.
# 2. Live IDs in a unit, *_advance_past(the last of them), then back-fill
#    into that unit until it is refused: every back-filled ID is new (none
#    repeats a live one, none another), and the refusal says what it is: the
#    live generator issued N of the unit's sequences, N being the live IDs
#    counted there.
# 3. sno on tick-tock 1 (below).
# 4. A back-fill overtaken, between the closed word and the closing's
#    record, by a live ID and a second horizon: given, not refused.
# 5. A back-fill that meets a closing between its swap and its record
#    waits for the record: given, not refused.
# 6. The same with a live ID in a later unit during the wait: a past unit.
# flax has no horizon, no advance and no ledger (random within its
# millisecond): it is not concerned.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $node = flakeid_node('backfill_closed');
sub sql { return $node->safe_psql('postgres', $_[0]); }

# one counter unit of each format, as an interval (siq's is 1/65536 s)
my %unit = (sno => '4 ms', siq => '15 microseconds', kuid => '1 ms', kuid96 => '1 ms', snowflake => '1 ms');

# --- 1. the issue's loop ------------------------------------------------------------------------
for my $f (formats(stateful => 't'))
{
	my $name = $f->{format};
	my $call = backfill_call($f, "clock_timestamp() - interval '$unit{$name}'");
	my $state = sqlstate_of($node, "SELECT count(*) FROM (SELECT ${name}_horizon(), $call FROM generate_series(1, 2000)) x");
	is($state, 'ok', "$name: a horizon, then a back-fill one unit behind the clock, 2,000 times: never refused");
	if ($state ne 'ok')
	{
		diag(message_of($node, "SELECT count(*) FROM (SELECT ${name}_horizon(), $call FROM generate_series(1, 2000)) x"));
	}
}

# --- 2. advance_past closes a unit with live IDs in it; back-fill fills the rest ------------------
sql(q{
CREATE TABLE live (format text, id text, t timestamptz);
CREATE TABLE filled (format text, id text);
CREATE TABLE refusals (format text, message text, detail text);
});
for my $f (formats(stateful => 't'))
{
	my $name = $f->{format};
	my ($type, $time) = ($f->{type}, $f->{time});
	sql(qq{INSERT INTO live SELECT '$name', id::text, $time(id) FROM (SELECT $f->{new} AS id FROM generate_series(1, 300)) s});
	my $last = sql(qq{SELECT id FROM live WHERE format = '$name' ORDER BY id::$type DESC LIMIT 1});
	my $live_in_unit = sql(qq{SELECT count(*) FROM live WHERE format = '$name' AND t = (SELECT $time('$last'::$type))});
	sql(qq{SELECT ${name}_advance_past('$last'::$type)});
	# (7 µs into the unit: siq's unit starts between two microseconds)
	my $call = backfill_call($f, "$time('$last'::$type) + interval '7 microseconds'");
	# each call in a block of its own, so that the refusal ends the loop and keeps what came before
	sql(qq{
DO \$\$
DECLARE
    ids text[] := '{}';
    m text;
    d text;
BEGIN
    LOOP
        BEGIN
            ids := ids || ($call)::text;
        EXCEPTION WHEN program_limit_exceeded THEN
            GET STACKED DIAGNOSTICS m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL;
            EXIT;
        END;
    END LOOP;
    INSERT INTO filled SELECT '$name', unnest(ids);
    INSERT INTO refusals VALUES ('$name', m, d);
END \$\$});
	my $filled = sql(qq{SELECT count(*) FROM filled WHERE format = '$name'});
	my $refusal = sql(qq{SELECT message || E'\n' || detail FROM refusals WHERE format = '$name'});
	ok($filled > 0, "$name: back-fill into the unit advance_past closed is given ($filled IDs)")
	  or diag($refusal);
	like($refusal, qr/^too many back-filled .* IDs in the time unit of .*\nThe live \w+ generator issued $live_in_unit sequences of that time unit's pool of \d+ before a horizon or an advance closed it, and back-fill was given the others\.$/,
		"$name: the unit's pool is refused once back-fill meets the $live_in_unit live IDs issued there, and the DETAIL says so");
	is(sql(qq{SELECT count(*) - count(DISTINCT id) FROM filled WHERE format = '$name'}), '0',
		"$name: no back-filled ID repeats another");
	is(sql(qq{SELECT count(*) FROM filled JOIN live USING (format, id) WHERE format = '$name'}), '0',
		"$name: no back-filled ID repeats a live one of the closed unit");
	# once the live counter has moved past the unit, it is a past unit: a
	# retry must not go on down into the live IDs (the review of issue 59)
	sql(qq{SELECT $f->{new}});
	is(sqlstate_of($node, "SELECT $call"), '54000', "$name: once the live counter has moved on, a retry is still refused (54000)");
}

my $sno_after = sql(q{SELECT sno_new() > max(id::sno) FROM live WHERE format = 'sno'});
is($sno_after, 't', 'sno: the live generator goes on after the closed unit');

# --- 3. sno after a toggle: back-fill (tick-tock 0) into a closed unit of tick-tock 1 --------------
# The counter keeps tick-tock 1 after a clock step back toggled it; a closed
# unit past what tick-tock 0 reached holds none of back-fill's IDs, and is
# given as any other (the review of issue 59: a first mend refused every
# closed unit of tick-tock 1 for good).
my $toggled = flakeid_node('backfill_toggled', 'flakeid.allow_debug_clock_offset' => 'on');
my $before = $toggled->safe_psql('postgres', 'SELECT sno_new()::text');    # (no horizon given yet: a step back toggles)
my $after = $toggled->safe_psql('postgres', 'SET flakeid.debug_clock_offset_ms = -2000; SELECT sno_new()::text');
is($toggled->safe_psql('postgres', "SELECT sno_ticktock('$before') || ' ' || sno_ticktock('$after')"), '0 1',
	'sno: a step back of 2 s toggled the tick-tock');
ok(wait_clock_past($toggled, "sno_time('$before')"), "the clock has left the last unit of tick-tock 0");
$toggled->safe_psql('postgres', 'CREATE TABLE live AS SELECT sno_new() AS id FROM generate_series(1, 300)');
my $last = $toggled->safe_psql('postgres', 'SELECT max(id)::text FROM live');
is($toggled->safe_psql('postgres', "SELECT sno_ticktock('$last')"), '1', 'sno: the live IDs after it keep tick-tock 1');
$toggled->safe_psql('postgres', "SELECT sno_advance_past('$last')");
my $given = sqlstate_of($toggled, "CREATE TABLE filled AS SELECT sno_new_at(sno_time('$last') + interval '7 microseconds') AS id
	FROM generate_series(1, 100)");
is($given, 'ok', "sno on tick-tock 1: 100 back-fills into the unit advance_past closed are given (tick-tock 0 never reached it)");
is($toggled->safe_psql('postgres', 'SELECT count(*) FROM filled JOIN live USING (id)'), $given eq 'ok' ? '0' : '',
	'and none repeats a live ID') if $given eq 'ok';

# --- 4. overtaken between reading the closed word and the closing's record ----------------------
# A back-fill one unit behind the clock finds the unit closed by a horizon
# and pauses (backfill_closed) before it reads the record of that closing.
# Meanwhile the live counter issues in a later unit and a second horizon
# closes that one, replacing the record.  The unit is a past one now, and
# back-fill takes it from the ledger; the first mend of item 3 refused it
# as a pool used up (54000, "every sequence of its pool of 4096 was
# issued"), although the unit held one live ID at most.
my $first = $toggled->safe_psql('postgres', 'SELECT snowflake_new()');
ok(wait_clock_past($toggled, "snowflake_time($first)"), 'snowflake: the clock has left the unit of a live ID');
my $h = $toggled->safe_psql('postgres', 'SELECT snowflake_horizon()');
# (pauses are long: the checks below run while they last, and a run on a
# loaded machine took more than 10 s and 5 s between a pause and its check;
# a pause that ends first fails the interleaving's check, never passes it)
my $paused = psql_start($toggled, "SET flakeid.debug_pause_at = 'backfill_closed'; SET flakeid.debug_pause_ms = 60000;
	SELECT snowflake_new_at(snowflake_time($h) - interval '1 ms')");
ok($toggled->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE query LIKE '%SELECT snowflake_new_at%' AND wait_event_type = 'Extension'}),
	'snowflake: a back-fill one unit behind the horizon found its unit closed, and pauses (backfill_closed)');
my $second = $toggled->safe_psql('postgres', 'SELECT snowflake_new()');
ok(wait_clock_past($toggled, "snowflake_time($second)"), 'snowflake: a live ID in a later unit, and the clock past it');
ok($toggled->safe_psql('postgres', "SELECT snowflake_horizon() > $second") eq 't', 'snowflake: a second horizon closed that unit');
is($toggled->safe_psql('postgres', q{SELECT count(*) FROM pg_stat_activity
	WHERE query LIKE '%SELECT snowflake_new_at%' AND wait_event_type = 'Extension'}), '1',
	'snowflake: the back-fill was still paused meanwhile (the interleaving held)');
my ($status, $given_id, $err) = psql_finish($paused);
is($status, 0, 'snowflake: the overtaken back-fill is given an ID, not refused') or diag($err);
like($given_id, qr/^\d+$/, 'snowflake: and it is a snowflake');
isnt($given_id, $first, 'snowflake: not the live ID of that unit') if $status == 0;

# --- 5. a closing between its swap and its record ----------------------------------------------
# advance_past closes the unit of a live ID and pauses (closing_swapped)
# right after its compare-and-swap, before it records the closed word.  A
# back-fill into that unit meets the closed word unrecorded: it waits for
# the closing to record it, then draws from the ledger.  Without the wait
# it took the word for a pool used up (54000), beside any poller.
my $live = $toggled->safe_psql('postgres', 'SELECT snowflake_new()');
my $closing = psql_start($toggled, "SET flakeid.debug_pause_at = 'closing_swapped'; SET flakeid.debug_pause_ms = 30000;
	SELECT snowflake_advance_past($live)");
ok($toggled->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE query LIKE '%SELECT snowflake_advance_past%' AND wait_event_type = 'Extension'}),
	'snowflake: advance_past swapped its closing in, and pauses before recording it (closing_swapped)');
my $backfill = psql_start($toggled, "SELECT snowflake_new_at(snowflake_time($live))");
ok($toggled->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE query LIKE 'SELECT snowflake_new_at%' AND wait_event_type = 'Extension'}),
	'snowflake: a back-fill into the unit waits for the closing to be recorded');
is($toggled->safe_psql('postgres', q{SELECT count(*) FROM pg_stat_activity
	WHERE query LIKE '%SELECT snowflake_advance_past%' AND wait_event_type = 'Extension'}), '1',
	'snowflake: the closing was still paused then (the interleaving held)');
my ($closing_status, undef, $closing_err) = psql_finish($closing);
is($closing_status, 0, 'snowflake: the advance ends') or diag($closing_err);
my ($bf_status, $bf_id, $bf_err) = psql_finish($backfill);
is($bf_status, 0, 'snowflake: the back-fill is given an ID once the closing is recorded, not refused') or diag($bf_err);
isnt($bf_id, $live, 'snowflake: not the live ID of that unit') if $bf_status == 0;

# --- 6. the same, and a live ID in a later unit while the back-fill waits --------------------------
# The counter leaves the unit before the closing records it: the back-fill's wait ends with the
# closed word unrecorded, and the unit is a past one now (the review of part 5's mend: 54000)
$live = $toggled->safe_psql('postgres', 'SELECT snowflake_new()');
$closing = psql_start($toggled, "SET flakeid.debug_pause_at = 'closing_swapped'; SET flakeid.debug_pause_ms = 30000;
	SELECT snowflake_advance_past($live)");
ok($toggled->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE query LIKE '%SELECT snowflake_advance_past%' AND wait_event_type = 'Extension'}),
	'snowflake: a closing swapped in, paused before its record');
$backfill = psql_start($toggled, "SELECT snowflake_new_at(snowflake_time($live))");
ok($toggled->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE query LIKE 'SELECT snowflake_new_at%' AND wait_event_type = 'Extension'}),
	'snowflake: a back-fill into its unit waits for the record');
my $later = $toggled->safe_psql('postgres', 'SELECT snowflake_new()');
($bf_status, $bf_id, $bf_err) = psql_finish($backfill);
is($toggled->safe_psql('postgres', q{SELECT count(*) FROM pg_stat_activity
	WHERE query LIKE '%SELECT snowflake_advance_past%' AND wait_event_type = 'Extension'}), '1',
	'snowflake: the back-fill ended while the closing was still paused (the interleaving held)');
is($bf_status, 0, 'snowflake: a live ID in a later unit meanwhile: the back-fill is given an ID, not refused') or diag($bf_err);
ok($bf_status == 0 && $bf_id ne $live && $bf_id ne $later, 'snowflake: neither live ID');
($closing_status, undef, $closing_err) = psql_finish($closing);
is($closing_status, 0, 'snowflake: the advance ends') or diag($closing_err);
stop_checked($toggled);

stop_checked($node);
done_testing();
