#!/usr/bin/env bash
# The Citus suite: a real 3-node Citus cluster on loopback (a coordinator and
# two workers, each a scripts/with_cluster server with citus and flakeid
# preloaded and no flakeid identity set), for every type: distribution
# column, colocated foreign key, reference table, DEFAULTs evaluated on the
# coordinator and on each worker (MX), COPY, INSERT ... SELECT pushed down
# to the workers, router queries, colocated and repartition joins,
# `<@ tstzrange` as an index condition on the shards, binary transfer
# between nodes, and ALTER EXTENSION flakeid UPDATE from 1.0 propagating.
# Then identities: derived from each node's Citus group, pairwise distinct
# by construction, listed by flakeid_cluster_identities(), which flags a
# planted collision; a group too large for an identity is refused; a
# worker's standby follows the standby rule.
#
# Citus comes from scripts/build_citus (PG_BINDIR's pg_config); without it
# (no Citus and no vendored source to build it from) the whole script is
# skipped, with the reason.  Runs as root (the servers run as postgres).
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

# --- the cluster: this script runs itself inside three nested servers ----------------

if [ -z "${CITUS_PORTS+set}" ]; then
	bindir=${PG_BINDIR:-$(pg_config --bindir)}
	citus=$(bash scripts/build_citus "$bindir/pg_config")
	case $? in
		0) ;;
		3) echo "1..0 # SKIP the Citus suite: $citus"; exit 0 ;;
		*) echo "not ok 1 - Citus builds and installs for $("$bindir/pg_config" --version)"; echo "1..1"; exit 1 ;;
	esac
	echo "# $citus"
	export CITUS_PORTS=""
fi
# each server runs the next one inside it; the innermost (worker 2, PGDATA) runs the tests
if [ "$(echo "$CITUS_PORTS" | wc -w)" -lt 3 ]; then
	exec bash scripts/with_cluster -o shared_preload_libraries=citus,flakeid \
		bash -c 'export CITUS_PORTS="$CITUS_PORTS $PGPORT"; exec bash test/release/citus.t'
fi
read -r C W1 W2 <<< "$CITUS_PORTS"
NODES=("$C" "$W1" "$W2")
NAMES=(coordinator worker1 worker2)

on() {   # on PORT SQL...: runs each SQL (a query of its own) on one node, unaligned
	local port=$1 args=()
	shift
	for sql in "$@"; do args+=(-c "$sql"); done
	"${PSQL[@]}" -h localhost -p "$port" -d postgres "${args[@]}"
}
on_state() {   # on_state PORT SQL: the SQLSTATE it fails with, or ok
	local PSQL=("${PSQL[@]}" -h localhost -p "$1" -d postgres)
	sqlstate "$2"
}
each() {   # each SQL: the answer of every node, coordinator first, joined by spaces
	local port out=()
	for port in "${NODES[@]}"; do out+=("$(on "$port" "$1")"); done
	echo "${out[*]}"
}

# --- setup: Citus, three nodes, flakeid 1.0 and its update ----------------------------------

for port in "${NODES[@]}"; do on "$port" "CREATE EXTENSION citus" >/dev/null; done
on "$C" "ALTER SYSTEM SET citus.shard_count = 4" "SELECT pg_reload_conf()" >/dev/null
on "$C" "SELECT citus_set_coordinator_host('localhost', $C)" >/dev/null
on "$C" "SELECT citus_add_node('localhost', $W1)" >/dev/null
on "$C" "SELECT citus_add_node('localhost', $W2)" >/dev/null
is "$(on "$C" "SELECT string_agg(groupid || ':' || nodeport, ' ' ORDER BY groupid) FROM pg_dist_node WHERE isactive")" \
	"0:$C 1:$W1 2:$W2" "a coordinator (group 0) and two workers (groups 1 and 2), active"
on "$C" "CREATE EXTENSION flakeid VERSION '1.0'" >/dev/null
is "$(each "SELECT extversion FROM pg_extension WHERE extname = 'flakeid'")" "1.0 1.0 1.0" \
	"CREATE EXTENSION flakeid VERSION '1.0' on the coordinator reaches both workers"
on "$C" "ALTER EXTENSION flakeid UPDATE" >/dev/null
current=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" flakeid.control)
is "$(each "SELECT extversion FROM pg_extension WHERE extname = 'flakeid'")" "$current $current $current" \
	"ALTER EXTENSION flakeid UPDATE on the coordinator updates both workers to $current"
