#!/usr/bin/env bash
# The PGXN bundle: `make dist` makes flakeid-<version>.zip of the committed
# tree under one flakeid-<version>/ directory; its META.json is valid against
# the PGXN Meta Spec 1.0.0 (test/release/pgxn_meta.py, itself checked on
# broken files below); and flakeid builds from the unpacked bundle, installs
# (in a throwaway root, test/release/scratch_root.sh, so the `make install`
# files stay) and passes its pg_regress suite there, preloaded, with the
# 1.0 -> 1.1 update.  PG_BINDIR picks the PostgreSQL.  Needs root and git.
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh
bindir=${PG_BINDIR:-$(pg_config --bindir)}

version=$(meta_version)
current=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" flakeid.control)
name=flakeid-$version
work=$(mktemp -d /tmp/flakeid-dist.XXXXXX)
chmod 755 "$work"   # the cluster's server (postgres) reads the bundle's tests
trap 'rm -rf "$work"' EXIT

# (in a clone of the checkout, so that runs for several majors at once do
# not write the same file)
git clone -q --no-local . "$work/clone" 2>"$work/dist.err" &&
	make -s -C "$work/clone" dist PG_CONFIG="$bindir/pg_config" >/dev/null 2>>"$work/dist.err" && mv "$work/clone/$name.zip" "$work/"
ok $? "make dist writes $name.zip"
[ -f "$work/$name.zip" ] || { sed 's/^/# /' "$work/dist.err"; done_testing; exit; }

# its files: the committed tree less what .gitattributes leaves out, all under $name/
listed=$(unzip -Z1 "$work/$name.zip" | grep -v '/$' | sort)
is "$(echo "$listed" | grep -vc "^$name/")" "0" "every file of the bundle is under $name/"
is "$(echo "$listed" | sed "s|^$name/||")" \
	"$(git ls-tree -r --name-only HEAD | grep -vE '^\.ci/|^\.gitattributes$' | sort)" \
	"the bundle holds exactly the committed tree, less .ci/ and .gitattributes"
is "$(for f in META.json LICENSE CHANGELOG.md README.md Makefile flakeid.control; do
	echo "$listed" | grep -qx "$name/$f" || echo "$f"; done)" "" \
	"it has META.json, LICENSE, CHANGELOG.md, README.md, Makefile and flakeid.control"

unzip -q "$work/$name.zip" -d "$work"
bundle=$work/$name
meta=$bundle/META.json

# META.json against the spec; the validator rejects what the spec forbids
out=$(/usr/bin/python3 test/release/pgxn_meta.py "$meta"); status=$?
ok $status "the bundle's META.json is valid against the PGXN Meta Spec 1.0.0"
[ $status -eq 0 ] || echo "$out" | sed 's/^/# /'
broken() {   # broken DESCRIPTION PYTHON-EDIT: the validator must refuse META.json so edited
	/usr/bin/python3 -c "import json, sys; m = json.load(open(sys.argv[1])); $2; json.dump(m, open(sys.argv[2], 'w'))" "$meta" "$work/broken.json"
	/usr/bin/python3 test/release/pgxn_meta.py "$work/broken.json" >/dev/null
	ok $((1 - $?)) "the validator refuses a META.json with $1"
}
broken "no license" "del m['license']"
broken "an unknown licence name" "m['license'] = 'PostgreSQL License'"
broken "a two-part version" "m['version'] = '1.1'"
broken "a provided extension without a file" "del m['provides']['flakeid']['file']"
broken "a provided extension with a bad version" "m['provides']['flakeid']['version'] = 'v1.1.0'"
broken "meta-spec 1.1.0" "m['meta-spec']['version'] = '1.1.0'"
broken "a release_status of 'final'" "m['release_status'] = 'final'"
broken "an unknown prerequisite phase" "m['prereqs']['install'] = {'requires': {'PostgreSQL': '15.0.0'}}"
broken "a bad version range" "m['prereqs']['runtime']['requires']['PostgreSQL'] = '>= 15'"
broken "a homepage that is not a URI" "m['resources']['homepage'] = 'pgxn dist page'"
broken "an unknown top-level key" "m['licence'] = 'postgresql'"

