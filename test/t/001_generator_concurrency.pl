# Several backends generate IDs at once against one shared generator, for
# every format: no duplicates, strictly increasing per backend where the
# format promises it (formats.tsv's ordered), and each format's own rules
# of its shared counter.  Meta out of range is refused before anything is
# issued.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my ($backends, $per_backend) = (4, 50000);
my $node = flakeid_node('concurrency');

# 16 clients with the clock left alone: clock_regressions stays where it was
my $regressions = 'SELECT sum(clock_regressions) FROM flakeid_generators';
my $before = $node->safe_psql('postgres', $regressions);
my $every_live = join(', ', map { "count($_->{new})" } formats(stateful => 't'));
psql_together($node, ("SELECT $every_live FROM generate_series(1, 20000)") x 16);
is($node->safe_psql('postgres', $regressions), $before,
	'16 clients minting at once with no clock change: clock_regressions does not move');

# what a format's shared counter promises beyond no duplicates and order:
# checks over concurrency_ids, keyed by format
my %own_rules = (
	sno => [
		[ 'SELECT count(DISTINCT sno_partition(id)) FROM concurrency_ids', '1', 'sno: one partition for the whole server' ],
		[ "SELECT count(*) FROM concurrency_ids WHERE abs(extract(epoch FROM sno_time(id) - now())) > 600", '0',
			'sno: every ID carries the current time' ],
		# the pool of a unit is shared by every backend: sequences in a unit are distinct and start at the minimum
		[ 'SELECT count(*) FROM (SELECT sno_time(id), sno_ticktock(id), min(sno_sequence(id)) AS first
		   FROM concurrency_ids GROUP BY 1, 2) u WHERE first <> 0', '0', 'sno: the first ID of every unit has the pool minimum' ],
		# the clock did not step back, so racing backends must not look like a regression
		[ 'SELECT count(*) FROM concurrency_ids WHERE sno_ticktock(id) <> 0', '0',
			'sno: no tick-tock toggles while the clock only moves forward' ],
	],
	siq => [
		[ 'SELECT count(*) FROM (SELECT siq_time(id), min(siq_serial(id)) AS first FROM concurrency_ids GROUP BY 1) t WHERE first <> 0',
			'0', 'siq: the serials of every tick start at 0 (one counter per kind, shared)' ],
	],
	kuid => [
		[ 'SELECT count(*) FROM (SELECT kuid_time(id), min(kuid_seq(id)) AS first FROM concurrency_ids GROUP BY 1) t WHERE first <> 0',
			'0', 'kuid: the sequence of every tick starts at 0 (one counter for the server)' ],
	],
	kuid96 => [
		[ 'SELECT count(DISTINCT kuid96_node(id)) FROM concurrency_ids', '1', 'kuid96: one node for the whole server' ],
	],
	snowflake => [
		[ 'SELECT count(*) FROM (SELECT snowflake_time(id), count(*) AS n, min(snowflake_sequence(id)) AS first
		   FROM concurrency_ids GROUP BY 1) t WHERE first <> 0 OR n > 4096', '0',
			'snowflake: every millisecond starts at sequence 0 and holds at most 4096 IDs' ],
		[ 'SELECT count(DISTINCT (snowflake_worker(id), snowflake_process(id))) FROM concurrency_ids', '1',
			'snowflake: one worker and process for the whole server' ],
	]);

for my $f (formats())
{
	my $call = $f->{new};
	$node->safe_psql('postgres', "SET client_min_messages = warning; DROP TABLE IF EXISTS concurrency_ids;
		CREATE UNLOGGED TABLE concurrency_ids (backend int, n int, id $f->{type})");
	psql_together($node,
		map { "INSERT INTO concurrency_ids SELECT $_, n, $call FROM generate_series(1, $per_backend) n" } 1 .. $backends);
	is($node->safe_psql('postgres', 'SELECT count(*) FROM concurrency_ids'), $backends * $per_backend,
		"$call: $backends backends x $per_backend IDs stored");
	is($node->safe_psql('postgres', 'SELECT count(*) - count(DISTINCT id) FROM concurrency_ids'), '0',
		"$call: no duplicate IDs");
	if ($f->{ordered} eq 't')
	{
		is($node->safe_psql('postgres', 'SELECT count(*) FROM (SELECT id <= lag(id) OVER (PARTITION BY backend ORDER BY n)
		    AS backwards FROM concurrency_ids) s WHERE backwards'), '0', "$call: IDs strictly increase within each backend");
	}
	is($node->safe_psql('postgres', $_->[0]), $_->[1], $_->[2]) for @{ $own_rules{ $f->{format} } // [] };
}

# two siq kinds at once: each has its own counter, and the qualifier keeps them apart
$node->safe_psql('postgres', 'CREATE UNLOGGED TABLE concurrency_kinds (id siq)');
psql_together($node,
	map { "INSERT INTO concurrency_kinds SELECT siq_new('$_') FROM generate_series(1, $per_backend)" }
	  qw(user message user message));
is($node->safe_psql('postgres', 'SELECT count(*) - count(DISTINCT id) FROM concurrency_kinds'), '0',
	'siq: two kinds from 4 backends, no duplicates');

# kuid and kuid96 share their counter: local IDs given this server's node never equal global ones
$node->safe_psql('postgres', 'CREATE UNLOGGED TABLE concurrency_kuids (id kuid96)');
psql_together($node,
	map { "INSERT INTO concurrency_kuids SELECT $_ FROM generate_series(1, $per_backend)" }
	  ('kuid96_new()', 'kuid96(kuid_new())', 'kuid96_new()', 'kuid96(kuid_new())'));
is($node->safe_psql('postgres', 'SELECT count(*), count(*) - count(DISTINCT id) FROM concurrency_kuids'),
	4 * $per_backend . '|0', 'kuid96_new() and kuid96(kuid_new()) from 4 backends: no duplicates');

# meta out of range is 22003, before anything is issued
is(sqlstate_of($node, 'SELECT sno_new(256)'), '22003', 'sno_new(256) is ERROR 22003');
is(sqlstate_of($node, 'SELECT sno_new(-1)'), '22003', 'sno_new(-1) is ERROR 22003');
is(sqlstate_of($node, 'SELECT sno_new_at(now(), 300)'), '22003', 'sno_new_at with meta 300 is ERROR 22003');

# the derived partition is stable: the same server derives the same value in every backend
is($node->safe_psql('postgres', 'SELECT sno_partition(sno_new())'),
	$node->safe_psql('postgres', 'SELECT sno_partition(sno_new_at(now()))'),
	'sno_new and sno_new_at use the same partition');
stop_checked($node);
done_testing();
