# Helpers of the benchmarks, sourced inside a cluster (libpq's PG* variables
# name the server).  Each timing is the server's own milliseconds for one
# statement, taken in a DO block, so client round trips do not count.
# SETUP, when set, is a statement run first in the same session (a PREPARE).
ms() {   # ms SQL: server-side milliseconds of one statement
	psql -X -q -At ${SETUP:+-c "$SETUP"} -c "DO \$\$ DECLARE t0 timestamptz := clock_timestamp();
		BEGIN EXECUTE \$q\$ $1 \$q\$; RAISE NOTICE 'ms=%', extract(epoch FROM clock_timestamp() - t0) * 1000; END \$\$" 2>&1 |
		sed -n 's/.*NOTICE:  ms=//p'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
# ns_each MS EMPTY-MS N: nanoseconds for each of N rows, a statement's
# milliseconds less those of its empty twin (the same scan without the call)
ns_each() { awk -v t="$1" -v e="$2" -v n="$3" 'BEGIN {printf "%.1f", (t - e) * 1e6 / n}'; }
# median SAMPLES / least SAMPLES: of a space-separated list, to one decimal
median() { printf "%s\n" $1 | sort -g | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]}'; }
least() { printf "%s\n" $1 | sort -g | awk 'NR == 1 {printf "%.1f", $1}'; }
greatest() { printf "%s\n" $1 | sort -g | awk 'END {printf "%.1f", $1}'; }
# samples_line LABEL SAMPLES: one variant's median, fastest round and rounds
samples_line() { echo "$1: median $(median "$2"), fastest $(least "$2")    (rounds: $2)"; }
# ratio_line WHAT SAMPLES SAMPLES-OF-THE-BASELINE: the ratio of the medians
# and of the fastest rounds, the way every side-by-side bench reports it
ratio_line() { echo "ratio $1: median $(ratio "$(median "$2")" "$(median "$3")"), fastest $(ratio "$(least "$2")" "$(least "$3")")"; }
# rate_line / rate_ratio_line: the same for throughputs (tps), whose
# fastest round is the greatest
rate_line() { echo "$1: median $(median "$2"), fastest $(greatest "$2")    (rounds: $2)"; }
rate_ratio_line() { echo "ratio $1: median $(ratio "$(median "$2")" "$(median "$3")"), fastest $(ratio "$(greatest "$2")" "$(greatest "$3")")"; }
# install_call_loop PG_CONFIG: bench/call_loop (the instrument that calls a
# function from C) built and installed for that PostgreSQL, its objects removed
install_call_loop() {
	make -s -C "$(dirname "${BASH_SOURCE[0]}")/call_loop" install PG_CONFIG="$1" >/dev/null &&
		make -s -C "$(dirname "${BASH_SOURCE[0]}")/call_loop" clean PG_CONFIG="$1" >/dev/null
}
