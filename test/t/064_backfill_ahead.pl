# Back-fill into units the live generator reached ahead of the clock
# (issue 62: the repeat the fault campaign found on 1.4's tree, seed 26002).
#
# After a clock step back, an advance (*_advance_past to a later ID), a
# restart or a promotion, the live counter lies ahead of the clock: it
# counts on from its last unit and leaves a unit only once its pool is used
# up.  When the clock gets there, such a unit is a past one to back-fill,
# whose sequences count down from the top of the pool: 1.3 and 1.4 until
# this test gave the live IDs issued there in advance again (44 of 150,000
# siq back-filled at the present repeated live ones, 200 of 42,500
# snowflakes).  Now every unit the counter issues in ahead of the clock is
# recorded before the ID is published, and so are, at start, the units
# between the clock and the mark; back-fill there is refused (55000).
#
# 1. For every stateful format: the counter put 2 s ahead (a clock step back
#    seen by every other session: one ID minted under a clock offset; sno,
#    whose tick-tock would toggle instead, by sno_advance_past), three
#    pools' worth of live IDs minted ahead, then back-fill at the present,
#    50 at a time beside 5 live IDs, until the clock has passed every live
#    ID: no back-filled ID repeats a live one, and every refusal is the new
#    one.  Then back-fill at the time of the first live ID minted ahead,
#    whose unit they filled: refused, 55000, with a DETAIL naming the span.
#    And the unit the counter still sits in, its pool used up ahead: 55000.
# 2. The same across a restart: the units from the clock to the mark at
#    start are recorded, so the live IDs minted 10 s ahead before the
#    restart are not back-filled over after it.
#    And sno on tick-tock 1.
# 3. Past 32 runs of one counter, the two closest are joined (a refusal
#    between them, never a repeat); the others stay apart.  And a restart
#    after the clock has passed half a pool minted ahead (2c).
# 4. A unit the live counter issued in 30 s ahead of the clock, back-filled
#    before the clock gets there: 55000 with the span, not 22023; (4b) the
#    one it sits in, reached at the clock before the clock stepped back; (4c)
#    the one it resumes in after a restart with the clock behind the mark
#    (30 s: 4b and 4c take some 20 psql sessions, which a stalled machine
#    must finish before the clock gets back to the live IDs: round 17).
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $node = flakeid_node('backfill_ahead', 'flakeid.allow_debug_clock_offset' => 'on');
sub sql { return $node->safe_psql('postgres', $_[0]); }

# each stateful generator's pool per unit (test/t/017 measures them)
my %pool = (sno => 65536, siq => 2048, kuid => 16384, kuid96 => 16384, snowflake => 4096);
my $refusal = qr/^ERROR:  cannot back-fill an? \w+ ID for .*: this server does not count the live IDs of that time$/m;

# SQL that puts FORMAT's live counter AHEAD_MS ahead of the clock, for the
# session that then mints: a psql started for each statement may take a
# second on a loaded machine, which the counter's lead would not outlast
sub put_ahead
{
	my ($f, $ahead_ms) = @_;
	return "SELECT sno_advance_past(sno_from_parts(clock_timestamp() + interval '$ahead_ms ms', 0, 0, 0));"
	  if $f->{format} eq 'sno';
	return "SET flakeid.debug_clock_offset_ms = $ahead_ms; SELECT $f->{new}; RESET flakeid.debug_clock_offset_ms;";
}

sql(q{
CREATE TABLE live (format text, id text, t timestamptz, n bigserial);
CREATE TABLE backfilled (format text, id text);
CREATE TABLE refused (format text, state text, message text);
});

