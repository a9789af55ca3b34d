# The portable edition's generators (portable/source/generic.sql,
# flakeid_next): never the same ID twice across sessions minting at once
# (4 x 250,000), a kill -9 of the postmaster mid-load, and a promoted
# standby; a cancel mid-call leaves no generator's lock held.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = tree_root();
# (no C library loaded, as on a managed server: flakeid.* settings are
# placeholders any role may SET)
my $node = flakeid_node('portable_gen', -extension => 0, shared_preload_libraries => '');
$node->safe_psql('postgres', 'CREATE SCHEMA ids');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres') . ' options=--search_path=ids',
	'-f', "$root/portable/flakeid_portable.sql" ], 'the plain script installs');
sub q_ { my ($sql) = @_; return $node->safe_psql('postgres', "SET search_path = ids; $sql"); }
q_('CREATE TABLE ids.minted (id ids.sno, s bigint, k ids.kuid, q ids.siq)');

# 4 sessions at once: 250,000 sno each (1,000,000 IDs), then 25,000 rows of
# every generator each (the rule is one function for all: flakeid_next)
psql_together($node, map { "SET search_path = ids; INSERT INTO minted (id) SELECT sno_new() FROM generate_series(1, 250000)" } 1 .. 4);
is(q_('SELECT count(*), count(DISTINCT id) FROM minted'), '1000000|1000000', '4 sessions minted 1,000,000 sno at once: 0 repeated');
q_('TRUNCATE minted');
psql_together($node, map { "SET search_path = ids; INSERT INTO minted SELECT sno_new(), snowflake_new(), kuid_new(), siq_new('user') FROM generate_series(1, 25000)" } 1 .. 4);
is(q_('SELECT count(*), count(DISTINCT id), count(DISTINCT s), count(DISTINCT k), count(DISTINCT q) FROM minted'),
	'100000|100000|100000|100000|100000', '4 sessions minted 100,000 rows of snowflake, kuid and siq too: 0 repeated');
is(q_(q{SELECT count(*) FROM pg_locks WHERE relation IN ('ids.flakeid_sno_lock'::regclass, 'ids.flakeid_siq_lock'::regclass, 'ids.flakeid_kuid_lock'::regclass, 'ids.flakeid_snowflake_lock'::regclass) AND pid <> pg_backend_pid()}), 0, "no generator's lock is left held");

# a cancel (statement_timeout) in the middle of minting leaves no lock held
is(sqlstate_of($node, "SET search_path = ids; SET statement_timeout = '300ms'; SELECT count(sno_new()) FROM generate_series(1, 10000000)"),
	'57014', 'a statement_timeout ends a long minting call');
is(q_(q{SELECT count(*) FROM pg_locks WHERE relation IN ('ids.flakeid_sno_lock'::regclass, 'ids.flakeid_siq_lock'::regclass, 'ids.flakeid_kuid_lock'::regclass, 'ids.flakeid_snowflake_lock'::regclass) AND pid <> pg_backend_pid()}), 0, "... and no generator's lock is left held by it");
is(q_(q{SET lock_timeout = '2s'; SELECT count(sno_new()) FROM generate_series(1, 10)}), 10, '... another session mints at once');

# a role that only mints (any role may, as in the C edition): it needs no
# right on the state sequences, and cannot move the state every session
# shares, nor hold a generator's lock: no setval, a flakeid_next that takes
# no unit or pool, a lock table it may not lock (the first design's
# advisory lock any role could hold, 58d7802), and settings it may SET
# reach its own IDs only (the snowflake epoch is fixed at install)
$node->safe_psql('postgres', q{CREATE ROLE minter LOGIN; GRANT USAGE ON SCHEMA ids TO minter});
sub as_minter { my ($sql) = @_; return $node->safe_psql('postgres', "SET ROLE minter; SET search_path = ids; $sql"); }
is(as_minter(q{SELECT count(DISTINCT sno_new()) + count(DISTINCT snowflake_new()) + count(DISTINCT kuid_new()) FROM generate_series(1, 100)}),
	300, 'a role with no right on the state sequences mints every type');
is(sqlstate_of($node, q{SET ROLE minter; SELECT setval('ids.flakeid_sno_state', 1 << 60)}), '42501',
	'... and cannot set a state ahead with setval (42501)');
is(sqlstate_of($node, q{SET ROLE minter; SELECT ids.flakeid_next('ids.flakeid_sno_state', 1 << 40, 16, 0, 65535, 1 << 45, 'sno')}), '42883',
	'... nor through flakeid_next, which takes no unit (42883)');
is(sqlstate_of($node, q{SET ROLE minter; SELECT ids.flakeid_next('siq', 9)}), '22023', '... nor a pool of its choosing (22023)');
for my $g (qw(sno siq kuid snowflake))
{
	is(sqlstate_of($node, "SET ROLE minter; BEGIN; LOCK TABLE ids.flakeid_${g}_lock IN ACCESS SHARE MODE"), '42501',
		"... nor take $g\'s lock, in any mode (42501)");
}
as_minter(q{SET flakeid.sno_sequence_min = 65532; SET flakeid.snowflake_epoch_ms = 0; SELECT count(sno_new()) + count(snowflake_new()) FROM generate_series(1, 20000)});
is(q_(q{SELECT abs(extract(epoch FROM sno_time(sno_new()) - clock_timestamp())) < 5, abs(extract(epoch FROM snowflake_time(snowflake_new()) - clock_timestamp())) < 5}),
	't|t', '20,000 calls under a pool of 4 and another snowflake epoch, SET by that role, left the shared states at the clock');
