# One unit back-filled to its last sequence costs that unit, not every
# unit's pool (issue 46): for every stateful generator, a full unit and a
# quarter-full one, then two restarts (clean, then a crash), then 10,000
# other units, an untouched unit taking three quarters of its pool, and more
# of the quarter-full one.  The deep units reach a streaming standby through
# the WAL, so once promoted it still refuses the full unit and repeats none
# of the primary's IDs.  (1.2 saved one low-water per generator: after the
# restart every unit had a pool of 0.)
use strict;
use warnings;
use FlakeidTest;
use Test::More;

# each generator's back-fill pool per unit, and a step that lands in the next unit
my %pool = (sno => 65536, siq => 2048, kuid => 16384, kuid96 => 16384, snowflake => 4096);
my %step = (sno => '4 ms', siq => '2 ms', kuid => '2 ms', kuid96 => '2 ms', snowflake => '2 ms');
my @generators = formats(stateful => 't');
is(join(' ', sort map { $_->{format} } @generators), join(' ', sort keys %pool), 'a pool for every stateful generator');

my $primary = flakeid_node('deep');
my ($standby) = flakeid_standby($primary, 'deep_standby');
$primary->safe_psql('postgres', 'CREATE TABLE given (format text, id text)');

# times of their own per generator (kuid and kuid96 share a counter): a day apart
my %day = map { $generators[$_]{format} => $_ + 1 } 0 .. $#generators;
sub at { my ($g, $offset) = @_; return "(timestamptz '2020-02-01 00:00:00+00' + interval '$day{$g->{format}} days' + $offset)"; }
sub full_unit { return at($_[0], "interval '0 s'"); }
sub quarter_unit { return at($_[0], "interval '1 hour'"); }
sub untouched_unit { return at($_[0], "interval '2 hours'"); }

# back-fills N IDs at TIME-SQL (g, the row number, may appear in it) into `given`: 'ok' or the SQLSTATE
sub give
{
	my ($node, $g, $n, $time) = @_;
	return sqlstate_of($node, "INSERT INTO given SELECT '$g->{format}', " . backfill_call($g, $time)
		  . "::text FROM generate_series(1, $n) g");
}
sub repeats
{
	my ($node, $g) = @_;
	return $node->safe_psql('postgres', "SELECT count(*) - count(DISTINCT id) FROM given WHERE format = '$g->{format}'");
}

for my $g (@generators)
{
	my ($f, $p) = ($g->{format}, $pool{ $g->{format} });
	is(give($primary, $g, $p, full_unit($g)), 'ok', "$f: one unit back-filled to its last sequence ($p)");
	is(give($primary, $g, 1, full_unit($g)), '54000', "$f: one more there is ERROR 54000");
	is(give($primary, $g, $p / 4, quarter_unit($g)), 'ok', "$f: another unit back-filled to a quarter (" . $p / 4 . ')');
}

$primary->stop('fast');
$primary->start;
$primary->stop('immediate');
$primary->start;

for my $g (@generators)
{
	my ($f, $p) = ($g->{format}, $pool{ $g->{format} });
	is(give($primary, $g, 1, full_unit($g)), '54000', "$f: after two restarts, the full unit is still full");
	is(give($primary, $g, 10000, at($g, "interval '1 day' / 2 + g * interval '$step{$f}'")), 'ok',
		"$f: and 10,000 other units are back-filled");
	is(give($primary, $g, $p * 3 / 4, untouched_unit($g)), 'ok', "$f: an untouched unit takes three quarters of its pool");
	is(give($primary, $g, $p / 4, quarter_unit($g)), 'ok', "$f: the quarter-full unit takes another quarter");
	is(repeats($primary, $g), '0', "$f: no ID back-filled twice across the three lifetimes");
}

# the standby replayed the deep units: promoted, it refuses the full units and repeats nothing
my $lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"), 'the standby replayed everything');
$primary->stop('fast');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
for my $g (@generators)
{
	my ($f, $p) = ($g->{format}, $pool{ $g->{format} });
	is(give($standby, $g, 1, full_unit($g)), '54000', "$f: the promoted standby refuses the full unit");
	is(give($standby, $g, $p / 8, quarter_unit($g)) . ' ' . repeats($standby, $g), 'ok 0',
		"$f: it back-fills the quarter-full unit further, repeating none of the primary's IDs");
}
stop_checked($standby);
done_testing();
