#!/usr/bin/env bash
# Clock faults in a live server: one session steps the generators' clock
# (flakeid.debug_clock_offset_ms) back to one unit (50 for sno), one second
# and ten seconds below its first IDs, going forward to the wall clock in
# between, and mints IDs at every step.
# sno must toggle tick-tock on the first step back and wait on a second
# one into the unsafe period; the others must count on from the last used
# unit.  No ID may repeat, and the others keep their order across steps.
# Needs a server with flakeid preloaded (the PG* environment test/t/in_cluster.pl gives).
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

PER_STEP=${PER_STEP:-2000}

sql "CREATE EXTENSION IF NOT EXISTS flakeid" >/dev/null
sql "SET client_min_messages = warning; DROP TABLE IF EXISTS clock_ids; CREATE TABLE clock_ids (generator text, step int, offset_ms int, n int, id text, t timestamptz, ticktock int)"

# steps NAME ID-EXPR TIME-EXPR UNIT-MS [TICKTOCK-EXPR]: mints PER_STEP IDs at each clock offset, in one session
steps() {
	local name=$1 expr=$2 time_expr=$3 unit_ms=$4 ticktock_expr=${5:-NULL} step=0 back offset
	local script="SET client_min_messages = warning;"
	for back in 0 "$unit_ms" 0 1000 0 10000 0; do
		step=$((step + 1))
		# A step back is taken from the first step's last ID, in the
		# statement that mints, so the time between statements (20 ms once
		# on a CI machine) cannot leave the clock no longer behind the IDs.
		offset=0
		[ "$back" = 0 ] ||
			offset="(extract(epoch FROM (SELECT max(t) FROM clock_ids WHERE generator = '$name' AND step = 1) - clock_timestamp()) * 1000)::int - $back"
		script+="DO \$\$ BEGIN
			PERFORM set_config('flakeid.debug_clock_offset_ms', ($offset)::text, false);
			INSERT INTO clock_ids SELECT '$name', $step, current_setting('flakeid.debug_clock_offset_ms')::int, n, x::text, $time_expr, $ticktock_expr
			FROM (SELECT n, $expr AS x FROM generate_series(1, $PER_STEP) n) s;
			END \$\$;"
	done
	sql "$script" >/dev/null
	is "$(sql "SELECT count(*) FROM clock_ids WHERE generator = '$name'")" "$((7 * PER_STEP))" \
		"$name: $PER_STEP IDs minted at each of 7 clock offsets"
}

# sno's first step back is 50 units (200 ms), a fraction of the 1 s step that
# must land in the unsafe period, and well beyond the coarse clock's jumps of
# up to 8 ms (one unit failed a run on such a jump).
steps sno "sno_new()" "sno_time(x)" 200 "sno_ticktock(x)"
steps siq "siq_new('user')" "siq_time(x)" 1
steps kuid "kuid_new()" "kuid_time(x)" 2
steps kuid96 "kuid96_new()" "kuid96_time(x)" 2
steps snowflake "snowflake_new()" "snowflake_time(x)" 1

for g in sno siq kuid kuid96 snowflake; do
	is "$(sql "SELECT count(*) - count(DISTINCT id) FROM clock_ids WHERE generator = '$g'")" "0" \
		"$g: no duplicates over 7 clock steps (back 1 unit, 1 s, 10 s, forward in between)"
done

# the monotonic generators: one order across every step, and time never goes back
for g in siq kuid kuid96 snowflake; do
	case $g in
		siq) cast="::siq" ;; kuid) cast="::kuid" ;; kuid96) cast="::kuid96" ;; snowflake) cast="::bigint" ;;
	esac
	is "$(sql "SELECT count(*) FROM (SELECT id$cast AS id, lag(id$cast) OVER (ORDER BY step, n) AS prev FROM clock_ids WHERE generator = '$g') s WHERE prev >= id")" \
		"0" "$g: IDs strictly increase across the steps back (counting on from the last used unit)"
	is "$(sql "SELECT count(*) FROM (SELECT step, min(t) AS first FROM clock_ids WHERE generator = '$g' GROUP BY step) a
	             JOIN (SELECT step, max(t) AS last FROM clock_ids WHERE generator = '$g' GROUP BY step) b ON b.step = a.step - 1
	           WHERE a.first < b.last")" \
		"0" "$g: after a step back the time carries on from the last used unit"
done

# sno (spec §5.1): the first step back toggles tick-tock at once, the IDs
# going back in time.  A later step back into the unsafe period (times
# both tick-tock values have covered) waits until the clock has left it:
# then the generator either goes on in its last unit or toggles again,
# and a toggled value is only ever taken up after its last earlier ID.
sno_step() { echo "(SELECT $1(t) FROM clock_ids WHERE generator = 'sno' AND $2)"; }
# (the server may have run this before: the first step's tick-tock is 0 on a new one)
first_ticktock=$(sql "SELECT string_agg(DISTINCT ticktock::text, ',') FROM clock_ids WHERE generator = 'sno' AND step = 1")
ok "$([[ $first_ticktock =~ ^[01]$ ]]; echo $?)" "sno: one tick-tock ($first_ticktock) before any step back"
toggled=$([[ $first_ticktock = 1 ]] && echo 0 || echo 1)
is "$(sql "SELECT min(ticktock) || ',' || max(ticktock) || ',' || ($(sno_step min "step = 2") < $(sno_step max "step = 1"))::text FROM clock_ids WHERE generator = 'sno' AND step = 2")" \
	"$toggled,$toggled,true" "sno: the first step back (50 units) toggles tick-tock without waiting: IDs go back in time"
