#!/usr/bin/env bash
# The Debian package: debian/ builds postgresql-<version>-flakeid with
# `dpkg-buildpackage -us -uc -b` (pg_buildext, debian/pgversions) in a scratch
# copy of the tree, its build-time pg_regress check passes, the package holds
# exactly the files `make install` installs, and the autopkgtest check
# (debian/tests/installcheck, pg_buildext installcheck) passes against the
# package installed with dpkg -i.  The install happens in a throwaway root
# (test/release/scratch_root.sh): the package is never left installed over the
# `make install` files, and this script checks that too.  Needs root.
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

version=$(dpkg-parsechangelog -S Version)
is "$version" "$(meta_version)" \
	"debian/changelog's version $version is META.json's"

work=$(mktemp -d /tmp/flakeid-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
src=$work/flakeid-$version
mkdir "$src"
# the tree as committed or being committed: tracked and new files, no build products
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$src"

(cd "$src" && DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -us -uc -b) > "$work/build.log" 2>&1
ok $? "dpkg-buildpackage -us -uc -b builds in a scratch copy"
grep -qE 'All [0-9]+ tests passed' "$work/build.log"
ok $? "the build-time check (dh_pgxs_test: pg_regress against the files being packaged) passes"
[ "$TAP_FAILED" -eq 0 ] || tail -40 "$work/build.log" | sed 's/^/# /'

# one package per supported version: Debian 12 supports 15
mapfile -t majors < <(cd "$src" && pg_buildext supported-versions)
is "${majors[*]}" "15" "debian/pgversions (15+) gives Debian 12's PostgreSQL 15"
major=${majors[0]:-15}
pkg=postgresql-$major-flakeid
deb=$(ls "$work"/${pkg}_"$version"_*.deb 2>/dev/null | head -1)
ok "$([ -n "$deb" ]; echo $?)" "the build makes ${pkg}_${version}_<arch>.deb"
[ -n "$deb" ] || { done_testing; exit; }

# its files: the control file, the shared library, and every shipped SQL
# script of the tree (the current install script, the frozen releases, the
# upgrades), byte for byte; nothing outside PostgreSQL's directories and the docs
pg_config=/usr/lib/postgresql/$major/bin/pg_config
sharedir=$("$pg_config" --sharedir)/extension
pkglibdir=$("$pg_config" --pkglibdir)
dpkg-deb -x "$deb" "$work/deb"
expected=$( { echo "$pkglibdir/flakeid.so"; shipped_files | sed "s|.*/||; s|^|$sharedir/|"; } | sort)
is "$(cd "$work/deb" && find . -type f | sed 's|^\.||' | grep -vE "^/usr/share/doc/$pkg/|^$pkglibdir/bitcode/" | sort)" "$expected" \
	"the package holds the control file, flakeid.so and every shipped SQL script, and nothing else besides docs and JIT bitcode"
same=0
for f in $(shipped_files); do
	cmp -s "$f" "$work/deb$sharedir/${f##*/}" || { echo "# differs from the tree: ${f##*/}"; same=1; }
done
ok $same "the packaged control file and SQL scripts are the tree's, byte for byte"
ls "$work/deb/usr/share/doc/$pkg/" | grep -qx copyright && grep -q 'License: PostgreSQL' "$work/deb/usr/share/doc/$pkg/copyright"
ok $? "the package carries the copyright file with the PostgreSQL License"
is "$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep -c "^postgresql-$major$")" "1" \
	"the package depends on postgresql-$major"

# the autopkgtest in a throwaway root: remove what `make install` put there,
# dpkg -i the package, run debian/tests/installcheck from the source tree,
# then dpkg -r and look for leftovers
made_before=$(installed_sums "$sharedir" "$pkglibdir")
out=$(PG_BINDIR=/usr/lib/postgresql/$major/bin bash test/release/scratch_root.sh --without-flakeid bash -c '
	sharedir=$1 pkglibdir=$2 deb=$3 src=$4 pkg=$5
	dpkg -i "$deb" >/dev/null 2>&1; echo "install $?"
	echo "owner $(dpkg -S "$sharedir/flakeid.control" 2>/dev/null | cut -d: -f1)"
	(cd "$src" && debian/tests/installcheck) > "$src/../installcheck.log" 2>&1; echo "installcheck $?"
	dpkg -r "$pkg" >/dev/null 2>&1; echo "remove $?"
	echo "left $(ls "$sharedir"/flakeid* "$pkglibdir"/flakeid.so 2>/dev/null | wc -l)"
	' _ "$sharedir" "$pkglibdir" "$deb" "$src" "$pkg" 2>&1)
is "$(tagged "$out" install)" "0" "in a throwaway root, dpkg -i installs the package (its dependencies are met)"
is "$(tagged "$out" owner)" "$pkg" "there, flakeid.control belongs to $pkg"
installcheck=$(tagged "$out" installcheck)
is "$installcheck" "0" "debian/tests/installcheck (pg_buildext installcheck, preloaded) passes against the installed package"
grep -qE 'All [0-9]+ tests passed' "$work/installcheck.log"
ok $? "its pg_regress run reports every test passed"
[ "$installcheck" = 0 ] || tail -40 "$work/installcheck.log" | sed 's/^/# /'
is "$(tagged "$out" remove) $(tagged "$out" left)" "0 0" "dpkg -r removes every file of the package"
is "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -c ' installed')" "0" "outside the throwaway root, $pkg is not installed"
is "$(installed_sums "$sharedir" "$pkglibdir")" "$made_before" "outside it, the make install files are untouched"
done_testing
