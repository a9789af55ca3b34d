# A real clock step back under load: the whole server runs on one faked
# clock (test/lib/clock_offset.c, its offset read from a file on every clock read), 8
# clients mint every stateful generator's IDs, and the clock steps back 2 s
# for every server process at once.  sno's first step back toggles its
# tick-tock and goes on: no call waits, it counts one regression (the
# toggle), not one per backend or per unit boundary, and no ID repeats.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();

my $clients = 8;
my $work = PostgreSQL::Test::Utils::tempdir();
PostgreSQL::Test::Utils::append_to_file("$work/offset", "+0\n");
chmod(0644, "$work/offset");
# (the clients read the real clock; only the server is faked)
my $node = flakeid_node('step_back', 'flakeid.sno_coarse_clock' => 'off',
	-env => clock_env("$work/offset"));
sub sql { return $node->safe_psql('postgres', $_[0]); }
sql('CREATE TABLE ids (n bigserial, client int, generator text, id text)');
sql('CREATE TABLE stop (x int)');
sql('SELECT 1 FROM sno_new()');
sql('CREATE TABLE before AS SELECT generator, exhausted_waits, clock_regressions FROM flakeid_generators');
my @generators = formats(stateful => 't');
my $values = join(', ', map { "(\$1, '$_->{format}', $_->{new}::text)" } @generators);
my @clients = map {
	# until the test says stop (a row in stop, seen by each loop's fresh snapshot), once
	# sno has toggled; at most 5 minutes of server time (a machine that slow fails the checks)
	my $c = $_;
	psql_start($node, "DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
		WHILE NOT EXISTS (SELECT FROM stop) AND clock_timestamp() < t0 + interval '5 min' LOOP
			INSERT INTO ids (client, generator, id) VALUES " . ($values =~ s/\$1/$c/gr) . ";
		END LOOP; END \$\$")
} 1 .. $clients;
# the step comes once every client has minted sno IDs before it: each one's
# open transaction then holds sno's horizon (flakeid_horizon_holders)
ok($node->poll_query_until('postgres', "SELECT count(DISTINCT pid) = $clients FROM flakeid_horizon_holders WHERE generator = 'sno'"),
	"all $clients clients are minting before the step");
# the step back, for every server process at once (a rename: no reader sees a partial file)
PostgreSQL::Test::Utils::append_to_file("$work/offset.new", "-2\n");
chmod(0644, "$work/offset.new");
rename("$work/offset.new", "$work/offset") or die "offset: $!";
# the clients go on until sno has counted the step (its toggle: some client minted after it),
# however long the machine takes to get there (a fixed 3 s of minting was too short under load)
ok($node->poll_query_until('postgres', "SELECT a.clock_regressions > b.clock_regressions
        FROM flakeid_generators a JOIN before b USING (generator) WHERE generator = 'sno'"),
	'sno counts the step back');
sql('INSERT INTO stop VALUES (1)');
for my $client (@clients)
{
	my ($status, undef, $err) = psql_finish($client);
	diag("a client failed: $err") if $status;
}
my $minted = sql("SELECT count(*) FROM ids WHERE generator = 'sno'");
cmp_ok($minted, '>=', 1000, "$clients clients minted $minted sno IDs (and as many of every other stateful generator) across the step back");
is(sql('SELECT count(*) - count(DISTINCT (generator, id)) FROM ids'), '0',
	'no ID repeats, of ' . join(', ', map { $_->{format} } @generators));
is(sql("SELECT a.exhausted_waits - b.exhausted_waits, a.clock_regressions - b.clock_regressions
        FROM flakeid_generators a JOIN before b USING (generator) WHERE generator = 'sno'"), '0|1',
	'sno: no call waited, and the step counted one clock regression (the toggle)');
is(sql("SELECT count(DISTINCT sno_ticktock(id::sno)) FROM ids WHERE generator = 'sno'"), '2',
	'sno IDs carry both tick-tock values: the step toggled it');
# the tick-tock of the first ID is the one before the step; the other one starts over 1 s earlier
is(sql("WITH s AS (SELECT n, sno_ticktock(id::sno) AS tt, sno_time(id::sno) AS t FROM ids WHERE generator = 'sno')
        SELECT (SELECT max(t) FROM s WHERE tt = (SELECT tt FROM s ORDER BY n LIMIT 1))
             - (SELECT min(t) FROM s WHERE tt <> (SELECT tt FROM s ORDER BY n LIMIT 1)) > interval '1 s'"), 't',
	'the clock really stepped back: the toggled tick-tock starts over 1 s before the other one ends');
stop_checked($node);
done_testing();
