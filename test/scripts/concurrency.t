#!/usr/bin/env bash
# Several backends generate sno IDs at once against one shared generator:
# no duplicates, strictly increasing per backend.  Needs a server with
# flakeid preloaded (the PG* environment of pg_virtualenv).
set -u
cd "$(dirname "$0")/../.."
. test/scripts/tap.sh

BACKENDS=${BACKENDS:-4}
PER_BACKEND=${PER_BACKEND:-50000}

sql "CREATE EXTENSION IF NOT EXISTS flakeid" >/dev/null
sql "SET client_min_messages = warning; DROP TABLE IF EXISTS concurrency_ids; CREATE UNLOGGED TABLE concurrency_ids (backend int, n int, id sno)"
for b in $(seq 1 "$BACKENDS"); do
	sql "INSERT INTO concurrency_ids SELECT $b, n, sno_new(0) FROM generate_series(1, $PER_BACKEND) n" &
done
wait

is "$(sql "SELECT count(*) FROM concurrency_ids")" "$((BACKENDS * PER_BACKEND))" \
	"$BACKENDS backends x $PER_BACKEND IDs stored"
is "$(sql "SELECT count(*) - count(DISTINCT id) FROM concurrency_ids")" "0" "no duplicate IDs"
is "$(sql "SELECT count(*) FROM (SELECT id <= lag(id) OVER (PARTITION BY backend ORDER BY n) AS backwards FROM concurrency_ids) s WHERE backwards")" \
	"0" "IDs strictly increase within each backend"
is "$(sql "SELECT count(DISTINCT sno_partition(id)) FROM concurrency_ids")" "1" "one partition for the whole server"
is "$(sql "SELECT count(*) FROM concurrency_ids WHERE abs(extract(epoch FROM sno_time(id) - now())) > 600")" "0" \
	"every ID carries the current time"
# the pool of a unit is shared by every backend: sequences in a unit are distinct and start at the minimum
is "$(sql "SELECT count(*) FROM (SELECT sno_time(id), sno_ticktock(id), min(sno_sequence(id)) AS first FROM concurrency_ids GROUP BY 1, 2) u WHERE first <> 0")" \
	"0" "the first ID of every unit has the pool minimum"

# the clock did not step back, so racing backends must not look like a regression
is "$(sql "SELECT count(*) FROM concurrency_ids WHERE sno_ticktock(id) <> 0")" "0" \
	"no tick-tock toggles while the clock only moves forward"

# meta out of range is 22003, before anything is issued
is "$(sqlstate "SELECT sno_new(256)")" "22003" "sno_new(256) is ERROR 22003"
is "$(sqlstate "SELECT sno_new(-1)")" "22003" "sno_new(-1) is ERROR 22003"
is "$(sqlstate "SELECT sno_new_at(now(), 300)")" "22003" "sno_new_at with meta 300 is ERROR 22003"

# the derived partition is stable: the same server derives the same value in every backend
p1=$(sql "SELECT sno_partition(sno_new())")
p2=$(sql "SELECT sno_partition(sno_new_at(now()))")
is "$p1" "$p2" "sno_new and sno_new_at use the same partition"
sql "DROP TABLE concurrency_ids"
done_testing
