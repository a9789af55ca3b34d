#!/usr/bin/env bash
# The cases of bench/run, inside the cluster (PG* environment).  Each timing
# is server-side milliseconds of one statement, taken in a DO block.
set -euo pipefail
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
. "$(dirname "$0")/lib.sh"
declare -A S   # samples per case key
report=()
add() { report+=("$*"); }

q -c "CREATE EXTENSION flakeid; CREATE EXTENSION pgstattuple; CREATE SEQUENCE bench_seq;"

# --- 1. generation: ns per ID over an empty scan --------------------------------
case_generation() {
	gen_cases=(empty "n" nextval "nextval('bench_seq')" gen_random_uuid "gen_random_uuid()"
		sno_new "sno_new(0)" flax_new "flax_new()" siq_new "siq_new('user')" kuid_new "kuid_new()"
		kuid96_new "kuid96_new()" snowflake_new "snowflake_new()")
	# core's own time-ordered UUID, from PostgreSQL 18 on
	has_uuidv7=$(q -c "SELECT to_regprocedure('uuidv7()') IS NOT NULL")
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
	add "## 1. Generation (ns per ID over an empty generate_series scan of $ROWS rows; the scan: $empty ms, fastest $least_empty ms)"
	add ""
	add "| expression | ns per ID | ratio | fastest round: ns per ID | ratio | baseline | target |"
	add "|---|---|---|---|---|---|---|"
	# gen_row LABEL CASE [BASELINE-CASE [TARGET]]
	gen_row() {
		local v f bv bf
		v=$(ns_per_id median "$2"); f=$(ns_per_id least "$2")
		if [ -z "${3:-}" ]; then
			add "| $1 | $v | 1 | $f | 1 | | |"
		else
			bv=$(ns_per_id median "$3"); bf=$(ns_per_id least "$3")
			add "| $1 | $v | $(ratio "$v" "$bv") | $f | $(ratio "$f" "$bf") | $3 | ${4:-} |"
		fi
	}
	gen_row "\`nextval('bench_seq')\`" nextval
	gen_row "\`gen_random_uuid()\`" gen_random_uuid nextval
	if [ "$has_uuidv7" = t ]; then gen_row "\`uuidv7()\`" uuidv7 nextval; fi
	for c in sno_new flax_new siq_new kuid_new kuid96_new snowflake_new; do
		case $c in
			sno_new) gen_row "\`sno_new(0)\`" $c nextval "≤ 0.25" ;;
			flax_new) gen_row "\`flax_new()\`" $c gen_random_uuid "≤ 0.10" ;;
			*) gen_row "\`$c()\`" $c nextval ;;
		esac
		if [ "$has_uuidv7" = t ]; then gen_row "\`$c()\`" $c uuidv7; fi
	done
}

# --- 2. insert with a DEFAULT generator ----------------------------------------------
case_insert() {
	q -c "CREATE TABLE ins_identity (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, n int);
	      CREATE TABLE ins_uuid (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
	      CREATE TABLE ins_sno (id sno PRIMARY KEY DEFAULT sno_new(0), n int);
	      CREATE TABLE ins_kuid (id kuid PRIMARY KEY DEFAULT kuid_new(), n int);
	      CREATE TABLE ins_snowflake (id bigint PRIMARY KEY DEFAULT snowflake_new(), n int);"
	ins_cases=(identity uuid sno kuid snowflake)
	for r in $(seq 1 "$ROUNDS"); do
		for c in "${ins_cases[@]}"; do
			q -c "TRUNCATE ins_$c; CHECKPOINT"
			S[ins_$c]+="$(ms "INSERT INTO ins_$c (n) SELECT g FROM generate_series(1, $ROWS) g") "
		done
	done
	add ""
	add "## 2. Insert $ROWS rows into a table whose primary key has a DEFAULT generator"
	add ""
	add "| key | ms | ratio to identity | index size | leaf density | target |"
	add "|---|---|---|---|---|---|"
	base=$(median "${S[ins_identity]}")
	for c in "${ins_cases[@]}"; do
		m=$(median "${S[ins_$c]}")
		stats=$(q -c "SELECT pg_size_pretty(pg_relation_size('ins_${c}_pkey')) || '|' || round(avg_leaf_density::numeric, 1) || ' %' FROM pgstatindex('ins_${c}_pkey')")
		target=""; [ "$c" = sno ] && target="≤ 1.05, density ≥ 89 %"; [ "$c" = kuid ] || [ "$c" = snowflake ] && target="density ≥ 89 %"
		add "| $c | $m | $(ratio "$m" "$base") | ${stats%%|*} | ${stats#*|} | $target |"
	done
}

# the tables of cases 3 and 4: ROWS IDs of each type, in random order
sort_types=(uuid sno flax siq kuid kuid96)
shuffled_tables() {
	local t expr
	[ -n "${SHUFFLED:-}" ] && return
	for t in "${sort_types[@]}"; do
		case $t in
			uuid) expr="gen_random_uuid()" ;; sno) expr="sno_new(0)" ;; siq) expr="siq_new('user')" ;;
			*) expr="${t}_new()" ;;
		esac
		q -c "CREATE TABLE sort_$t AS SELECT id FROM (SELECT $expr AS id FROM generate_series(1, $ROWS)) s ORDER BY random()"
	done
	q -c "VACUUM ANALYZE"
	SHUFFLED=1
}

