# A used-up pool is told to the server log, as sno's SequenceOverflowNotification
# tells its user: the first at once, then at most one LOG line a minute per
# generator, with the count since the line before; exhausted_waits counts
# them all.  A server with a 4-value sno pool, so one backend uses it up in
# every 4 ms unit; the minute is crossed with flakeid.debug_clock_offset_ms.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = flakeid_node('exhaustion_log', 'flakeid.allow_debug_clock_offset' => 'on',
	'flakeid.sno_sequence_min' => 0, 'flakeid.sno_sequence_max' => 3);
sub sql { return $node->safe_psql('postgres', $_[0]); }
sub lines { my ($g) = @_; return grep { /LOG:  generator "$g" used up its pool/ } split /\n/, slurp_file($node->logfile); }
sub waits { return sql("SELECT exhausted_waits FROM flakeid_generators WHERE generator = '$_[0]'"); }
sub said { my ($line) = @_; return ($line // '') =~ s/^.*LOG:  //r; }

is(scalar(lines('sno')), 0, 'no line before any pool is used up');
is(sql('SELECT count(DISTINCT sno_new()) FROM generate_series(1, 200)'), '200', '200 sno IDs from a pool of 4 per unit, all distinct');
my $first_waits = waits('sno');
cmp_ok($first_waits, '>=', 40, "they waited for the next unit $first_waits times");
my @lines = lines('sno');
is(scalar(@lines), 1, 'the first used-up pool is logged at once, in one line');
like($lines[0] // '', qr/used up its pool 1 time since the server started$/, 'the line says so: ' . said($lines[0]));
like(slurp_file($node->logfile), qr/LOG:  generator "sno" used up its pool[^\n]*\n[^\n]*DETAIL:  Each time, a call waited for the next unit \(4000 microseconds\)/,
	'its DETAIL says what the wait was');

sql('SELECT count(sno_new()) FROM generate_series(1, 200)');
is(scalar(lines('sno')), 1, 'more waits within the minute add no line');

# 61 s later on the generators' clock: the next used-up pool is logged with the count since the first line
my $before = waits('sno');
sql('SET flakeid.debug_clock_offset_ms = 61000; SELECT count(sno_new()) FROM generate_series(1, 20)');
@lines = lines('sno');
is(scalar(@lines), 2, 'a minute later, the next used-up pool gives a second line');
like($lines[-1], qr/used up its pool $before times since \d{4}-\d{2}-\d{2} /,
	"it counts every wait since the first line ($before, as exhausted_waits says): " . said($lines[-1]));

# each generator has its own minute
# (a backend mints faster than 4,096 a millisecond, but on a loaded 2-core
# machine not always: 100,000 once used the pool up 9 times, not the 10
# this asked for, and 200,000 once only once; two waits are what the single
# line needs, so rounds of 200,000 go on until there were two, at most 25;
# rounds that took more than a minute may have logged a line a minute)
my ($rounds, $distinct) = (0, 1);
my $began = sql('SELECT clock_timestamp()');
for (1 .. 25)
{
	last if waits('snowflake') >= 2;
	$rounds++;
	$distinct &&= sql('SELECT count(DISTINCT snowflake_new()) FROM generate_series(1, 200000)') eq '200000';
}
my $minutes = sql("SELECT floor(extract(epoch FROM clock_timestamp() - '$began') / 60)");
ok($distinct, "rounds of 200,000 snowflakes, 4,096 per millisecond, each all distinct ($rounds rounds)");
cmp_ok(waits('snowflake'), '>=', 2, 'the snowflake pool was used up ' . waits('snowflake') . ' times (at least twice)');
my $snowflake_lines = scalar(lines('snowflake'));
ok($snowflake_lines >= 1 && $snowflake_lines <= 1 + $minutes,
	"snowflake gets its own line while sno's minute runs ($snowflake_lines, in $rounds rounds over $minutes whole minutes)");
is(scalar(lines('sno')), 2, "and sno's lines stay two");
stop_checked($node);
done_testing();