# --- 1. one lifetime ------------------------------------------------------------------------------
for my $f (formats(stateful => 't'))
{
	my $name = $f->{format};
	my ($type, $time) = ($f->{type}, $f->{time});
	my $present = backfill_call($f, 'clock_timestamp()');
	# (the clock read before the minting: on a loaded machine the minting itself may take a second)
	my $clock = (split /\n/, sql(put_ahead($f, 2000) . qq{SELECT clock_timestamp();
		INSERT INTO live (format, id, t) SELECT '$name', id::text, $time(id)
		FROM (SELECT $f->{new} AS id FROM generate_series(1, 3 * $pool{$name})) s}))[-1];
	my $first_ahead = sql(qq{SELECT t FROM live WHERE format = '$name' ORDER BY n LIMIT 1});
	my $last_ahead = sql(qq{SELECT max(t) FROM live WHERE format = '$name'});
	ok(sql(qq{SELECT '$first_ahead'::timestamptz > '$clock'::timestamptz}) eq 't',
		"$name: the live IDs were minted ahead of the clock ($first_ahead, the clock $clock)");
	# (the loop ends on the clock: once it has passed the live IDs minted ahead by 50 ms)
	sql(qq{
DO \$\$
DECLARE
    m text;
    s text;
BEGIN
    LOOP
        BEGIN
            INSERT INTO backfilled SELECT '$name', ($present)::text FROM generate_series(1, 50);
        EXCEPTION WHEN others THEN
            GET STACKED DIAGNOSTICS m = MESSAGE_TEXT, s = RETURNED_SQLSTATE;
            INSERT INTO refused VALUES ('$name', s, m);
        END;
        INSERT INTO live (format, id, t) SELECT '$name', id::text, $time(id)
            FROM (SELECT $f->{new} AS id FROM generate_series(1, 5)) s;
        EXIT WHEN clock_timestamp() > '$last_ahead'::timestamptz + interval '50 ms';
    END LOOP;
END \$\$});
	my $given = sql(qq{SELECT count(*) FROM backfilled WHERE format = '$name'});
	is(sql(qq{SELECT count(*) FROM backfilled JOIN live USING (format, id) WHERE format = '$name'}), '0',
		"$name: none of the $given IDs back-filled at the present repeats a live one");
	my @other = split /\n/, sql(qq{SELECT state || ' ' || message FROM refused WHERE format = '$name'
		AND NOT (state = '55000' AND message ~ 'this server does not count the live IDs of that time')});
	is(scalar(@other), 0, "$name: back-fill at the present was refused for no other reason")
	  or diag(join("\n", @other[0 .. ($#other < 4 ? $#other : 4)]));
	note("$name: " . sql(qq{SELECT count(*) FROM refused WHERE format = '$name'}) . " calls refused at the present");

	# the first live ID minted ahead: its unit is full of live IDs
	my $call = backfill_call($f, "'$first_ahead'::timestamptz");
	my $msg = message_of($node, "SELECT ($call)::text");
	like($msg, $refusal, "$name: back-fill at the time of the first live ID minted ahead is refused");
	like($msg, qr/^DETAIL:  From .* to .*, the live \w+ generator issued IDs ahead of the clock/m,
		"$name: the DETAIL names the span");
	like($msg, qr/^HINT:  Back-fill times outside that span: this server records every span its live generators ran ahead of the clock in, across restarts and promotions/m,
		"$name: the HINT names the times outside the span (the runs are saved across restarts and promotions)");
	is(sqlstate_of($node, "SELECT $call"), '55000', "$name: 55000");
	# (a given ID is kept for the check below: on 1.3 it repeats one of that unit's live IDs)
	sql(qq{DO \$\$ BEGIN INSERT INTO backfilled SELECT '$name', ($call)::text; EXCEPTION WHEN others THEN NULL; END \$\$});
	is(sql(qq{SELECT count(*) FROM backfilled JOIN live USING (format, id) WHERE format = '$name'}), '0',
		"$name: and nothing back-filled there repeats a live ID");
}

# --- 1b. the unit the counter still sits in, its pool used up ahead of the clock ----------------
# One unit's pool minted ahead and nothing after it: once the clock is
# there, back-fill of that unit meets the live counter with no sequence left.
# The first version of the fix refused it as a pool used up (54000, the
# review of 69a6d75), so that a back-fill at the present, near a step back,
# was refused with either code; it is the same refusal (55000).
sql('TRUNCATE live');
for my $f (formats(stateful => 't'))
{
	my $name = $f->{format};
	# (put_ahead's own ID is the unit's first, but sno's: its advance closed the unit before)
	my $n = $name eq 'sno' ? $pool{$name} : $pool{$name} - 1;
	sql(put_ahead($f, 3000) . qq{INSERT INTO live (format, id, t) SELECT '$name', id::text, $f->{time}(id)
		FROM (SELECT $f->{new} AS id FROM generate_series(1, $n)) s});
	is(sql(qq{SELECT count(DISTINCT t) FROM live WHERE format = '$name'}), '1', "$name: one pool minted ahead fills one unit");
	my $t = sql(qq{SELECT max(t) FROM live WHERE format = '$name'});
	ok(wait_clock_past($node, "'$t'::timestamptz"), "$name: the clock has passed that unit");
	is(sqlstate_of($node, 'SELECT ' . backfill_call($f, "'$t'::timestamptz")), '55000',
		"$name: back-fill there, the live counter still in it with no sequence left, is refused with 55000");
}

# --- 2. across a restart --------------------------------------------------------------------------
sql('TRUNCATE live, backfilled, refused');
for my $f (formats(stateful => 't'))
{
	sql(put_ahead($f, 10000) . qq{INSERT INTO live (format, id, t) SELECT '$f->{format}', id::text, $f->{time}(id)
		FROM (SELECT $f->{new} AS id FROM generate_series(1, 3 * $pool{$f->{format}})) s});
}
$node->restart;
my $start_before = sql(q{SELECT pg_postmaster_start_time() + interval '1 s' < min(t) FROM live});
SKIP:
{
	skip 'the restart took longer than the 10 s the counters were ahead', 1 + 3 * 5 if $start_before ne 't';
	ok(wait_clock_past($node, 'SELECT max(t) FROM live'), 'the clock has passed every live ID minted ahead before the restart');
	for my $f (formats(stateful => 't'))
	{
		my $name = $f->{format};
		# (the last of them too, where the counter resumed with its pool used up: 1.4's first
		# version of the fix refused it as used up, 54000, and the others with 55000)
		my @times = split /\n/, sql(qq{SELECT t FROM (SELECT DISTINCT t FROM live WHERE format = '$name') s ORDER BY t});
		my @states = map { sqlstate_of($node, 'SELECT ' . backfill_call($f, "'$_'::timestamptz")) } @times;
		is(join(' ', @states), join(' ', ('55000') x @times),
			"$name: after the restart, back-fill at the times of the live IDs minted ahead before it is refused");
		sql(qq{DO \$\$ BEGIN INSERT INTO backfilled SELECT '$name', (} . backfill_call($f, "'$times[0]'::timestamptz")
			  . qq{)::text; EXCEPTION WHEN others THEN NULL; END \$\$});
		is(sql(qq{SELECT count(*) FROM backfilled JOIN live USING (format, id) WHERE format = '$name'}), '0',
			"$name: and none repeats a live ID");
		like(message_of($node, 'SELECT ' . backfill_call($f, "'$times[0]'::timestamptz")), $refusal, "$name: the message says why");
	}
}

# --- 2b. sno on tick-tock 1 ------------------------------------------------------------------------
# On a server of its own: sno toggled to tick-tock 1 by a step back, then
# advanced and one unit's pool minted ahead.  b4686a9 left tick-tock 1
# unrecorded (back-fill is tick-tock 0), and back-fill there was refused as
# used up (54000, while the counter sat in the unit) or given (once it had
# left): one cause, two answers (the review of b4686a9).  Now 55000, as for
# tick-tock 0.
my $runs = flakeid_node('backfill_ahead_runs', 'flakeid.allow_debug_clock_offset' => 'on');
sub rsql { return $runs->safe_psql('postgres', $_[0]); }
rsql('CREATE TABLE live (id sno, t timestamptz)');
# (in one session: the counter at the clock, then the step back)
is((split /\n/, rsql(q{SELECT sno_new(); SET flakeid.debug_clock_offset_ms = -5000; SELECT sno_ticktock(sno_new())}))[-1], '1',
	'sno: a step back of 5 s toggled the tick-tock to 1');
# (one session, and a lead of 3 s: a psql started per statement, on a loaded machine, may outlast 1 s)
rsql(qq{SELECT sno_advance_past(sno_from_parts(clock_timestamp() + interval '3000 ms', 0, 0, 0));
	INSERT INTO live SELECT id, sno_time(id) FROM (SELECT sno_new() AS id FROM generate_series(1, $pool{sno})) s});
is(rsql(q{SELECT count(DISTINCT t) || ' ' || string_agg(DISTINCT sno_ticktock(id)::text, ',') FROM live}), '1 1',
	'sno: one pool of tick-tock 1 minted ahead fills one unit');
my $t1 = rsql(q{SELECT max(t) FROM live});
ok(wait_clock_past($runs, "'$t1'::timestamptz"), 'sno: the clock has passed that unit');
is(sqlstate_of($runs, "SELECT sno_new_at('$t1'::timestamptz)"), '55000',
	'sno: back-fill there, the counter still in it on tick-tock 1, is refused with 55000');
rsql('SELECT sno_new()');
is(sqlstate_of($runs, "SELECT sno_new_at('$t1'::timestamptz)"), '55000', 'sno: and once the counter has left it');

# --- 3. past 32 runs of one counter -----------------------------------------------------------------
# On that server (snowflake untouched so far, and no restart since its
# first start, with no mark: no run of a resume): snowflake advanced 33
# times, each to 100 ms further ahead but the last, 50 ms after the 32nd;
# the live ID after each makes a run of its own.  The last two runs are the
# closest, and are joined; the others stay apart.
# (in one session: 33 psql started one after another may outlast the lead on a loaded machine)
my $base = $runs->safe_psql('postgres', q{SELECT clock_timestamp() + interval '5 s'});
$runs->safe_psql('postgres', join("\n", map {
	my $ms = $_ <= 32 ? 100 * $_ : 3250;
	qq{SELECT snowflake_advance_past(snowflake_from_parts('$base'::timestamptz + interval '$ms ms', 0, 0, 0)); SELECT snowflake_new();}
} 1 .. 33));
ok(wait_clock_past($runs, "'$base'::timestamptz + interval '3300 ms'"), 'the clock has passed the 33 runs');
is(sqlstate_of($runs, "SELECT snowflake_new_at('$base'::timestamptz + interval '3225 ms')"), '55000',
	'snowflake: a unit between the two closest runs, joined, is refused');
is(sqlstate_of($runs, "SELECT snowflake_new_at('$base'::timestamptz + interval '150 ms')"), 'ok',
	'snowflake: a unit between two runs that stayed apart is given');
is(sqlstate_of($runs, "SELECT snowflake_new_at('$base'::timestamptz + interval '201 ms')"), '55000',
	'snowflake: a unit of a run (the live ID after the advance to 200 ms) is refused');

# --- 2c. a restart once the clock has passed the units filled ahead -----------------------------------
# Half a pool minted ahead in one unit, the clock past it, a clean restart:
# the counter resumes in that unit (the mark's, lowered to it at the stop)
# with its pool taken as used up.  1.4 until the third round of fresh eyes
# refused back-fill there as "every sequence of its pool was issued" (54000,
# a false reason) while the counter sat there.  The mark's own unit is now
# recorded at the resume: 55000, before and after the counter leaves it.
# (On this server of its own, so that sno's mark and the monotonic one are
# these formats' own last units.)
for my $f (formats(format => 'sno'), formats(format => 'snowflake'))
{
	my $name = $f->{format};
	$runs->safe_psql('postgres', $name eq 'sno'
		? "SELECT sno_advance_past(sno_from_parts(clock_timestamp() + interval '1000 ms', 0, 0, 0))"
		: "SET flakeid.debug_clock_offset_ms = 1000; SELECT snowflake_new()");
	my $half = $pool{$name} / 2;
	my $t = $runs->safe_psql('postgres', qq{SELECT max($f->{time}(id)) FROM (SELECT $f->{new} AS id FROM generate_series(1, $half)) s});
	ok(wait_clock_past($runs, "'$t'::timestamptz"), "$name: the clock has passed the half pool minted ahead");
	$runs->restart;
	my $call = 'SELECT ' . backfill_call($f, "'$t'::timestamptz");
	is(sqlstate_of($runs, $call), '55000', "$name: after a clean restart, back-fill in that unit is refused as reached ahead, not as used up");
	$runs->safe_psql('postgres', "SELECT $f->{new}");
	is(sqlstate_of($runs, $call), '55000', "$name: and once the live counter has left it");
}
stop_checked($runs);

# --- 4. a unit the live counter issued in ahead of the clock, and the clock not there yet ----------
# (the review of 9c528f7: refused 22023, "a time the live generator has not reached", a false
# reason: the live generator had issued there, as the fault campaign's seed 66003 met after a start
# afresh; the docs' refusal is 55000, with the span)
for my $f (formats(stateful => 't'))
{
	my $name = $f->{format};
	my $t = (split /\n/, sql(put_ahead($f, 30000) . qq{SELECT $f->{time}($f->{new})}))[-1];
	my $call = 'SELECT ' . backfill_call($f, "'$t'::timestamptz");
	my $state = sqlstate_of($node, $call);
	my (undef, undef, $err) = $node->psql('postgres', $call);
	is($state, '55000', "$name: back-fill at a live ID's time 30 s ahead of the clock is refused as reached ahead (was 22023)");
	like($err, qr/ERROR:  cannot back-fill an? \w+ ID for .*: this server does not count the live IDs of that time\nDETAIL:  From /,
		"$name: ... with the span the live generator ran ahead of the clock in");
}

# --- 4b. the unit the live counter sits in, reached at the clock before the clock stepped back -----
# (round 15's auditor: still 22023 "not reached" after 4, where the counter had issued at the clock
# and sat when the clock stepped back.  A unit it left before the step is a past unit to the live
# counter, served from the ledger, counting down, as any past unit.  sno is left out: its step back
# toggles the tick-tock, and a unit only the other tick-tock reached still gets 22023, a refusal
# either way: docs/OPERATIONS.md)
my $stepped = flakeid_node('backfill_reached', 'flakeid.allow_debug_clock_offset' => 'on');
my @stepped = grep { $_->{format} ne 'sno' } formats(stateful => 't');
# each format's ID a, then b, minted until it lies in a later unit: the counter left a's unit for b's
# (kuid and kuid96 share one counter, kuid96's minted after kuid's: the counter sits in kuid96's b)
my %at = map {
	my $f = $_;
	my $a = $stepped->safe_psql('postgres', "SELECT $f->{time}($f->{new})");
	my $b = $a;
	ok(poll_until(sub { ($b = $stepped->safe_psql('postgres', "SELECT $f->{time}($f->{new})")) ne $a }, interval => 0),
		"$f->{format}: a live ID in a later unit than the first");
	($f->{format} => [ $a, $b ])
} @stepped;
$stepped->safe_psql('postgres', 'ALTER SYSTEM SET flakeid.debug_clock_offset_ms = -30000; SELECT pg_reload_conf()');
ok($stepped->poll_query_until('postgres', 'SHOW flakeid.debug_clock_offset_ms', '-30000'), 'the server\'s clock stepped back 30 s');
for my $f (@stepped)
{
	my ($a, $b) = map { 'SELECT ' . backfill_call($f, "'$_'::timestamptz") } @{ $at{ $f->{format} } };
	is(sqlstate_of($stepped, $a), 'ok', "$f->{format}: back-fill at a live ID's time the counter left before the clock stepped back 30 s: a past unit to it, given");
	next if $f->{format} eq 'kuid';
	my $state = sqlstate_of($stepped, $b);
	my (undef, undef, $err) = $stepped->psql('postgres', $b);
	is($state, '55000', "$f->{format}: back-fill at the time of the unit the counter sits in, 30 s past the clock, is refused (was 22023)");
	like($err, qr/this server does not count the live IDs of that time\nDETAIL:  The live \w+ generator reached the time unit from .* before the clock did/,
		"$f->{format}: ... saying the live generator reached it before the clock did");
}
# --- 4c. a clean restart with the clock 30 s behind the mark: the unit the counter resumes in ---------
# (round 16's reviewer: a first version of 4b's refusal said "yet ... retry once the clock has passed"
# there, and the retry met the span refusal: a run holds the units from the clock to the mark)
my %last = map { $_->{format} => $stepped->safe_psql('postgres', "SELECT $_->{time}($_->{new})") } @stepped;
$stepped->restart;
for my $f (@stepped)
{
	my $call = 'SELECT ' . backfill_call($f, "'$last{$f->{format}}'::timestamptz");
	my (undef, undef, $err) = $stepped->psql('postgres', $call);
	like($err, qr/this server does not count the live IDs of that time\nDETAIL:  From /,
		"$f->{format}: after a restart 30 s behind the mark, back-fill at the last live ID's time is refused with the span");
}
# (flakeid's clock runs 30 s behind clock_timestamp() here)
ok(wait_clock_past($stepped, "'" . (sort values %last)[-1] . "'::timestamptz + interval '30.5 s'"), 'flakeid\'s clock has passed the last live IDs');
for my $f (@stepped)
{
	my $call = 'SELECT ' . backfill_call($f, "'$last{$f->{format}}'::timestamptz");
	is(sqlstate_of($stepped, $call), '55000', "$f->{format}: ... and still once the clock has passed it (the run stays)");
}
$stepped->safe_psql('postgres', 'ALTER SYSTEM RESET flakeid.debug_clock_offset_ms; SELECT pg_reload_conf()');
stop_checked($stepped);

stop_checked($node);
done_testing();
