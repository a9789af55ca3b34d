# Failover with the clocks apart: a primary whose clock runs 5 s ahead
# (flakeid.debug_clock_offset_ms, allowed on this server) mints with every
# generator while a streaming standby is made from it (pg_basebackup -R) and
# after; then it stops, the standby is promoted and mints with the real clock
# and the same explicit identities (the base backup copied them).  The saved
# mark reaches the standby only through the WAL, so the promoted server must
# resume above everything the old primary issued: no ID in common, and none
# below the old maximum, except sno, which follows its spec (section 5.1)
# and issues below with the other tick-tock, never reusing a (unit,
# tick-tock) the old primary used.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my %format = map { $_->{format} => $_ } formats(stateful => 't');
my @generators = map { $_->{format} } formats(stateful => 't');
sub new_call { my ($g) = @_; return $format{$g}{new}; }
sub type_of { my ($g) = @_; return $format{$g}{type}; }

my $primary = flakeid_node('primary',
	'flakeid.allow_debug_clock_offset' => 'on', 'flakeid.sno_partition' => 5, 'flakeid.siq_shard' => 6,
	'flakeid.kuid_node' => 'db@one', 'flakeid.snowflake_worker' => 7, 'flakeid.snowflake_process' => 8);
$primary->safe_psql('postgres', join('', map { "CREATE TABLE old_$_ (id " . type_of($_) . ");\n" } @generators));

# mint_ahead(N, ROUNDS, PAUSE): a script that mints N IDs of every generator
# per round on the primary, its clock 5 s ahead, each round committed alone
sub mint_ahead
{
	my ($n, $rounds, $pause) = @_;
	my $round = join('', map { "INSERT INTO old_$_ SELECT " . new_call($_) . " FROM generate_series(1, $n);\n" }
		  @generators);
	return "SET flakeid.debug_clock_offset_ms = 5000;\n" . join("SELECT pg_sleep($pause);\n", ($round) x $rounds);
}

# the base backup is taken while the primary mints ...
my ($standby, $minted) = flakeid_standby($primary, 'standby', mint_ahead(20000, 6, 0.3));
is($minted, 0, 'a standby made with pg_basebackup -R while the primary mints with its clock 5 s ahead');
# ... and minting goes on for seconds after it: these marks reach the standby through the WAL only
$primary->safe_psql('postgres', mint_ahead(10000, 8, 0.5));
# (a back-fill floor, as a cutover's step raises it: it reaches the standby the same way)
my $floor = $primary->safe_psql('postgres', "SELECT flakeid_backfill_floor_raise('2024-06-01 00:00:00+00')");
is($primary->safe_psql('postgres', 'SELECT count(*) FROM old_kuid'), '200000',
	'the primary minted 200,000 IDs of every generator');
my $lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"),
	'the standby replayed everything');
is($standby->safe_psql('postgres', 'SELECT count(*) FROM old_snowflake'), '200000',
	"the standby holds the old primary's IDs");

# the old primary goes away; the standby takes over with the real clock
$primary->stop('fast');
# the floor is the promoted server's as soon as pg_promote returns: back-fill
# below it is refused from then on, and a monitor must not read "no floor"
# (1.4: NULL until the renewer's next pass took the primary's bounds up)
is($standby->safe_psql('postgres', 'SELECT pg_promote(true); SELECT flakeid_backfill_floor()'), "t\n$floor",
	"the floor raised on the old primary is the promoted server's at once ($floor)");
is(sqlstate_of($standby, "SELECT sno_new_at('2024-05-01 00:00:00+00')"), '55000', 'and back-fill below it is refused (55000)');
is($standby->safe_psql('postgres',
		"SELECT pg_is_in_recovery(), current_setting('flakeid.debug_clock_offset_ms'), current_setting('flakeid.sno_partition')"),
	'f|0|5', 'the promoted server reads the real clock, with the same identities');
$standby->safe_psql('postgres',
	join('', map { "CREATE TABLE new_$_ AS SELECT " . new_call($_) . " AS id FROM generate_series(1, 50000);\n" }
		  @generators));
for my $g (@generators)
{
	is($standby->safe_psql('postgres', "SELECT count(*) FROM new_$g n JOIN old_$g o USING (id)"), '0',
		"$g: none of the promoted server's 50,000 IDs was issued by the old primary");
	if ($g eq 'sno')
	{
		# bytes 0..4: the time unit and the tick-tock
		is($standby->safe_psql('postgres',
				"SELECT count(*) FROM new_sno n WHERE substr(sno_to_bytea(n.id), 1, 5) IN
				   (SELECT DISTINCT substr(sno_to_bytea(id), 1, 5) FROM old_sno)"),
			'0', 'sno: no (unit, tick-tock) of the old primary is taken up again');
	}
	else
	{
		is($standby->safe_psql('postgres', "SELECT count(*) FROM new_$g WHERE id <= (SELECT max(id) FROM old_$g)"),
			'0', "$g: every new ID is above the old primary's maximum");
	}
}
$standby->stop;
done_testing();
