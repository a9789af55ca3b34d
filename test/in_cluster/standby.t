#!/usr/bin/env bash
# A real streaming replica on loopback (pg_basebackup -R, taken while the
# primary mints) of the preloaded primary test/t/in_cluster.pl gives.  On the
# hot standby every generator is refused, whatever its identities, unless
# flakeid.generate_on_standby is on; with it and identities of its own the
# standby mints alongside the primary without repeating one ID (kuid, which
# carries no node, stays refused).  After promotion the derived identities
# differ from the primary's.  Runs as root (the replica runs as postgres).
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh
. test/lib/replica.sh
trap replica_cleanup EXIT

sql "CREATE EXTENSION IF NOT EXISTS flakeid" >/dev/null
sql "SET client_min_messages = warning; DROP TABLE IF EXISTS standby_ids; CREATE TABLE standby_ids AS SELECT sno_new() AS id FROM generate_series(1, 100)" >/dev/null
IFS='|' read -r partition shard node worker process <<< "$(sql "SELECT sno_partition(sno_new()), siq_shard(siq_new('user')), kuid96_node(kuid96_new()), snowflake_worker(s), snowflake_process(s) FROM (SELECT snowflake_new() s) x")"

# the base backup is taken while the primary mints with every generator
sql "SELECT count(sno_new()), count(siq_new('user')), count(kuid_new()), count(kuid96_new()), count(snowflake_new()) FROM generate_series(1, 300000)" >/dev/null &
minter=$!
replica_create "$(mktemp -d /tmp/flakeid-standby.XXXXXX)" $((PGPORT + 71))
ok $? "pg_basebackup -R of the primary while it mints, and the standby starts with flakeid preloaded"
wait $minter
ok $? "the primary minted 1,500,000 IDs meanwhile"
is "$(replica -c "SELECT pg_is_in_recovery()")" "t" "it is a hot standby"
is "$(replica -c "SELECT count(*), count(DISTINCT sno_partition(id)) FROM standby_ids")" "100|1" \
	"replicated IDs are readable on the standby"

calls=("sno_new()" "sno_new_at(now())" "siq_new('user')" "siq_new_at(now(), 'user')" "kuid_new()" "kuid_new_at(now())"
	"kuid96_new()" "kuid96_new_at(now())" "kuid96(kuid_new())" "snowflake_new()" "snowflake_new_at(now())")
refused() {   # refused LABEL: every generator is 55000 on the standby
	local call states=""
	for call in "${calls[@]}"; do states+="$(replica_sqlstate "SELECT $call") "; done
	is "$states" "$(printf '55000 %.0s' "${calls[@]}")" "standby, $1: every generator is ERROR 55000 (${calls[*]})"
}
refused "the primary's configuration"
replica_message_of "SELECT sno_new()" | grep -q 'ERROR:  cannot generate IDs during recovery'
ok $? "the message says why"
replica_message_of "SELECT sno_new()" | grep -q 'HINT:  .*set flakeid.generate_on_standby = on'
ok $? "the hint names flakeid.generate_on_standby"
replica_message_of "SELECT kuid_new()" | grep -q 'DETAIL:  kuid IDs carry no node'
ok $? "kuid_new() says that kuid IDs carry no node"

# identities of its own, different from the primary's, do not open it alone
own=("flakeid.sno_partition = $(((partition + 1) % 65536))" "flakeid.siq_shard = $(((shard + 1) % 256))"
	"flakeid.kuid_node = 'standby@db'" "flakeid.snowflake_worker = $(((worker + 1) % 32))"
	"flakeid.snowflake_process = $(((process + 1) % 32))")
replica_restart "${own[@]}"
refused "identities of its own but no opt-in"

# the opt-in with derived identities: still refused (they are the primary's)
replica_restart "flakeid.generate_on_standby = on"
is "$(replica_sqlstate "SELECT sno_new()")|$(replica_sqlstate "SELECT kuid96_new()")|$(replica_sqlstate "SELECT snowflake_new()")" "55000|55000|55000" \
	"standby, opt-in with derived identities: refused"
replica_message_of "SELECT sno_new()" | grep -q 'HINT:  Set flakeid.sno_partition to a value no other server uses'
ok $? "the hint says to set an explicit identity"

# the opt-in with identities of its own: the standby mints next to the primary
replica_restart "${own[@]}" "flakeid.generate_on_standby = on"
is "$(replica -c "SELECT pg_is_in_recovery(), sno_partition(sno_new()), siq_shard(siq_new('user')), kuid96_node(kuid96_new()) = kuid_node_hash('standby@db'), snowflake_worker(snowflake_new()), snowflake_process(snowflake_new())")" \
	"t|$(((partition + 1) % 65536))|$(((shard + 1) % 256))|t|$(((worker + 1) % 32))|$(((process + 1) % 32))" \
	"standby, opt-in with identities of its own: every generator but kuid works and uses them"
ok "$([ "$node" != "$(replica -c "SELECT kuid_node_hash('standby@db')")" ]; echo $?)" "the standby's kuid96 node differs from the primary's"
is "$(replica_sqlstate "SELECT kuid_new()")|$(replica_sqlstate "SELECT kuid_new_at(now())")" "55000|55000" \
	"standby, opt-in: kuid_new() and kuid_new_at() stay refused"
mint="SELECT x FROM (SELECT sno_new()::text, siq_new('user')::text, kuid96_new()::text, snowflake_new()::text FROM generate_series(1, 50000)) s(a, b, c, d), LATERAL (VALUES (a), (b), (c), (d)) v(x)"
tmp=$(mktemp -d)
sql "$mint" > "$tmp/primary" &
replica -c "$mint" > "$tmp/standby"
wait
is "$(sort -u "$tmp/primary" | wc -l) $(sort -u "$tmp/standby" | wc -l)" "200000 200000" \
	"primary and standby each minted 50,000 distinct sno, siq, kuid96 and snowflake IDs at once"
is "$(sort "$tmp/primary" "$tmp/standby" | uniq -d | wc -l)" "0" "no ID is minted by both"
rm -rf "$tmp"

# promotion: a new timeline, so new derived identities, and generation opens
replica_restart
as_postgres "$REPLICA_BIN/pg_ctl" -D "$REPLICA_DIR/data" -w -t 60 promote >/dev/null
ok $? "the standby is promoted"
# (the WAL file name, not pg_control_checkpoint(): the end-of-recovery
# checkpoint that records the new timeline there may not have run yet)
is "$(replica -c "SELECT pg_is_in_recovery(), ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int > 1" | head -1)" "f|t" \
	"the promoted server is on a new timeline"
promoted=$(replica -c "SELECT sno_partition(sno_new()), kuid96_node(kuid96_new())")
ok "$([ -n "$promoted" ] && [ "$promoted" != "$partition|$node" ]; echo $?)" \
	"after promotion the derived sno partition and kuid96 node differ from the primary's ($promoted vs $partition|$node)"
is "$(replica -c "SELECT count(DISTINCT kuid_new()) FROM generate_series(1, 1000)")" "1000" "after promotion kuid_new() works"

sql "DROP TABLE standby_ids"
done_testing