is "$(sql "SELECT $(sno_step min "step = 4") > $(sno_step max "step = 1")")" "t" \
	"sno: the second step back (1 s) waits until the clock has left the unsafe period"
is "$(sql "SELECT $(sno_step min "step = 6") > $(sno_step max "step = 1")")" "t" \
	"sno: the third step back (10 s) waits likewise"
is "$(sql "SELECT count(*) FROM clock_ids a WHERE generator = 'sno' AND step > 1
             AND t < (SELECT max(t) FROM clock_ids b WHERE b.generator = 'sno' AND b.ticktock = a.ticktock AND b.step < a.step)
             AND ticktock <> (SELECT ticktock FROM clock_ids c WHERE c.generator = 'sno' AND c.step = a.step - 1 ORDER BY n DESC LIMIT 1)")" \
	"0" "sno: a toggled tick-tock is never used below an earlier ID of the same tick-tock"
is "$(sql "SELECT exhausted_waits >= 2 FROM flakeid_generators WHERE generator = 'sno'")" "t" \
	"sno: flakeid_generators counts the waits"
is "$(sql "SELECT count(*) FROM (SELECT step, id::sno AS id, lag(id::sno) OVER (PARTITION BY step ORDER BY n) AS prev FROM clock_ids WHERE generator = 'sno') s WHERE prev >= id")" \
	"0" "sno: within each step, IDs strictly increase"

# the view saw it
is "$(sql "SELECT string_agg(generator || ':' || (clock_regressions > 0)::text, ' ' ORDER BY generator) FROM flakeid_generators WHERE generator IN ('sno', 'siq user', 'kuid', 'snowflake')")" \
	"kuid:true siq user:true sno:true snowflake:true" "flakeid_generators counts the clock regressions of every generator"

# only a superuser may shift the clock
is "$(sqlstate "CREATE ROLE clock_tester; SET ROLE clock_tester; SET flakeid.debug_clock_offset_ms = -1000")" "42501" \
	"flakeid.debug_clock_offset_ms is superuser-only (42501 for others)"
is "$(sqlstate "CREATE ROLE clock_granted; GRANT SET ON PARAMETER flakeid.debug_clock_offset_ms TO clock_granted;
	SET ROLE clock_granted; SET flakeid.debug_clock_offset_ms = -1000")" "42501" \
	"and stays so whatever is granted: GRANT SET ON PARAMETER does not open it (42501)"
sql "SELECT step, min(t), max(t), min(ticktock), max(ticktock) FROM clock_ids WHERE generator = 'sno' GROUP BY step ORDER BY step" | sed 's/^/# sno step|/'

# A long wait (a second step back of 30 s into sno's unsafe period) shows its
# wait event in pg_stat_activity, and a cancel ends it at once.
case $(sql "SHOW server_version_num") in
	1[5-6]*) event="Extension:Extension" ;;
	*) event="Extension:FlakeidUnitWait" ;;
esac
started=$(date +%s)
PGAPPNAME=flakeid_waiter sqlstate "SET client_min_messages = warning;
	SET flakeid.debug_clock_offset_ms = 0; SELECT sno_new();
	SET flakeid.debug_clock_offset_ms = -30000; SELECT sno_new();
	SET flakeid.debug_clock_offset_ms = 0; SELECT sno_new();
	SET flakeid.debug_clock_offset_ms = -30000; SELECT sno_new();" > "${TMPDIR:-/tmp}/flakeid_waiter.$$" &
waiter=$!
seen=""
for i in $(seq 100); do
	seen=$(sql "SELECT wait_event_type || ':' || wait_event FROM pg_stat_activity WHERE application_name = 'flakeid_waiter' AND state = 'active'")
	[ "$seen" = "$event" ] && break
	sleep 0.1
done
is "$seen" "$event" "a sno_new() waiting out the unsafe period shows the wait event $event"
sql "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'flakeid_waiter'" >/dev/null
wait $waiter
is "$(cat "${TMPDIR:-/tmp}/flakeid_waiter.$$")" "57014" "pg_cancel_backend() ends the wait with 57014"
ok "$([ $(($(date +%s) - started)) -lt 20 ]; echo $?)" "the cancelled call did not wait out its 30 s"
rm -f "${TMPDIR:-/tmp}/flakeid_waiter.$$"
sql "DROP ROLE IF EXISTS clock_tester; DROP TABLE clock_ids"
done_testing
