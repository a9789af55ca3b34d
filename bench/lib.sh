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
# median SAMPLES / least SAMPLES: of a space-separated list, to one decimal
median() { printf "%s\n" $1 | sort -g | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]}'; }
least() { printf "%s\n" $1 | sort -g | awk 'NR == 1 {printf "%.1f", $1}'; }
