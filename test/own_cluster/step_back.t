#!/usr/bin/env bash
# A real clock step back under load: the whole server runs on one faked
# clock (libfaketime, its offset read from a file on every clock read), 8
# clients mint sno, kuid and snowflake IDs, and the clock steps back 2 s for
# every process at once.  sno's first step back toggles its tick-tock and
# goes on: no call waits, it counts one regression (the toggle), not one per
# backend or per unit boundary, and no ID repeats.  Starts its own cluster
# (PG_BINDIR picks the installation).
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

CLIENTS=8
require_libfaketime
work=$(mktemp -d)
chmod 755 "$work"
trap 'fake_clock_teardown; rm -rf "$work"' EXIT
fake_clock_setup || { echo "Bail out! no faked clock"; exit 1; }
echo "+0" > "$work/offset"
chmod 644 "$work/offset"

out=$(LD_PRELOAD=$LIBFAKETIME FAKETIME_TIMESTAMP_FILE="$work/offset" \
	FAKETIME_NO_CACHE=1 FAKETIME_DONT_RESET=1 WORK="$work" CLIENTS=$CLIENTS \
	bash scripts/with_cluster -o shared_preload_libraries=flakeid -o flakeid.sno_coarse_clock=off bash -c '
	exec 2>&1; . test/lib/tap.sh
	unset LD_PRELOAD   # the clients read the real clock; only the server is faked
	sql "CREATE EXTENSION flakeid; CREATE TABLE ids (n bigserial, client int, generator text, id text)" >/dev/null
	sql "SELECT 1 FROM sno_new()" >/dev/null
	sql "CREATE TABLE before AS SELECT generator, exhausted_waits, clock_regressions FROM flakeid_generators" >/dev/null
	for c in $(seq "$CLIENTS"); do
		# 3 s of server time, with the 2 s step back in it: about 5 s of real time
		sql "DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
			WHILE clock_timestamp() < t0 + interval '"'"'3 s'"'"' LOOP
				INSERT INTO ids (client, generator, id) VALUES ($c, '"'"'sno'"'"', sno_new()::text),
					($c, '"'"'kuid'"'"', kuid_new()::text), ($c, '"'"'snowflake'"'"', snowflake_new()::text);
			END LOOP; END \$\$" >/dev/null &
	done
	sleep 1.5
	# the step back, for every server process at once (a rename: no reader sees a partial file)
	echo -2 > "$WORK/offset.new"; chmod 644 "$WORK/offset.new"; mv "$WORK/offset.new" "$WORK/offset"
	wait
	sql "SELECT count(*) FROM ids WHERE generator = '"'"'sno'"'"'"
	sql "SELECT count(*) - count(DISTINCT (generator, id)) FROM ids"
	sql "SELECT a.exhausted_waits - b.exhausted_waits, a.clock_regressions - b.clock_regressions
	     FROM flakeid_generators a JOIN before b USING (generator) WHERE generator = '"'"'sno'"'"'"
	sql "SELECT count(DISTINCT sno_ticktock(id::sno)) FROM ids WHERE generator = '"'"'sno'"'"'"
	# the tick-tock of the first ID is the one before the step; the other one starts over 1 s earlier
	sql "WITH s AS (SELECT n, sno_ticktock(id::sno) AS tt, sno_time(id::sno) AS t FROM ids WHERE generator = '"'"'sno'"'"')
	     SELECT (SELECT max(t) FROM s WHERE tt = (SELECT tt FROM s ORDER BY n LIMIT 1))
	          - (SELECT min(t) FROM s WHERE tt <> (SELECT tt FROM s ORDER BY n LIMIT 1)) > interval '"'"'1 s'"'"'"
')
minted=$(echo "$out" | sed -n 1p)
ok "$([ "${minted:-0}" -ge 1000 ]; echo $?)" "$CLIENTS clients minted $minted sno IDs (and as many kuid and snowflake) across the step back"
is "$(echo "$out" | sed -n 2p)" "0" "no ID repeats, sno, kuid or snowflake"
is "$(echo "$out" | sed -n 3p)" "0|1" "sno: no call waited, and the step counted one clock regression (the toggle)"
is "$(echo "$out" | sed -n 4p)" "2" "sno IDs carry both tick-tock values: the step toggled it"
is "$(echo "$out" | sed -n 5p)" "t" "the clock really stepped back: the toggled tick-tock starts over 1 s before the other one ends"
[ "$(echo "$out" | wc -l)" -le 5 ] || echo "$out" | sed 's/^/# /'
done_testing
