#!/usr/bin/env bash
# The suites that share one preloaded cluster (run under scripts/with_cluster by
# scripts/test).  pg_regress's report is turned into TAP lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
status=0

# (up to 15: "test NAME ... ok"; from 16 on: "ok 1   - NAME   12 ms", "not ok 4   - NAME")
make -s installcheck 2>&1 | awk '
	/^test .*\.\.\. ok/     { n++; print "ok " n " - pg_regress " $2 }
	/^test .*\.\.\. FAILED/ { n++; print "not ok " n " - pg_regress " $2 }
	/^(not )?ok [0-9]+ +[-+] / { verdict = /^not/ ? "not ok" : "ok"; sub(/^.*[0-9] +[-+] +/, ""); n++; print verdict " " n " - pg_regress " $1 }
	/regression.diffs|tests (passed|failed)/ { print "# " $0 }
	END { print "1.." n }' || status=1
[ -f regression.diffs ] && { sed 's/^/# /' regression.diffs | head -200; status=1; }
pg_prove -v test/pgtap/*.sql || status=1
prove -v test/scripts/concurrency.t test/scripts/clock.t test/scripts/load.t test/scripts/standby.t test/scripts/schema.t test/scripts/reference.t test/scripts/soft_errors.t test/scripts/upgrade.t test/scripts/dump.t test/scripts/renewal.t test/scripts/restart.t test/scripts/readme.t || status=1
# real client drivers (Debian's python3, not a pyenv one without psycopg)
prove -v --exec /usr/bin/python3 test/clients/psycopg_test.py || status=1
prove -v --exec node test/clients/pg_test.js || status=1
exit $status