is "$(each "SELECT count(*) FROM pg_proc WHERE proname = 'flakeid_cluster_identities'")" "1 1 1" \
	"the update's new functions exist on every node"

# --- identities: from the Citus group, distinct by construction -------------------------------

identities=$(on "$C" "SELECT generator, groupid, identity, source, shared FROM flakeid_cluster_identities()")
is "$(echo "$identities" | wc -l)" "15" "flakeid_cluster_identities(): 3 nodes x 5 ID types"
is "$(echo "$identities" | grep -v '^kuid|' | awk -F'|' '$4 == "derived from Citus group " $2' | wc -l)" "12" \
	"every node derives every identity (sno, siq, kuid96, snowflake) from its Citus group"
is "$(echo "$identities" | grep -v '^kuid|' | awk -F'|' '{ print $1 "|" $3 }' | sort -u | wc -l)" "12" \
	"the identities are pairwise distinct for every type"
is "$(echo "$identities" | awk -F'|' '$5 == "t" { print $1 }' | sort | uniq -c | awk '{ print $2 ":" $1 }' | xargs)" "kuid:3" \
	"no identity is shared, but kuid's (it carries none, so any two nodes can collide)"
is "$(echo "$identities" | grep '^sno|' | cut -d'|' -f2,3 | xargs)" "0|partition 0 1|partition 1 2|partition 2" \
	"sno's partition is the node's group"
is "$(echo "$identities" | grep '^snowflake|' | cut -d'|' -f2,3 | tr '\n' ' ')" \
	"0|worker 0, process 0 1|worker 0, process 1 2|worker 0, process 2 " \
	"snowflake's worker and process carry the group's 10 bits"
is "$(each "SELECT count(*) FROM flakeid_generators WHERE generator = 'sno' AND identity LIKE '%(derived from Citus group %'")" \
	"1 1 1" "flakeid_generators says where each node's identity came from"

# --- every type ---------------------------------------------------------------------------------

# name|column type|generator|time function|identity of an ID (empty: none)
TYPES=(
	"sno|sno|sno_new()|sno_time(id)|sno_partition(id)"
	"flax|flax|flax_new()|flax_time(id)|"
	"siq|siq|siq_new('user')|siq_time(id)|siq_shard(id)"
	"kuid|kuid|kuid_new()|kuid_time(id)|"
	"kuid96|kuid96|kuid96_new()|kuid96_time(id)|kuid96_node(id)"
	"snowflake|bigint|snowflake_new()|snowflake_time(id)|snowflake_worker(id) * 32 + snowflake_process(id)"
)

copy_rows() {   # copy_rows PORT TABLE N: COPY of N rows through one node, the IDs from DEFAULT
	seq "$3" | awk '{ print "copy\t" $1 }' | "${PSQL[@]}" -h localhost -p "$1" -d postgres -c "COPY $2 (src, n) FROM STDIN"
}
explain_on_shards() {   # explain_on_shards SQL: EXPLAIN of a distributed query, seq scans off on the shards too
	on "$C" "SET citus.propagate_set_commands = 'local'" "BEGIN" "SET LOCAL enable_seqscan = off" \
		"EXPLAIN (COSTS OFF) $1" "COMMIT"
}

