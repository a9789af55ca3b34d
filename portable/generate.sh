#!/usr/bin/env bash
# portable/generate.sh plain|pgtle: the portable edition from portable/source/,
# on standard output (the Makefile's `make portable` writes the two committed
# files with it; `make sql-check` compares them).
#   plain  portable/flakeid_portable.sql: one transaction, into the current schema
#   pgtle  portable/flakeid_portable_pgtle.sql: the same body registered with
#          pg_tle as flakeid_portable 1.5, the update path 1.5 -> 1.5.1, and
#          1.5.1 the default version
#
# The alphabets are not copied: each is read from the C edition's format
# module (src/format/<module>.c, `.symbols = "..."`), so one table serves both
# editions.  Each fixed-width type is the template fixed_type.sql.in, its own
# file <name>.sql, then time_range.sql.in, as the C edition's install script
# takes sql/source/fixed_type.sql.in and <name>.sql.
set -euo pipefail
cd "$(dirname "$0")/.."
PORTABLE_VERSION=1.5

# alphabet FILE [NTH]: the NTH (default 1) `.symbols = "..."` of src/format/FILE
alphabet() {
	local a
	a=$(sed -n 's/^[[:space:]]*\.symbols = "\([^"]*\)",$/\1/p' "src/format/$1" | sed -n "${2:-1}p")
	[ -n "$a" ] || { echo "generate.sh: no alphabet in src/format/$1" >&2; exit 1; }
	printf '%s' "$a"
}

# name width alphabet bits chars spare-first uuid-tag first-time end-time
TYPES=(
	"sno 10 $(alphabet sno.c) 5 16 false 1 2010-01-01 00:00:00+00|2079-09-07 15:47:35.552+00"
	"flax 12 $(alphabet flax.c) 6 16 false 2 2015-01-01 00:00:00+00|2049-11-03 19:53:47.776+00"
	"siq 14 $(alphabet siq.c) 5 23 true 3 1970-01-01 00:00:00+00|36812-02-20 00:36:16+00"
	"kuid 8 $(alphabet kuid.c) 6 11 false 4 1970-01-01 00:00:00+00|35198-01-19 07:06:40+00"
	"kuid96 12 $(alphabet kuid.c) 6 16 false 5 1970-01-01 00:00:00+00|35198-01-19 07:06:40+00"
)

# fill TEMPLATE SPEC: the template with one type's values (sed's & and \ escaped)
fill() {
	local name width alpha bits chars spare tag times tmin tend
	read -r name width alpha bits chars spare tag times <<< "$2"
	tmin=${times%%|*} tend=${times##*|}
	alpha=$(printf '%s' "$alpha" | sed -e 's/[\\&|]/\\&/g')
	sed -e "s|@TYPE@|$name|g" -e "s|@WIDTH@|$width|g" -e "s|@ALPHABET@|$alpha|g" -e "s|@BITS@|$bits|g" \
		-e "s|@NCHARS@|$chars|g" -e "s|@SPARE_FIRST@|$spare|g" -e "s|@TAG@|$tag|g" \
		-e "s|@TIME_MIN@|$tmin|g" -e "s|@TIME_END@|$tend|g" "portable/source/$1"
}

# siq's kinds, from the C edition's table (src/format/siq.c: {"name", value})
siq_kinds() {
	sed -n '/^const SiqKind siq_kinds\[\] = {/,/^};/p' src/format/siq.c | grep -o '{"[a-z]*", [0-9]*}' |
		sed -e 's/{"\([a-z]*\)", \([0-9]*\)}/(\x27\1\x27, \2)/' | paste -sd, - | sed 's/),(/), (/g'
}

# own_file NAME: a type's own file, with the tables it reads from the C
# edition: siq's kinds, its alphabet and the DID body's (RFC 4648 base32)
own_file() {
	local kinds names
	kinds=$(siq_kinds)
	names=$(printf '%s' "$kinds" | grep -o "'[a-z]*'" | tr -d "'" | paste -sd' ' -)
	[ -n "$kinds" ] || { echo "generate.sh: no siq kinds in src/format/siq.c" >&2; exit 1; }
	sed -e "s|@SIQ_KINDS@|$kinds|g" -e "s|@SIQ_KIND_NAMES@|$names|g" \
		-e "s|@DID_ALPHABET@|$(alphabet siq_forms.c)|g" -e "s|@ALPHABET_siq@|$(alphabet siq.c)|g" "portable/source/$1.sql"
}

body() {
	cat portable/source/head.sql portable/source/generic.sql
	local spec
	for spec in "${TYPES[@]}"; do
		fill fixed_type.sql.in "$spec"
		own_file "${spec%% *}"
		fill time_range.sql.in "$spec"
	done
	cat portable/source/snowflake.sql portable/source/tail.sql
}

case ${1:-} in
	plain)
		echo "-- flakeid $PORTABLE_VERSION, portable edition: run as a role with CREATE on the current schema"
		echo "-- (psql -f portable/flakeid_portable.sql, or any client); no superuser, no extension."
		echo "BEGIN;"
		body
		echo "COMMIT;"
		;;
	pgtle)
		echo "-- flakeid $PORTABLE_VERSION, portable edition, registered with pg_tle (run as a member of pgtle_admin):"
		echo "-- then CREATE EXTENSION flakeid_portable; ALTER EXTENSION flakeid_portable UPDATE updates it."
		echo "SELECT pgtle.install_extension('flakeid_portable', '$PORTABLE_VERSION',"
		echo "    'flakeid portable edition: distributed unique-ID types in SQL and PL/pgSQL', \$flakeid_portable\$"
		body
		echo "\$flakeid_portable\$);"
		# The update path of the release after this one is written here when it
		# comes; until then, one that changes nothing proves the path works.
		echo "SELECT pgtle.install_update_path('flakeid_portable', '$PORTABLE_VERSION', '$PORTABLE_VERSION.1', \$flakeid_portable\$"
		echo "COMMENT ON FUNCTION sno_new(int4) IS 'new sno from this database''s generator (a sequence; portable/README.md)';"
		echo "\$flakeid_portable\$);"
		# the newest version the default: a plain ALTER EXTENSION ... UPDATE
		# reaches it, and a restore of pg_dump's output (CREATE EXTENSION with
		# no version) makes the version that was dumped, not 1.5
		echo "SELECT pgtle.set_default_version('flakeid_portable', '$PORTABLE_VERSION.1');"
		;;
	*) echo "usage: portable/generate.sh plain|pgtle" >&2; exit 2 ;;
esac
