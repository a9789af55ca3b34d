# A server whose record of deep units (flakeid.deep) was refused at start
# keeps what replay brings nowhere, and says so (issue 60, the second and
# third reviews): the state then names the record lost, so that back-fill
# into past units stays refused, the old file put back or the bound raised,
# until the record is started afresh, whose floor covers the replayed unit.
# A mend that dropped the unit repeated 6 of 8 IDs on a promoted standby
# here; one that lowered the whole slot instead used up every unit of a
# primary's slot for good after its own crash recovery (0 of 8 in a fresh
# unit, with a false "every one of them was given").
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $p = flakeid_node('deep_replay_primary', 'flakeid.sno_sequence_min' => 0, 'flakeid.sno_sequence_max' => 7,
	'flakeid.sno_partition' => 7);
sub take
{
	my ($node, $t) = @_;
	my @ids;
	for (1 .. 12)
	{
		my ($ret, $out, $err) = $node->psql('postgres', "SELECT sno_new_at('$t')");
		if ($ret == 0) { push @ids, $out } else { note("refused: $err"); last }
	}
	return @ids;
}
my @a = take($p, '2020-01-01 00:00:00.001+00');
my @b = take($p, '2020-02-01 00:00:00.001+00');
note("A gave " . scalar(@a) . ", B gave " . scalar(@b) . ", deep file " . (-s $p->data_dir . '/flakeid.deep'));
my ($s) = flakeid_standby($p, 'deep_replay_standby');
restart_with($s, 'flakeid.backfill_deep_units_max' => 1);
ok(log_count($s, qr/cannot be used, so back-fill into past time units is refused/) >= 1, 'standby record refused (too many)');
my @c = take($p, '2020-03-01 00:00:00.001+00');
note("C gave " . scalar(@c) . " on the primary: @c");
$p->safe_psql('postgres', 'CHECKPOINT');
my $lsn = $p->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
ok($s->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"), 'replayed');
$s->safe_psql('postgres', 'CHECKPOINT');
# the documented way on: raise the bound, restart
restart_with($s);
$p->stop;
$s->promote;
$s->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
my @c2 = take($s, '2020-03-01 00:00:00.001+00');
note("C gave " . scalar(@c2) . " on the promoted standby: @c2");
my %seen = map { $_ => 1 } @c;
my $dup = grep { $seen{$_} } @c2;
is($dup, 0, 'no back-filled sno in C given twice');
is(sqlstate_of($s, "SELECT sno_new_at('2020-03-01 00:00:00.001+00')"), 'XX001',
	'the promoted standby refuses back-fill into past units: its record lacks a replayed unit');
ok(log_count($s, qr/is kept nowhere: back-fill into past units stays refused until the record is started afresh/) >= 1,
	'its log said so when it replayed the unit');
stop_checked($s);

# a primary's own crash recovery, its record refused at start: a fresh unit is not used up for good
my $q = flakeid_node('deep_replay_alone', 'flakeid.sno_sequence_min' => 0, 'flakeid.sno_sequence_max' => 7,
	'flakeid.sno_partition' => 7, 'flakeid.allow_debug_clock_offset' => 'on');
my @base = take($q, '2019-06-01 00:00:00.001+00');
is(scalar(@base), 8, 'a fresh unit gives its 8 sequences');
$q->safe_psql('postgres', 'CHECKPOINT');
take($q, '2020-01-01 00:00:00.001+00');
take($q, '2020-02-01 00:00:00.001+00');
$q->stop('immediate');
$q->append_conf('postgresql.conf', "flakeid.backfill_deep_units_max = 1\n");
$q->start;
# the record refused as too large for the bound, then lost by the replay: the message says lost, not
# "raise the bound", which leaves it refused (d9ce36e and a8f2448 said raise it)
my $lost_first = message_of($q, "SELECT sno_new_at('2021-06-01 00:00:00.001+00')");
like($lost_first, qr/lacks units replayed from the WAL.*HINT:  Set flakeid.start_afresh = on/s,
	'with the bound still low: the message says the record lacks units recovery replayed, and hints at starting afresh');
unlike($lost_first, qr/Raise flakeid.backfill_deep_units_max/, '... not at raising the bound');
$q->append_conf('postgresql.conf', "flakeid.backfill_deep_units_max = 65536\n");
$q->restart;
is(sqlstate_of($q, "SELECT sno_new_at('2021-06-01 00:00:00.001+00')"), 'XX001',
	'the bound raised again: back-fill into past units still refused (the record lacks what recovery replayed)');
my $lost = message_of($q, "SELECT sno_new_at('2021-06-01 00:00:00.001+00')");
like($lost, qr/HINT:  .*Set flakeid.start_afresh = on/, 'and the hint says to start afresh');
like($lost, qr/ERROR:  .*lacks units replayed from the WAL while it could not be used/,
	'the message says the record lacks units recovery replayed');
unlike($lost, qr/put that very file back/,
	'and the hint does not send the operator to put the file back, which the record lost refuses still (it did on d9ce36e)');
$q->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
$q->restart;
is(sqlstate_of($q, "SET flakeid.debug_clock_offset_ms = 150000; SELECT sno_new(); SELECT sno_new_at(clock_timestamp() + interval '140 s')"), 'ok',
	'started afresh, a unit past the floor back-fills: the slot is not used up');
is(scalar(grep { $_ } map { sqlstate_of($q, "SET flakeid.debug_clock_offset_ms = 150000; SELECT sno_new_at(clock_timestamp() + interval '141 s')") eq 'ok' } 1 .. 7), 7,
	'and gives its other 7 sequences (1.4\'s second mend gave none, for good)');
stop_checked($q);
done_testing();
