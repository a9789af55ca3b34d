#!/usr/bin/env bash
# Upgrades: every earlier release (sql/released/flakeid--<v>.sql) is
# installed, updated with ALTER EXTENSION flakeid UPDATE, compared object by
# object with a fresh install of the current version, and then given the
# whole pg_regress suite.  Runs in the preloaded cluster.
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

current=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" flakeid.control)
mapfile -t releases < <(ls sql/released/flakeid--*.sql 2>/dev/null | sed 's/.*flakeid--\(.*\)\.sql$/\1/' | sort -V)

# every extension member, with what defines a function's behaviour and who may use it
members="SELECT pg_describe_object(d.classid, d.objid, 0) || coalesce(' ' || (
             SELECT concat_ws(' ', p.provolatile, p.proisstrict, p.proparallel, p.proleakproof,
                              p.prosupport::regproc, p.prosrc, pg_get_function_result(p.oid), p.proacl)
             FROM pg_proc p WHERE d.classid = 'pg_proc'::regclass AND p.oid = d.objid), '')
             || coalesce(' ' || (SELECT c.relacl::text FROM pg_class c
                                 WHERE d.classid = 'pg_class'::regclass AND c.oid = d.objid), '')
         FROM pg_depend d
         WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
           AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'flakeid')
         ORDER BY 1"

# the PGXN META.json releases the same version
is "$(/usr/bin/python3 -c 'import json; m = json.load(open("META.json")); print(m["version"], m["provides"]["flakeid"]["version"])')" \
	"$current.0 $current.0" "META.json is valid JSON and releases $current ($current.0 in PGXN's semantic versions)"

# CHANGELOG.md has an entry for every release, the current one first
is "$(sed -n 's/^## \([0-9][0-9.]*\) .*$/\1/p' CHANGELOG.md | paste -sd' ')" \
	"$(printf '%s\n' "$current" "${releases[@]}" | sed '/^$/d' | sort -rV | sed 's/$/.0/' | paste -sd' ')" \
	"CHANGELOG.md has an entry for $current and every earlier release, newest first"

fresh_db flakeid_fresh
PGDATABASE=flakeid_fresh sql "CREATE EXTENSION flakeid" >/dev/null
fresh=$(PGDATABASE=flakeid_fresh sql "$members")
is "$(PGDATABASE=flakeid_fresh sql "SELECT extversion FROM pg_extension WHERE extname = 'flakeid'")" "$current" \
	"CREATE EXTENSION installs flakeid.control's default_version $current"
ok "$([ "$(echo "$fresh" | wc -l)" -gt 300 ]; echo $?)" "a fresh install has its $(echo "$fresh" | wc -l) members"
is "$(PGDATABASE=flakeid_fresh sql "SELECT string_agg(version, ' ' ORDER BY version) FROM pg_available_extension_versions WHERE name = 'flakeid'")" \
	"$(printf '%s\n' "${releases[@]}" "$current" | sed '/^$/d' | sort -V | paste -sd' ')" \
	"the installable versions are the released ones and $current"
PGDATABASE=flakeid_fresh sql "ALTER EXTENSION flakeid UPDATE" >/dev/null 2>&1
is "$(PGDATABASE=flakeid_fresh sql "$members")" "$fresh" "ALTER EXTENSION flakeid UPDATE at $current changes nothing"
dropdb flakeid_fresh
echo "# earlier releases: ${#releases[@]} (${releases[*]:-none: $current is the first})"

for v in "${releases[@]}"; do
	db="flakeid_from_${v//./_}"
	fresh_db "$db"
	PGDATABASE=$db sql "CREATE EXTENSION flakeid VERSION '$v'" >/dev/null
	is "$(PGDATABASE=$db sql "SELECT extversion FROM pg_extension WHERE extname = 'flakeid'")" "$v" "release $v installs"
	PGDATABASE=$db sql "ALTER EXTENSION flakeid UPDATE" >/dev/null
	is "$(PGDATABASE=$db sql "SELECT extversion FROM pg_extension WHERE extname = 'flakeid'")" "$current" "release $v updates to $current"
	is "$(PGDATABASE=$db sql "$members")" "$fresh" "release $v updated has exactly the objects of a fresh $current"
	# the whole pg_regress suite on the updated database (setup.sql keeps the extension)
	make -s installcheck REGRESS_OPTS="--use-existing --dbname=$db" >/dev/null 2>&1
	ok $? "release $v updated to $current passes the pg_regress suite"
	[ -f regression.diffs ] && sed 's/^/# /' regression.diffs | head -50
	dropdb "$db"
done
done_testing
