#!/usr/bin/env bash
# Back-fill (*_new_at) draws from one ledger per server: parallel workers,
# reconnecting sessions, and sessions after a clean restart and after a
# crash never give the same ID twice over the same instants, for every
# type.  Back-fill of the present draws from the live generator, so it
# never repeats a live ID; a time the live generator has not reached is
# refused; a unit's pool used up is ERROR 54000.  (1.1 kept a ledger per
# backend: each of these repeats there.)  Restarts the server it is given.
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

GENERATORS=("sno:sno_new_at(ts)" "siq:siq_new_at(ts, 'user')" "kuid:kuid_new_at(ts)" "kuid96:kuid96_new_at(ts)"
	"snowflake:snowflake_new_at(ts)")
PARALLEL="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = off;"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sql "CREATE EXTENSION IF NOT EXISTS flakeid" >/dev/null
# 2,000 instants, one a millisecond, 25 rows each
sql "SET client_min_messages = warning; DROP TABLE IF EXISTS instants;
     CREATE TABLE instants AS SELECT timestamptz '2021-03-04 05:06:07+00' + (g % 2000) * interval '1 ms' AS ts
     FROM generate_series(1, 50000) g; ANALYZE instants" >/dev/null

draw() {   # draw GENERATOR-CALL LABEL [SQL-PREFIX]: back-fills every row of instants into $work/LABEL
	"${PSQL[@]}" -c "${3:-} COPY (SELECT $1::text FROM instants) TO STDOUT" >> "$work/$2"
}
repeats() { echo $(( $(wc -l < "$work/$1") - $(sort -u "$work/$1" | wc -l) )); }

plan=$(sql "$PARALLEL EXPLAIN (COSTS OFF) SELECT sno_new_at(ts) FROM instants" | tr '\n' ' ')
echo "$plan" | grep -q "Workers Planned: 2.*Parallel Seq Scan"
ok $? "the back-fill query runs in parallel workers ($plan)"

for g in "${GENERATORS[@]}"; do
	name=${g%%:*}
	for round in $(seq 1 12); do draw "${g#*:}" "$name" "$PARALLEL"; done
	is "$(wc -l < "$work/$name") $(repeats "$name")" "600000 0" \
		"$name: 12 parallel runs (2 workers each, 24 in all) over the same 2,000 instants give 600,000 IDs, none repeated"
done

# 20 loaders, each a new session, over the same instants
for g in "${GENERATORS[@]}"; do
	name=${g%%:*}
	for session in $(seq 1 20); do
		"${PSQL[@]}" -c "COPY (SELECT ${g#*:}::text FROM (SELECT DISTINCT ts FROM instants) i) TO STDOUT" >> "$work/$name"
	done
	is "$(wc -l < "$work/$name") $(repeats "$name")" "640000 0" \
		"$name: and 20 reconnecting sessions over those instants add 40,000, none repeated"
done

# the present: drawn from the live generator, so never one of its IDs (4,000 at
# most share a unit, fewer than any pool: a unit the live generator used up is
# 54000).  Before the restarts, which leave the live counters up to 2 s ahead.
for g in "sno:sno_new():sno_new_at(%s)" "siq:siq_new('user'):siq_new_at(%s, 'user')" "kuid:kuid_new():kuid_new_at(%s)" \
	"kuid96:kuid96_new():kuid96_new_at(%s)" "snowflake:snowflake_new():snowflake_new_at(%s)"; do
	IFS=: read -r name live backfill <<< "$g"
	# shellcheck disable=SC2059
	is "$(sql "SELECT count(*) - count(DISTINCT id)
	           FROM (SELECT $live::text, $(printf "$backfill" "clock_timestamp()")::text FROM generate_series(1, 2000)) s(a, b),
	                LATERAL (VALUES (a), (b)) v(id)")" "0" \
		"$name: back-fill of the present interleaved with $live: 4,000 IDs, none repeated"
	# shellcheck disable=SC2059
	is "$(sqlstate "SELECT $(printf "$backfill" "clock_timestamp() + interval '1 min'")")" "22023" \
		"$name: back-fill a minute ahead of the clock is ERROR 22023"
done
# across restarts: a clean one and a crash, each followed by the same back-fill
for mode in fast immediate; do
	server_ctl stop -m "$mode"
	server_ctl start
	for g in "${GENERATORS[@]}"; do
		name=${g%%:*}
		"${PSQL[@]}" -c "COPY (SELECT ${g#*:}::text FROM (SELECT DISTINCT ts FROM instants) i) TO STDOUT" >> "$work/$name"
		is "$(repeats "$name")" "0" "$name: after a restart (-m $mode) the same instants repeat none of the IDs before it"
	done
done

like_message=$(message_of "SELECT snowflake_new_at(now() + interval '1 min')")
echo "$like_message" | grep -q "ERROR:  cannot back-fill a snowflake ID for .*, a time the live generator has not reached"
ok $? "the message says the live generator has not reached that time"

# a unit's pool: snowflake's 4,096 sequences of one millisecond, less what earlier lifetimes used
is "$(sqlstate "SELECT count(snowflake_new_at('2021-01-01 00:00:00+00')) FROM generate_series(1, 5000)")" "54000" \
	"5,000 snowflakes back-filled into one millisecond: ERROR 54000, not a wrap"
is "$(sqlstate "SELECT count(snowflake_new_at('2021-01-01 00:00:00.001+00')) FROM generate_series(1, 1000)")" "ok" \
	"the next millisecond has its own pool"
done_testing
