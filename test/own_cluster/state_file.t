#!/usr/bin/env bash
# The generator state file across versions.  test/fixtures/flakeid-1.0.state
# was written by flakeid 1.0 (see test/fixtures/README): its server's clock
# was faked to 2040-01-01, so its mark lies years ahead of any real clock.
# A server of this version, with its clock faked to just before the
# fixture's IDs, must read the file, rewrite it in the current version, and
# issue every generator's IDs above the mark.  A file of a newer version,
# and a damaged one, make the generators refuse with messages that say so.
# Each case starts a throwaway cluster (PG_BINDIR picks the installation).
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

export FIXTURE_MARK="2040-01-01 00:00:03.866103+00"	# the fixture's mark, read from its bytes 8..15
CLOCK="2039-12-31 23:59:57"	# UTC, behind every ID the fixture covers (they end at 00:00:01.889)
# The server's clock: libfaketime (tap.sh's fake_clock_setup) with a fixed
# offset, which every process of the server inherits.  (Not the faketime
# wrapper: it waits for every process that inherited its clock, and the
# server outlives the pg_ctl that starts it.)

# in_cluster "-o ..." STATE-FILE SCRIPT: a cluster whose flakeid.state is STATE-FILE
# (or none for "-") when the server starts with its clock at CLOCK; SCRIPT
# runs inside it.  The clock is faked from that start on, not from initdb,
# so a slow machine does not eat the seconds CLOCK lies behind the fixture.
in_cluster() {
	local opts=$1 state=$2 script=$3
	# shellcheck disable=SC2086
	in_new_cluster $opts "
		server_ctl stop -m fast || exit
		rm -f \"\$PGDATA/flakeid.state\"
		if [ '$state' != - ]; then cp '$state' \"\$PGDATA/flakeid.state\"; [ \$(id -u) -ne 0 ] || chown postgres: \"\$PGDATA/flakeid.state\"; chmod 600 \"\$PGDATA/flakeid.state\"; fi
		(export LD_PRELOAD=$LIBFAKETIME FAKETIME=+\$(( \$(date -d '$CLOCK UTC' +%s) - \$(date +%s) )); server_ctl start) || exit
		$script"
}
file_version() { od -An -tu4 -j4 -N4 "$1" | tr -d ' '; }
# every stateful generator, live and back-fill (a time long past), in the servers' shell quoting
CALLS="sno_new() siq_new('user') kuid_new() kuid96_new() snowflake_new() sno_new_at('2020-01-01')
	siq_new_at('2020-01-01','user') kuid_new_at('2020-01-01') kuid96_new_at('2020-01-01') snowflake_new_at('2020-01-01')"
export CALLS

require_libfaketime
work=$(mktemp -d)
chmod 755 "$work"
trap 'fake_clock_teardown; rm -rf "$work"' EXIT
fake_clock_setup || { echo "Bail out! no faked clock"; exit 1; }
cp test/fixtures/flakeid-1.0.state "$work/v1.state"
is "$(file_version "$work/v1.state")" "1" "the fixture is a version 1 file (flakeid 1.0)"

