#!/usr/bin/env bash
# The suites that share one preloaded cluster (run under pg_virtualenv by
# scripts/test).  pg_regress's report is turned into TAP lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
status=0

make -s installcheck 2>&1 | awk '
	/\.\.\. ok/     { n++; print "ok " n " - pg_regress " $2 }
	/\.\.\. FAILED/ { n++; print "not ok " n " - pg_regress " $2 }
	/^(not )?ok [0-9]+ - / { print "    " $0 }   # PostgreSQL 16+ prints TAP itself
	/regression.diffs|tests (passed|failed)/ { print "# " $0 }
	END { print "1.." n }' || status=1
[ -f regression.diffs ] && { sed 's/^/# /' regression.diffs | head -200; status=1; }
pg_prove -v test/pgtap/*.sql || status=1
prove -v test/scripts/concurrency.t test/scripts/clock.t test/scripts/load.t test/scripts/standby.t test/scripts/restart.t || status=1
exit $status
