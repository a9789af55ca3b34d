#!/usr/bin/env bash
# The cases of bench/run, inside the cluster (PG* environment).  Each timing
# is server-side milliseconds of one statement, taken in a DO block.
set -euo pipefail
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
. "$(dirname "$0")/bench_lib.sh"
declare -A S   # samples per case key
report=()
add() { report+=("$*"); }

# the settings of every run, whichever way the server was started
q -c "ALTER SYSTEM SET work_mem = '1GB'" -c "ALTER SYSTEM SET maintenance_work_mem = '1GB'" \
	-c "ALTER SYSTEM SET max_wal_size = '8GB'" -c "ALTER SYSTEM SET checkpoint_timeout = '30min'" -c "SELECT pg_reload_conf()" >/dev/null
q -c "CREATE EXTENSION flakeid; CREATE EXTENSION pgstattuple; CREATE SEQUENCE bench_seq;"

# the baselines of every major: a bigint identity (nextval) and uuid v4;
# from PostgreSQL 18 on, core's time-ordered uuidv7() too
has_uuidv7=$(q -c "SELECT to_regprocedure('uuidv7()') IS NOT NULL")
# uuid_baseline: the uuid a user would pick instead (uuidv7 where there is one)
uuid_baseline=gen_random_uuid; [ "$has_uuidv7" = t ] && uuid_baseline=uuidv7

