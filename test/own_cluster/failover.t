#!/usr/bin/env bash
# Failover with the clocks apart: a primary whose clock runs 5 s ahead
# (flakeid.debug_clock_offset_ms, allowed on this server) mints with every
# generator while a streaming replica is made from it and after; then it
# stops, the replica is promoted and mints with the real clock and the same
# explicit identities (pg_basebackup copied them).  The saved mark reaches
# the replica only through the WAL, so the promoted server must resume above
# everything the old primary issued: no ID in common, and none below the old
# maximum, except sno, which follows its spec (§5.1) and issues below with
# the other tick-tock, never reusing a (unit, tick-tock) the old primary used.
# Starts its own primary with scripts/with_cluster (PG_BINDIR picks the
# installation).
set -u
cd "$(dirname "$0")/../.."
if [ -z "${FLAKEID_FAILOVER_PRIMARY:-}" ]; then
	exec env FLAKEID_FAILOVER_PRIMARY=1 bash scripts/with_cluster -o shared_preload_libraries=flakeid \
		-o flakeid.allow_debug_clock_offset=on -o flakeid.sno_partition=5 -o flakeid.siq_shard=6 \
		-o flakeid.kuid_node=db@one -o flakeid.snowflake_worker=7 -o flakeid.snowflake_process=8 bash "$0"
fi
. test/lib/tap.sh
. test/lib/replica.sh
trap replica_cleanup EXIT

generators=(sno siq kuid kuid96 snowflake)
new_call() { case $1 in siq) echo "siq_new('user')" ;; *) echo "${1}_new()" ;; esac; }
type_of() { case $1 in snowflake) echo bigint ;; *) echo "$1" ;; esac; }

sql "CREATE EXTENSION flakeid" >/dev/null
for g in "${generators[@]}"; do sql "CREATE TABLE old_$g (id $(type_of "$g"))"; done
mint_ahead() {   # mint_ahead N: N IDs of every generator on the primary, its clock 5 s ahead
	local g statements=""
	for g in "${generators[@]}"; do statements+="INSERT INTO old_$g SELECT $(new_call "$g") FROM generate_series(1, $1); "; done
	PGOPTIONS="-c flakeid.debug_clock_offset_ms=5000" sql "$statements"
}

# the base backup is taken while the primary mints ...
(for i in $(seq 6); do mint_ahead 20000; sleep 0.3; done) &
minter=$!
replica_create "$(mktemp -d /tmp/flakeid-failover.XXXXXX)" $((PGPORT + 72))
ok $? "a replica made with pg_basebackup -R while the primary mints with its clock 5 s ahead"
wait $minter
ok $? "the primary minted during the base backup"
# ... and minting goes on for seconds after it: these marks reach the replica through the WAL only
for i in $(seq 8); do mint_ahead 10000; sleep 0.5; done
is "$(sql "SELECT count(*) FROM old_kuid")" "200000" "the primary minted 200,000 IDs of every generator"
replica_wait_for "$(sql "SELECT pg_current_wal_lsn()")"
ok $? "the replica replayed everything"
is "$(replica -c "SELECT count(*) FROM old_snowflake")" "200000" "the replica holds the old primary's IDs"

# the old primary goes away; the replica takes over with the real clock
server_ctl stop -m fast
ok $? "the old primary stops"
as_postgres "$REPLICA_BIN/pg_ctl" -D "$REPLICA_DIR/data" -w -t 60 promote >/dev/null
ok $? "the replica is promoted"
is "$(replica -c "SELECT pg_is_in_recovery(), current_setting('flakeid.debug_clock_offset_ms'), current_setting('flakeid.sno_partition')")" "f|0|5" \
	"the promoted server reads the real clock, with the same identities"
for g in "${generators[@]}"; do
	replica -c "CREATE TABLE new_$g AS SELECT $(new_call "$g") AS id FROM generate_series(1, 50000)"
done
for g in "${generators[@]}"; do
	is "$(replica -c "SELECT count(*) FROM new_$g n JOIN old_$g o USING (id)")" "0" \
		"$g: none of the promoted server's 50,000 IDs was issued by the old primary"
	if [ "$g" = sno ]; then
		# bytes 0..4: the time unit and the tick-tock
		is "$(replica -c "SELECT count(*) FROM new_sno n WHERE substr(sno_to_bytea(n.id), 1, 5) IN (SELECT DISTINCT substr(sno_to_bytea(id), 1, 5) FROM old_sno)")" "0" \
			"sno: no (unit, tick-tock) of the old primary is taken up again"
	else
		is "$(replica -c "SELECT count(*) FROM new_$g WHERE id <= (SELECT max(id) FROM old_$g)")" "0" \
			"$g: every new ID is above the old primary's maximum"
	fi
done
done_testing
