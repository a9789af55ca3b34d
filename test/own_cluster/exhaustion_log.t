#!/usr/bin/env bash
# A used-up pool is told to the server log, as sno's SequenceOverflowNotification
# tells its user: the first at once, then at most one LOG line a minute per
# generator, with the count since the line before; exhausted_waits counts
# them all.  Starts its own cluster (PG_BINDIR picks the installation) with a
# 4-value sno pool, so one backend uses it up in every 4 ms unit; the
# minute is crossed with flakeid.debug_clock_offset_ms.
set -u
cd "$(dirname "$0")/../.."
if [ "${1:-}" != inner ]; then
	exec bash scripts/with_cluster -o shared_preload_libraries=flakeid -o flakeid.allow_debug_clock_offset=on \
		-o flakeid.sno_sequence_min=0 -o flakeid.sno_sequence_max=3 bash "$0" inner
fi
. test/lib/tap.sh

lines() { grep "LOG:  generator \"$1\" used up its pool" "$FLAKEID_PG_LOG"; }
count_lines() { lines "$1" | wc -l; }
waits() { sql "SELECT exhausted_waits FROM flakeid_generators WHERE generator = '$1'"; }

sql "CREATE EXTENSION flakeid" >/dev/null
is "$(count_lines sno)" "0" "no line before any pool is used up"

is "$(sql "SELECT count(DISTINCT sno_new()) FROM generate_series(1, 200)")" "200" "200 sno IDs from a pool of 4 per unit, all distinct"
first_waits=$(waits sno)
ok "$([ "$first_waits" -ge 40 ]; echo $?)" "they waited for the next unit $first_waits times"
is "$(count_lines sno)" "1" "the first used-up pool is logged at once, in one line"
lines sno | grep -q 'used up its pool 1 time since the server started$'
ok $? "the line says so: $(lines sno | sed 's/^.*LOG:  //')"
grep -A1 'LOG:  generator "sno" used up its pool' "$FLAKEID_PG_LOG" | grep -q 'DETAIL:  Each time, a call waited for the next unit (4000 microseconds)'
ok $? "its DETAIL says what the wait was"

sql "SELECT count(sno_new()) FROM generate_series(1, 200)" >/dev/null
is "$(count_lines sno)" "1" "more waits within the minute add no line"

# 61 s later on the generators' clock: the next used-up pool is logged with the count since the first line
before=$(waits sno)
sql "SET flakeid.debug_clock_offset_ms = 61000; SELECT count(sno_new()) FROM generate_series(1, 20)" >/dev/null
is "$(count_lines sno)" "2" "a minute later, the next used-up pool gives a second line"
lines sno | tail -1 | grep -qE "used up its pool $before times since [0-9]{4}-[0-9]{2}-[0-9]{2} "
ok $? "it counts every wait since the first line ($before, as exhausted_waits says): $(lines sno | tail -1 | sed 's/^.*LOG:  //')"

# each generator has its own minute
# (a backend mints faster than 4,096 a millisecond, but on a loaded 2-core
# machine not always: 100,000 once used the pool up 9 times, not the 10
# this asked for; two waits are what the single line needs)
is "$(sql "SELECT count(DISTINCT snowflake_new()) FROM generate_series(1, 200000)")" "200000" \
	"200,000 snowflakes, 4,096 per millisecond"
ok "$([ "$(waits snowflake)" -ge 2 ]; echo $?)" "the snowflake pool was used up $(waits snowflake) times (at least twice)"
is "$(count_lines snowflake)" "1" "snowflake gets its own line while sno's minute runs"
is "$(count_lines sno)" "2" "and sno's lines stay two"
done_testing
