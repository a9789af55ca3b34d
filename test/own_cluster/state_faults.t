#!/usr/bin/env bash
# Faults of the state file's storage, injected into the server by a
# preloaded fsync (test/lib/fsync_fault.c) while a switch file exists:
#  - an fsync that fails (EIO) is an ERROR of the call that needed the save,
#    with an I/O SQLSTATE naming the file, never a PANIC (data_sync_retry is
#    off, as by default); the renewer backs off instead of exiting every
#    second; a clean stop still stops cleanly; all is well once it passes;
#  - an fsync that stalls: a call waiting for the state file's lock ends
#    at once on a cancel;
#  - a state file that cannot be written (its temporary name taken by a
#    directory): the same I/O error, naming the file.
# 1.1 PANICked on the failed fsync (data_sync_elevel) and waited out the
# stall in LWLockAcquire.  Starts its own cluster (PG_BINDIR picks the
# installation).
set -u
cd "$(dirname "$0")/../.."
if [ "${1:-}" != inner ]; then
	exec bash scripts/with_cluster -o shared_preload_libraries=flakeid -o data_sync_retry=off bash "$0" inner
fi
. test/lib/tap.sh

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
export FLAKEID_FAULT_SWITCH=$work/switch
cc -shared -fPIC -O2 -o "$work/fsync_fault.so" test/lib/fsync_fault.c -ldl || { echo "Bail out! cannot build the fault"; exit 1; }
sql "CREATE EXTENSION flakeid" >/dev/null
server_ctl stop -m fast
(export LD_PRELOAD=$work/fsync_fault.so; server_ctl start) || { echo "Bail out! the server does not start with the fault"; exit 1; }
is "$(sql "SELECT count(kuid_new()) FROM generate_series(1, 1000)")" "1000" "with the fault loaded but off, generation works"

renewer_exits() { grep -c 'background worker "flakeid mark renewer" (PID [0-9]*) exited with exit code 1' "$FLAKEID_PG_LOG"; }
# failing fsyncs: calls past the mark fail, the renewer keeps trying, slower and slower
echo eio > "$FLAKEID_FAULT_SWITCH"
exits_before=$(renewer_exits)
renewer=$(sql "SELECT pid FROM pg_stat_activity WHERE backend_type = 'flakeid mark renewer'")
state=$(sql "DO \$\$ BEGIN PERFORM pg_sleep(0.3), kuid_new() FROM generate_series(1, 20); END \$\$" 2>&1 >/dev/null)
echo "$state" | grep -q 'ERROR:  could not fsync file "flakeid.state.tmp": Input/output error'
ok $? "a call past the mark fails with the fsync error, naming the file ($(echo "$state" | grep -m1 ERROR))"
is "$(sqlstate "SELECT kuid_new()")" "58030" "its SQLSTATE is 58030 (io_error)"
is "$(sql "SELECT 1")" "1" "the server is still up"
sleep 5
is "$(grep -c 'PANIC' "$FLAKEID_PG_LOG")" "0" "no PANIC in the log"
tries=$(grep -c "\[$renewer\] WARNING:  could not fsync file \"flakeid.state.tmp\"" "$FLAKEID_PG_LOG")
ok "$([ "$tries" -ge 2 ] && [ "$tries" -le 5 ]; echo $?)" \
	"the renewer (PID $renewer) warned $tries times in about 11 s: it backs off (1 s, 2 s, 4 s, ...) rather than trying every 100 ms"
is "$(( $(renewer_exits) - exits_before ))" "0" "the renewer never exits"

# a clean stop while fsyncs fail: the high-water save at exit logs its failure and the server stops
server_ctl stop -m fast
ok $? "pg_ctl stop -m fast succeeds while the state file's fsyncs fail"
ok "$([ ! -e "$PGDATA/postmaster.pid" ]; echo $?)" "and leaves no postmaster.pid behind"
is "$(grep -c 'PANIC' "$FLAKEID_PG_LOG")" "0" "still no PANIC in the log"
rm -f "$FLAKEID_FAULT_SWITCH"
(export LD_PRELOAD=$work/fsync_fault.so; server_ctl start)
is "$(sql "SELECT count(DISTINCT kuid_new()) FROM generate_series(1, 1000)")" "1000" "once the fault passes, generation works again"

# a stalled fsync: the renewer holds the lock for 20 s; a call past the mark waits for it, and a cancel ends that wait
echo 20 > "$FLAKEID_FAULT_SWITCH"
sql "SELECT pg_sleep(0.5)" >/dev/null
start=$(date +%s%N)
"${PSQL[@]}" -c "SET application_name = 'stalled'; SELECT count(kuid_new()) FROM generate_series(1, 100000000)" >/dev/null 2>"$work/stalled.err" &
minter=$!
sleep 4
is "$(sql "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'stalled'")" "t" \
	"the minting session, stuck behind the stalled save, is sent a cancel"
wait $minter
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok "$([ "$elapsed_ms" -lt 8000 ]; echo $?)" "the cancel ended it at once: it took $elapsed_ms ms, the stall lasts 20 s"
grep -q "canceling statement due to user request" "$work/stalled.err"
ok $? "as a canceled statement ($(head -1 "$work/stalled.err"))"
rm -f "$FLAKEID_FAULT_SWITCH"

# a read-only state file is replaced like any other (1.1 opened it for writing: 42501)
chmod 444 "$PGDATA/flakeid.state"
sql "SELECT count(kuid_new()) FROM generate_series(1, 1000)" >/dev/null
sleep 2.5
is "$(sqlstate "SELECT kuid_new()")" "ok" "a read-only flakeid.state does not stop the renewals that replace it"
ok "$([ -w "$PGDATA/flakeid.state" ] || [ "$(stat -c %a "$PGDATA/flakeid.state")" != 444 ]; echo $?)" "the file was replaced by a new one"
# a file that cannot be written: an I/O error naming it
server_ctl restart -m fast
mkdir "$PGDATA/flakeid.state.tmp"
message=$(message_of "DO \$\$ BEGIN PERFORM pg_sleep(0.3), kuid_new() FROM generate_series(1, 20); END \$\$")
echo "$message" | grep -q 'ERROR:  could not create file "flakeid.state.tmp": Is a directory'
ok $? "a state file that cannot be written: the error names it ($(echo "$message" | head -1))"
is "$(sqlstate "SELECT kuid_new()")" "58030" "with SQLSTATE 58030"
rmdir "$PGDATA/flakeid.state.tmp"
is "$(sql "SELECT count(DISTINCT kuid_new()) FROM generate_series(1, 1000)")" "1000" "and generation works once it can be written"
done_testing
