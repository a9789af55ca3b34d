#!/usr/bin/env bash
# docs/REFERENCE.md against the catalog: every function,
# operator, operator class, cast and setting the extension has is named
# there, and everything named there exists.  A name documented generically
# as <type>_x must exist for every type.  Needs the preloaded cluster of
# test/t/in_cluster.pl (the PG* environment).
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

TYPES="sno flax siq kuid kuid96"
fresh_db flakeid_reference
PSQL+=(-d flakeid_reference)
sql "CREATE EXTENSION flakeid" >/dev/null

# docs/REFERENCE.md up to its end-of-catalog mark (the examples after it
# are readme.t's)
reference=$(awk '/end of the catalog-checked reference/ { exit } { print }' docs/REFERENCE.md)
ok "$([ "$(echo "$reference" | wc -l)" -gt 50 ] && grep -q 'end of the catalog-checked reference' docs/REFERENCE.md; echo $?)" \
	"docs/REFERENCE.md has a reference part, ended by its mark"

members() {   # members CATALOG NAME-EXPRESSION: the extension's members of one catalog
	sql "SELECT DISTINCT $2 FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'flakeid'
	     JOIN $1 m ON m.oid = d.objid WHERE d.classid = '$1'::regclass AND d.deptype = 'e' ORDER BY 1"
}
# the backquoted spans of the section that start like a name (a word character or <type>)
documented_names=$(echo "$reference" | grep -oE '`[^`]+`' | grep -oE '(<type>|[a-z])[a-z0-9_<>]*' | sort -u)
generic() { echo "$1" | sed -E "s/^(sno|flax|siq|kuid96|kuid)_/<type>_/"; }   # sno_cmp -> <type>_cmp
is_documented() {   # the literal name, or its generic <type>_ form
	echo "$documented_names" | grep -qxF -e "$1" -e "$(generic "$1")"
}

# every function (aggregates included) is documented
functions=$(members pg_proc proname)
undocumented=""
for f in $functions; do is_documented "$f" || undocumented+=" $f"; done
is "$undocumented" "" "every function of the extension is in the reference ($(echo "$functions" | wc -l) names)"

# every documented name in a function-shaped span exists: literally, or for every type
# (a span up to its first parenthesis, and any <type>_ name but the operator classes')
claimed=$( (echo "$reference" | grep -oE '`[^`]*\(' | grep -oE '(<type>|[a-z])[a-z0-9_<>]*\($' | tr -d '('
	echo "$reference" | grep -oE '`<type>_[a-z_]+`' | tr -d '`' | grep -v '_ops$') | sort -u)
missing=""
for name in $claimed; do
	case $name in
		'<type>'_*) for t in $TYPES; do echo "$functions" | grep -qxF "${name/<type>/$t}" || missing+=" ${name/<type>/$t}"; done ;;
		*) echo "$functions" | grep -qxF "$name" || missing+=" $name" ;;
	esac
done
is "$missing" "" "every function the reference names exists ($(echo "$claimed" | wc -l) names, <type> for each type)"

# operators and operator classes
operators=$(members pg_operator oprname)
undocumented=""
for o in $operators; do echo "$reference" | grep -qF "\`$o\`" || undocumented+=" $o"; done
is "$undocumented" "" "every operator is in the reference ($(echo "$operators" | tr '\n' ' '))"
opclasses=$(members pg_opclass "opcname || ' ' || (SELECT amname FROM pg_am WHERE oid = opcmethod)")
undocumented=""
while read -r name method; do
	echo "$reference" | grep -qiF "\`$(generic "$name")\` ($method" || undocumented+=" $name/$method"
done <<< "$opclasses"
is "$undocumented" "" "every operator class is in the reference with its index method ($(echo "$opclasses" | wc -l))"

# casts: each source and target pair appears on the casts line
casts=$(members pg_cast "castsource::regtype || ' ' || casttarget::regtype")
cast_line=$(echo "$reference" | grep '^| casts')
undocumented=""
is_type() { [[ " $TYPES " == *" $1 "* ]]; }
while read -r source target; do
	if is_type "$source" && is_type "$target"; then   # written once, in name order
		pair=$(printf '%s\n' "$source" "$target" | sort | sed 's/.*/`&`/' | paste -sd' ' | sed 's/ / ↔ /')
	elif is_type "$source"; then pair="\`<type>\` ↔ \`$target\`"
	else pair="\`<type>\` ↔ \`$source\`"
	fi
	echo "$cast_line" | grep -qF "$pair" || undocumented+=" $source->$target"
done <<< "$casts"
is "$undocumented" "" "every cast is in the reference ($(echo "$casts" | wc -l))"

# settings, with their defaults and contexts as the server reports them
settings=$(sql "SELECT name, CASE WHEN vartype = 'string' AND boot_val = '' THEN '''''' ELSE boot_val END, context FROM pg_settings WHERE name LIKE 'flakeid.%' ORDER BY 1")
wrong=""
while IFS='|' read -r name default context; do
	echo "$reference" | grep -qE "^\| \`$name\` \|[^|]*\| \`$default\` \| $context \|" || wrong+=" $name"
done <<< "$settings"
is "$wrong" "" "every setting is in the reference with its default and context ($(echo "$settings" | wc -l))"
documented_settings=$(echo "$reference" | grep -oE '^\| `flakeid\.[a-z_0-9]+`' | grep -oE 'flakeid\.[a-z_0-9]+' | sort)
is "$documented_settings" "$(echo "$settings" | cut -d'|' -f1)" "the reference lists no setting the server does not have"

# the STRICT and PARALLEL exceptions the reference lists are exactly the catalog's
listed_names() {   # listed_names START-PATTERN: the backquoted names of the paragraph from START to the blank line
	echo "$reference" | awk -v start="$1" 'index($0, start) { on = 1 } on && /^$/ { exit } on' |
		grep -oE '`[a-z][a-z_0-9]*(\([^`]*\))?`' | tr -d '`' | sed 's/(.*//' | sort -u
}
catalog_names() {   # catalog_names CONDITION: the extension's function names meeting it
	sql "SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
	     AND d.deptype = 'e' JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'flakeid' WHERE $1 ORDER BY 1"
}
is "$(listed_names 'Every function is `STRICT`' | paste -sd' ')" "$(catalog_names "NOT p.proisstrict" | paste -sd' ')" \
	"the functions the reference says are not STRICT are exactly the catalog's"
is "$(listed_names 'Every function is `PARALLEL SAFE`' | paste -sd' ')" \
	"$(catalog_names "p.proparallel <> 's'" | paste -sd' ')" \
	"the functions the reference says are not PARALLEL SAFE are exactly the catalog's"

# the view
is "$(members pg_class relname)" "flakeid_generators" "the extension's one relation is the view flakeid_generators"
echo "$reference" | grep -qF 'the view `flakeid_generators`'
ok $? "the view is in the reference"

dropdb flakeid_reference
done_testing