# what this project states in it
is "$(/usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
p = m["provides"]["flakeid"]
print(m["license"], m["release_status"], p["version"] == m["version"], p["file"],
      m["prereqs"]["runtime"]["requires"]["PostgreSQL"], sorted(m["resources"]))' "$meta")" \
	"postgresql stable True sql/flakeid--$current.sql 15.0.0 ['homepage']" \
	"META.json: the PostgreSQL License, stable, provides flakeid $version from the current install script, needs PostgreSQL 15.0.0 or later, has resources"
[ -f "$bundle/sql/flakeid--$current.sql" ]
ok $? "the file META.json names for flakeid is in the bundle"
head -1 "$bundle/LICENSE" | grep -qx 'PostgreSQL License' && grep -q 'The flakeid authors' "$bundle/LICENSE"
ok $? "LICENSE is the PostgreSQL License, held by The flakeid authors"

# build from the unpacked bundle, alone
(cd "$bundle" && make -s PG_CONFIG="$bindir/pg_config") > "$work/build.log" 2>&1
status=$?
ok $status "flakeid builds from the unpacked bundle ($("$bindir/pg_config" --version))"
[ $status -eq 0 ] || tail -20 "$work/build.log" | sed 's/^/# /'

# install it in a throwaway root over nothing (the make install files are
# removed there), then its own pg_regress suite and the update from 1.0
sharedir=$("$bindir/pg_config" --sharedir)/extension
pkglibdir=$("$bindir/pg_config" --pkglibdir)
made_before=$(installed_sums "$sharedir" "$pkglibdir")
cat > "$work/in_root.sh" <<'SCRIPT'
sharedir=$1 pkglibdir=$2 bundle=$3 bindir=$4 work=$5
(cd "$bundle" && make -s install PG_CONFIG="$bindir/pg_config") >/dev/null 2>&1; echo "install $?"
echo "files $(ls "$sharedir"/flakeid* | sed 's|.*/||' | sort | paste -sd' ')"
PG_BINDIR=$bindir bash scripts/with_cluster -o shared_preload_libraries=flakeid bash "$work/in_cluster.sh" "$bundle" "$work"
SCRIPT
cat > "$work/in_cluster.sh" <<'SCRIPT'
bundle=$1 work=$2
(cd "$bundle" && make installcheck) > "$work/installcheck.log" 2>&1; echo "installcheck $?"
echo "versions $(psql -X -q -At -c "SELECT string_agg(version, ' ' ORDER BY version) FROM pg_available_extension_versions WHERE name = 'flakeid'")"
createdb from10
psql -X -q -At -d from10 -c "CREATE EXTENSION flakeid VERSION '1.0'" -c "ALTER EXTENSION flakeid UPDATE" \
	-c "SELECT 'updated ' || extversion FROM pg_extension WHERE extname = 'flakeid'" 2>&1
SCRIPT
out=$(PG_BINDIR=$bindir bash test/release/scratch_root.sh --without-flakeid bash "$work/in_root.sh" "$sharedir" "$pkglibdir" "$bundle" "$bindir" "$work" 2>&1)
is "$(tagged "$out" install)" "0" "in a throwaway root, make install from the bundle installs"
is "$(tagged "$out" files)" \
	"$(shipped_files | sed 's|.*/||' | sort | paste -sd' ')" \
	"it installs the control file and every shipped SQL script"
installcheck=$(tagged "$out" installcheck)
is "$installcheck" "0" "the bundle's pg_regress suite passes against what it installed (preloaded)"
[ "$installcheck" = 0 ] || tail -30 "$work/installcheck.log" | sed 's/^/# /'
releases=$(ls sql/released/flakeid--*.sql | sed 's/.*flakeid--\(.*\)\.sql$/\1/' | sort -V | paste -sd' ')
is "$(tagged "$out" versions)" "$releases $current" "the installed bundle offers every release ($releases) and $current"
is "$(tagged "$out" updated)" "$current" "a database at 1.0 updates to $current from the bundle's scripts"
is "$(installed_sums "$sharedir" "$pkglibdir")" "$made_before" "outside the throwaway root, the make install files are untouched"
done_testing
