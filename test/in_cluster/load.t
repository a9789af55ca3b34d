#!/usr/bin/env bash
# Load: 16 backends mint every type at once, a fixed count each: no
# duplicates, every backend's IDs increase (all but flax, which is random
# within its millisecond), and the whole run finishes within 120 s.
# Needs a server with flakeid preloaded (the PG* environment test/t/in_cluster.pl gives).
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

BACKENDS=${BACKENDS:-16}
PER_BACKEND=${PER_BACKEND:-100000}
COLUMNS=(sno siq kuid kuid96 snowflake flax)

sql "CREATE EXTENSION IF NOT EXISTS flakeid" >/dev/null
sql "SET client_min_messages = warning; DROP TABLE IF EXISTS load_ids;
     CREATE UNLOGGED TABLE load_ids (backend int, n int, sno sno, siq siq, kuid kuid, kuid96 kuid96, snowflake bigint, flax flax)"

start=$(date +%s%N)
for b in $(seq 1 "$BACKENDS"); do
	sql "INSERT INTO load_ids SELECT $b, n, sno_new(), siq_new('user'), kuid_new(), kuid96_new(), snowflake_new(), flax_new()
	     FROM generate_series(1, $PER_BACKEND) n" >/dev/null &
done
wait
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
is "$(sql "SELECT count(*) FROM load_ids")" "$((BACKENDS * PER_BACKEND))" \
	"$BACKENDS backends x $PER_BACKEND rows, each row one ID of all ${#COLUMNS[@]} types"
ok "$([ "$elapsed_ms" -le 120000 ]; echo $?)" "the run finished within 120 s (took ${elapsed_ms} ms)"
for c in "${COLUMNS[@]}"; do
	is "$(sql "SELECT count(*) - count(DISTINCT $c) FROM load_ids")" "0" "$c: no duplicates under load"
done
for c in sno siq kuid kuid96 snowflake; do
	is "$(sql "SELECT count(*) FROM (SELECT $c <= lag($c) OVER (PARTITION BY backend ORDER BY n) AS back FROM load_ids) s WHERE back")" \
		"0" "$c: strictly increasing within every backend under load"
done
sql "SELECT generator, issued, exhausted_waits FROM flakeid_generators WHERE issued > 0 ORDER BY generator" | sed 's/^/# /'
sql "DROP TABLE load_ids"
done_testing
