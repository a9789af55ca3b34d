#!/usr/bin/env bash
# The mark renewer: a background worker keeps the saved mark ahead of the
# IDs being minted, so that generator calls do not renew it (and pay its
# fsyncs) themselves.  Each generator call that renews logs it at DEBUG1 in
# its own session, which is how this test counts them.  The control stops
# the worker (SIGSTOP): the same minting then renews in the calls, which
# shows the count can see them, and that calls go on without the worker.
# Then, a renewal that fails: a WARNING while the calls are covered.  Last,
# the WAL records the renewals wrote, as pg_walinspect describes them.
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

sql "CREATE EXTENSION IF NOT EXISTS flakeid" >/dev/null
datadir=$(sql "SHOW data_directory")
renewals_in_calls() { grep -c "DEBUG:  a generator call renewed the saved mark" "$FLAKEID_PG_LOG"; }
# mint SECONDS: one session mints sno, kuid and snowflake IDs for that long, logging at DEBUG1
mint() {
	sql "SET log_min_messages = debug1;
		DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
			WHILE clock_timestamp() < t0 + interval '$1 s' LOOP
				PERFORM sno_new(), kuid_new(), snowflake_new() FROM generate_series(1, 200);
				PERFORM pg_sleep(0.005);
			END LOOP; END \$\$" >/dev/null
}

worker=$(sql "SELECT pid FROM pg_stat_activity WHERE backend_type = 'flakeid mark renewer'")
ok "$([ -n "$worker" ] && [ "$(echo "$worker" | wc -l)" = 1 ]; echo $?)" "one 'flakeid mark renewer' in pg_stat_activity"

mint 0.5   # the renewer finds the generators in use
before_calls=$(renewals_in_calls)
before_mark=$(state_file_mark "$datadir")
mint 4
after_mark=$(state_file_mark "$datadir")
is "$(( $(renewals_in_calls) - before_calls ))" "0" "4 s of minting: no generator call renewed the mark"
ok "$([ $((after_mark - before_mark)) -ge 3000000 ]; echo $?)" \
	"the renewer moved the saved mark on with the clock ($(( (after_mark - before_mark) / 1000 )) ms in 4 s)"

# the control: the renewer stopped, the calls renew for themselves and go on
kill -STOP "$worker"
before_calls=$(renewals_in_calls)
mint 4
after_stopped=$(renewals_in_calls)
kill -CONT "$worker"
ok "$([ $((after_stopped - before_calls)) -ge 2 ]; echo $?)" \
	"control, the renewer stopped: the calls renewed the mark themselves ($((after_stopped - before_calls)) times in 4 s)"
is "$(sql "SELECT count(*) FROM pg_stat_activity WHERE pid = $worker")" "1" "the renewer carries on after SIGCONT"

# a renewal that fails (its temporary file is a directory): a call still
# covered by the mark goes on with a WARNING; only past the mark is it an ERROR
mint 0.5
kill -STOP "$worker"
mkdir "$datadir/flakeid.state.tmp"
mark=$(state_file_sno_mark "$datadir")   # the calls mint sno: its own mark
out=$(sql "SET client_min_messages = warning;
	DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
		WHILE clock_timestamp() < t0 + interval '5 s' LOOP
			PERFORM sno_new() FROM generate_series(1, 50);
			PERFORM pg_sleep(0.01);
		END LOOP;
		RAISE WARNING 'no error in 5 s';
	EXCEPTION WHEN OTHERS THEN
		RAISE WARNING 'stopped by % at %', SQLSTATE, (extract(epoch FROM clock_timestamp()) * 1e6)::int8;
	END \$\$" 2>&1)
rmdir "$datadir/flakeid.state.tmp"
kill -CONT "$worker"
warnings=$(echo "$out" | grep -c 'WARNING:  could not create file "flakeid.state.tmp"')
ok "$([ "$warnings" -ge 1 ] && [ "$warnings" -le 3 ]; echo $?)" "failed renewals while covered: $warnings WARNINGs (at most one a second), and the calls went on"
stopped_at=$(echo "$out" | sed -n 's/.*stopped by [0-9A-Z]* at \([0-9]*\).*/\1/p')
ok "$([ -n "$stopped_at" ] && [ "$stopped_at" -ge "$mark" ]; echo $?)" \
	"the first ERROR came only past the saved mark ($(( (${stopped_at:-0} - mark) / 1000 )) ms after it)"
is "$(sql "SELECT count(sno_new()) FROM generate_series(1, 1000)")" "1000" "with the file writable again, generation goes on"

# the renewals' WAL records, described in core's "key: value, ..." style (pg_waldump, a
# program without the extension, can only say custom149)
start=$(sql "SELECT pg_current_wal_lsn()")
sql "SELECT count(kuid_new()) FROM generate_series(1, 1000); SELECT pg_sleep(2.2); SELECT count(kuid_new()) FROM generate_series(1, 1000)" >/dev/null
sql "CREATE EXTENSION IF NOT EXISTS pg_walinspect" >/dev/null
record=$(sql "SELECT record_type || ' ' || description FROM pg_get_wal_records_info('$start', pg_current_wal_lsn())
              WHERE resource_manager = 'flakeid' LIMIT 1")
echo "$record" | grep -Eq '^BOUNDS mark: [0-9]+, sno mark 0: [0-9]+, sno mark 1: [0-9]+, sno tick-tock: [01], snowflake epoch: -?[0-9]+, back-fill low-waters: [0-9]+$'
ok $? "pg_walinspect shows the renewals' records: $record"
done_testing
