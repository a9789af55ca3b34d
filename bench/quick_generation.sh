#!/usr/bin/env bash
# Quick side-by-side generation cost: ns per ID over an empty generate_series
# scan, median of interleaved rounds, in one throwaway preloaded cluster.
# (The full suite is issue 6's bench/.)
set -euo pipefail
cd "$(dirname "$0")/.."
export ROWS=${ROWS:-1000000} ROUNDS=${ROUNDS:-5}
pg_virtualenv -o shared_preload_libraries=flakeid bash <<'INNER' 2>&1 | grep -vE "^(Creating|Dropping)"
set -euo pipefail
psql -X -q -c "CREATE EXTENSION flakeid; CREATE SEQUENCE bench_seq;"
cases=(empty "n" nextval "nextval('bench_seq')" sno_new "sno_new(0)"
       gen_random_uuid "gen_random_uuid()" flax_new "flax_new()"
       siq_new "siq_new('user')" kuid_new "kuid_new()" snowflake_new "snowflake_new()")
time_ms() {   # server-side milliseconds of one count over the scan
	psql -X -q -At -c "DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); result bigint;
		BEGIN SELECT count($1) INTO result FROM generate_series(1, $ROWS) g(n);
		RAISE NOTICE '%', extract(epoch FROM clock_timestamp() - t0) * 1000; END \$\$" 2>&1 | sed -n 's/.*NOTICE:  //p'
}
declare -A samples
for r in $(seq 1 "$ROUNDS"); do
	for ((i = 0; i < ${#cases[@]}; i += 2)); do
		samples[${cases[i]}]+="$(time_ms "${cases[i+1]}") "
	done
done
median() { printf "%s\n" $1 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
empty=$(median "${samples[empty]}")
echo "rows per statement: $ROWS, rounds: $ROUNDS, $(psql -X -At -c 'SELECT version()' | cut -d' ' -f1-2)"
echo "empty scan median: $empty ms"
for ((i = 2; i < ${#cases[@]}; i += 2)); do
	m=$(median "${samples[${cases[i]}]}")
	awk -v k="${cases[i+1]}" -v m="$m" -v e="$empty" -v n="$ROWS" \
		'BEGIN { printf "%-22s median %7.1f ms  %6.1f ns per ID over the scan\n", k, m, (m - e) * 1e6 / n }'
done
INNER