for spec in "${TYPES[@]}"; do
	IFS='|' read -r t type gen timef identf <<< "$spec"
	ev=${t}_events ch=${t}_children rf=${t}_labels lk=${t}_links
	on "$C" "CREATE TABLE $ev (id $type PRIMARY KEY DEFAULT $gen, src text NOT NULL, n int)" \
		"SELECT create_distributed_table('$ev', 'id')" \
		"CREATE TABLE $ch (parent_id $type NOT NULL REFERENCES $ev (id), id $type NOT NULL DEFAULT $gen, src text,
			PRIMARY KEY (parent_id, id))" \
		"SELECT create_distributed_table('$ch', 'parent_id', colocate_with => '$ev')" \
		"CREATE TABLE $rf (id $type PRIMARY KEY DEFAULT $gen, label text)" \
		"SELECT create_reference_table('$rf')" \
		"CREATE TABLE $lk (id $type PRIMARY KEY DEFAULT $gen, event_id $type)" \
		"SELECT create_distributed_table('$lk', 'id')" >/dev/null
	is "$(on "$C" "SELECT partmethod, count(*) FROM pg_dist_partition p JOIN pg_dist_shard s USING (logicalrelid)
		WHERE logicalrelid = '$ev'::regclass GROUP BY partmethod")" "h|4" \
		"$t: a hash-distributed table on a $type column, 4 shards"
	is "$(on "$C" "SELECT count(DISTINCT colocationid) FROM pg_dist_partition WHERE logicalrelid IN ('$ev'::regclass, '$ch'::regclass)")" \
		"1" "$t: a colocated table with a foreign key to it on its distribution column"

	# DEFAULTs through the coordinator and through each worker (MX), and COPY
	for i in 0 1 2; do
		on "${NODES[$i]}" "INSERT INTO $ev (src, n) SELECT '${NAMES[$i]}', g FROM generate_series(1, 300) g" >/dev/null
	done
	copy_rows "$C" "$ev" 200 >/dev/null
	is "$(on "$C" "SELECT string_agg(src || ':' || c, ' ' ORDER BY src) FROM (SELECT src, count(*) c FROM $ev GROUP BY src) x")" \
		"coordinator:300 copy:200 worker1:300 worker2:300" "$t: DEFAULT ids through the coordinator, each worker and COPY"
	if [ -n "$identf" ]; then
		# the identity each node's own IDs carry: coordinator, worker 1, worker 2
		read -r -a mine <<< "$(each "SELECT $identf FROM (SELECT $gen AS id) x")"
		is "$(on "$C" "SELECT string_agg(DISTINCT src || ':' || ($identf), ' ') FROM $ev")" \
			"coordinator:${mine[0]} copy:${mine[0]} worker1:${mine[1]} worker2:${mine[2]}" \
			"$t: each ID carries the identity of the node that evaluated its DEFAULT (COPY: the coordinator)"
	fi

	# INSERT ... SELECT from the distributed table: pushed down, DEFAULTs on the workers
	on "$C" "INSERT INTO $ch (parent_id, src) SELECT id, 'pushdown' FROM $ev" >/dev/null
	is "$(on "$C" "SELECT count(*) FROM $ch")" "1100" "$t: INSERT ... SELECT from the distributed table, colocated, with the foreign key"
	if [ -n "$identf" ]; then
		is "$(on "$C" "SELECT string_agg(DISTINCT ($identf)::text, ' ') FROM $ch")" "${mine[1]} ${mine[2]}" \
			"$t: its DEFAULTs were evaluated on the workers (their identities, not the coordinator's)"
	fi

	# a reference table keyed by the type, written through the coordinator and a worker
	on "$C" "INSERT INTO $rf (label) SELECT 'c' || g FROM generate_series(1, 50) g" >/dev/null
	on "$W1" "INSERT INTO $rf (label) SELECT 'w' || g FROM generate_series(1, 50) g" >/dev/null
	is "$(each "SELECT count(*) || '/' || count(DISTINCT id) FROM $rf")" "100/100 100/100 100/100" \
		"$t: a reference table keyed by it, written through the coordinator and a worker, the same on every node"

	# router queries by ID, from the coordinator and from a worker
	one=$(on "$C" "SELECT id FROM $ev WHERE src = 'worker2' ORDER BY n LIMIT 1")
	is "$(on "$C" "SELECT src || ':' || n FROM $ev WHERE id = '$one'") $(on "$W1" "SELECT src || ':' || n FROM $ev WHERE id = '$one'")" \
		"worker2:1 worker2:1" "$t: a query by ID finds its row through the coordinator and through a worker"
	on "$C" "EXPLAIN (COSTS OFF) SELECT * FROM $ev WHERE id = '$one'" | grep -q "Task Count: 1$"
	ok $? "$t: it is a router query (one task: the shard is pruned by the ID's hash)"

	# joins
	is "$(on "$C" "SELECT count(*) FROM $ev e JOIN $ch c ON c.parent_id = e.id")" "1100" "$t: a colocated join"
	plan=$(on "$C" "EXPLAIN (COSTS OFF) SELECT count(*) FROM $ev e JOIN $ch c ON c.parent_id = e.id")
	ok "$(echo "$plan" | grep -q "Task Count: 4" && ! echo "$plan" | grep -q "MapMergeJob"; echo $?)" \
		"$t: the colocated join is planned as one task per shard pair, without repartitioning"
	# (kuid: through the coordinator, LIMIT makes Citus pull the rows there; on two workers kuid IDs collide)
	on "$C" "INSERT INTO $lk (event_id) SELECT id FROM $ev WHERE n <= 100 $([ "$t" = kuid ] && echo "LIMIT 100000")" >/dev/null
	is "$(on "$C" "SET citus.enable_repartition_joins = on" "SELECT count(*) FROM $lk l JOIN $ch c ON c.parent_id = l.event_id")" "$(on "$C" "SELECT count(*) FROM $ch WHERE parent_id IN (SELECT event_id FROM $lk)")" \
		"$t: a repartition join on a column of the type that is not the distribution column"
	on "$C" "SET citus.enable_repartition_joins = on" "EXPLAIN (COSTS OFF) SELECT count(*) FROM $lk l JOIN $ch c ON c.parent_id = l.event_id" | grep -q "MapMergeJob"
	ok $? "$t: it is planned as a repartition join"

	# a time range as an index condition on the shards
	range="tstzrange('$(on "$C" "SELECT min($timef) - interval '1 ms' FROM $ev")', '$(on "$C" "SELECT max($timef) + interval '1 s' FROM $ev")')"
	if [ "$type" = bigint ]; then
		condition="id BETWEEN snowflake_lower_bound(lower($range)) AND snowflake_upper_bound(upper($range))"
	else
		condition="id <@ $range"
	fi
	is "$(on "$C" "SELECT count(*) FROM $ev WHERE $condition")" "1100" "$t: a time range finds every row"
	index_condition=$(explain_on_shards "SELECT count(*) FROM $ev WHERE $condition" | grep "Index Cond: ((id >= " | head -1)
	ok "$([ -n "$index_condition" ]; echo $?)" "$t: the range reaches the shards as an index condition on id"
	echo "#  $index_condition"

	# binary transfer between nodes
	text=$(on "$C" "SET citus.enable_binary_protocol = off" "SELECT md5(string_agg(id::text || src || n, ',' ORDER BY id)) FROM (SELECT * FROM $ev) x")
	binary=$(on "$C" "SET citus.enable_binary_protocol = on" "SELECT md5(string_agg(id::text || src || n, ',' ORDER BY id)) FROM (SELECT * FROM $ev) x")
	is "$binary" "$text" "$t: rows fetched from the workers in binary are the rows fetched as text"
	# (by (parent_id, id), the key: kuid IDs minted on two workers at once can be equal)
	is "$(on "$C" "SET citus.enable_binary_protocol = on" "SELECT count(*) FROM (SELECT DISTINCT parent_id, id FROM $ch) x")" "1100" \
		"$t: IDs shipped between nodes in binary stay distinct (1100 after a DISTINCT across the workers)"
	is "$(on "$C" "SET citus.enable_binary_protocol = on" "SELECT md5(string_agg(parent_id::text || id::text, ',' ORDER BY parent_id, id)) FROM $ch")" \
		"$(on "$C" "SET citus.enable_binary_protocol = off" "SELECT md5(string_agg(parent_id::text || id::text, ',' ORDER BY parent_id, id)) FROM $ch")" \
		"$t: the rows INSERT ... SELECT made on the workers are the same fetched in binary and as text"

	# uniqueness: across all nodes, or for kuid (no identity) within each node
	if [ "$t" = kuid ]; then
		is "$(on "$C" "SELECT count(*) - count(DISTINCT (src, id)) FROM (SELECT src, id FROM $ev UNION ALL SELECT src, id FROM $lk, LATERAL (SELECT 'link') s(src)) x")" \
			"0" "$t: no ID repeats among those one node minted (kuid carries no node: across nodes it can)"
	else
		is "$(on "$C" "SELECT count(*) - count(DISTINCT id) FROM (SELECT id FROM $ev UNION ALL SELECT id FROM $ch UNION ALL SELECT id FROM $rf UNION ALL SELECT id FROM $lk) x")" \
			"0" "$t: no ID repeats across the three nodes ($ev, $ch, $rf, $lk)"
	fi