# --- 1. generation: ns per ID over an empty scan --------------------------------
case_generation() {
	gen_cases=(empty "n" nextval "nextval('bench_seq')" gen_random_uuid "gen_random_uuid()"
		sno_new "sno_new(0)" flax_new "flax_new()" siq_new "siq_new('user')" kuid_new "kuid_new()"
		kuid96_new "kuid96_new()" snowflake_new "snowflake_new()")
	if [ "$has_uuidv7" = t ]; then gen_cases+=(uuidv7 "uuidv7()"); fi
	for r in $(seq 1 "$ROUNDS"); do
		for ((i = 0; i < ${#gen_cases[@]}; i += 2)); do
			S[gen_${gen_cases[i]}]+="$(ms "SELECT count(${gen_cases[i+1]}) FROM generate_series(1, $ROWS) g(n)") "
		done
	done
	empty=$(median "${S[gen_empty]}")
	# the median is the figure of record; the fastest round (each case's
	# least time less the empty scan's least) shows what the code costs when
	# the machine's neighbours leave it alone, which on a shared VM they
	# often do not (the empty scan alone has varied from 121 to 189 ms)
	least_empty=$(least "${S[gen_empty]}")
	# ns_per_id median|least CASE: that statistic of the case less the empty scan's
	ns_per_id() { ns_each "$($1 "${S[gen_$2]}")" "$($1 "${S[gen_empty]}")" "$ROWS"; }
	add "### 1. Generation in SQL (ns per ID over an empty generate_series scan of $ROWS rows; the scan: $empty ms, fastest $least_empty ms)"
	add ""
	add "\`SELECT count(f) FROM generate_series(1, $ROWS)\` less the same scan without the call. The calls run while the scan's tuplestore"
	add "is read back, faster than the formats' pools allow one server: sno (61 ns per ID), kuid (62.5) and snowflake (244) then wait"
	add "for their next unit, and their lines measure those caps as much as the code (case 2 counts the code alone)."
	add ""
	add "| expression | ns per ID | fastest round | × nextval | × $uuid_baseline() | target |"
	add "|---|---|---|---|---|---|"
	gen_row() {   # gen_row LABEL CASE [TARGET]
		local v f
		v=$(ns_per_id median "$2"); f=$(ns_per_id least "$2")
		add "| $1 | $v | $f | $(ratio "$v" "$(ns_per_id median nextval)") | $(ratio "$v" "$(ns_per_id median $uuid_baseline)") | ${3:-} |"
	}
	gen_row "\`nextval('bench_seq')\`" nextval
	gen_row "\`gen_random_uuid()\`" gen_random_uuid
	if [ "$has_uuidv7" = t ]; then gen_row "\`uuidv7()\`" uuidv7; fi
	gen_row "\`sno_new(0)\`" sno_new "≤ 0.25× nextval"
	gen_row "\`flax_new()\`" flax_new "≤ 0.10× gen_random_uuid"
	for c in siq_new kuid_new kuid96_new snowflake_new; do gen_row "\`$c()\`" $c; done
}

# --- 2. calls: CPU ns per call from C (bench/call_loop) --------------------------
# No scan and no SQL around the call: the backend's CPU time of CALLS calls
# in a loop, so that a generator's 30 ns are not the small difference of
# two scans.  A call that sleeps (sno's pool used up) costs its CPU only.
case_calls() {
	local calls=${CALLS:-2000000}
	call_cases=(nextval "'nextval(regclass)', $calls, 'bench_seq'::regclass" gen_random_uuid "'gen_random_uuid()', $((calls / 10))"
		sno_new "'sno_new(int)', $calls, 0" flax_new "'flax_new()', $calls" siq_new "'siq_new(text)', $calls, 'user'::text"
		kuid_new "'kuid_new()', $calls" kuid96_new "'kuid96_new()', $calls" snowflake_new "'snowflake_new()', $((calls / 4))")
	if [ "$has_uuidv7" = t ]; then call_cases+=(uuidv7 "'uuidv7()', $((calls / 10))"); fi
	q -f "$(dirname "$0")/call_loop/install.sql"
	for r in $(seq 1 "$ROUNDS"); do
		for ((i = 0; i < ${#call_cases[@]}; i += 2)); do
			S[call_${call_cases[i]}]+="$(q -c "SELECT round(bench_call_loop_cpu(${call_cases[i+1]})::numeric, 1)") "
		done
	done
	add ""
	add "### 2. Generation from C (the backend's CPU ns per call, bench/call_loop, up to $calls calls a round)"
	add ""
	add "| function | ns per call | fastest round | × nextval | × $uuid_baseline() |"
	add "|---|---|---|---|---|"
	local c v f
	for ((i = 0; i < ${#call_cases[@]}; i += 2)); do
		c=${call_cases[i]}
		v=$(median "${S[call_$c]}"); f=$(least "${S[call_$c]}")
		add "| \`$c\` | $v | $f | $(ratio "$v" "$(median "${S[call_nextval]}")") | $(ratio "$v" "$(median "${S[call_$uuid_baseline]}")") |"
	done
}

# --- 3. insert with a DEFAULT generator: time, heap and index ---------------------
# (id, n int) tables, the key from its DEFAULT; the index is the primary key
# a user creates.  An index tuple is MAXALIGNed: its 8-byte header and a
# 10-, 12- or 14-byte key take 24 bytes, as a 16-byte uuid does.
insert_keys() {   # the key columns of case 3, as "name|type and DEFAULT"
	echo "identity|bigint GENERATED ALWAYS AS IDENTITY"
	echo "uuid_v4|uuid DEFAULT gen_random_uuid()"
	[ "$has_uuidv7" != t ] || echo "uuidv7|uuid DEFAULT uuidv7()"
	echo "sno|sno DEFAULT sno_new(0)"
	echo "flax|flax DEFAULT flax_new()"
	echo "siq|siq DEFAULT siq_new('user')"
	echo "kuid|kuid DEFAULT kuid_new()"
	echo "kuid96|kuid96 DEFAULT kuid96_new()"
	echo "snowflake|bigint DEFAULT snowflake_new()"
}
case_insert() {
	local name def
	while IFS='|' read -r name def; do
		q -c "CREATE TABLE ins_$name (id $def PRIMARY KEY, n int)"
		ins_cases+=("$name")
	done < <(insert_keys)
	for r in $(seq 1 "$ROUNDS"); do
		for c in "${ins_cases[@]}"; do
			q -c "TRUNCATE ins_$c; CHECKPOINT"
			S[ins_$c]+="$(ms "INSERT INTO ins_$c (n) SELECT g FROM generate_series(1, $ROWS) g") "
		done
	done
	add ""
	add "### 3. Insert $ROWS rows of \`(id, n int)\`, the primary key from its DEFAULT"
	add ""
	add "Sizes after the last round (\`pg_relation_size\`, in MB of 2^20 bytes), with the primary key's leaf density (pgstattuple)."
	add ""
	add "| key | ms | fastest round | × identity | × ${uuid_baseline/gen_random_uuid/uuid_v4} | heap MB | primary key MB | leaf density |"
	add "|---|---|---|---|---|---|---|---|"
	local base ubase m stats
	base=$(median "${S[ins_identity]}")
	ubase=$(median "${S[ins_${uuid_baseline/gen_random_uuid/uuid_v4}]}")
	for c in "${ins_cases[@]}"; do
		m=$(median "${S[ins_$c]}")
		q -c "VACUUM ins_$c"
		stats=$(q -c "SELECT round(pg_relation_size('ins_$c') / 1048576.0, 1) || ' | ' || round(pg_relation_size('ins_${c}_pkey') / 1048576.0, 1)
			|| ' | ' || round(avg_leaf_density::numeric, 1) || ' %' FROM pgstatindex('ins_${c}_pkey')")
		add "| $c | $m | $(least "${S[ins_$c]}") | $(ratio "$m" "$base") | $(ratio "$m" "$ubase") | $stats |"
	done
}

# the tables of cases 4 and 5: ROWS IDs of each type, in random order
# (uuid is v4; snowflake is the bigint a bigint identity would sort)
sort_types=(uuid sno flax siq kuid kuid96 snowflake)
[ "$has_uuidv7" != t ] || sort_types+=(uuidv7)
sort_column_type() { case $1 in uuidv7) echo uuid ;; snowflake) echo bigint ;; *) echo "$1" ;; esac; }
shuffled_tables() {
	local t expr
	[ -n "${SHUFFLED:-}" ] && return
	for t in "${sort_types[@]}"; do
		case $t in
			uuid) expr="gen_random_uuid()" ;; uuidv7) expr="uuidv7()" ;; sno) expr="sno_new(0)" ;; siq) expr="siq_new('user')" ;;
			*) expr="${t}_new()" ;;
		esac
		q -c "CREATE TABLE sort_$t AS SELECT id FROM (SELECT $expr AS id FROM generate_series(1, $ROWS)) s ORDER BY random()"
	done
	q -c "VACUUM ANALYZE"
	SHUFFLED=1
}

# --- 4. sort 1M shuffled IDs: ORDER BY in memory, and CREATE INDEX --------------------
case_sort() {
	shuffled_tables
	for r in $(seq 1 "$ROUNDS"); do
		for t in "${sort_types[@]}"; do
			S[sort_$t]+="$(ms "SELECT id FROM sort_$t ORDER BY id OFFSET $ROWS") "
			S[index_$t]+="$(ms "CREATE INDEX sort_${t}_idx ON sort_$t (id)") "
			[ "$r" -lt "$ROUNDS" ] || S[index_size_$t]=$(q -c "SELECT round(pg_relation_size('sort_${t}_idx') / 1048576.0, 1)")
			q -c "DROP INDEX sort_${t}_idx"
		done
	done
	add ""
	add "### 4. Sort $ROWS shuffled IDs (work_mem and maintenance_work_mem 1GB); uuid is v4, snowflake a bigint"
	add ""
	add "| type | ORDER BY ms | ratio to uuid | fastest round | ratio | CREATE INDEX ms | ratio to uuid | fastest round | ratio | index MB | target |"
	add "|---|---|---|---|---|---|---|---|---|---|---|"
	# against_uuid KIND TYPE: "median | ratio | fastest | ratio" of one column pair
	against_uuid() {
		local m f
		m=$(median "${S[$1_$2]}"); f=$(least "${S[$1_$2]}")
		echo "$m | $(ratio "$m" "$(median "${S[$1_uuid]}")") | $f | $(ratio "$f" "$(least "${S[$1_uuid]}")")"
	}
	for t in "${sort_types[@]}"; do
		add "| $t | $(against_uuid sort "$t") | $(against_uuid index "$t") | ${S[index_size_$t]} | $(case $t in uuid*|snowflake) ;; *) echo "≤ 1.0" ;; esac) |"
	done
}

# --- 5. text I/O: COPY TO and COPY FROM -------------------------------------------------
case_copy() {
	shuffled_tables
	dir=$(q -c "SHOW data_directory")
	for r in $(seq 1 "$ROUNDS"); do
		for t in "${sort_types[@]}"; do
			S[copyto_$t]+="$(ms "COPY sort_$t TO '$dir/bench_$t.copy'") "
			q -c "SET client_min_messages = warning; CREATE TABLE IF NOT EXISTS copy_$t (id $(sort_column_type "$t")); TRUNCATE copy_$t"
			S[copyfrom_$t]+="$(ms "COPY copy_$t FROM '$dir/bench_$t.copy'") "
		done
	done
	add ""
	add "### 5. Text I/O: COPY of $ROWS rows (rows per second)"
	add ""
	add "| type | COPY TO rows/s | ratio to uuid | COPY FROM rows/s | ratio to uuid | target |"
	add "|---|---|---|---|---|---|"
	rps() { awk -v m="$(median "${S[$1]}")" -v n="$ROWS" 'BEGIN {printf "%.0f", n / (m / 1000)}'; }
	tbase=$(rps copyto_uuid); fbase=$(rps copyfrom_uuid)
	for t in "${sort_types[@]}"; do
		to=$(rps copyto_$t); from=$(rps copyfrom_$t)
		add "| $t | $to | $(ratio "$to" "$tbase") | $from | $(ratio "$from" "$fbase") | $([ "$t" = uuid ] || echo "≥ 1.0") |"
	done
	rm -f "$dir"/bench_*.copy
}

# --- 6. concurrency: pgbench INSERT ... DEFAULT VALUES ------------------------------------
# Each client inserts one row per transaction through the key's DEFAULT;
# -j as many threads as clients.  tps: the fastest round is the greatest.
case_pgbench() {
	local keys=(identity sno uuid_v4) c clients tps
	[ "$has_uuidv7" != t ] || keys+=(uuidv7)
	q -c "CREATE TABLE pgb_identity (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY);
	      CREATE TABLE pgb_sno (id sno PRIMARY KEY DEFAULT sno_new(0));
	      CREATE TABLE pgb_uuid_v4 (id uuid PRIMARY KEY DEFAULT gen_random_uuid());"
	[ "$has_uuidv7" != t ] || q -c "CREATE TABLE pgb_uuidv7 (id uuid PRIMARY KEY DEFAULT uuidv7())"
	local scripts
	scripts=$(mktemp -d)
	for c in "${keys[@]}"; do echo "INSERT INTO pgb_$c DEFAULT VALUES;" > "$scripts/$c.sql"; done
	# durable commits (each waits for its WAL flush), and commits that do not
	# wait (synchronous_commit off), where the key's generation is a larger
	# part of each transaction
	local commit
	for r in $(seq 1 "${PGBENCH_ROUNDS:-3}"); do
		for commit in on off; do
			for clients in 1 2 4 8; do
				for c in "${keys[@]}"; do
					tps=$(PGOPTIONS="-c synchronous_commit=$commit" pgbench -n -c "$clients" -j "$clients" -T "$PGBENCH_SECONDS" \
						-f "$scripts/$c.sql" 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
					S[pgb_${commit}_${c}_$clients]+="${tps:-0} "
				done
			done
		done
	done
	rm -rf "$scripts"
	add ""
	add "### 6. Concurrency: pgbench, one \`INSERT … DEFAULT VALUES\` per transaction, ${PGBENCH_SECONDS} s per run, ${PGBENCH_ROUNDS:-3} rounds, this machine's $(nproc) cores"
	local header="| synchronous_commit | clients |" rule="|---|---|"
	for c in "${keys[@]}"; do header+=" $c tps | fastest |"; rule+="---|---|"; done
	header+=" sno × identity | sno × ${uuid_baseline/gen_random_uuid/uuid_v4} |"; rule+="---|---|"
	add ""; add "$header"; add "$rule"
	local row ub=${uuid_baseline/gen_random_uuid/uuid_v4}
	for commit in on off; do
		for clients in 1 2 4 8; do
			row="| $commit | $clients |"
			for c in "${keys[@]}"; do row+=" $(median "${S[pgb_${commit}_${c}_$clients]}") | $(greatest "${S[pgb_${commit}_${c}_$clients]}") |"; done
			row+=" $(ratio "$(median "${S[pgb_${commit}_sno_$clients]}")" "$(median "${S[pgb_${commit}_identity_$clients]}")") |"
			row+=" $(ratio "$(median "${S[pgb_${commit}_sno_$clients]}")" "$(median "${S[pgb_${commit}_${ub}_$clients]}")") |"
			add "$row"
		done
	done
}

# --- 7. time ranges: btree, BRIN minmax and BRIN minmax-multi ---------------------------
# RANGE_ROWS (default 10 M) time-ordered sno rows over 30 days, 1 % back-filled
# at random earlier times; a one-hour range query through each index alone:
# the index's size and the pages the query reads.  On 18, the same query
# with an index on (tenant, id): a skip scan, against the plan without one.
pages_read() {   # pages_read SQL: shared blocks hit + read by one execution
	q ${SETUP:+-c "$SETUP"} -c "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) $1" |
		python3 -c 'import json,sys; p=json.load(sys.stdin)[0]["Plan"]; print(p["Shared Hit Blocks"] + p["Shared Read Blocks"])'
}
case_ranges() {
	local n=${RANGE_ROWS:-10000000} hour="sno_lower_bound('2026-01-15 12:00+00')" next="sno_lower_bound('2026-01-15 13:00+00')"
	local query="SELECT count(*) FROM ranges WHERE id >= $hour AND id < $next"
	q -c "CREATE TABLE ranges (id sno, tenant int, payload int);
	      INSERT INTO ranges
	      SELECT CASE WHEN g % 100 = 0 THEN sno_new_at(timestamptz '2026-01-01 00:00+00' + random() * (g * interval '30 days' / $n))
	                  ELSE sno_new_at(timestamptz '2026-01-01 00:00+00' + g * interval '30 days' / $n) END, g % 10, g
	      FROM generate_series(1, $n) g;"
	q -c "VACUUM ANALYZE ranges"
	local table_mb rows_found
	table_mb=$(q -c "SELECT pg_relation_size('ranges') / 1048576")
	rows_found=$(q -c "$query")
	add ""
	add "### 7. Time ranges: one hour of $n time-ordered sno rows (1 % back-filled)"
	add ""
	add "Table: $table_mb MB. The query (\`id >= sno_lower_bound(t) AND id < sno_lower_bound(t + 1 hour)\`) finds $rows_found rows."
	add "Pages read: shared buffers hit or read by one execution; fastest and median of $ROUNDS rounds in ms."
	add ""
	add "| index | size | pages read | ms (fastest) | ms (median) |"
	add "|---|---|---|---|---|"
	# each block range of 128 pages (the default) holds ~200 back-filled rows,
	# more than minmax-multi's 32 values can keep apart; 16 pages hold ~25
	for index in "btree (id)" "brin (id sno_minmax_ops)" "brin (id sno_minmax_multi_ops)" \
		"brin (id sno_minmax_ops) WITH (pages_per_range = 16)" "brin (id sno_minmax_multi_ops) WITH (pages_per_range = 16)"; do
		q -c "CREATE INDEX ranges_id ON ranges USING $index; ANALYZE ranges"
		local size pages
		size=$(q -c "SELECT pg_size_pretty(pg_relation_size('ranges_id'))")
		pages=$(pages_read "$query")
		S[range]=""
		for r in $(seq 1 "$ROUNDS"); do S[range]+="$(ms "$query") "; done
		add "| \`$index\` | $size | $pages | $(least "${S[range]}") | $(median "${S[range]}") |"
		q -c "DROP INDEX ranges_id"
	done
	if [ "$(q -c "SHOW server_version_num")" -ge 180000 ]; then
		q -c "CREATE INDEX ranges_tenant_id ON ranges (tenant, id); ANALYZE ranges"
		add ""
		add "On PostgreSQL 18, an index on \`(tenant, id)\` and no condition on \`tenant\`:"
		add ""
		add "| plan | pages read | ms (fastest) | ms (median) |"
		add "|---|---|---|---|"
		# skip support (function 6) lets the scan step to the next tenant by
		# incrementing the key; without it nbtree still skips, probing with
		# sentinel keys; PostgreSQL 18 has no setting that turns skip scan off,
		# so the plan without one is the sequential scan
		local label
		for plan in skip sentinel seqscan; do
			local opts="-c enable_bitmapscan=off -c enable_seqscan=off"
			case $plan in
			skip) label="skip scan on \`(tenant, id)\`, with skip support" ;;
			sentinel) label="skip scan on \`(tenant, id)\`, skip support dropped"
				q -c "DROP INDEX ranges_tenant_id;
				      ALTER OPERATOR FAMILY sno_ops USING btree DROP FUNCTION 6 (sno, sno);
				      CREATE INDEX ranges_tenant_id ON ranges (tenant, id)" ;;
			seqscan) label="sequential scan (no skip scan)"
				opts="-c enable_bitmapscan=off -c enable_indexscan=off -c enable_indexonlyscan=off" ;;
			esac
			S[skip]=""
			for r in $(seq 1 "$ROUNDS"); do S[skip]+="$(PGOPTIONS="$opts" ms "$query") "; done
			pages=$(PGOPTIONS="$opts" pages_read "$query")
			add "| $label | $pages | $(least "${S[skip]}") | $(median "${S[skip]}") |"
		done
		q -c "DROP INDEX ranges_tenant_id;
		      ALTER OPERATOR FAMILY sno_ops USING btree ADD FUNCTION 6 (sno, sno) sno_skipsupport(internal)"
	fi
	q -c "DROP TABLE ranges"
}

