#!/usr/bin/env bash
# Quick side-by-side generation cost: ns per ID over an empty generate_series
# scan, sno_new(0) against nextval(), median of interleaved rounds, in one
# throwaway preloaded cluster.  (The full suite is issue 6's bench/.)
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000}
ROUNDS=${ROUNDS:-5}
pg_virtualenv -o shared_preload_libraries=flakeid bash -c '
rows='"$ROWS"'; rounds='"$ROUNDS"'
psql -X -q -c "CREATE EXTENSION flakeid; CREATE SEQUENCE bench_seq CACHE 1;"
time_ms() {   # server-side milliseconds of one statement
	psql -X -q -At -c "DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); n bigint;
		BEGIN EXECUTE \$q\$ $1 \$q\$ INTO n; RAISE NOTICE '"'"'%'"'"', extract(epoch FROM clock_timestamp() - t0) * 1000; END \$\$" 2>&1 | sed -n "s/.*NOTICE:  //p"
}
declare -A results
for r in $(seq 1 $rounds); do
	results[empty]+="$(time_ms "SELECT count(n) FROM generate_series(1, $rows) n") "
	results[nextval]+="$(time_ms "SELECT count(nextval('"'"'bench_seq'"'"')) FROM generate_series(1, $rows) n") "
	results[sno_new]+="$(time_ms "SELECT count(sno_new(0)) FROM generate_series(1, $rows) n") "
done
median() { printf "%s\n" $1 | sort -g | awk "{a[NR]=\$1} END {print a[int((NR+1)/2)]}"; }
empty=$(median "${results[empty]}")
echo "rows per statement: $rows, rounds: $rounds, PostgreSQL $(psql -X -At -c "SHOW server_version")"
for k in nextval sno_new; do
	m=$(median "${results[$k]}")
	awk -v k=$k -v m=$m -v e=$empty -v n=$rows "BEGIN { printf \"%-8s median %.1f ms, %.1f ns per ID over the empty scan (empty scan %.1f ms)\n\", k, m, (m - e) * 1e6 / n, e }"
done' 2>&1 | grep -vE "^(Creating|Dropping)"
