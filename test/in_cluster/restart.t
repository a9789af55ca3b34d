#!/usr/bin/env bash
# Restarts: IDs minted before a crash (pg_ctl -m immediate) or a clean stop
# are never minted again after the server comes back with its clock set
# back, for every stateful generator.  A negative control shows that the
# saved state is what makes the difference.  Restarts the server it is
# given (PGDATA), which test/t/in_cluster.pl makes for it alone.
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

PER_RUN=${PER_RUN:-20000}
GENERATORS=("sno:sno_new()" "siq:siq_new('user')" "kuid:kuid_new()" "kuid96:kuid96_new()" "snowflake:snowflake_new()")

sql "CREATE EXTENSION IF NOT EXISTS flakeid" >/dev/null
sql "SET client_min_messages = warning; DROP TABLE IF EXISTS restart_ids; CREATE TABLE restart_ids (run int, generator text, id text)"
datadir=$(sql "SHOW data_directory")

mint() {   # mint RUN: PER_RUN IDs of every generator
	local g
	for g in "${GENERATORS[@]}"; do
		sql "INSERT INTO restart_ids SELECT $1, '${g%%:*}', ${g#*:}::text FROM generate_series(1, $PER_RUN)" >/dev/null
	done
	is "$(sql "SELECT count(*) FROM restart_ids WHERE run = $1")" "$((PER_RUN * ${#GENERATORS[@]}))" \
		"run $1: $PER_RUN IDs of each of ${#GENERATORS[@]} generators"
}
no_duplicates() {   # no_duplicates DESCRIPTION
	local g
	for g in "${GENERATORS[@]}"; do
		is "$(sql "SELECT count(*) - count(DISTINCT id) FROM restart_ids WHERE generator = '${g%%:*}'")" "0" "${g%%:*}: $1"
	done
}

mint 1
ok "$([ -s "$datadir/flakeid.state" ]; echo $?)" "the generator state is saved in the data directory"

# clean restarts save the high-water mark: a restart resumes where the
# server stopped, not the 2 s reserve ahead of the clock (2 s more per restart)
latest_id_us() {   # the time of the latest ID this test minted, whatever its generator
	sql "SELECT (extract(epoch FROM max(CASE generator WHEN 'sno' THEN sno_time(id::sno) WHEN 'siq' THEN siq_time(id::siq)
		WHEN 'kuid' THEN kuid_time(id::kuid) WHEN 'kuid96' THEN kuid96_time(id::kuid96)
		ELSE snowflake_time(id::bigint) END)) * 1e6)::int8 FROM restart_ids"
}
creep_run() {   # creep_run N: one clean stop and start; IDs minted before it; the mark saved at the stop
	sql "INSERT INTO restart_ids SELECT $1, 'kuid', kuid_new()::text FROM generate_series(1, 1000)" >/dev/null
	last=$(latest_id_us)
	server_ctl stop -m fast
	stopped_mark=$(state_file_mark "$datadir")
	server_ctl start
	ok "$([ "$stopped_mark" -gt "$last" ] && [ "$stopped_mark" -le $((last + 1100)) ]; echo $?)" \
		"clean stop $1: the saved mark is just past the latest ID ($((stopped_mark - last)) us), not 2 s ahead of the clock"
}
creep_run 101
creep_run 102
is "$(sql "SELECT kuid_time(kuid_new()) - clock_timestamp() < interval '1 s'")" "t" \
	"after two clean restarts in a row, new IDs are at the clock, not 4 s ahead of it"
is "$(grep -c "LOG:  saved the generators' high-water mark" "$FLAKEID_PG_LOG")" "2" "the server logs the high-water mark at each clean stop"
no_duplicates "no duplicates across two clean restarts"
# a crash keeps the rule it had: resume after the saved mark, renewed ahead of the IDs
sql "INSERT INTO restart_ids SELECT 103, 'kuid', kuid_new()::text FROM generate_series(1, 1000)" >/dev/null
server_ctl stop -m immediate
crash_mark=$(state_file_mark "$datadir")
server_ctl start
is "$(sql "SELECT kuid_time(kuid_new()) >= to_timestamp($crash_mark / 1e6) - interval '2 ms'")" "t" \
	"after a crash, IDs resume after the saved mark (which is ahead of the clock)"
sql "DELETE FROM restart_ids WHERE run > 100" >/dev/null

# a crash, then the clock 2 s behind
sql "ALTER SYSTEM SET flakeid.debug_clock_offset_ms = -2000" >/dev/null
server_ctl stop -m immediate
server_ctl start
is "$(sql "SHOW flakeid.debug_clock_offset_ms")" "-2000" "restarted after a crash with the clock 2 s behind"
mint 2
no_duplicates "no duplicates across a crash and a clock set back by 2 s"

# a clean stop, then the clock 4 s behind
sql "ALTER SYSTEM SET flakeid.debug_clock_offset_ms = -4000" >/dev/null
server_ctl restart -m fast
mint 3
no_duplicates "no duplicates across a clean restart and a clock set back by 4 s"
is "$(sql "SELECT count(*) FROM (SELECT run, max(id::bigint) FROM restart_ids WHERE generator = 'snowflake' GROUP BY run) a
	JOIN (SELECT run, min(id::bigint) FROM restart_ids WHERE generator = 'snowflake' GROUP BY run) b ON b.run = a.run + 1
	WHERE b.min <= a.max")" "0" "snowflake: every run starts above the last (monotonic generators resume at the saved mark)"

# negative control: without the saved state, a clock set back into the
# time of run 1 makes kuid (which carries no node) repeat run 1's IDs
sql "ALTER SYSTEM RESET flakeid.debug_clock_offset_ms" >/dev/null
server_ctl stop -m fast
rm -f "$datadir/flakeid.state"
server_ctl start
# Every call aims the clock anew at the first tick of run 1 (ceil: it lands
# at or just after that tick's start, inside the 1.024 ms tick), so the
# stateless generator issues there again however slowly the calls come (a
# single aim before minting missed run 1's few milliseconds when the machine
# was busy).
repeats=$(sql "CREATE TEMP TABLE again AS
	SELECT kuid_new()::text AS id
	FROM (SELECT min(kuid_time(id::kuid)) AS first FROM restart_ids WHERE run = 1 AND generator = 'kuid') r,
	     generate_series(1, $PER_RUN) g,
	     LATERAL (SELECT set_config('flakeid.debug_clock_offset_ms',
	                                ceil(extract(epoch FROM r.first - clock_timestamp()) * 1000)::bigint::text, false)
	              WHERE g IS NOT NULL) aim;
	SELECT count(*) FROM again JOIN restart_ids r ON r.generator = 'kuid' AND r.id = again.id" | tail -1)
ok "$([ "$repeats" -gt 0 ]; echo $?)" "negative control: with the state file removed, kuid repeats $repeats IDs of run 1 (the test can see duplicates)"

sql "DROP TABLE restart_ids" >/dev/null
done_testing
