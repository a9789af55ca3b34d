#!/usr/bin/env bash
# Server settings that need a cluster of their own: the sequence pool, an
# explicit partition, and a server without flakeid preloaded.  Each case
# starts a throwaway cluster with scripts/with_cluster (PG_BINDIR picks the
# installation).
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

in_cluster() {   # in_cluster "-o setting=value ..." SCRIPT: runs SCRIPT (bash) inside a new cluster
	# shellcheck disable=SC2086
	in_new_cluster $1 "$2"
}

# an invalid pool: generation fails with 22023 naming both settings
out=$(in_cluster "-o shared_preload_libraries=flakeid -o flakeid.sno_sequence_min=10 -o flakeid.sno_sequence_max=12" \
	'sqlstate "SELECT sno_new()"; sqlstate "SELECT sno_new_at(now())"; message_of "SELECT sno_new()"')
is "$(echo "$out" | sed -n 1p)" "22023" "pool 10..12 (3 values): sno_new() is ERROR 22023"
is "$(echo "$out" | sed -n 2p)" "22023" "pool 10..12: sno_new_at() is ERROR 22023"
echo "$out" | grep -q 'flakeid.sno_sequence_min (10) and flakeid.sno_sequence_max (12)'
ok $? "the error names both settings and their values"

out=$(in_cluster "-o shared_preload_libraries=flakeid -o flakeid.sno_sequence_min=200 -o flakeid.sno_sequence_max=100" \
	'sqlstate "SELECT sno_new()"')
is "$out" "22023" "min > max: sno_new() is ERROR 22023"

