# Shell helpers for the bash TAP scripts (the release checks of test/release,
# the benchmarks): source it, call ok/is, end with done_testing.  The TAP
# files of test/t have test/lib/FlakeidTest.pm.
TAP_N=0
TAP_FAILED=0
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)

ok() {   # ok CONDITION-EXIT-STATUS DESCRIPTION
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then echo "ok $TAP_N - $2"; else echo "not ok $TAP_N - $2"; TAP_FAILED=$((TAP_FAILED + 1)); fi
}

is() {   # is GOT EXPECTED DESCRIPTION
	if [ "$1" == "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got:      '$1'"; echo "#   expected: '$2'"; fi
}

done_testing() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

sql() { "${PSQL[@]}" -c "$1"; }

# The SQLSTATE a statement fails with ('ok' if it succeeds), and its message lines.
sqlstate() {
	local out
	if out=$("${PSQL[@]}" -v VERBOSITY=sqlstate -c "$1" 2>&1); then echo ok; else echo "$out" | sed -n 's/^.*ERROR:  *\([0-9A-Z]\{5\}\).*$/\1/p' | head -1; fi
}
message_of() { "${PSQL[@]}" -v VERBOSITY=default -c "$1" 2>&1 || true; }

# a server command as the postgres user when root runs the test (servers
# refuse root), from a directory it may read; as the user itself otherwise
as_postgres() {
	if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

# pg_ctl on the cluster of scripts/with_cluster (PGDATA, FLAKEID_PG_LOG):
# server_ctl stop -m immediate, server_ctl start, ...  A failure says so on
# stderr, with the end of the server log.
server_ctl() {
	as_postgres pg_ctl -D "$PGDATA" -l "$FLAKEID_PG_LOG" -w -t 60 "$@" >/dev/null && return
	local status=$?
	{ echo "server_ctl: pg_ctl $* failed (exit $status); the end of the server log:"; tail -10 "$FLAKEID_PG_LOG"; } >&2
	return $status
}

# --- release checks (package.t, dist.t) ---------------------------------------
# META.json's version
meta_version() { /usr/bin/python3 -c 'import json; print(json.load(open("META.json"))["version"])'; }

# what `make install` puts in the extension directory, as paths in the tree:
# the control file and every shipped SQL script (current, released, upgrades)
shipped_files() { ls flakeid.control sql/flakeid--*.sql sql/released/flakeid--*.sql sql/upgrades/flakeid--*.sql; }

# installed_sums EXTENSION-DIR PKGLIBDIR: checksums of the flakeid files installed there
installed_sums() { md5sum "$1"/flakeid* "$2/flakeid.so" 2>/dev/null; }

# tagged OUTPUT TAG: the rest of OUTPUT's line that starts with "TAG " (a
# script run elsewhere reports each result on a line of its own, "install 0")
tagged() { sed -n "s/^$2 //p" <<< "$1"; }