# 1.0's file: read, upgraded in place, and every generator resumes above its mark
out=$(in_cluster "-o shared_preload_libraries=flakeid" "$work/v1.state" '
	sql "SELECT now() < '"'"'2040-01-01 00:00:01.889+00'"'"'"
	grep -c "upgraded the generator state file from version 1 to version 3" "$FLAKEID_PG_LOG"
	grep -c "generators resume after the saved mark 2040-01-01 00:00:03.866103" "$FLAKEID_PG_LOG"
	od -An -tu4 -j4 -N4 "$PGDATA/flakeid.state" | tr -d " "
	cp "$PGDATA/flakeid.state" "'"$work"'/foreign.state"
	sql "SELECT count(*) FILTER (WHERE t <= '"'"'$FIXTURE_MARK'"'"'), count(*)
	     FROM generate_series(1, 1000), LATERAL (VALUES (sno_time(sno_new())), (siq_time(siq_new('"'"'user'"'"'))),
	          (siq_time(siq_new('"'"'tag'"'"'))), (kuid_time(kuid_new())), (kuid96_time(kuid96_new())),
	          (snowflake_time(snowflake_new()))) ids(t)"
	sql "SELECT sno_new() > '"'"'fqsohofg2222g3cw'"'"'::sno, siq_new('"'"'user'"'"') > '"'"'0087AKYG7HV60R000000030'"'"'::siq,
	            kuid_new() > '"'"'.7cE4c6O057'"'"'::kuid, snowflake_new() > 3308963608716779924"
	sql "SELECT count(*) FILTER (WHERE last_time < '"'"'$FIXTURE_MARK'"'"'::timestamptz - interval '"'"'4 ms'"'"'),
	            count(*) FILTER (WHERE issued > 0 AND last_time <= '"'"'$FIXTURE_MARK'"'"') FROM flakeid_generators"')
is "$(echo "$out" | sed -n 1p)" "t" "the server's clock is behind every ID the 1.0 file covers"
is "$(echo "$out" | sed -n 2p)" "1" "the server logs that it upgraded the file from version 1 to 3"
is "$(echo "$out" | sed -n 3p)" "1" "the server logs the mark it resumes after"
is "$(echo "$out" | sed -n 4p)" "3" "the file on disk is now version 3"
is "$(echo "$out" | sed -n 5p)" "0|6000" "sno, siq (two kinds), kuid, kuid96 and snowflake: all 6000 IDs lie after the 1.0 mark"
is "$(echo "$out" | sed -n 6p)" "t|t|t|t" "each new ID sorts above the largest ID the 1.0 server issued"
is "$(echo "$out" | sed -n 7p)" "0|0" "flakeid_generators: every counter resumed in the mark's unit, and those that minted are past it"

# negative control: the same clock without the file issues IDs the 1.0 server issued times for
out=$(in_cluster "-o shared_preload_libraries=flakeid" - '
	sql "SELECT kuid_time(kuid_new()) < '"'"'2040-01-01 00:00:01.888832+00'"'"'"')
is "$out" "t" "negative control: without the file, the same clock gives kuid times the 1.0 server already used"

# a newer version's file: refused with both versions named, and left as it is
python3 - "$work/v1.state" "$work/v99.state" <<'EOF'
import struct, sys, zlib
raw = open(sys.argv[1], 'rb').read()
mark, other, ticktock = struct.unpack_from('<qqI', raw, 8)
body = struct.pack('<qqII', mark, other, ticktock, 0) + b'new fields'
head = struct.pack('<IIII', 0x464C4B31, 99, len(body), 0)
open(sys.argv[2], 'wb').write(head + body + struct.pack('<I', zlib.crc32(head + body)))
EOF
out=$(in_cluster "-o shared_preload_libraries=flakeid" "$work/v99.state" '
	for call in $CALLS; do sqlstate "SELECT $call"; done
	message_of "SELECT kuid_new()"
	sql "SELECT sno_time('"'"'brpk4q72xwf2m63l'"'"'), length(flax_new()::text)"
	grep -c "LOG:  the generator state file \"flakeid.state\" was written by a newer version of flakeid" "$FLAKEID_PG_LOG"
	cmp -s "$PGDATA/flakeid.state" "'"$work"'/v99.state" && echo unchanged || echo rewritten')
is "$(echo "$out" | sed -n 1,10p | tr '\n' ' ')" "$(printf '55000 %.0s' {1..10})" \
	"a version 99 file: every generator, live and back-fill, is ERROR 55000"
echo "$out" | grep -q 'ERROR:  flakeid.s generator state file was written by a newer version of flakeid'
ok $? "the message says a newer flakeid wrote the file"
echo "$out" | grep -q 'DETAIL:  The file "flakeid.state" has state version 99; this version of flakeid reads versions 1 to 3.'
ok $? "the detail names both versions"
echo "$out" | grep -qx '2031-05-08 23:03:34.976+00|16'
ok $? "the types, and flax_new(), still work"
is "$(echo "$out" | tail -2 | tr '\n' ' ')" "1 unchanged " "the server logs it at start, and no generator call changes a byte of the file"

# a damaged file (one bit of the mark flipped): refused as damaged
python3 - "$work/v1.state" "$work/damaged.state" <<'EOF'
import sys
raw = bytearray(open(sys.argv[1], 'rb').read())
raw[9] ^= 0x10
open(sys.argv[2], 'wb').write(raw)
EOF
out=$(in_cluster "-o shared_preload_libraries=flakeid" "$work/damaged.state" '
	for call in $CALLS; do sqlstate "SELECT $call"; done
	message_of "SELECT snowflake_new()"
	grep -c "the generator state file \"flakeid.state\" is damaged" "$FLAKEID_PG_LOG"
	cmp -s "$PGDATA/flakeid.state" "'"$work"'/damaged.state" && echo unchanged || echo rewritten')
is "$(echo "$out" | sed -n 1,10p | tr '\n' ' ')" "$(printf 'XX001 %.0s' {1..10})" \
	"a damaged file: every generator, live and back-fill, is ERROR XX001"
echo "$out" | grep -q "ERROR:  flakeid.s generator state file is damaged, so generation is refused"
ok $? "the message says the file is damaged"
is "$(echo "$out" | tail -2 | tr '\n' ' ')" "1 unchanged " "the server logs it at start, and no generator call changes a byte of the file"
# a truncated and an unreadable file: refused as damaged, back-fill included
head -c 20 "$work/v1.state" > "$work/truncated.state"
out=$(in_cluster "-o shared_preload_libraries=flakeid" "$work/truncated.state" '
	for call in $CALLS; do sqlstate "SELECT $call"; done')
is "$(echo "$out" | tr '\n' ' ')" "$(printf 'XX001 %.0s' {1..10})" "a truncated file: every generator, live and back-fill, is ERROR XX001"
out=$(in_cluster "-o shared_preload_libraries=flakeid" "$work/v1.state" '
	server_ctl stop -m fast; chmod 000 "$PGDATA/flakeid.state"; server_ctl start
	for call in $CALLS; do sqlstate "SELECT $call"; done')
is "$(echo "$out" | tr '\n' ' ')" "$(printf 'XX001 %.0s' {1..10})" "an unreadable file: every generator, live and back-fill, is ERROR XX001"

# another cluster's file (the upgraded one above, which records its system identifier): refused
# until an operator names that cluster in flakeid.accept_state_from
foreign_system=$(od -An -tu8 -j16 -N8 "$work/foreign.state" | tr -d ' ')
ok "$([ "${foreign_system:-0}" -gt 0 ]; echo $?)" "a version 3 file records its cluster's system identifier ($foreign_system)"
out=$(in_cluster "-o shared_preload_libraries=flakeid" "$work/foreign.state" '
	for call in $CALLS; do sqlstate "SELECT $call"; done
	message_of "SELECT sno_new()"
	grep -c "the generator state file \"flakeid.state\" belongs to another cluster" "$FLAKEID_PG_LOG"')
is "$(echo "$out" | sed -n 1,10p | tr '\n' ' ')" "$(printf 'XX001 %.0s' {1..10})" \
	"another cluster's file: every generator, live and back-fill, is ERROR XX001"
echo "$out" | grep -q "ERROR:  flakeid.s generator state file belongs to another cluster, so generation is refused"
ok $? "the message says the file belongs to another cluster"
echo "$out" | grep -q "HINT:  .*set flakeid.accept_state_from = '$foreign_system' and restart the server"
ok $? "the hint names the setting and the file's system identifier"
is "$(echo "$out" | tail -1)" "1" "the server logs it at start"
out=$(in_cluster "-o shared_preload_libraries=flakeid -o flakeid.accept_state_from=$foreign_system" "$work/foreign.state" '
	sql "SELECT count(*) FILTER (WHERE t <= '"'"'$FIXTURE_MARK'"'"'), count(*)
	     FROM generate_series(1, 1000), LATERAL (VALUES (sno_time(sno_new())), (kuid_time(kuid_new())),
	          (snowflake_time(snowflake_new()))) ids(t)"
	od -An -tu8 -j16 -N8 "$PGDATA/flakeid.state" | tr -d " "
	psql -XAtc "SELECT system_identifier FROM pg_control_system()"')
is "$(echo "$out" | sed -n 1p)" "0|3000" "accepted with flakeid.accept_state_from: every ID lies after the file's mark"
is "$(echo "$out" | sed -n 2p)" "$(echo "$out" | sed -n 3p)" "and the file is rewritten with this cluster's system identifier"
done_testing