done

# --- a planted collision: an explicit setting equal to another node's derived identity ------------

on "$W2" "ALTER SYSTEM SET flakeid.siq_shard = 1" >/dev/null
server_ctl restart
identities=$(on "$C" "SELECT generator, groupid, identity, source, shared FROM flakeid_cluster_identities()")
is "$(echo "$identities" | grep '^siq|' | cut -d'|' -f2,3,4,5 | tr '\n' ' ')" \
	"0|shard 0, domain ''|derived from Citus group 0|f 1|shard 1, domain ''|derived from Citus group 1|t 2|shard 1, domain ''|set by flakeid.siq_shard|t " \
	"a setting wins over the group, and flakeid_cluster_identities() flags the shard two nodes share"
is "$(echo "$identities" | awk -F'|' '$1 != "kuid" && $5 == "t" { print $1 }' | sort -u | xargs)" "siq" \
	"nothing else is flagged"
on "$W2" "ALTER SYSTEM RESET flakeid.siq_shard" >/dev/null
# a setting refused at start: the node's row has no identity, its source says why, and it
# shares nothing (65a2980 listed it, and flagged such nodes as sharing one another's: the
# twenty-seventh reviewer)
echo "flakeid.siq_shard = 300" >> "$PGDATA/postgresql.conf"
server_ctl restart
is "$(on "$C" "SELECT groupid || ':' || coalesce(identity, '-') || ':' || coalesce(shared::text, 'null') || ':' || (source LIKE 'flakeid.siq_shard = ''300'' refused at start%') FROM flakeid_cluster_identities() WHERE generator = 'siq' ORDER BY groupid" | tr '\n' ' ')" \
	"0:shard 0, domain '':false:false 1:shard 1, domain '':false:false 2:-:null:true " \
	"a shard refused at start: worker 2's row has no identity and shares nothing, its source names the refusal"