# (the twelfth review's probe: an epoch a millisecond apart, call by call)
is(as_minter(q{CREATE TEMP TABLE s (id bigint);
	DO $$ BEGIN FOR i IN 1 .. 20000 LOOP
		PERFORM set_config('flakeid.snowflake_epoch_ms', (1420070400000 + i % 2)::text, false);
		INSERT INTO s VALUES (snowflake_new()); END LOOP; END $$;
	SELECT count(*) - count(DISTINCT id) FROM s}), 0, '20,000 snowflakes under an epoch SET a millisecond apart, call by call: 0 repeated');

# the script installs only into a schema of its own
$node->safe_psql('postgres', q{CREATE SCHEMA crowded; CREATE FUNCTION crowded.f() RETURNS int LANGUAGE sql RETURN 1;
	CREATE SCHEMA open_to_all; GRANT CREATE ON SCHEMA open_to_all TO PUBLIC});
for my $case ([ 'crowded', '55000', 'a schema that already holds functions' ], [ 'open_to_all', '42501', 'a schema where PUBLIC may create' ])
{
	my ($schema, $state, $what) = @$case;
	my ($rc, $out, $err) = $node->psql('postgres', undef, extra_params => [ '-v', 'VERBOSITY=sqlstate', '-f', "$root/portable/flakeid_portable.sql" ],
		on_error_stop => 1, connstr => $node->connstr('postgres') . " options=--search_path=$schema");
	like($err, qr/ERROR:\s+$state/, "the script refuses $what ($state)");
}

# kill -9 of the postmaster while 2 sessions mint, then more IDs
q_('TRUNCATE minted');
q_(q{CREATE PROCEDURE ids.load() LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1 .. 200 LOOP
	INSERT INTO ids.minted SELECT ids.sno_new(), ids.snowflake_new(), ids.kuid_new(), ids.siq_new('user') FROM generate_series(1, 500);
	COMMIT; END LOOP; END $$});
my @jobs = map { psql_start($node, 'CALL ids.load()') } 1 .. 2;
# (each session commits batches of 500; the kill comes once some have
# committed, while others are in flight)
$node->poll_query_until('postgres', 'SELECT count(*) >= 2000 FROM ids.minted') or die 'no batch committed';
my $before = q_('SELECT count(*) FROM minted');
# the crash takes the loaders' backends with the postmaster (a backend left
# alone would run its queued statements to the end: no transaction in flight)
my @backends = split /\n/, q_(q{SELECT pid FROM pg_stat_activity WHERE query LIKE 'CALL ids.load()%' AND pid <> pg_backend_pid()});
my $postmaster = $node->{_pid};
$node->kill9;
kill 'KILL', @backends;
psql_finish($_) for @jobs;
# (as 035: the children notice the postmaster's death and exit; until they
# have, the shared memory is held and a start is refused)
poll_until(sub { !kill(0, $postmaster) });
ok(poll_until(sub { my $up = $node->start(fail_ok => 1); $node->{_pid} = undef unless $up; $up }, interval => 0.2),
	'after a SIGKILL of the postmaster mid-load, the server starts');
my $survived = q_('SELECT count(*) FROM minted');
ok($survived >= $before && $survived < 200000, "$survived rows committed before the kill survive it (the rest were in flight or not begun)");
q_("INSERT INTO minted SELECT sno_new(), snowflake_new(), kuid_new(), siq_new('user') FROM generate_series(1, 50000)");
is(q_('SELECT count(*) - count(DISTINCT id), count(*) - count(DISTINCT s), count(*) - count(DISTINCT k), count(*) - count(DISTINCT q) FROM minted'),
	'0|0|0|0', 'after the crash and restart, 50,000 more rows: 0 repeated');

# a standby streams the sequences; promoted, it continues without repeats
my ($standby) = flakeid_standby($node, 'portable_standby');
q_("INSERT INTO minted SELECT sno_new(), snowflake_new(), kuid_new(), siq_new('user') FROM generate_series(1, 20000)");
my $lsn = $node->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
$standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn") or die 'the standby did not catch up';
is($standby->safe_psql('postgres', 'SELECT count(*) FROM ids.minted'), q_('SELECT count(*) FROM minted'), 'the standby holds every row');
$node->stop('immediate');
$standby->promote;
$standby->safe_psql('postgres', "SET search_path = ids; INSERT INTO minted SELECT sno_new(), snowflake_new(), kuid_new(), siq_new('user') FROM generate_series(1, 20000)");
is($standby->safe_psql('postgres', 'SELECT count(*) - count(DISTINCT id), count(*) - count(DISTINCT s), count(*) - count(DISTINCT k), count(*) - count(DISTINCT q) FROM ids.minted'),
	'0|0|0|0', 'the promoted standby continues: 20,000 more rows, 0 repeated');

done_testing();
