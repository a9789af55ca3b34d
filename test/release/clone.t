#!/usr/bin/env bash
# The test command from a clone where the postgres user cannot go: a 0700
# directory (as /root is, and every mktemp -d), a path with a space, and the
# clone read-only (a read-only bind mount: root writes through mode bits).
# One TAP file, test/t/009_release_upgrade.pl (it runs make installcheck inside),
# through `bash scripts/test` with the C layer and the clients left out,
# with the caller's PGHOST, PGPORT and MAKEFLAGS pointing nowhere.  On 1.2
# every TAP file died there with EACCES: PostgreSQL::Test::Cluster's port
# reservations lived in the checkout.  PG_BINDIR picks the PostgreSQL (Debian's
# on this host: the test command's own major).  Needs root and unshare.
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh
. scripts/lib.sh

parent=$(mktemp -d)
trap 'rm -rf "$parent"' EXIT
clone="$parent/a clone"
copy_tree "$clone"
is "$(stat -c %a "$parent")" "700" "the clone's parent directory is root's alone (mode 700)"
runuser -u postgres -- test -x "$parent"
ok $((1 - $?)) "the postgres user cannot enter it"

major=$("${PG_BINDIR:-/usr/lib/postgresql/$PG_MAJOR/bin}/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
# (the suite this runs in shares its port reservations; its scratch directory is its own)
out=$(env -u FLAKEID_SCRATCH PGHOST=/nonexistent PGPORT=1 MAKEFLAGS="PGHOST=/nonexistent PGPORT=1" \
	FLAKEID_PG_VERSIONS="$major" FLAKEID_SKIP="c-layer clients" FLAKEID_STEPS=prove PROVE_TESTS=test/t/009_release_upgrade.pl \
	unshare --mount --propagation private bash -c '
		mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 99
		touch "$1/written" 2>/dev/null && { echo "the clone is writable"; exit 98; }
		cd "$1" && bash scripts/test' clone.t "$clone" 2>&1)
status=$?
is "$status" "0" "bash scripts/test runs test/t/009_release_upgrade.pl from the read-only clone (exit $status)"
echo "$out" | grep -qE "^PostgreSQL $major: [1-9][0-9]* passed, 0 failed$"
ok $? "and counts its checks: $(echo "$out" | grep -E "^PostgreSQL $major: " | tail -1)"
echo "$out" | grep -q 'test/t/009_release_upgrade.pl' && echo "$out" | grep -qx 'Result: PASS'
ok $? "prove ran test/t/009_release_upgrade.pl there, and it passed"
[ "$status" -eq 0 ] || echo "$out" | tail -40 | sed 's/^/# /'
done_testing