sed -i '/^flakeid.siq_shard = 300$/d' "$PGDATA/postgresql.conf"
server_ctl restart

# --- a worker's standby follows the standby rule ------------------------------------------------------

. test/lib/replica.sh
trap replica_cleanup EXIT
replica_create "$(mktemp -d /tmp/flakeid-citus-standby.XXXXXX)" $((W2 + 71))
ok $? "a streaming standby of worker 2 (pg_basebackup -R) starts"
is "$(replica -c "SELECT groupid FROM pg_dist_local_group")" "2" "it is in worker 2's Citus group"
is "$(replica_sqlstate "SELECT sno_new()")" "55000" "it refuses to generate (a standby would mint its primary's IDs)"
replica_restart "flakeid.generate_on_standby = on"
replica_message_of "SELECT sno_new()" | grep -q "cannot generate IDs with a derived identity during recovery"
ok $? "opted in, it still refuses to derive an identity: it would be its primary's group"
replica_cleanup

# --- the cluster's horizon: the least over the nodes ---------------------------------------------

for t in sno siq kuid kuid96 bigint; do
	fn=$([ "$t" = bigint ] && echo snowflake || echo "$t")
	got=$(on "$C" "SELECT flakeid_cluster_horizon('$t') IS NOT NULL AND (SELECT count(*) FROM (SELECT flakeid_cluster_horizon('$t')::$t) x) = 1")
	is "$got" "t" "flakeid_cluster_horizon('$t') gives a $t ($fn's generator on every node)"
done
# a transaction left open on worker 1 holds the cluster's horizon below what worker 1 commits after it
# (it holds until cancelled, and the check waits until it holds: a second's sleep, then a 4 s hold,
# assumed a machine fast enough to start it within the one and check within the other)
on "$W1" "BEGIN" "SELECT sno_new()" "SELECT pg_sleep(600)" "COMMIT" >/dev/null 2>&1 &
holder=$!
for _ in $(seq 1 600); do
	[ "$(on "$W1" "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)' AND state = 'active'")" = 1 ] && break
	sleep 0.1
done
later=$(on "$W1" "SELECT sno_new()")
horizon=$(on "$C" "SELECT flakeid_cluster_horizon('sno')")
is "$(on "$C" "SELECT '$horizon'::sno < '$later'::sno")" "t" \
	"an open transaction on worker 1 holds the cluster's horizon ($horizon) below an ID worker 1 committed after it ($later)"
is "$(on "$C" "SELECT '$horizon'::sno <= sno_horizon()")" "t" "it is no higher than the coordinator's own"
on "$W1" "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'" >/dev/null
wait "$holder"
is "$(on "$C" "SELECT '$later'::sno < flakeid_cluster_horizon('sno')::sno")" "t" \
	"once the transaction has ended, the cluster's horizon passes every ID issued"
is "$(on_state "$C" "SELECT flakeid_cluster_horizon('text')")" "22023" "a type without a generator: 22023"

