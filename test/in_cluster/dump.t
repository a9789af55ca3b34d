#!/usr/bin/env bash
# Binary COPY and pg_dump/pg_restore of a database using every type: DEFAULT
# generators on every column, btree (unique and not), hash, BRIN minmax and
# bloom indexes, a table range-partitioned by sno.  Restored databases are
# compared row by row, index by index.  Runs in the preloaded cluster.
set -u
cd "$(dirname "$0")/../.."
. test/lib/tap.sh

src=flakeid_dump_src
work=$(mktemp -d)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT
fresh_db $src
export PGDATABASE=$src
sql "CREATE EXTENSION flakeid" >/dev/null
sql "CREATE TABLE every_type (
         sno_id sno PRIMARY KEY DEFAULT sno_new(),
         flax_id flax NOT NULL DEFAULT flax_new(),
         siq_id siq NOT NULL DEFAULT siq_new('user'),
         kuid_id kuid NOT NULL DEFAULT kuid_new(),
         kuid96_id kuid96 NOT NULL DEFAULT kuid96_new(),
         snowflake_id bigint NOT NULL DEFAULT snowflake_new(),
         n int NOT NULL);
     CREATE UNIQUE INDEX every_kuid ON every_type (kuid_id);
     CREATE INDEX every_kuid96 ON every_type (kuid96_id);
     CREATE INDEX every_flax_hash ON every_type USING hash (flax_id);
     CREATE INDEX every_sno_brin ON every_type USING brin (sno_id);
     CREATE INDEX every_siq_bloom ON every_type USING brin (siq_id siq_bloom_ops);
     INSERT INTO every_type (n) SELECT n FROM generate_series(1, 5000) n;
     CREATE TABLE monthly (id sno PRIMARY KEY, body text) PARTITION BY RANGE (id);
     CREATE TABLE monthly_2026_01 PARTITION OF monthly FOR VALUES FROM (sno_lower_bound('2026-01-01')) TO (sno_lower_bound('2026-02-01'));
     CREATE TABLE monthly_2026_02 PARTITION OF monthly FOR VALUES FROM (sno_lower_bound('2026-02-01')) TO (sno_lower_bound('2026-03-01'));
     INSERT INTO monthly SELECT sno_new_at(t), t::text FROM generate_series(timestamptz '2026-01-01', '2026-02-28', interval '1 hour') t" >/dev/null
is "$(sql "SELECT count(*), count(DISTINCT sno_id), count(DISTINCT flax_id), count(DISTINCT siq_id), count(DISTINCT kuid96_id), count(DISTINCT snowflake_id) FROM every_type")" \
	"5000|5000|5000|5000|5000|5000" "5000 rows, each column's DEFAULT generator gave distinct IDs"

# every table's rows as text, in key order; every index definition
rows() { PGDATABASE=$1 sql "COPY (SELECT * FROM every_type ORDER BY sno_id) TO STDOUT; COPY (SELECT tableoid::regclass, * FROM monthly ORDER BY id) TO STDOUT"; }
indexes() { PGDATABASE=$1 sql "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname"; }
defaults() { PGDATABASE=$1 sql "SELECT attname || ' ' || pg_get_expr(adbin, adrelid) FROM pg_attrdef JOIN pg_attribute ON attrelid = adrelid AND attnum = adnum WHERE adrelid = 'every_type'::regclass ORDER BY 1"; }
want_rows=$(rows $src)
want_indexes=$(indexes $src)

# binary COPY out and back in
sql "CREATE TABLE copy_back (LIKE every_type)" >/dev/null
"${PSQL[@]}" -c "\\copy every_type TO '$work/every_type.bin' WITH (FORMAT binary)"
"${PSQL[@]}" -c "\\copy copy_back FROM '$work/every_type.bin' WITH (FORMAT binary)"
is "$(sql "SELECT (SELECT count(*) FROM copy_back), (SELECT count(*) FROM (SELECT * FROM every_type EXCEPT SELECT * FROM copy_back) d), (SELECT count(*) FROM (SELECT * FROM copy_back EXCEPT SELECT * FROM every_type) d)")" \
	"5000|0|0" "COPY (FORMAT binary) out and back in: all 5000 rows, none different"
sql "DROP TABLE copy_back" >/dev/null

# pg_dump -Fc | pg_restore, and a plain SQL dump through psql
pg_dump -Fc -f "$work/src.dump" $src
ok $? "pg_dump -Fc"
fresh_db flakeid_dump_custom
pg_restore --exit-on-error -d flakeid_dump_custom "$work/src.dump"
ok $? "pg_restore into a new database"
pg_dump -f "$work/src.sql" $src
fresh_db flakeid_dump_plain
PGDATABASE=flakeid_dump_plain "${PSQL[@]}" -f "$work/src.sql" >/dev/null
ok $? "a plain pg_dump restores through psql"

for db in flakeid_dump_custom flakeid_dump_plain; do
	is "$(rows $db | md5sum)" "$(echo "$want_rows" | md5sum)" "$db: every row of every table equal, in the same order ($(echo "$want_rows" | wc -l) rows)"
	is "$(indexes $db)" "$want_indexes" "$db: the same btree, hash, BRIN minmax and bloom indexes"
	is "$(defaults $db)" "$(defaults $src)" "$db: the same DEFAULT generators"
	is "$(PGDATABASE=$db sql "SET enable_seqscan = off; SELECT count(*) FROM every_type WHERE kuid_id = (SELECT kuid_id FROM every_type WHERE n = 77) AND flax_id = (SELECT flax_id FROM every_type WHERE n = 77)")" "1" \
		"$db: the restored indexes answer"
	plan=$(PGDATABASE=$db sql "EXPLAIN (COSTS OFF) SELECT * FROM monthly WHERE id <@ tstzrange('2026-02-01', '2026-02-02')")
	is "$(PGDATABASE=$db sql "SELECT count(*) FROM monthly WHERE id <@ tstzrange('2026-02-01', '2026-02-02')")|$(echo "$plan" | grep -c monthly_2026_01)|$(echo "$plan" | grep -q monthly_2026_02 && echo read)" \
		"24|0|read" "$db: the partitions are restored, and a day's range reads February's only"
	is "$(PGDATABASE=$db sql "INSERT INTO every_type (n) VALUES (0) RETURNING sno_id > (SELECT max(sno_id) FROM every_type WHERE n > 0)")" "t" \
		"$db: the DEFAULT generators go on after the restored IDs"
done

unset PGDATABASE
for db in $src flakeid_dump_custom flakeid_dump_plain; do dropdb "$db"; done
done_testing