# --- 8. run-time partition pruning ----------------------------------------------------
# PRUNE_ROWS (default 10 M) sno rows over the last 12 months, in 12 monthly
# partitions with a primary key each; the last day's rows, written four ways.
# "Partitions scanned" counts the partitions the executed plan still holds:
# the planner prunes a constant range, the executor's start the others
# (EXPLAIN's "Subplans Removed").
partitions_scanned() {   # partitions_scanned SQL
	q ${SETUP:+-c "$SETUP"} -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $1" |
		grep -E ' on pruned_[0-9]+' | grep -cv 'never executed'
}
case_pruning() {
	local n=${PRUNE_ROWS:-10000000} last_day="now() - interval '1 day'"
	q -c "CREATE TABLE pruned (id sno PRIMARY KEY, payload int) PARTITION BY RANGE (id)"
	q -c "DO \$\$ BEGIN FOR m IN -11..0 LOOP
	          EXECUTE format('CREATE TABLE pruned_%s PARTITION OF pruned FOR VALUES FROM (%L) TO (%L)', m + 11,
	                         sno_lower_bound(date_trunc('month', now()) + m * interval '1 month'),
	                         sno_lower_bound(date_trunc('month', now()) + (m + 1) * interval '1 month'));
	      END LOOP; END \$\$"
	q -c "INSERT INTO pruned SELECT sno_new_at(date_trunc('month', now()) - interval '11 months'
	                                          + (now() - (date_trunc('month', now()) - interval '11 months')) / $n * g), g
	      FROM generate_series(1, $n) g"
	q -c "VACUUM ANALYZE pruned"
	add ""
	add "### 8. Run-time partition pruning: the last day of $n sno rows in 12 monthly partitions"
	add ""
	add "Each query counts the rows of the last day ($(q -c "SELECT count(*) FROM pruned WHERE sno_time(id) >= $last_day") rows)."
	add "Pages read are shared buffers hit or read by one execution. Times are the fastest and the median of $ROUNDS rounds, in ms."
	add ""
	add "| query | partitions scanned | pages read | ms (fastest) | ms (median) |"
	add "|---|---|---|---|---|"
	local label query scanned pages
	for form in now hand generic constant; do
		SETUP=""
		case $form in
		now) label="\`id <@ tstzrange($last_day, NULL)\`"
			query="SELECT count(*) FROM pruned WHERE id <@ tstzrange($last_day, NULL)" ;;
		hand) label="\`id >= sno_lower_bound($last_day)\`"
			query="SELECT count(*) FROM pruned WHERE id >= sno_lower_bound($last_day)" ;;
		generic) label="\`id <@ \$1\`, a generic plan"
			SETUP="SET plan_cache_mode = force_generic_plan; PREPARE since(tstzrange) AS SELECT count(*) FROM pruned WHERE id <@ \$1"
			query="EXECUTE since(tstzrange($last_day, NULL))" ;;
		constant) label="\`id <@ '[<a day ago>,)'\`, a constant"
			query="SELECT count(*) FROM pruned WHERE id <@ '$(q -c "SELECT tstzrange($last_day, NULL)")'::tstzrange" ;;
		esac
		S[prune]=""
		for r in $(seq 1 "$ROUNDS"); do S[prune]+="$(ms "$query") "; done
		scanned=$(partitions_scanned "$query")
		pages=$(pages_read "$query")
		add "| $label | $scanned | $pages | $(least "${S[prune]}") | $(median "${S[prune]}") |"
	done
	SETUP=""
	q -c "DROP TABLE pruned"
}

for c in $CASES; do "case_$c"; done

# this major's section of bench/RESULTS.md, which bench/run puts in place
{
	echo "## PostgreSQL $(q -c "SELECT current_setting('server_version_num')::int / 10000")"
	echo
	echo "\`bash bench/run --major $(q -c "SELECT current_setting('server_version_num')::int / 10000")\` ($(date -u +%Y-%m-%d)), cases: $CASES."
	echo "Medians of $ROUNDS interleaved rounds, and the fastest round; one throwaway preloaded cluster"
	echo "(work_mem and maintenance_work_mem 1GB, max_wal_size 8GB)."
	echo
	echo "* machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB RAM, $(. /etc/os-release; echo "$PRETTY_NAME")"
	echo "* PostgreSQL: $(q -c 'SELECT version()')"
	echo "* flakeid: $(git describe --always --dirty 2>/dev/null || echo unknown)"
	echo
	printf '%s\n' "${report[@]}"
} > "$SECTION_OUT"
