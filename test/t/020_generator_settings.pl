# Server settings that need a server of their own: the sequence pool, an
# explicit identity, the epoch, refused values, a server without flakeid
# preloaded, the clock offset's switch, and who may read flakeid_generators.
# Each case starts a server with its settings.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $cases = 0;
sub server   # server(SETTING => VALUE, ...): a new server with flakeid preloaded and these settings
{
	return flakeid_node('settings_' . ++$cases, @_);
}
sub sql { my ($node, $sql) = @_; return $node->safe_psql('postgres', $sql); }
sub first_error { my ($text) = @_; my ($line) = $text =~ /^(ERROR:.*)$/m; return $line // ''; }

# an invalid pool: generation fails with 22023 naming both settings
my $node = server('flakeid.sno_sequence_min' => 10, 'flakeid.sno_sequence_max' => 12);
is(sqlstate_of($node, 'SELECT sno_new()'), '22023', 'pool 10..12 (3 values): sno_new() is ERROR 22023');
is(sqlstate_of($node, 'SELECT sno_new_at(now())'), '22023', 'pool 10..12: sno_new_at() is ERROR 22023');
like(message_of($node, 'SELECT sno_new()'), qr/flakeid.sno_sequence_min \(10\) and flakeid.sno_sequence_max \(12\)/,
	'the error names both settings and their values');
stop_checked($node);

$node = server('flakeid.sno_sequence_min' => 200, 'flakeid.sno_sequence_max' => 100);
is(sqlstate_of($node, 'SELECT sno_new()'), '22023', 'min > max: sno_new() is ERROR 22023');
stop_checked($node);

# the smallest pool (4 values) works and is shared: 2 backends x 1000 IDs
# need at least 500 units (2 s) and must wait rather than wrap
# (and with the precise clock, each ID's time is the unit of its call)
$node = server('flakeid.sno_sequence_min' => 100, 'flakeid.sno_sequence_max' => 103, 'flakeid.sno_partition' => 4660,
	'flakeid.siq_shard' => 77, 'flakeid.siq_domain' => 'example.com', 'flakeid.sno_coarse_clock' => 'off');
sql($node, 'CREATE UNLOGGED TABLE t (b int, n int, id sno)');
psql_together($node, map { "INSERT INTO t SELECT $_, n, sno_new() FROM generate_series(1, 1000) n" } 1, 2);
is(sql($node, 'SELECT count(*), count(DISTINCT id), min(sno_sequence(id)), max(sno_sequence(id)), count(DISTINCT sno_time(id)) >= 500 FROM t'),
	'2000|2000|100|103|t', 'pool 100..103: 2000 distinct IDs, sequences within the pool, waits for new units');
is(sql($node, 'SELECT count(*) FROM (SELECT id <= lag(id) OVER (PARTITION BY b ORDER BY n) AS back FROM t) s WHERE back'), '0',
	'pool 100..103: increasing within each backend');
is(sql($node, 'SELECT DISTINCT sno_partition(id) FROM t'), '4660', 'flakeid.sno_partition=4660 is written into sno_new() IDs');
is(sql($node, 'SELECT sno_partition(sno_new_at(now())), sno_sequence(sno_new_at(now())) BETWEEN 100 AND 103'), '4660|t',
	'sno_new_at uses the partition and the pool');
is(sql($node, "SELECT siq_shard(x), siq_domain(x), siq_shard(y), siq_domain(y) FROM (SELECT siq_new('user') x, siq_new_at(now(), 'tag') y) s"),
	'77|2261653831|77|2261653831', 'flakeid.siq_shard=77 and flakeid.siq_domain=example.com are written into siq IDs');
is(sql($node, "SELECT clock FROM flakeid_generators WHERE generator = 'sno'"), 'precise', 'flakeid.sno_coarse_clock=off: sno reads the precise clock');
is(sql($node, "SELECT count(*), count(*) FILTER (WHERE sno_time(id) <= before - interval '4 ms' OR sno_time(id) > after)
               FROM (SELECT clock_timestamp() AS before, sno_new() AS id, clock_timestamp() AS after FROM generate_series(1, 400)) s"),
	'400|0', "flakeid.sno_coarse_clock=off: every ID's unit holds its call");
stop_checked($node);

# kuid96 carries the fingerprint of flakeid.kuid_node; snowflakes the worker,
# process and epoch settings (the epoch: suou's JAN_1_2020, a CET midnight)
$node = server('flakeid.kuid_node' => 'pg@db1', 'flakeid.snowflake_worker' => 17, 'flakeid.snowflake_process' => 9,
	'flakeid.snowflake_epoch_ms' => 1577833200000);
# 124480081 is the spec §5 hash of "pg@db1", worked out by hand from the algorithm
is(sql($node, "SELECT kuid96_node(kuid96_new()) = kuid_node_hash('pg\@db1'), kuid96_node(kuid96_new_at(now())), kuid96_node(kuid96(kuid_new()))"),
	't|124480081|124480081', 'flakeid.kuid_node=pg@db1: kuid96_new, kuid96_new_at and kuid96(kuid) carry its fingerprint');
is(sql($node, 'SELECT snowflake_worker(x), snowflake_process(x), snowflake_worker(y), snowflake_process(y)
               FROM (SELECT snowflake_new() x, snowflake_new_at(now()) y) s'), '17|9|17|9',
	'flakeid.snowflake_worker=17 and _process=9 are written into snowflakes');
is(sql($node, 'SHOW flakeid.snowflake_epoch_ms'), '1577833200000', 'SHOW flakeid.snowflake_epoch_ms gives the whole number');
is(sql($node, "SELECT snowflake_time(0), snowflake_from_parts('2020-01-01 00:00:00.001+00', 0, 0, 0), snowflake_lower_bound('2019-12-31 23:00:00+00')"),
	'2019-12-31 23:00:00+00|15099498594304|0', 'the epoch setting is what snowflake_time, snowflake_from_parts and the bounds use');
is(sql($node, 'SELECT abs(extract(epoch FROM snowflake_time(snowflake_new()) - now())) < 60,
               abs((snowflake_new() >> 22) - (extract(epoch FROM now()) * 1000 - 1577833200000)) < 60000'), 't|t',
	'snowflake_new() counts from the configured epoch');
is(sqlstate_of($node, "SELECT snowflake_from_parts('2019-12-31 22:59:59.999+00', 0, 0, 0)"), '22008',
	'a time before the configured epoch is ERROR 22008');
stop_checked($node);

# an epoch after the clock: snowflake_new() refuses rather than issue a value outside the epoch's range
$node = server('flakeid.snowflake_epoch_ms' => 253402300799999);
is(sqlstate_of($node, 'SELECT snowflake_new()'), '22008', 'an epoch in the year 9999: snowflake_new() is ERROR 22008');
like(message_of($node, 'SELECT snowflake_new()'), qr/outside the time range of epoch 253402300799999 ms/, 'the message names the epoch');
is(sqlstate_of($node, "SELECT snowflake_from_parts(now(), 0, 0, 0, now() - interval '1 day')"), 'ok',
	'the epoch overloads (their own epoch) still work');
stop_checked($node);

# a malformed epoch is refused by the check hook (ALTER SYSTEM); a siq domain is hashed as
# ASCII: the check hook refuses anything else (ALTER SYSTEM runs it; so does the server
# reading postgresql.conf at start)
$node = server();
is(join(' ', map { sqlstate_of($node, "ALTER SYSTEM SET flakeid.snowflake_epoch_ms = '$_'") } '1.5e12', '-1', 'abc', '253402300800000', '', '253402300799999'),
	'22023 22023 22023 22023 22023 ok', 'flakeid.snowflake_epoch_ms takes whole milliseconds from 0 to the end of year 9999 only');
is(sqlstate_of($node, "ALTER SYSTEM SET flakeid.siq_domain = 'exämple.com'"), '22021', 'a non-ASCII flakeid.siq_domain is refused (22021)');
like(message_of($node, "ALTER SYSTEM SET flakeid.siq_domain = 'exämple.com'"), qr/invalid value for parameter "flakeid.siq_domain"/,
	'the message names the setting');
is(sqlstate_of($node, "ALTER SYSTEM SET flakeid.siq_domain = 'example.org'"), 'ok', 'an ASCII domain is accepted');
# flakeid.kuid_node has the syntax OTP gives node names (1.2 took any text)
is(join(' ', map { sqlstate_of($node, "ALTER SYSTEM SET flakeid.kuid_node = '$_'") }
		'pg@db1', 'nonode@nohost', 'uid@127.0.0.1', 'pg-1_a@db.example.com', 'pg@dé1', ''),
	'ok ok ok ok ok ok', 'flakeid.kuid_node takes name@host (a Latin-1 host too), and empty');
is(join(' ', map { sqlstate_of($node, "ALTER SYSTEM SET flakeid.kuid_node = '$_'") }
		'nohost', 'pg@', '@db1', 'p g@db1', 'pg.1@db1', 'pgé@db1', 'pg@db 1', 'pg@db✓'),
	'22023 22023 22023 22023 22023 22023 22023 22023',
	'and refuses a name without @, an empty part, a name outside [A-Za-z0-9_-], a host outside U+0021..U+00FF');
# flakeid.accept_state_from: digits only, a whole 64-bit system identifier (1.2 read it with sscanf)
is(join(' ', map { sqlstate_of($node, "ALTER SYSTEM SET flakeid.accept_state_from = '$_'") }
		'123abc', '-1', '99999999999999999999999', '7712022856918133675-not-a-number', '0', ' 1', '7712022856918133675', ''),
	'22023 22023 22023 22023 22023 22023 ok ok', 'flakeid.accept_state_from refuses all but a system identifier or empty');
# flakeid.take_over_from: two inodes, digits only (sscanf took a sign, a blank and a number past 2^64)
is(join(' ', map { sqlstate_of($node, "ALTER SYSTEM SET flakeid.take_over_from = '$_'") }
		'-1:5', ' 1:2', '99999999999999999999999:1', '1:', ':1', '1:2:3', '1:2x', '0:5', '12:34', ''),
	'22023 22023 22023 22023 22023 22023 22023 22023 ok ok', 'flakeid.take_over_from refuses all but two inodes or empty');
is(sqlstate_of($node, "ALTER SYSTEM SET flakeid.mark_synchronous = 'maybe'"), '22023', "flakeid.mark_synchronous = 'maybe' is refused");
stop_checked($node);

# without preloading: the type works, the generators refuse with the hint
$node = server(shared_preload_libraries => '');
is(sql($node, "SELECT sno_time('brpk4q72xwf2m63l')"), '2031-05-08 23:03:34.976+00', 'not preloaded: the type and extractors work');
is(sqlstate_of($node, 'SELECT sno_new()'), '55000', 'not preloaded: sno_new() is ERROR 55000');
is(sqlstate_of($node, 'SELECT sno_new_at(now())'), '55000', 'not preloaded: sno_new_at() is ERROR 55000');
like(message_of($node, 'SELECT sno_new()'), qr/^HINT:  Add flakeid to shared_preload_libraries and restart the server\.$/m,
	'not preloaded: the hint says how to fix it');
is(join(' ', map { sqlstate_of($node, "SELECT $_") } "siq_new('user')", "siq_new_at(now(), 'user')"), '55000 55000',
	'not preloaded: siq_new() and siq_new_at() are ERROR 55000 too');
is(sql($node, 'SELECT count(DISTINCT flax_new()) FROM generate_series(1, 1000)'), '1000',
	'not preloaded: flax_new() works (it needs no shared state)');
is(join(' ', map { sqlstate_of($node, "SELECT $_") } 'kuid_new()', 'kuid96_new()', 'kuid_new_at(now())', 'kuid96(kuid_new_at(now()))',
		'snowflake_new()', 'snowflake_new_at(now())'), '55000 55000 55000 55000 55000 55000',
	'not preloaded: the kuid, kuid96 and snowflake generators are ERROR 55000');
is(sql($node, "SELECT snowflake_time(175928847299117063), kuid96('.5.tXbhdV.3'::kuid, 65742641)"),
	'2016-04-30 11:18:25.796+00|.5.tXVEf8n4vPN.0', "not preloaded: snowflake extractors use Discord's epoch; kuid96 with an explicit node works");
# not preloaded: conversions that need this server's node say so; the seed libraries' pure functions work
is(sqlstate_of($node, "SELECT kuid96('.5.tXbhdV.3'::kuid)"), '55000', 'not preloaded: kuid96(kuid) is ERROR 55000');
is(first_error(message_of($node, "SELECT kuid96('.5.tXbhdV.3'::kuid)")), "ERROR:  kuid96(kuid) needs this server's node",
	"not preloaded: the message says it needs this server's node, not a generator");
is(first_error(message_of($node, "SELECT kuid96_local('.5.tXVEf8n4vPN.0'::kuid96)")), "ERROR:  kuid96_local() needs this server's node",
	'not preloaded: kuid96_local() says the same');
is(sql($node, "SELECT siq_format(siq_parse('5e0bd2f0000000000000000007', 'hex'), 'did'),
	            kuid96_encode('.5.tXVEf8n4vPN.0', 5) IS NOT NULL,
	            kuid96_vclock_join(ARRAY['.5.tXVEf8n4vPN.0'::kuid96], '{}') = ARRAY['.5.tXVEf8n4vPN.0'::kuid96],
	            sno_fields('brpk4q72xwf2m63l')->>'time'"),
	'did:siq:iuxvojaaf4c6s6aaaaaaaaaaaaaah|t|t|2031-05-08T23:03:34.976+00:00',
	'not preloaded: siq forms, kuid96 intervals, vector clock joins and <type>_fields work');
is(sqlstate_of($node, 'SELECT kuid96_vclock()'), '55000', 'not preloaded: kuid96_vclock() is ERROR 55000 (it mints)');
stop_checked($node);

# Settings the server refused at start: it starts (PostgreSQL keeps the
# default and logs a WARNING), the generators that read them refuse with
# 22023 naming the setting and the configured value, and everything else works.
my $io = "SELECT sno_time('brpk4q72xwf2m63l'), 'brpk4q72xwf2m63l'::sno::text, kuid96('.5.tXbhdV.3'::kuid, 1)::text <> ''";
sub refused_settings   # refused_settings({SETTINGS}, [REFUSED CALLS], [ERRORS BY CALL], [WORKING CALLS], LABEL)
{
	my ($settings, $refused, $errors, $working, $label) = @_;
	my $node = server(%$settings);
	is(join(' ', map { sqlstate_of($node, "SELECT $_") } @$refused), join(' ', ('22023') x @$refused),
		"$label: @$refused are ERROR 22023");
	for (@$errors)
	{
		my ($call, $message) = @$_;
		is(first_error(message_of($node, "SELECT $call")), $message, "$label: $call names the setting and its configured value");
	}
	is(join(' ', (map { sqlstate_of($node, "SELECT $_") } @$working), sql($node, $io)),
		join(' ', ('ok') x @$working, '2031-05-08 23:03:34.976+00|brpk4q72xwf2m63l|t'),
		"$label: the other generators and every type's I/O work");
	return $node;
}
$node = refused_settings({ 'flakeid.sno_partition' => 70000, 'flakeid.siq_shard' => 300 },
	[ 'sno_new()', 'sno_new_at(now())', "siq_new('user')", "siq_new_at(now(), 'tag')" ],
	[ [ 'sno_new()', 'ERROR:  invalid value for parameter "flakeid.sno_partition": "70000"' ],
		[ "siq_new('user')", 'ERROR:  invalid value for parameter "flakeid.siq_shard": "300"' ] ],
	[ 'kuid_new()', 'kuid96_new()', 'snowflake_new()', 'flax_new()' ], 'flakeid.sno_partition = 70000, flakeid.siq_shard = 300');
is(sql($node, 'SHOW flakeid.sno_partition'), '-1', 'SHOW gives the default that PostgreSQL kept in place of the refused 70000');
my $identity = sql($node, "SELECT identity FROM flakeid_generators WHERE generator = 'sno'");
like($identity, qr/flakeid.sno_partition = '70000' refused/, "flakeid_generators says which configured value was refused ($identity)");
# flakeid_identities() lists every type (1.5 raised the refusal and listed none, on the step
# the copy and clone hints name to check the identities: the twenty-third auditor)
is(sql($node, "SELECT string_agg(generator || ':' || (identity_value IS NULL) || ':' || (source LIKE '%refused at start: the ' || generator || ' generator refuses%'), ' ' ORDER BY generator) FROM flakeid_identities()"),
	'kuid:true:false kuid96:false:false siq:true:true sno:true:true snowflake:false:false',
	'flakeid_identities() lists every type: those of the refused settings with no value, the source naming the refusal');
# the start's log says the value was refused, not that none was set (issue 59, item 8)
is(log_count($node, qr/flakeid.sno_partition is not set/) . ' ' . log_count($node, qr/flakeid.siq_shard is not set/), '0 0',
	'the log does not say the refused settings are not set and will be derived');
is(log_count($node, qr/LOG:  flakeid.sno_partition = '70000' refused: the sno generator refuses to generate until it is corrected/)
	. ' ' . log_count($node, qr/LOG:  flakeid.siq_shard = '300' refused: the siq generator refuses to generate until it is corrected/),
	'1 1', 'the log says each configured value was refused, and which generator refuses');
# every pause point is named when an unknown one is refused
like(message_of($node, "SET flakeid.debug_pause_at = 'nowhere'"),
	qr/DETAIL:  Known pauses: recovery_decided, backfill_drawn, save_written, save_synced, save_renamed, toggle_swapped, horizon_cell_read, backfill_closed, closing_swapped, prepared_saving, or empty for none\./,
	'an unknown flakeid.debug_pause_at: the detail names all ten pauses');
stop_checked($node);

$node = refused_settings({ 'flakeid.snowflake_worker' => 40, 'flakeid.siq_domain' => 'exämple.com' },
	[ 'snowflake_new()', 'snowflake_new_at(now())', "siq_new('user')" ],
	[ [ 'snowflake_new()', 'ERROR:  invalid value for parameter "flakeid.snowflake_worker": "40"' ],
		[ "siq_new('user')", 'ERROR:  invalid value for parameter "flakeid.siq_domain": "exämple.com"' ] ],
	[ 'sno_new()', 'kuid_new()', 'kuid96_new()' ], "flakeid.snowflake_worker = 40, flakeid.siq_domain = 'exämple.com'");
# (a refused domain: siq lists no identity either, since its domain is part of it; it listed
# the default domain's: the twenty-eighth auditor)
is(sql($node, "SELECT identity_value IS NULL AND source LIKE 'flakeid.siq_domain = ''exämple.com'' refused at start%' FROM flakeid_identities() WHERE generator = 'siq'"),
	't', 'flakeid_identities(): siq with a refused domain has no identity, and its source names the domain');
stop_checked($node);

stop_checked(refused_settings({ 'flakeid.snowflake_epoch_ms' => '1577833200000x', 'flakeid.sno_sequence_max' => 70000 },
	[ 'snowflake_new()', 'snowflake_time(0)', 'sno_new()' ],
	[ [ 'snowflake_new()', 'ERROR:  invalid value for parameter "flakeid.snowflake_epoch_ms": "1577833200000x"' ],
		[ 'sno_new()', 'ERROR:  invalid value for parameter "flakeid.sno_sequence_max": "70000"' ] ],
	[ "siq_new('user')", 'kuid_new()', 'kuid96_new()' ], 'a malformed epoch and flakeid.sno_sequence_max = 70000 (not 65535)'));

# flakeid.mark_synchronous refused at start (1.2 fell back to off with a
# WARNING): every generator that saves bounds refuses; so does kuid96 for
# a node name with no @
stop_checked(refused_settings({ 'flakeid.mark_synchronous' => 'maybe', 'flakeid.kuid_node' => 'nohost' },
	[ 'sno_new()', 'sno_new_at(now())', "siq_new('user')", 'kuid_new()', 'kuid96_new()', 'snowflake_new()', 'snowflake_new_at(now())' ],
	[ [ 'kuid_new()', 'ERROR:  invalid value for parameter "flakeid.mark_synchronous": "maybe"' ] ],
	[ 'flax_new()' ], "flakeid.mark_synchronous = 'maybe', flakeid.kuid_node = 'nohost'"));
stop_checked(refused_settings({ 'flakeid.mark_synchronous' => '' },
	[ 'sno_new()', 'snowflake_new()' ],
	[ [ 'sno_new()', 'ERROR:  invalid value for parameter "flakeid.mark_synchronous": ""' ] ],
	[ 'flax_new()' ], "flakeid.mark_synchronous = ''"));

# flakeid.accept_backfill_loss refused at start: kept off, and named by the
# one call it decides, back-fill below the floor; every live generator and
# back-fill where no floor stands go on (1.4's auditor: a junk value refused
# every live generator, which never reads it)
$node = server('flakeid.accept_backfill_loss' => 'maybe');
my @stateful = formats(stateful => 't');
my @every = formats();
is(join(' ', map { sqlstate_of($node, "SELECT $_->{new}") } @every), join(' ', ('ok') x @every),
	"flakeid.accept_backfill_loss = 'maybe': every live generator issues");
is(join(' ', map { sqlstate_of($node, 'SELECT ' . backfill_call($_, "'2024-01-01 00:00:00+00'")) } @stateful), join(' ', ('ok') x @stateful),
	'and back-fill, where no floor stands');
sql($node, "SELECT flakeid_backfill_floor_raise('2025-01-01 00:00:00+00')");
is(join(' ', map { sqlstate_of($node, 'SELECT ' . backfill_call($_, "'2024-06-01 00:00:00+00'")) } @stateful), join(' ', ('22023') x @stateful),
	'back-fill below a floor is ERROR 22023 (not let through as on)');
is(first_error(message_of($node, "SELECT snowflake_new_at('2024-06-01 00:00:00+00')")),
	'ERROR:  invalid value for parameter "flakeid.accept_backfill_loss": "maybe"', 'naming the setting and its configured value');
is(join(' ', map { sqlstate_of($node, $_) } "SELECT snowflake_new_at('2025-06-01 00:00:00+00')", 'SELECT snowflake_new()'), 'ok ok',
	'back-fill after the floor and the live generators go on');
stop_checked($node);

# the snowflake epoch is kept with the state: a later one is refused, an earlier one is taken
$node = server('flakeid.snowflake_epoch_ms' => 1577836800000);
sql($node, 'CREATE TABLE old_ids AS SELECT snowflake_new() AS id FROM generate_series(1, 20000)');
sql($node, 'ALTER SYSTEM SET flakeid.snowflake_epoch_ms = 1577836805000');
$node->restart;
is(sqlstate_of($node, 'SELECT snowflake_new()'), '55000', 'the epoch moved 5 s later after snowflakes were issued: snowflake_new() is ERROR 55000');
my $message = message_of($node, 'SELECT snowflake_new()');
like($message, qr/^ERROR:  flakeid.snowflake_epoch_ms is later than the epoch of the snowflakes already issued$/m, 'the message says so');
like($message, qr/^HINT:  Set flakeid.snowflake_epoch_ms back to 1577836800000 \(or earlier\) and restart the server\.$/m, 'the hint names the epoch in use');
is(sqlstate_of($node, 'SELECT sno_new()'), 'ok', 'the other generators work');
$node->restart;
is(sqlstate_of($node, 'SELECT snowflake_new()'), '55000', 'the refusal lasts across restarts');
sql($node, 'ALTER SYSTEM SET flakeid.snowflake_epoch_ms = 1577836795000');
$node->restart;
is(sql($node, 'SELECT count(*) FROM (SELECT snowflake_new() AS id FROM generate_series(1, 20000)) n WHERE id <= (SELECT max(id) FROM old_ids)'), '0',
	'an epoch 5 s earlier is taken: 20,000 new snowflakes, all above the old ones');
sql($node, 'ALTER SYSTEM SET flakeid.snowflake_epoch_ms = 1577836800000');
$node->restart;
is(sqlstate_of($node, 'SELECT snowflake_new()'), '55000',
	'then going back to the first epoch is refused (the new snowflakes were issued under the earlier one)');
stop_checked($node);

# the debug clock offset: only where the server allows it, and never through GRANT SET
$node = server();
is(sqlstate_of($node, 'SET flakeid.debug_clock_offset_ms = 1000'), '42501',
	'without flakeid.allow_debug_clock_offset, a superuser cannot shift the clock (42501)');
like(message_of($node, 'SET flakeid.debug_clock_offset_ms = 1000'),
	qr/^DETAIL:  The generators' clock may be shifted only on a server started with flakeid.allow_debug_clock_offset = on\.$/m,
	'the detail names the switch');
is(join(' ', map { sqlstate_of($node, $_) } 'SET flakeid.debug_clock_offset_ms = 0',
		'CREATE ROLE offset_tester; GRANT SET ON PARAMETER flakeid.debug_clock_offset_ms TO offset_tester',
		'SET ROLE offset_tester; SET flakeid.debug_clock_offset_ms = -30000', 'SHOW flakeid.allow_debug_clock_offset',
		'ALTER SYSTEM SET flakeid.allow_debug_clock_offset = on'),
	'ok ok 42501 ok ok', '0 is allowed; GRANT SET ON PARAMETER hands on nothing; the switch is a server setting');

# flakeid_generators and its function: superusers and pg_monitor only
sql($node, 'CREATE ROLE app LOGIN; CREATE ROLE watcher LOGIN IN ROLE pg_monitor');
is(join(' ', (map { sqlstate_of($node, $_, env => { PGUSER => 'app' }) } 'SELECT count(*) FROM flakeid_generators',
			'SELECT count(*) FROM flakeid_generators()', 'SELECT sno_new()'),
		map { $node->safe_psql('postgres', $_, extra_params => [ '-U', 'watcher' ]) } 'SELECT count(*) FROM flakeid_generators',
		'SELECT count(*) FROM flakeid_generators()'),
	'42501 42501 ok 18 18', 'a plain role can generate but not read flakeid_generators (view or function); a pg_monitor member reads both');
stop_checked($node);
done_testing();
