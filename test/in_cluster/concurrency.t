#!/usr/bin/env bash
# Several backends generate sno IDs at once against one shared generator:
# no duplicates, strictly increasing per backend.  Needs a server with
# flakeid preloaded (the PG* environment test/t/in_cluster.pl gives).
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

BACKENDS=${BACKENDS:-4}
PER_BACKEND=${PER_BACKEND:-50000}

sql "CREATE EXTENSION IF NOT EXISTS flakeid" >/dev/null

# generate NAME EXPRESSION: BACKENDS backends each store PER_BACKEND IDs at once
generate() {
	sql "SET client_min_messages = warning; DROP TABLE IF EXISTS concurrency_ids; CREATE UNLOGGED TABLE concurrency_ids (backend int, n int, id $1)"
	for b in $(seq 1 "$BACKENDS"); do
		sql "INSERT INTO concurrency_ids SELECT $b, n, $2 FROM generate_series(1, $PER_BACKEND) n" &
	done
	wait
	is "$(sql "SELECT count(*) FROM concurrency_ids")" "$((BACKENDS * PER_BACKEND))" \
		"$2: $BACKENDS backends x $PER_BACKEND IDs stored"
	is "$(sql "SELECT count(*) - count(DISTINCT id) FROM concurrency_ids")" "0" "$2: no duplicate IDs"
}
increasing() {
	is "$(sql "SELECT count(*) FROM (SELECT id <= lag(id) OVER (PARTITION BY backend ORDER BY n) AS backwards FROM concurrency_ids) s WHERE backwards")" \
		"0" "$1: IDs strictly increase within each backend"
}

# 16 clients with the clock left alone: clock_regressions stays where it was
regressions="SELECT sum(clock_regressions) FROM flakeid_generators"
before=$(sql "$regressions")
for b in $(seq 16); do
	sql "SELECT count(sno_new()), count(siq_new('user')), count(kuid_new()), count(snowflake_new()) FROM generate_series(1, 20000)" >/dev/null &
done
wait
is "$(sql "$regressions")" "$before" "16 clients minting at once with no clock change: clock_regressions does not move"

generate sno "sno_new(0)"
increasing "sno_new(0)"
is "$(sql "SELECT count(DISTINCT sno_partition(id)) FROM concurrency_ids")" "1" "sno: one partition for the whole server"
is "$(sql "SELECT count(*) FROM concurrency_ids WHERE abs(extract(epoch FROM sno_time(id) - now())) > 600")" "0" \
	"sno: every ID carries the current time"
# the pool of a unit is shared by every backend: sequences in a unit are distinct and start at the minimum
is "$(sql "SELECT count(*) FROM (SELECT sno_time(id), sno_ticktock(id), min(sno_sequence(id)) AS first FROM concurrency_ids GROUP BY 1, 2) u WHERE first <> 0")" \
	"0" "sno: the first ID of every unit has the pool minimum"
# the clock did not step back, so racing backends must not look like a regression
is "$(sql "SELECT count(*) FROM concurrency_ids WHERE sno_ticktock(id) <> 0")" "0" \
	"sno: no tick-tock toggles while the clock only moves forward"

generate siq "siq_new('user')"
increasing "siq_new('user')"
is "$(sql "SELECT count(*) FROM (SELECT siq_time(id), min(siq_serial(id)) AS first FROM concurrency_ids GROUP BY 1) t WHERE first <> 0")" \
	"0" "siq: the serials of every tick start at 0 (one counter per kind, shared)"
# two kinds at once: each has its own counter, and the qualifier keeps them apart
sql "SET client_min_messages = warning; DROP TABLE IF EXISTS concurrency_kinds; CREATE UNLOGGED TABLE concurrency_kinds (id siq)"
for kind in user message user message; do
	sql "INSERT INTO concurrency_kinds SELECT siq_new('$kind') FROM generate_series(1, $PER_BACKEND)" &
done
wait
is "$(sql "SELECT count(*) - count(DISTINCT id) FROM concurrency_kinds")" "0" "siq: two kinds from 4 backends, no duplicates"
sql "DROP TABLE concurrency_kinds"

generate flax "flax_new()"

generate kuid "kuid_new()"
increasing "kuid_new()"
is "$(sql "SELECT count(*) FROM (SELECT kuid_time(id), min(kuid_seq(id)) AS first FROM concurrency_ids GROUP BY 1) t WHERE first <> 0")" \
	"0" "kuid: the sequence of every tick starts at 0 (one counter for the server)"
generate kuid96 "kuid96_new()"
increasing "kuid96_new()"
is "$(sql "SELECT count(DISTINCT kuid96_node(id)) FROM concurrency_ids")" "1" "kuid96: one node for the whole server"
# kuid and kuid96 share their counter: local IDs given this server's node never equal global ones
sql "SET client_min_messages = warning; DROP TABLE IF EXISTS concurrency_kuids; CREATE UNLOGGED TABLE concurrency_kuids (id kuid96)"
for expr in "kuid96_new()" "kuid96(kuid_new())" "kuid96_new()" "kuid96(kuid_new())"; do
	sql "INSERT INTO concurrency_kuids SELECT $expr FROM generate_series(1, $PER_BACKEND)" &
done
wait
is "$(sql "SELECT count(*), count(*) - count(DISTINCT id) FROM concurrency_kuids")" "$((4 * PER_BACKEND))|0" \
	"kuid96_new() and kuid96(kuid_new()) from 4 backends: no duplicates"
sql "DROP TABLE concurrency_kuids"

generate bigint "snowflake_new()"
increasing "snowflake_new()"
is "$(sql "SELECT count(*) FROM (SELECT snowflake_time(id), count(*) AS n, min(snowflake_sequence(id)) AS first FROM concurrency_ids GROUP BY 1) t WHERE first <> 0 OR n > 4096")" \
	"0" "snowflake: every millisecond starts at sequence 0 and holds at most 4096 IDs"
is "$(sql "SELECT count(DISTINCT (snowflake_worker(id), snowflake_process(id))) FROM concurrency_ids")" "1" \
	"snowflake: one worker and process for the whole server"

# meta out of range is 22003, before anything is issued
is "$(sqlstate "SELECT sno_new(256)")" "22003" "sno_new(256) is ERROR 22003"
is "$(sqlstate "SELECT sno_new(-1)")" "22003" "sno_new(-1) is ERROR 22003"
is "$(sqlstate "SELECT sno_new_at(now(), 300)")" "22003" "sno_new_at with meta 300 is ERROR 22003"

# the derived partition is stable: the same server derives the same value in every backend
p1=$(sql "SELECT sno_partition(sno_new())")
p2=$(sql "SELECT sno_partition(sno_new_at(now()))")
is "$p1" "$p2" "sno_new and sno_new_at use the same partition"
sql "DROP TABLE IF EXISTS concurrency_ids"
done_testing