# the smallest pool (4 values) works and is shared: 2 backends x 1000 IDs
# need at least 500 units (2 s) and must wait rather than wrap
# (and with the precise clock, each ID's time is the unit of its call)
out=$(in_cluster "-o shared_preload_libraries=flakeid -o flakeid.sno_sequence_min=100 -o flakeid.sno_sequence_max=103 -o flakeid.sno_partition=4660 -o flakeid.siq_shard=77 -o flakeid.siq_domain=example.com -o flakeid.sno_coarse_clock=off" '
	sql "CREATE UNLOGGED TABLE t (b int, n int, id sno)"
	sql "INSERT INTO t SELECT 1, n, sno_new() FROM generate_series(1, 1000) n" &
	sql "INSERT INTO t SELECT 2, n, sno_new() FROM generate_series(1, 1000) n" &
	wait
	sql "SELECT count(*), count(DISTINCT id), min(sno_sequence(id)), max(sno_sequence(id)), count(DISTINCT sno_time(id)) >= 500 FROM t"
	sql "SELECT count(*) FROM (SELECT id <= lag(id) OVER (PARTITION BY b ORDER BY n) AS back FROM t) s WHERE back"
	sql "SELECT DISTINCT sno_partition(id) FROM t"
	sql "SELECT sno_partition(sno_new_at(now())), sno_sequence(sno_new_at(now())) BETWEEN 100 AND 103"
	sql "SELECT siq_shard(x), siq_domain(x), siq_shard(y), siq_domain(y) FROM (SELECT siq_new('"'"'user'"'"') x, siq_new_at(now(), '"'"'tag'"'"') y) s"
	sql "SELECT clock FROM flakeid_generators WHERE generator = '"'"'sno'"'"'"
	sql "SELECT count(*), count(*) FILTER (WHERE sno_time(id) <= before - interval '"'"'4 ms'"'"' OR sno_time(id) > after) FROM (SELECT clock_timestamp() AS before, sno_new() AS id, clock_timestamp() AS after FROM generate_series(1, 400)) s"')
is "$(echo "$out" | sed -n 1p)" "2000|2000|100|103|t" "pool 100..103: 2000 distinct IDs, sequences within the pool, waits for new units"
is "$(echo "$out" | sed -n 2p)" "0" "pool 100..103: increasing within each backend"
is "$(echo "$out" | sed -n 3p)" "4660" "flakeid.sno_partition=4660 is written into sno_new() IDs"
is "$(echo "$out" | sed -n 4p)" "4660|t" "sno_new_at uses the partition and the pool"
is "$(echo "$out" | sed -n 5p)" "77|2261653831|77|2261653831" "flakeid.siq_shard=77 and flakeid.siq_domain=example.com are written into siq IDs"
is "$(echo "$out" | sed -n 6p)" "precise" "flakeid.sno_coarse_clock=off: sno reads the precise clock"
is "$(echo "$out" | sed -n 7p)" "400|0" "flakeid.sno_coarse_clock=off: every ID's unit holds its call"

# kuid96 carries the fingerprint of flakeid.kuid_node; snowflakes the worker,
# process and epoch settings (the epoch: suou's JAN_1_2020, a CET midnight)
out=$(in_cluster "-o shared_preload_libraries=flakeid -o flakeid.kuid_node=pg@db1 -o flakeid.snowflake_worker=17 -o flakeid.snowflake_process=9 -o flakeid.snowflake_epoch_ms=1577833200000" '
	sql "SELECT kuid96_node(kuid96_new()) = kuid_node_hash('"'"'pg@db1'"'"'), kuid96_node(kuid96_new_at(now())), kuid96_node(kuid96(kuid_new()))"
	sql "SELECT snowflake_worker(x), snowflake_process(x), snowflake_worker(y), snowflake_process(y) FROM (SELECT snowflake_new() x, snowflake_new_at(now()) y) s"
	sql "SHOW flakeid.snowflake_epoch_ms"
	sql "SELECT snowflake_time(0), snowflake_from_parts('"'"'2020-01-01 00:00:00.001+00'"'"', 0, 0, 0), snowflake_lower_bound('"'"'2019-12-31 23:00:00+00'"'"')"
	sql "SELECT abs(extract(epoch FROM snowflake_time(snowflake_new()) - now())) < 60, abs((snowflake_new() >> 22) - (extract(epoch FROM now()) * 1000 - 1577833200000)) < 60000"
	sqlstate "SELECT snowflake_from_parts('"'"'2019-12-31 22:59:59.999+00'"'"', 0, 0, 0)"')
# 124480081 is the spec §5 hash of "pg@db1", worked out by hand from the algorithm
is "$(echo "$out" | sed -n 1p)" "t|124480081|124480081" \
	"flakeid.kuid_node=pg@db1: kuid96_new, kuid96_new_at and kuid96(kuid) carry its fingerprint"
is "$(echo "$out" | sed -n 2p)" "17|9|17|9" "flakeid.snowflake_worker=17 and _process=9 are written into snowflakes"
is "$(echo "$out" | sed -n 3p)" "1577833200000" "SHOW flakeid.snowflake_epoch_ms gives the whole number"
is "$(echo "$out" | sed -n 4p)" "2019-12-31 23:00:00+00|15099498594304|0" \
	"the epoch setting is what snowflake_time, snowflake_from_parts and the bounds use"
is "$(echo "$out" | sed -n 5p)" "t|t" "snowflake_new() counts from the configured epoch"
is "$(echo "$out" | sed -n 6p)" "22008" "a time before the configured epoch is ERROR 22008"

# an epoch after the clock: snowflake_new() refuses rather than issue a value outside the epoch's range
out=$(in_cluster "-o shared_preload_libraries=flakeid -o flakeid.snowflake_epoch_ms=253402300799999" '
	sqlstate "SELECT snowflake_new()"
	message_of "SELECT snowflake_new()"
	sqlstate "SELECT snowflake_from_parts(now(), 0, 0, 0, now() - interval '"'"'1 day'"'"')"')
is "$(echo "$out" | sed -n 1p)" "22008" "an epoch in the year 9999: snowflake_new() is ERROR 22008"
echo "$out" | grep -q "outside the time range of epoch 253402300799999 ms"
ok $? "the message names the epoch"
is "$(echo "$out" | tail -1)" "ok" "the epoch overloads (their own epoch) still work"

# a malformed epoch is refused by the check hook (ALTER SYSTEM)
out=$(in_cluster "-o shared_preload_libraries=flakeid" '
	for v in 1.5e12 -1 abc 253402300800000 "" 253402300799999; do
		sqlstate "ALTER SYSTEM SET flakeid.snowflake_epoch_ms = '"'"'$v'"'"'"
	done')
is "$(echo "$out" | tr '\n' ' ')" "22023 22023 22023 22023 22023 ok " \
	"flakeid.snowflake_epoch_ms takes whole milliseconds from 0 to the end of year 9999 only"

# a siq domain is hashed as ASCII: the check hook refuses anything else
# (ALTER SYSTEM runs it; so does the server reading postgresql.conf at start)
out=$(in_cluster "-o shared_preload_libraries=flakeid" '
	sqlstate "ALTER SYSTEM SET flakeid.siq_domain = '"'"'exämple.com'"'"'"
	message_of "ALTER SYSTEM SET flakeid.siq_domain = '"'"'exämple.com'"'"'"
	sqlstate "ALTER SYSTEM SET flakeid.siq_domain = '"'"'example.org'"'"'"')
is "$(echo "$out" | sed -n 1p)" "22021" "a non-ASCII flakeid.siq_domain is refused (22021)"
echo "$out" | grep -q 'invalid value for parameter "flakeid.siq_domain"'
ok $? "the message names the setting"
is "$(echo "$out" | tail -1)" "ok" "an ASCII domain is accepted"

# without preloading: the type works, the generators refuse with the hint
out=$(in_cluster "" '
	sql "SELECT sno_time('"'"'brpk4q72xwf2m63l'"'"')"
	sqlstate "SELECT sno_new()"
	sqlstate "SELECT sno_new_at(now())"
	message_of "SELECT sno_new()"
	sqlstate "SELECT siq_new('"'"'user'"'"')"
	sqlstate "SELECT siq_new_at(now(), '"'"'user'"'"')"
	sql "SELECT count(DISTINCT flax_new()) FROM generate_series(1, 1000)"
	for call in "kuid_new()" "kuid96_new()" "kuid_new_at(now())" "kuid96(kuid_new_at(now()))" "snowflake_new()" "snowflake_new_at(now())"; do
		sqlstate "SELECT $call"
	done
	sql "SELECT snowflake_time(175928847299117063), kuid96('"'"'.5.tXbhdV.3'"'"'::kuid, 65742641)"')
is "$(echo "$out" | sed -n 1p)" "2031-05-08 23:03:34.976+00" "not preloaded: the type and extractors work"
is "$(echo "$out" | sed -n 2p)" "55000" "not preloaded: sno_new() is ERROR 55000"
is "$(echo "$out" | sed -n 3p)" "55000" "not preloaded: sno_new_at() is ERROR 55000"
echo "$out" | grep -qx 'HINT:  Add flakeid to shared_preload_libraries and restart the server.'
ok $? "not preloaded: the hint says how to fix it"
is "$(echo "$out" | grep -x '55000' | wc -l)" "10" "not preloaded: siq_new() and siq_new_at() are ERROR 55000 too"
is "$(echo "$out" | tail -8 | head -1)" "1000" "not preloaded: flax_new() works (it needs no shared state)"
is "$(echo "$out" | tail -7 | head -6 | tr '\n' ' ')" "55000 55000 55000 55000 55000 55000 " \
	"not preloaded: the kuid, kuid96 and snowflake generators are ERROR 55000"
is "$(echo "$out" | tail -1)" "2016-04-30 11:18:25.796+00|.5.tXVEf8n4vPN.0" \
	"not preloaded: snowflake extractors use Discord's epoch; kuid96 with an explicit node works"
# not preloaded: conversions that need this server's node say so; the seed
# libraries' pure functions work
out=$(in_cluster "" '
	sqlstate "SELECT kuid96('"'"'.5.tXbhdV.3'"'"'::kuid)"
	message_of "SELECT kuid96('"'"'.5.tXbhdV.3'"'"'::kuid)" | grep "^ERROR"
	message_of "SELECT kuid96_local('"'"'.5.tXVEf8n4vPN.0'"'"'::kuid96)" | grep "^ERROR"
	sql "SELECT siq_format(siq_parse('"'"'5e0bd2f0000000000000000007'"'"', '"'"'hex'"'"'), '"'"'did'"'"'),
	            kuid96_encode('"'"'.5.tXVEf8n4vPN.0'"'"', 5) IS NOT NULL,
	            kuid96_vclock_join(ARRAY['"'"'.5.tXVEf8n4vPN.0'"'"'::kuid96], '"'"'{}'"'"') = ARRAY['"'"'.5.tXVEf8n4vPN.0'"'"'::kuid96],
	            sno_fields('"'"'brpk4q72xwf2m63l'"'"')->>'"'"'time'"'"'"
	sqlstate "SELECT kuid96_vclock()"')
is "$(echo "$out" | sed -n 1p)" "55000" "not preloaded: kuid96(kuid) is ERROR 55000"
is "$(echo "$out" | sed -n 2p)" "ERROR:  kuid96(kuid) needs this server's node" "not preloaded: the message says it needs this server's node, not a generator"
is "$(echo "$out" | sed -n 3p)" "ERROR:  kuid96_local() needs this server's node" "not preloaded: kuid96_local() says the same"
is "$(echo "$out" | sed -n 4p)" "did:siq:iuxvojaaf4c6s6aaaaaaaaaaaaaah|t|t|2031-05-08T23:03:34.976+00:00" \
	"not preloaded: siq forms, kuid96 intervals, vector clock joins and <type>_fields work"
is "$(echo "$out" | sed -n 5p)" "55000" "not preloaded: kuid96_vclock() is ERROR 55000 (it mints)"
# Settings the server refused at start: it starts (PostgreSQL keeps the
# default and logs a WARNING), the generators that read them refuse with
# 22023 naming the setting and the configured value, and everything else works.
refused_settings() {   # refused_settings "-o ..." "REFUSED;CALLS" "WORKING;CALLS": one line per call
	local script="" call
	IFS=';' read -ra refused <<< "$2"
	IFS=';' read -ra working <<< "$3"
	for call in "${refused[@]}"; do script+="sqlstate $(printf '%q' "SELECT $call"); "; done
	for call in "${refused[@]}"; do script+="message_of $(printf '%q' "SELECT $call") | grep -m1 '^ERROR'; "; done
	for call in "${working[@]}"; do script+="sqlstate $(printf '%q' "SELECT $call"); "; done
	script+="sql \"SELECT sno_time('brpk4q72xwf2m63l'), 'brpk4q72xwf2m63l'::sno::text, kuid96('.5.tXbhdV.3'::kuid, 1)::text <> ''\""
	in_cluster "-o shared_preload_libraries=flakeid $1" "$script"
}
out=$(refused_settings "-o flakeid.sno_partition=70000 -o flakeid.siq_shard=300" \
	"sno_new();sno_new_at(now());siq_new('user');siq_new_at(now(), 'tag')" "kuid_new();kuid96_new();snowflake_new();flax_new()")
is "$(echo "$out" | sed -n 1,4p | tr '\n' ' ')" "22023 22023 22023 22023 " \
	"flakeid.sno_partition = 70000, flakeid.siq_shard = 300: the sno and siq generators are ERROR 22023"
is "$(echo "$out" | sed -n 5p)" 'ERROR:  invalid value for parameter "flakeid.sno_partition": "70000"' "the message names the setting and its value"
is "$(echo "$out" | sed -n 7p)" 'ERROR:  invalid value for parameter "flakeid.siq_shard": "300"' "the message names the siq setting and its value"
is "$(echo "$out" | sed -n 9,13p | tr '\n' ' ')" "ok ok ok ok 2031-05-08 23:03:34.976+00|brpk4q72xwf2m63l|t " \
	"the other generators and every type's I/O work"
out=$(in_cluster "-o shared_preload_libraries=flakeid -o flakeid.sno_partition=70000" '
	sql "SHOW flakeid.sno_partition"
	sql "SELECT identity FROM flakeid_generators WHERE generator = '"'"'sno'"'"'"')
is "$(echo "$out" | sed -n 1p)" "-1" "SHOW gives the default that PostgreSQL kept in place of the refused 70000"
echo "$out" | sed -n 2p | grep -q "flakeid.sno_partition = '70000' refused"
ok $? "flakeid_generators says which configured value was refused ($(echo "$out" | sed -n 2p))"

out=$(refused_settings "-o flakeid.snowflake_worker=40 -o flakeid.siq_domain=exämple.com" \
	"snowflake_new();snowflake_new_at(now());siq_new('user')" "sno_new();kuid_new();kuid96_new()")
is "$(echo "$out" | sed -n 1,3p | tr '\n' ' ')" "22023 22023 22023 " \
	"flakeid.snowflake_worker = 40, flakeid.siq_domain = 'exämple.com': the snowflake and siq generators are ERROR 22023"
is "$(echo "$out" | sed -n 4p)" 'ERROR:  invalid value for parameter "flakeid.snowflake_worker": "40"' "the message names the worker and its value"
is "$(echo "$out" | sed -n 6p)" 'ERROR:  invalid value for parameter "flakeid.siq_domain": "exämple.com"' "the message names the domain as configured"
is "$(echo "$out" | sed -n 7,10p | tr '\n' ' ')" "ok ok ok 2031-05-08 23:03:34.976+00|brpk4q72xwf2m63l|t " \
	"the other generators and every type's I/O work"

out=$(refused_settings "-o flakeid.snowflake_epoch_ms=1577833200000x -o flakeid.sno_sequence_max=70000" \
	"snowflake_new();snowflake_time(0);sno_new()" "siq_new('user');kuid_new();kuid96_new()")
is "$(echo "$out" | sed -n 1,3p | tr '\n' ' ')" "22023 22023 22023 " \
	"a malformed epoch and flakeid.sno_sequence_max = 70000: snowflake_new(), snowflake_time() and sno_new() are ERROR 22023"
is "$(echo "$out" | sed -n 4p)" 'ERROR:  invalid value for parameter "flakeid.snowflake_epoch_ms": "1577833200000x"' "the message names the epoch as configured"
is "$(echo "$out" | sed -n 6p)" 'ERROR:  invalid value for parameter "flakeid.sno_sequence_max": "70000"' "the pool's 70000 does not become 65535"
is "$(echo "$out" | sed -n 7,10p | tr '\n' ' ')" "ok ok ok 2031-05-08 23:03:34.976+00|brpk4q72xwf2m63l|t " \
	"the other generators and every type's I/O work"

# the snowflake epoch is kept with the state: a later one is refused, an earlier one is taken
out=$(in_cluster "-o shared_preload_libraries=flakeid -o flakeid.snowflake_epoch_ms=1577836800000" '
	sql "CREATE TABLE old_ids AS SELECT snowflake_new() AS id FROM generate_series(1, 20000)"
	sql "ALTER SYSTEM SET flakeid.snowflake_epoch_ms = 1577836805000"
	server_ctl restart
	sqlstate "SELECT snowflake_new()"
	message_of "SELECT snowflake_new()" | grep -E "^(ERROR|HINT)"
	sqlstate "SELECT sno_new()"
	server_ctl restart
	sqlstate "SELECT snowflake_new()"
	sql "ALTER SYSTEM SET flakeid.snowflake_epoch_ms = 1577836795000"
	server_ctl restart
	sql "SELECT count(*) FROM (SELECT snowflake_new() AS id FROM generate_series(1, 20000)) n WHERE id <= (SELECT max(id) FROM old_ids)"
	sql "ALTER SYSTEM SET flakeid.snowflake_epoch_ms = 1577836800000"
	server_ctl restart
	sqlstate "SELECT snowflake_new()"')
is "$(echo "$out" | sed -n 1p)" "55000" "the epoch moved 5 s later after snowflakes were issued: snowflake_new() is ERROR 55000"
is "$(echo "$out" | sed -n 2p)" "ERROR:  flakeid.snowflake_epoch_ms is later than the epoch of the snowflakes already issued" "the message says so"
is "$(echo "$out" | sed -n 3p)" "HINT:  Set flakeid.snowflake_epoch_ms back to 1577836800000 (or earlier) and restart the server." "the hint names the epoch in use"
is "$(echo "$out" | sed -n 4,5p | tr '\n' ' ')" "ok 55000 " "the other generators work; the refusal lasts across restarts"
is "$(echo "$out" | sed -n 6p)" "0" "an epoch 5 s earlier is taken: 20,000 new snowflakes, all above the old ones"
is "$(echo "$out" | sed -n 7p)" "55000" "then going back to the first epoch is refused (the new snowflakes were issued under the earlier one)"

# the debug clock offset: only where the server allows it, and never through GRANT SET
out=$(in_cluster "-o shared_preload_libraries=flakeid" '
	sqlstate "SET flakeid.debug_clock_offset_ms = 1000"
	message_of "SET flakeid.debug_clock_offset_ms = 1000" | grep "^DETAIL"
	sqlstate "SET flakeid.debug_clock_offset_ms = 0"
	sqlstate "CREATE ROLE offset_tester; GRANT SET ON PARAMETER flakeid.debug_clock_offset_ms TO offset_tester"
	sqlstate "SET ROLE offset_tester; SET flakeid.debug_clock_offset_ms = -30000"
	sqlstate "SHOW flakeid.allow_debug_clock_offset"
	sqlstate "ALTER SYSTEM SET flakeid.allow_debug_clock_offset = on"')
is "$(echo "$out" | sed -n 1p)" "42501" "without flakeid.allow_debug_clock_offset, a superuser cannot shift the clock (42501)"
is "$(echo "$out" | sed -n 2p)" "DETAIL:  The generators' clock may be shifted only on a server started with flakeid.allow_debug_clock_offset = on." \
	"the detail names the switch"
is "$(echo "$out" | sed -n 3,7p | tr '\n' ' ')" "ok ok 42501 ok ok " \
	"0 is allowed; GRANT SET ON PARAMETER hands on nothing; the switch is a server setting"

# flakeid_generators and its function: superusers and pg_monitor only
out=$(in_cluster "-o shared_preload_libraries=flakeid" '
	sql "CREATE ROLE app LOGIN; CREATE ROLE watcher LOGIN IN ROLE pg_monitor"
	PGUSER=app sqlstate "SELECT count(*) FROM flakeid_generators"
	PGUSER=app sqlstate "SELECT count(*) FROM flakeid_generators()"
	PGUSER=app sqlstate "SELECT sno_new()"
	PGUSER=watcher sql "SELECT count(*) FROM flakeid_generators"
	PGUSER=watcher sql "SELECT count(*) FROM flakeid_generators()"')
is "$(echo "$out" | tr '\n' ' ')" "42501 42501 ok 18 18 " \
	"a plain role can generate but not read flakeid_generators (view or function); a pg_monitor member reads both"

done_testing
