#!/usr/bin/env bash
# Soft input errors (PostgreSQL 16+): bad text reports 22P02 softly, so
# pg_input_is_valid() and pg_input_error_info() work, and on 17+ COPY's
# ON_ERROR ignore skips bad rows.  On 15 the functions do not exist and the
# file is skipped; hard 22P02 errors are tested by pg_regress on every version.
# Needs the PG* environment test/t/in_cluster.pl gives.
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

version=$(sql "SHOW server_version_num")
if [ "$version" -lt 160000 ]; then
	echo "1..0 # SKIP pg_input_is_valid() arrives in PostgreSQL 16 (this is $version)"
	exit 0
fi

fresh_db flakeid_soft_errors
PSQL+=(-d flakeid_soft_errors)
sql "CREATE EXTENSION flakeid" >/dev/null

# type|a valid text|invalid texts (comma-separated; none of them contains a comma)
while IFS='|' read -r type valid invalids; do
	is "$(sql "SELECT pg_input_is_valid('$valid', '$type')")" "t" "$type: '$valid' is valid input"
	IFS=, read -ra bad <<< "$invalids"
	for text in "${bad[@]}"; do
		is "$(sql "SELECT pg_input_is_valid('$text', '$type')")" "f" "$type: pg_input_is_valid('$text') is false, without an error"
		is "$(sql "SELECT sql_error_code || ' ' || message FROM pg_input_error_info('$text', '$type')")" \
			"22P02 invalid input syntax for type $type: \"$text\"" "$type: pg_input_error_info('$text') gives 22P02 and the message"
		is "$(sql "SELECT detail LIKE '$type text is %' FROM pg_input_error_info('$text', '$type')")" "t" \
			"$type: pg_input_error_info('$text') has the DETAIL saying what $type text is"
	done
done <<'CASES'
sno|brpk4q72xwf2m63l|BRPK4Q72XWF2M63L,brpk4q72xwf2m63,brpk4q72xwf2m63l2,
flax|0RdKJcxqVBiAiQr0| 0RdKJcxqVBiAiQr0,0RdKJcxqVBiAiQr,0RdKJcxqVBiAiQr0!
siq|5W2YJY000000000000007|,did:SIQ:iuxvojaaf4c6s6aaaaaaaaaaaaaah,did:siq:iuxvojaaf4c6s6aaaaaaaaaaaaaai,ZZZZZZZZZZZZZZZZZZZZZZZZ,5W2YJY00000000000000U
kuid|.5.tXbhdV.3|..........1,.5.tXbhdV.,.5.tXbhdV.3.
kuid96|.5.tXVEf8n4vPN.0|.5.tXVEf8n4vPN.0.,.5.tXVEf8n4vPN!0
CASES

# binary input has no soft form in core: a wrong length still raises
is "$(sqlstate "SELECT '\\x00'::bytea::sno")" "22P03" "a bytea of the wrong length is still ERROR 22P03"

if [ "$version" -ge 170000 ]; then
	sql "CREATE TABLE soft_copy (id sno, k kuid96)" >/dev/null
	printf '%s\n' 'brpk4q72xwf2m63l	.5.tXVEf8n4vPN.0' 'BRPK4Q72XWF2M63L	.5.tXVEf8n4vPN.0' \
		'brpk4q72xwf2m63m	.5.tXVEf8n4vPN!0' 'brpk4q72xwf2m63n	.5.tXVEf8n4vPN.1' |
		"${PSQL[@]}" -c "COPY soft_copy FROM STDIN WITH (ON_ERROR ignore)" 2>/dev/null
	is "$(sql "SELECT string_agg(id::text || ' ' || k::text, ',' ORDER BY id) FROM soft_copy")" \
		"brpk4q72xwf2m63l .5.tXVEf8n4vPN.0,brpk4q72xwf2m63n .5.tXVEf8n4vPN.1" \
		"COPY ... (ON_ERROR ignore) keeps the 2 good rows and skips the 2 bad ones"
fi

dropdb flakeid_soft_errors
done_testing
