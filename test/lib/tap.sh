# Shell helpers for TAP test scripts: source it, call ok/is, end with done_testing.
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

# a new empty database (one left by an interrupted run is dropped first)
fresh_db() { dropdb --if-exists "$1" 2>/dev/null; createdb "$1"; }

# The SQLSTATE a statement fails with ('ok' if it succeeds), and its message lines.
sqlstate() {
	local out
	if out=$("${PSQL[@]}" -v VERBOSITY=sqlstate -c "$1" 2>&1); then echo ok; else echo "$out" | sed -n 's/^.*ERROR:  *\([0-9A-Z]\{5\}\).*$/\1/p' | head -1; fi
}
message_of() { "${PSQL[@]}" -v VERBOSITY=default -c "$1" 2>&1 || true; }

# state_file_mark DATADIR: this server's saved mark of the monotonic generators (Unix us) in a
# version 3 flakeid.state (body offset 16); state_file_sno_mark: sno's, of its tick-tock in use
# (body offsets 24 and 32 for tick-tock 0 and 1; the tick-tock at body offset 40)
state_file_mark() { od -An -td8 -j32 -N8 "$1/flakeid.state" | tr -d ' '; }
state_file_sno_mark() {
	local ticktock
	ticktock=$(od -An -tu4 -j56 -N4 "$1/flakeid.state" | tr -d ' ')
	od -An -td8 -j$((40 + 8 * ticktock)) -N8 "$1/flakeid.state" | tr -d ' '
}

# a server command as the postgres user when root runs the test (servers
# refuse root), from a directory it may read; as the user itself otherwise
as_postgres() {
	if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

# --- a faked clock (libfaketime) for a test's servers ----------------------------
# libfaketime keeps shared state in two /dev/shm objects named by the pid of
# the first process that loads it (FAKETIME_SHARED names them to its
# children): owned by that user with mode 0600, removed when that process or
# any fork of it exits (a bash subshell does), and left behind when it execs.
# A process that finds the objects gone, or cannot open them (the postgres
# user, under a root parent), makes its own under its pid; if a leftover
# holds that name, it exits with status 1 and a "sem_open failed" message.
# Pids wrap at 32768 here, and every run leaves objects behind, so a server
# that did not start, at random, is what a faked clock did without this.
# fake_clock_setup makes one pair that every process of the test can open
# and none removes, and exports it in FAKETIME_SHARED: then no process makes
# its own.  fake_clock_teardown, in the test's EXIT trap, removes it.
LIBFAKETIME=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
# a script that fakes the clock calls this before its first check: without
# libfaketime it is skipped, and says why
require_libfaketime() {
	[ -f "$LIBFAKETIME" ] && return
	echo "1..0 # SKIP libfaketime is not installed ($LIBFAKETIME: Debian's faketime package)"
	exit 0
}
fake_clock_setup() {
	local attempt shared=
	for attempt in 1 2 3 4 5; do
		# bash makes the pair under its pid and execs (so it stays); a leftover under that pid: try again
		shared=$(env -u FAKETIME_SHARED LD_PRELOAD="$LIBFAKETIME" FAKETIME=+0 bash -c 'exec printenv FAKETIME_SHARED') && break
	done
	[ -n "$shared" ] || { echo "fake_clock_setup: libfaketime made no shared state in $attempt attempts" >&2; return 1; }
	read -r FAKE_CLOCK_SEM FAKE_CLOCK_SHM <<< "$shared"
	chmod 666 "/dev/shm/sem.${FAKE_CLOCK_SEM#/}" "/dev/shm/${FAKE_CLOCK_SHM#/}" || return 1
	export FAKETIME_SHARED=$shared
}
fake_clock_teardown() {
	[ -z "${FAKE_CLOCK_SEM:-}" ] || rm -f "/dev/shm/sem.${FAKE_CLOCK_SEM#/}" "/dev/shm/${FAKE_CLOCK_SHM#/}"
	unset FAKETIME_SHARED
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

# in_new_cluster [-o SETTING=VALUE]... SCRIPT: runs SCRIPT (bash, with this
# file sourced) in a new scripts/with_cluster cluster where flakeid has been
# created; its stdout is this function's.  What with_cluster, pg_ctl and psql
# print besides is kept apart, and shown on stderr as "# " lines when the
# cluster or SCRIPT fails or a server_ctl fails, so that a server which did
# not start says why.
in_new_cluster() {
	local settings=() noise status
	while [ "$1" = -o ]; do settings+=(-o "$2"); shift 2; done
	noise=$(mktemp)
	bash scripts/with_cluster "${settings[@]}" bash -c "exec 1>&3; . test/lib/tap.sh; sql 'CREATE EXTENSION flakeid' >/dev/null; $1" 3>&1 >"$noise" 2>&1
	status=$?
	if [ $status -ne 0 ] || grep -q '^server_ctl: ' "$noise"; then
		{ echo "# the cluster's own output (exit $status):"; sed 's/^/#   /' "$noise"; } >&2
	fi
	rm -f "$noise"
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