# --- the derivation is the same whichever database or role generates first ------------------------

# A role with CREATE on a schema first in its search_path plants an "=" for
# int4 that fails; a database without Citus is made on worker 2.  After a
# restart (identities are derived once per start), the first call comes from
# that database, then from that role.  1.2 fixed the system identifier's
# identity from the first, and ran the role's operator in the second.
# (on the worker itself: Citus would send the DDL to the coordinator)
on "$W2" "SET citus.enable_ddl_propagation = off" "CREATE ROLE planter LOGIN" "CREATE SCHEMA trap AUTHORIZATION planter" >/dev/null
on "$W2" "SET citus.enable_create_database_propagation = off" "CREATE DATABASE nocitus" >/dev/null
"${PSQL[@]}" -h localhost -p "$W2" -d nocitus -c "CREATE EXTENSION flakeid" >/dev/null
"${PSQL[@]}" -h localhost -p "$W2" -U planter -d postgres -c "SET citus.enable_ddl_propagation = off" \
	-c "CREATE FUNCTION trap.eq(int4, int4) RETURNS bool LANGUAGE plpgsql AS \$\$BEGIN RAISE EXCEPTION 'the planted operator ran'; END\$\$" \
	-c "CREATE OPERATOR trap.= (LEFTARG = int4, RIGHTARG = int4, FUNCTION = trap.eq)" \
	-c "ALTER ROLE planter SET search_path = trap, public, pg_catalog" >/dev/null
is "$("${PSQL[@]}" -h localhost -p "$W2" -U planter -d postgres -c "SELECT 2 = 2" 2>&1 | grep -c 'the planted operator ran')" "1" \
	"the planted operator is what = means for int4 in the role's sessions"
as_in() {   # as_in ROLE DATABASE SQL: the SQLSTATE SQL fails with on worker 2, or ok
	local PSQL=("${PSQL[@]}" -h localhost -p "$W2" -U "$1" -d "$2")
	sqlstate "$3"
}
# identities are derived once per start: each case begins with a restart
server_ctl restart
is "$(as_in planter postgres "SELECT sno_new()")" "ok" "the planter's first call after a start, in the Citus database, derives without running its operator"
is "$("${PSQL[@]}" -h localhost -p "$W2" -U planter -d postgres -c "SELECT sno_partition(sno_new()), snowflake_worker(s), snowflake_process(s) FROM (SELECT snowflake_new() s) x")" \
	"2|0|2" "the identities are worker 2's group (partition 2; worker 0, process 2)"
server_ctl restart
is "$(as_in planter nocitus "SELECT sno_new()") $(as_in planter nocitus "SELECT snowflake_new()")" "55000 55000" \
	"the first call after a start, in a database without Citus: refused (55000), not derived from the system identifier"
"${PSQL[@]}" -h localhost -p "$W2" -U planter -d nocitus -c "SELECT sno_new()" 2>&1 | grep -q "cannot derive flakeid.sno_partition in a database without Citus"
ok $? "the message says why"
is "$(as_in planter postgres "SELECT sno_new(), snowflake_new()")" "ok" "then a call in the Citus database derives (sno's and snowflake's)"
is "$("${PSQL[@]}" -h localhost -p "$W2" -d nocitus -c "SELECT sno_partition(sno_new()), snowflake_process(snowflake_new())")" "2|2" \
	"and the database without Citus generates with worker 2's group's identities"

# --- a group too large for an identity's bits is an error, never a chance ------------------------

# Citus numbers groups from 1 as nodes are added; worker 2 is made group 300 in
# its own metadata (last: the cluster's metadata no longer agrees with it)
on "$W2" "UPDATE pg_dist_node SET groupid = 300 WHERE nodeport = $W2" "UPDATE pg_dist_local_group SET groupid = 300" >/dev/null
server_ctl restart
is "$(on_state "$W2" "SELECT siq_new('user')")" "55000" "group 300: siq_new() refuses (siq has 256 shards)"
on "$W2" "SELECT siq_new('user')" 2>&1 | grep -q "cannot derive flakeid.siq_shard from Citus group 300"
ok $? "the message names the setting and the group"
is "$(on "$W2" "SELECT sno_partition(sno_new()), snowflake_worker(s), snowflake_process(s) FROM (SELECT snowflake_new() s) x")" \
	"300|9|12" "group 300 still fits sno's partition (300) and snowflake's worker and process (9, 12)"

done_testing
