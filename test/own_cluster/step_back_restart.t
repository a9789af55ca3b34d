#!/usr/bin/env bash
# Restarts after a clock step back, while the monotonic generators count on
# ahead of the clock: sno keeps its own marks, so after a clean stop it does
# not wait, and after a crash at most its own reserve (2 s), instead of
# waiting until the clock is back where the other generators are (the rest
# of a 10 s step).  The step is flakeid.debug_clock_offset_ms, reloaded into
# every process (libfaketime does not reach background workers forked by
# the postmaster, so the mark renewer would read the real clock).  Starts
# its own cluster (PG_BINDIR picks the installation).
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

STEP=10
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

cat > "$work/inner.sh" <<'INNER'
exec 2>&1
. test/lib/tap.sh
datadir=$(sql "SHOW data_directory")
sql "CREATE EXTENSION flakeid; CREATE TABLE ids (phase text, generator text, id text)" >/dev/null
sql "CREATE FUNCTION timed_sno() RETURNS float8 LANGUAGE plpgsql AS \$\$
	DECLARE t0 timestamptz := clock_timestamp();
	BEGIN
		INSERT INTO ids VALUES ('timed', 'sno', sno_new()::text);
		RETURN extract(epoch FROM clock_timestamp() - t0);
	END \$\$" >/dev/null
mint() {
	sql "INSERT INTO ids SELECT '$1', 'sno', sno_new()::text FROM generate_series(1, 2000);
	     INSERT INTO ids SELECT '$1', 'kuid', kuid_new()::text FROM generate_series(1, 2000)" >/dev/null
}
mint before
# the step back: every new session and the renewer (on reload) read the clock 10 s behind
sql "ALTER SYSTEM SET flakeid.debug_clock_offset_ms = -${STEP}000" >/dev/null
sql "SELECT pg_reload_conf()" >/dev/null
stepped=$(date +%s.%N)
sleep 0.3
# 2.5 s after the step: sno toggles and follows the clock, kuid counts on
# ahead of it, and the renewer renews the marks of both
for _ in $(seq 10); do mint after; sleep 0.25; done
# kuid's lead over the (stepped) clock, and the seconds since the step
echo "$(sql "SELECT round(extract(epoch FROM max(kuid_time(id::kuid)) - (clock_timestamp() - interval '${STEP} s')), 1) FROM ids WHERE generator = 'kuid'") $(awk -v a="$stepped" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
server_ctl stop -m fast
echo "$(($(state_file_mark "$datadir") - $(state_file_sno_mark "$datadir")))"
server_ctl start
sql "SELECT timed_sno()"
sql "SELECT exhausted_waits FROM flakeid_generators WHERE generator = 'sno'"
for _ in $(seq 4); do mint restarted; sleep 0.25; done
server_ctl stop -m immediate
server_ctl start
sql "SELECT timed_sno()"
mint crashed
sql "SELECT count(*) - count(DISTINCT (generator, id)) FROM ids"
sql "SELECT count(*) FROM ids WHERE generator = 'sno'"
INNER

out=$(STEP=$STEP bash scripts/with_cluster -o shared_preload_libraries=flakeid -o flakeid.allow_debug_clock_offset=on \
	bash "$work/inner.sh")
line() { echo "$out" | sed -n "$1p"; }
# kuid counts on from its last unit instead of following the clock back, so
# its lead is the step less the time since (on a loaded machine the minting
# takes longer, and the lead is smaller); following the clock it would be 0
read -r lead since <<< "$(line 1)"
ok "$(awk -v l="$lead" -v s="$since" -v step=$STEP 'BEGIN { exit !(l >= 1 && l >= step - s - 1.5) }'; echo $?)" \
	"after the ${STEP} s step back, kuid counts on ${lead} s ahead of the clock, ${since} s after the step"
# sno's mark follows the clock back, the others' stay with kuid's lead
ok "$(awk -v m="$(line 2)" -v l="$lead" 'BEGIN { exit !(m >= 500000 && m >= (l - 1.5) * 1000000) }'; echo $?)" \
	"a clean stop saves sno's mark $(( $(line 2) / 1000 )) ms behind the other generators' mark (kuid's lead ${lead} s)"
ok "$(awk -v s="$(line 3)" 'BEGIN { exit !(s < 0.5) }'; echo $?)" \
	"after the clean stop, sno's first call takes $(line 3) s, not the rest of the step"
is "$(line 4)" "0" "after the clean restart, no sno call waited"
ok "$(awk -v s="$(line 5)" 'BEGIN { exit !(s < 2.5) }'; echo $?)" \
	"after a crash, sno's first call waits $(line 5) s: at most its own reserve, not the rest of the step"
is "$(line 6)" "0" "no ID repeats across the step back, the clean restart and the crash"
ok "$([ "$(line 7)" -ge 28000 ]; echo $?)" "$(line 7) sno IDs minted"
[ "$(echo "$out" | wc -l)" -le 7 ] || echo "$out" | sed 's/^/# /'
done_testing