# --- 3. sort 1M shuffled IDs: ORDER BY in memory, and CREATE INDEX --------------------
case_sort() {
	shuffled_tables
	for r in $(seq 1 "$ROUNDS"); do
		for t in "${sort_types[@]}"; do
			S[sort_$t]+="$(ms "SELECT id FROM sort_$t ORDER BY id OFFSET $ROWS") "
			S[index_$t]+="$(ms "CREATE INDEX sort_${t}_idx ON sort_$t (id)") "
			q -c "DROP INDEX sort_${t}_idx"
		done
	done
	add ""
	add "## 3. Sort $ROWS shuffled IDs (work_mem and maintenance_work_mem 1GB)"
	add ""
	add "| type | ORDER BY ms | ratio to uuid | fastest round | ratio | CREATE INDEX ms | ratio to uuid | fastest round | ratio | target |"
	add "|---|---|---|---|---|---|---|---|---|---|"
	# against_uuid KIND TYPE: "median | ratio | fastest | ratio" of one column pair
	against_uuid() {
		local m f
		m=$(median "${S[$1_$2]}"); f=$(least "${S[$1_$2]}")
		echo "$m | $(ratio "$m" "$(median "${S[$1_uuid]}")") | $f | $(ratio "$f" "$(least "${S[$1_uuid]}")")"
	}
	for t in "${sort_types[@]}"; do
		add "| $t | $(against_uuid sort "$t") | $(against_uuid index "$t") | $([ "$t" = uuid ] || echo "≤ 1.0") |"
	done
}

# --- 4. text I/O: COPY TO and COPY FROM -------------------------------------------------
case_copy() {
	shuffled_tables
	dir=$(q -c "SHOW data_directory")
	for r in $(seq 1 "$ROUNDS"); do
		for t in "${sort_types[@]}"; do
			S[copyto_$t]+="$(ms "COPY sort_$t TO '$dir/bench_$t.copy'") "
			q -c "SET client_min_messages = warning; CREATE TABLE IF NOT EXISTS copy_$t (id $t); TRUNCATE copy_$t"
			S[copyfrom_$t]+="$(ms "COPY copy_$t FROM '$dir/bench_$t.copy'") "
		done
	done
	add ""
	add "## 4. Text I/O: COPY of $ROWS rows (rows per second)"
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

# --- 5. concurrency: pgbench INSERT ... DEFAULT VALUES ------------------------------------
case_pgbench() {
	q -c "CREATE TABLE pgb_identity (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY);
	      CREATE TABLE pgb_sno (id sno PRIMARY KEY DEFAULT sno_new(0));"
	for c in identity sno; do echo "INSERT INTO pgb_$c DEFAULT VALUES;" > "/tmp/flakeid_bench_$c.sql"; done
	for r in $(seq 1 "$ROUNDS"); do
		for clients in 1 2 4 8; do
			for c in identity sno; do
				tps=$(pgbench -n -c "$clients" -j "$clients" -T "$PGBENCH_SECONDS" -f "/tmp/flakeid_bench_$c.sql" 2>/dev/null |
					sed -n 's/^tps = \([0-9.]*\).*/\1/p')
				S[pgb_${c}_$clients]+="$tps "
			done
		done
	done
	add ""
	add "## 5. Concurrency: pgbench, INSERT … DEFAULT VALUES, ${PGBENCH_SECONDS} s per run"
	add ""
	add "| clients | identity tps | sno tps | ratio | target |"
	add "|---|---|---|---|---|"
	for clients in 1 2 4 8; do
		a=$(median "${S[pgb_identity_$clients]}"); b=$(median "${S[pgb_sno_$clients]}")
		add "| $clients | $a | $b | $(ratio "$b" "$a") | ≥ 0.95 |"
	done
	rm -f /tmp/flakeid_bench_*.sql
}

# --- 6. time ranges: btree, BRIN minmax and BRIN minmax-multi ---------------------------
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
	add "## 6. Time ranges: one hour of $n time-ordered sno rows (1 % back-filled)"
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

# --- 7. run-time partition pruning ----------------------------------------------------
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
	add "## 7. Run-time partition pruning: the last day of $n sno rows in 12 monthly partitions"
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

# bench/latency's section (two builds, so not a case here) is kept as it is
kept=
# (a partial run writes to /dev/stdout, which is not to be read back)
[ "$OUT" = /dev/stdout ] || [ ! -f "$OUT" ] || kept=$(sed -n '/<!-- bench\/latency -->/,/<!-- \/bench\/latency -->/p' "$OUT")
{
	echo "# flakeid benchmark results"
	echo
	echo "Produced by \`bash bench/run\` ($(date -u +%Y-%m-%d)); medians of $ROUNDS interleaved rounds, one throwaway"
	echo "preloaded cluster (work_mem and maintenance_work_mem 1GB, max_wal_size 8GB)."
	echo
	echo "* machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB RAM, $(. /etc/os-release; echo "$PRETTY_NAME")"
	echo "* PostgreSQL: $(q -c 'SELECT version()')"
	echo "* flakeid: $(git describe --always --dirty 2>/dev/null || echo unknown)"
	echo
	printf '%s\n' "${report[@]}"
	[ -z "$kept" ] || printf '\n%s\n' "$kept"
} > "$OUT"
