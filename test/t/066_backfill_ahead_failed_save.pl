# A unit the live generator issues in ahead of the clock is published only
# once a save covers it (src/durable/issued_ahead.h): the last save that
# succeeded and the one under way must both hold it.  A save that raises an
# ERROR after its rename (its directory's fsync, the witness, a cancel) may
# have left its own file on disk.  b0562ba let the next save's begin
# overwrite that save's runs, so a unit the last good save held open but
# the failed one had closed counted as covered once the next save, still
# under way, held it: its IDs were published before any save of it had
# succeeded, and after a crash back-fill there could repeat them (a fresh
# reviewer of d722395..b0562ba found it by reading).
#
# The scenario, each step in a session whose flakeid clock is shifted
# (flakeid.debug_clock_offset_ms) so that no step waits for the real clock,
# kuid's counter 30 s ahead of it (every step must end before the real
# clock reaches it: a helper saw 9 s and 6.4 s of it left at step 3 on a
# loaded machine with 10 s), the renewer stopped (stop_renewer) so that
# no save of its own comes between:
#  1. the counter put ahead at unit a; the next ID, in a at the real clock,
#     is saved as a run open to the mark (a + 2 s);
#  2. a save from a session whose clock is past a closes the run at a, and
#     is cancelled in its pause after the rename (save_renamed);
#  3. a session whose clock is 0.5 s past a mints: the counter moves to
#     that unit, c, at that session's clock (no save: c + 1 s is below the
#     mark);
#  4. session B, at the real clock, mints in c, ahead of its clock: c is not
#     covered, and B's save pauses after its write (save_written), holding
#     flakeid_lock;
#  5. session C mints in c too.  C must wait for a save of c (for
#     flakeid_lock, behind B): b0562ba returned C's ID at once.
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use Time::HiRes;

my $node = flakeid_node('ahead_failed_save', 'flakeid.allow_debug_clock_offset' => 'on');
sub sql { return $node->safe_psql('postgres', $_[0]); }
my $datadir = $node->data_dir;
my $worker = renewer_pid($node);
like($worker, qr/^\d+$/, "the renewer's pid");
# B and C: sessions whose backends have issued a kuid already (a backend's first call may wait for
# flakeid_lock on its own, which would hide what step 5 looks for)
my ($B, $C) = (session($node), session($node));
$_->query('SELECT kuid_new()') for $B, $C;
# send(SESSION, SQL): SQL sent, not waited for; output(SESSION): what it printed so far
sub send_sql { my ($sess, $sql) = @_; $sess->{in} .= "$sql;\n"; eval { $sess->{run}->pump_nb }; }
sub output { my ($sess) = @_; eval { $sess->{run}->pump_nb }; return $sess->{out}; }

# 1. the counter 30 s ahead; an ID at the real clock in its unit a, saved as a run open to the mark
my $a = (split /\n/, sql("SET flakeid.debug_clock_offset_ms = 30000; SELECT kuid_new();
	RESET flakeid.debug_clock_offset_ms; SELECT kuid_new()::text"))[-1];
my $a_time = sql("SELECT kuid_time('$a')");
is(sql("SELECT '$a_time'::timestamptz > clock_timestamp() + interval '20 s'"), 't', "unit a lies 20 s or more ahead of the real clock");
stop_renewer($node, $worker);
my $mark = state_file_mark($datadir);
cmp_ok($mark, '>=', sql("SELECT (extract(epoch FROM '$a_time'::timestamptz) * 1e6)::bigint + 1500000"),
	'the saved mark lies 1.5 s or more past unit a (the run is saved open to it)');

# 2. a save whose clock is past a closes the run, and is cancelled after its rename
my $p = psql_start($node, "SET flakeid.debug_clock_offset_ms = 35000; SET flakeid.debug_pause_at = 'save_renamed';
	SET flakeid.debug_pause_ms = 60000; SELECT flakeid_backfill_floor_raise('2001-01-01+00') AS p_call");
ok(poll_until(sub { sql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%AS p_call%' AND wait_event_type = 'Extension'") eq '1' }),
	'a save that closes the run pauses after its rename');
sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%AS p_call%' AND pid <> pg_backend_pid()");
my (undef, undef, $p_err) = psql_finish($p);
like($p_err, qr/canceling statement due to user request/, 'and is cancelled there: an ERROR after the rename');

# 3. the counter moves to c, 0.5 s past a, at a session clock there (no save)
my $c = (split /\n/, sql("SELECT set_config('flakeid.debug_clock_offset_ms',
	round((extract(epoch FROM '$a_time'::timestamptz) - extract(epoch FROM clock_timestamp())) * 1000 + 500)::text, false);
	SELECT kuid_new()::text"))[-1];
my $c_time = sql("SELECT kuid_time('$c')");
is(sql("SELECT '$c_time'::timestamptz > '$a_time'::timestamptz AND '$c_time'::timestamptz < to_timestamp($mark / 1e6) - interval '1 s'"),
	't', 'unit c lies after a, and more than a second before the mark the last good save holds');
is(state_file_mark($datadir), $mark, '(no save since the failed one)');

# 4. B mints in c at the real clock: ahead, not covered, and its save pauses
send_sql($B, "SET flakeid.debug_pause_at = 'save_written'; SET flakeid.debug_pause_ms = 60000; SELECT kuid_new()::text AS b_call");
ok(poll_until(sub { -e "$datadir/flakeid.state.tmp"
	  && sql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%AS b_call%' AND wait_event_type = 'Extension'") eq '1' }),
	"B's save of unit c pauses after its write, holding flakeid_lock");

# 5. C mints in c: it must wait for a save of c, not return at once
$C->{out} = '';
send_sql($C, 'SELECT kuid_new()::text AS c_call');
my $state = poll_until(sub {
	return 'waiting' if sql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%AS c_call%' AND wait_event_type = 'Extension'") eq '1';
	return output($C) =~ /\S/ ? 'returned' : 0;
});
is($state, 'waiting', "C's ID in unit c waits for a save of c (b0562ba published it while B's save was under way)");
sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%AS b_call%' AND pid <> pg_backend_pid()");
ok(poll_until(sub { output($B); $B->{err} =~ /canceling statement due to user request/ }), "B's paused save is cancelled");
ok(poll_until(sub { output($C) =~ /\S/ }), 'then C saves c itself and returns its ID');
(my $c_id = $C->{out}) =~ s/\s+//g;
is(sql("SELECT kuid_time('$c_id') = '$c_time'::timestamptz"), 't', "C's ID lies in unit c");
$_->close for $B, $C;

kill 'CONT', $worker;
is(sqlstate_of($node, 'SELECT kuid_new(), snowflake_new()'), 'ok', 'the renewer goes on, and so do the generators');
stop_checked($node);
done_testing();
