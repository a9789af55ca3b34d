#!/usr/bin/env bash
# A real streaming replica on loopback (pg_basebackup -R) of the preloaded
# primary of scripts/with_cluster: on the hot standby, generating with a
# derived identity is ERROR 55000 with a hint, with explicit identities it
# works, and after promotion the derived identities differ from the
# primary's.  Runs as root (the standby runs as postgres).
set -u
cd "$(dirname "$0")/../.."
. test/scripts/tap.sh

bin=$(pg_config --bindir)
dir=$(mktemp -d /tmp/flakeid-standby.XXXXXX)
port=$((PGPORT + 71))
chown postgres: "$dir"
# tap.sh's helpers against the standby: they run "${PSQL[@]}"
STANDBY_PSQL=("${PSQL[@]}" -h "$dir" -p "$port" -U postgres -d postgres)
standby() { "${STANDBY_PSQL[@]}" "$@"; }
standby_sqlstate() { local PSQL=("${STANDBY_PSQL[@]}"); sqlstate "$1"; }
restart_standby() {   # restart_standby [SETTING=VALUE...]: the identity settings of this start
	printf '%s\n' "$@" > "$dir/data/identity.conf"
	chown postgres: "$dir/data/identity.conf"
	as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 restart >/dev/null
}
cleanup() {
	as_postgres "$bin/pg_ctl" -D "$dir/data" -w -m immediate stop >/dev/null 2>&1
	rm -rf "$dir"
}
trap cleanup EXIT

sql "CREATE EXTENSION IF NOT EXISTS flakeid" >/dev/null
sql "SET client_min_messages = warning; DROP TABLE IF EXISTS standby_ids; CREATE TABLE standby_ids AS SELECT sno_new() AS id FROM generate_series(1, 100)" >/dev/null
primary_partition=$(sql "SELECT sno_partition(sno_new())")
primary_node=$(sql "SELECT kuid96_node(kuid96_new())")

as_postgres "$bin/pg_basebackup" -h localhost -p "$PGPORT" -U postgres \
	-D "$dir/data" -R -X stream -c fast >/dev/null 2>&1
ok $? "pg_basebackup -R of the primary"
# Debian keeps the configuration outside the data directory: give the standby its own
cat > "$dir/data/postgresql.conf" <<CONF
port = $port
listen_addresses = ''
unix_socket_directories = '$dir'
shared_preload_libraries = 'flakeid'
hot_standby = on
include_if_exists = 'identity.conf'
CONF
echo "local all all trust" > "$dir/data/pg_hba.conf"
touch "$dir/data/identity.conf"
chown -R postgres: "$dir/data"
as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 start >/dev/null
ok $? "the standby starts with flakeid preloaded"
is "$(standby -c "SELECT pg_is_in_recovery()")" "t" "it is a hot standby"
is "$(standby -c "SELECT count(*), count(DISTINCT sno_partition(id)) FROM standby_ids")" "100|1" \
	"replicated IDs are readable on the standby"

# derived identities: refused
for call in "sno_new()" "siq_new('user')" "kuid96_new()" "snowflake_new()" "sno_new_at(now())"; do
	is "$(standby_sqlstate "SELECT $call")" "55000" "standby, derived identity: $call is ERROR 55000"
done
standby -v VERBOSITY=default -c "SELECT sno_new()" 2>&1 | grep -q 'HINT:  Set flakeid.sno_partition to a value no other server uses, or generate IDs on the primary.'
ok $? "the error's hint says to set an explicit identity"

# explicit identities: generation works on the standby
restart_standby "flakeid.sno_partition = 7" "flakeid.siq_shard = 8" "flakeid.kuid_node = 'standby@db'" \
	"flakeid.snowflake_worker = 9" "flakeid.snowflake_process = 10"
is "$(standby -c "SELECT pg_is_in_recovery(), sno_partition(sno_new()), siq_shard(siq_new('user')), kuid96_node(kuid96_new()) = kuid_node_hash('standby@db'), snowflake_worker(snowflake_new()), snowflake_process(snowflake_new())")" \
	"t|7|8|t|9|10" "standby, explicit identities: every generator works and uses them"
is "$(standby -c "SELECT count(DISTINCT sno_new()) FROM generate_series(1, 10000)")" "10000" \
	"standby, explicit identity: 10000 distinct sno IDs"

# promotion: a new timeline, so new derived identities
restart_standby
as_postgres "$bin/pg_ctl" -D "$dir/data" -w -t 60 promote >/dev/null
ok $? "the standby is promoted"
# (the WAL file name, not pg_control_checkpoint(): the end-of-recovery
# checkpoint that records the new timeline there may not have run yet)
is "$(standby -c "SELECT pg_is_in_recovery(), ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int > 1" | head -1)" "f|t" \
	"the promoted server is on a new timeline"
promoted_partition=$(standby -c "SELECT sno_partition(sno_new())")
promoted_node=$(standby -c "SELECT kuid96_node(kuid96_new())")
ok "$([ -n "$promoted_partition" ] && [ "$promoted_partition" != "$primary_partition" ]; echo $?)" \
	"after promotion the derived sno partition differs from the primary's ($promoted_partition vs $primary_partition)"
ok "$([ -n "$promoted_node" ] && [ "$promoted_node" != "$primary_node" ]; echo $?)" \
	"after promotion the derived kuid96 node differs from the primary's ($promoted_node vs $primary_node)"

sql "DROP TABLE standby_ids"
done_testing
