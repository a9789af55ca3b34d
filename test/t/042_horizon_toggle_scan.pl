# sno's toggle against a horizon's scan of the cells (issue 59, item 4),
# held open with flakeid.debug_pause_at (allowed on this server only) and a
# clock stepped back 30 s in two sessions (flakeid.debug_clock_offset_ms).
#
# A and T are open transactions that issued a sno each, A's cell before T's
# in the scan's order.  T's clock steps back: its call toggles sno's
# tick-tock into the earlier units and pauses right after the
# compare-and-swap (toggle_swapped), before it lowers the other cells.  A,
# its clock stepped back too, issues from the toggled word: an ID below the
# unit its cell holds.  A horizon then reads A's stale cell and pauses
# (horizon_cell_read); T's call goes on, lowers the cells, and T commits, so
# that the scan finds T's cell (the only one lowered in time) empty.  1.3's
# horizon then lay above A's second ID while A was still open: a reader
# would skip that row.  Now a toggle marks itself in progress around its
# compare-and-swap and the scan is made again after it.  (The horizon's
# clock is stepped back too: closing the counter 30 s past the toggled
# unit would renew sno's mark, under the lock the paused toggle holds.)
# (30 s, not 2 or 5: A's second ID must lie below its first, minted before
# T's call, and loaded machines took more than 2 s and then more than 5 s
# between them: the quick command under a load of 27, and a run from a new
# machine's state, 2026-11-28.  The pauses are long for the same reason:
# T's 30 s, the horizon's 60 s; checks below show the interleaving held,
# and fail, never pass, if a pause ended first.)
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $node = flakeid_node('toggle_scan', 'flakeid.allow_debug_clock_offset' => 'on', 'flakeid.sno_coarse_clock' => 'off');
sub sql { return $node->safe_psql('postgres', $_[0]); }

# a statement sent to a session without waiting for it, and its output collected later
sub send_query
{
	my ($s, $q) = @_;
	@$s{qw(out err)} = ('', '');
	$s->{timer}->start(300);
	$s->{in} .= "$q;\n\\echo __flakeid_done__\n\\warn __flakeid_done__\n";
	$s->{run}->pump_nb;
}
sub collect
{
	my ($s) = @_;
	$s->{run}->pump until $s->{out} =~ /__flakeid_done__\n/ && $s->{err} =~ /__flakeid_done__\n/;
	my $out = $s->{out} =~ s/__flakeid_done__\n//r;
	chomp $out;
	return ($out, $s->{err} =~ s/__flakeid_done__\n//r);
}

sql('SELECT sno_new()');    # (a cell written from a counter that issued nothing holds unit 0)
my @sessions = map { session($node) } 1 .. 2;
my %by_pid;
for my $s (@sessions)
{
	$by_pid{ $s->query('SELECT pg_backend_pid()') } = $s;
	$s->query('BEGIN');
	$s->{first} = $s->query('SELECT sno_new()');
}
# the holders in the scan's order (flakeid_horizon_holders() goes by process number)
my @order = split /\n/, sql(q{SELECT pid FROM flakeid_horizon_holders() WITH ORDINALITY h WHERE generator = 'sno' ORDER BY ordinality});
is(scalar(@order), 2, 'two open transactions hold the sno horizon');
my ($a, $t) = map { $by_pid{$_} } @order;

my $flag_before = sql(q{SELECT ticktock FROM flakeid_generators WHERE generator = 'sno'});
$t->query("SET flakeid.debug_clock_offset_ms = -30000; SET flakeid.debug_pause_at = 'toggle_swapped'; SET flakeid.debug_pause_ms = 30000");
send_query($t, 'SELECT sno_new()');
ok($node->poll_query_until('postgres', "SELECT ticktock <> $flag_before FROM flakeid_generators WHERE generator = 'sno'"),
	'T\'s call with its clock 30 s back toggles sno\'s tick-tock (then pauses, toggle_swapped)');

$a->query('SET flakeid.debug_clock_offset_ms = -30000');
my $a_second = $a->query('SELECT sno_new()');
is(sql("SELECT '$a_second'::sno < '$a->{first}'::sno"), 't', 'A issues from the toggled word: below the unit its cell holds');

my $horizon = psql_start($node,
	"SET flakeid.debug_clock_offset_ms = -30000; SET flakeid.debug_pause_at = 'horizon_cell_read';
	 SET flakeid.debug_pause_ms = 60000; SELECT sno_horizon()");
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%SELECT sno_horizon()' AND state = 'active'
	AND wait_event_type = 'Extension'}),
	'the horizon call is under way, paused after reading the cells (horizon_cell_read)');
is(sql("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $order[1]"), 'Extension',
	'T\'s toggle was still paused when the horizon read the cells (the interleaving held)');
my ($t_out, $t_err) = collect($t);
like($t_out, qr/^[0-9a-z]{16}$/, 'T\'s call ends (its pause of 30 s)') or diag($t_err);
$t->query('COMMIT');
is(sql(q{SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%SELECT sno_horizon()' AND state = 'active'}), '1',
	'T committed while the horizon call was still under way (the interleaving held)');

my ($status, $h, $err) = psql_finish($horizon);
is($status, 0, 'the horizon call ends') or diag($err);
is(sql("SELECT '$a_second'::sno >= '$h'::sno"), 't',
	'the horizon lies at or below the ID that A, still open, holds')
  or diag("horizon $h, A's IDs $a->{first} then $a_second");
note("horizon $h, A's IDs $a->{first} then $a_second");

$a->query('COMMIT');
$_->close for @sessions;
stop_checked($node);
done_testing();
