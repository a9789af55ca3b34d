# A standby whose record of deep units (flakeid.deep) was refused at start
# still keeps what replay brings (issue 60, a second review): the primary's
# deep unit lowers the whole slot's low-water on the standby instead, so
# that once an operator takes a documented way on (raises the bound, puts
# the file back) and the standby is promoted, no back-filled ID repeats.
# A mend that dropped the unit instead repeated 6 of 8 IDs here.
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
		if ($ret == 0) { push @ids, $out } else { diag("refused: $err"); last }
	}
	return @ids;
}
my @a = take($p, '2020-01-01 00:00:00.001+00');
my @b = take($p, '2020-02-01 00:00:00.001+00');
diag("A gave " . scalar(@a) . ", B gave " . scalar(@b) . ", deep file " . (-s $p->data_dir . '/flakeid.deep'));
my ($s) = flakeid_standby($p, 'deep_replay_standby');
restart_with($s, 'flakeid.backfill_deep_units_max' => 1);
ok(log_count($s, qr/cannot be used, so back-fill into past time units is refused/) >= 1, 'standby record refused (too many)');
my @c = take($p, '2020-03-01 00:00:00.001+00');
diag("C gave " . scalar(@c) . " on the primary: @c");
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
diag("C gave " . scalar(@c2) . " on the promoted standby: @c2");
my %seen = map { $_ => 1 } @c;
my $dup = grep { $seen{$_} } @c2;
is($dup, 0, 'no back-filled sno in C given twice');
stop_checked($s);
done_testing();
