#!/usr/bin/env bash
# Runs a command in a throwaway root: a private mount namespace in which /usr,
# /var/lib/dpkg and /var/log (and the sharedir and pkglibdir of PG_BINDIR's
# PostgreSQL, when they lie elsewhere) are overlays whose changes go to a
# temporary directory.  What the command installs, removes or registers with
# dpkg there is gone when it ends; the machine's own files, including the
# flakeid that `make install` put there, are never touched.  Needs root.
#
#   bash test/release/scratch_root.sh [--without-flakeid] COMMAND [ARG]...
#
# --without-flakeid first removes, inside the root, the flakeid files of
# PG_BINDIR's PostgreSQL (control file, SQL scripts, library, JIT bitcode),
# so that COMMAND installs over nothing and tests only what it installed.
#
# Servers started inside must stop inside (scripts/with_cluster and
# pg_virtualenv do).  The exit status is COMMAND's.
set -uo pipefail
without_flakeid=false
[ "${1:-}" = --without-flakeid ] && { without_flakeid=true; shift; }
[ $# -gt 0 ] || { echo "usage: scratch_root.sh [--without-flakeid] COMMAND..." >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "scratch_root.sh needs root (mount namespaces and overlays)" >&2; exit 2; }

pg_config=${PG_BINDIR:-$(dirname "$(command -v pg_config)")}/pg_config
sharedir=$("$pg_config" --sharedir) pkglibdir=$("$pg_config" --pkglibdir)
dirs=(/usr /var/lib/dpkg /var/log)
for d in "$sharedir" "$pkglibdir"; do
	case $d in /usr/*) ;; *) dirs+=("$d") ;; esac
done

changes=$(mktemp -d /tmp/flakeid-scratch-root.XXXXXX)
trap 'rm -rf "$changes"' EXIT
chmod 755 "$changes"   # servers run as postgres inside
mounts=""
for d in "${dirs[@]}"; do
	key=$(echo "$d" | tr / _)
	mkdir -p "$changes/$key/upper" "$changes/$key/work"
	mounts+="mount -t overlay overlay -o lowerdir=$d,upperdir=$changes/$key/upper,workdir=$changes/$key/work $d || exit 97; "
done
! $without_flakeid || mounts+="rm -f $sharedir/extension/flakeid.control $sharedir/extension/flakeid--*.sql $pkglibdir/flakeid.so; rm -rf $pkglibdir/bitcode/flakeid $pkglibdir/bitcode/flakeid.index.bc; "
# the mounts are made inside the namespace, before COMMAND: nothing outside sees them
unshare --mount --propagation private bash -c "$mounts"'exec "$@"' scratch_root "$@"
