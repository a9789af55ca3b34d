# Binary COPY and pg_dump/pg_restore of a database using every format:
# DEFAULT generators on every column, btree (unique and not), hash, BRIN
# minmax and bloom indexes, a table range-partitioned by sno.  Restored
# databases are compared row by row, index by index.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my @formats = formats();
my $node = flakeid_node('dump', -extension => 0);
my $src = 'flakeid_dump_src';
my $work = PostgreSQL::Test::Utils::tempdir();
fresh_db($node, $src);
sub sql { my ($db, $sql) = @_; return $node->safe_psql($db, $sql); }
my $columns = join(",\n", map { "$_->{format}_id $_->{type} NOT NULL DEFAULT $_->{new}" } @formats);
sql($src, "CREATE EXTENSION flakeid;
     CREATE TABLE every_type ($columns, n int NOT NULL, PRIMARY KEY (sno_id));
     CREATE UNIQUE INDEX every_kuid ON every_type (kuid_id);
     CREATE INDEX every_kuid96 ON every_type (kuid96_id);
     CREATE INDEX every_flax_hash ON every_type USING hash (flax_id);
     CREATE INDEX every_sno_brin ON every_type USING brin (sno_id);
     CREATE INDEX every_siq_bloom ON every_type USING brin (siq_id siq_bloom_ops);
     INSERT INTO every_type (n) SELECT n FROM generate_series(1, 5000) n;
     CREATE TABLE monthly (id sno PRIMARY KEY, body text) PARTITION BY RANGE (id);
     CREATE TABLE monthly_2026_01 PARTITION OF monthly FOR VALUES FROM (sno_lower_bound('2026-01-01')) TO (sno_lower_bound('2026-02-01'));
     CREATE TABLE monthly_2026_02 PARTITION OF monthly FOR VALUES FROM (sno_lower_bound('2026-02-01')) TO (sno_lower_bound('2026-03-01'));
     INSERT INTO monthly SELECT sno_new_at(t), t::text FROM generate_series(timestamptz '2026-01-01', '2026-02-28', interval '1 hour') t");
is(sql($src, 'SELECT count(*), ' . join(', ', map { "count(DISTINCT $_->{format}_id)" } @formats) . ' FROM every_type'),
	join('|', (5000) x (@formats + 1)), "5000 rows, each column's DEFAULT generator gave distinct IDs");

# every table's rows as text, in key order; every index definition; the defaults
sub rows { sql($_[0], 'COPY (SELECT * FROM every_type ORDER BY sno_id) TO STDOUT; COPY (SELECT tableoid::regclass, * FROM monthly ORDER BY id) TO STDOUT'); }
sub indexes { sql($_[0], "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname"); }
sub defaults { sql($_[0], "SELECT attname || ' ' || pg_get_expr(adbin, adrelid) FROM pg_attrdef JOIN pg_attribute
                           ON attrelid = adrelid AND attnum = adnum WHERE adrelid = 'every_type'::regclass ORDER BY 1"); }
my $want_rows = rows($src);
my $want_indexes = indexes($src);

# binary COPY out and back in (psql's \copy: the client's file)
sql($src, 'CREATE TABLE copy_back (LIKE every_type)');
sql($src, "\\copy every_type TO '$work/every_type.bin' WITH (FORMAT binary)");
sql($src, "\\copy copy_back FROM '$work/every_type.bin' WITH (FORMAT binary)");
is(sql($src, 'SELECT (SELECT count(*) FROM copy_back), (SELECT count(*) FROM (SELECT * FROM every_type EXCEPT SELECT * FROM copy_back) d),
              (SELECT count(*) FROM (SELECT * FROM copy_back EXCEPT SELECT * FROM every_type) d)'),
	'5000|0|0', 'COPY (FORMAT binary) out and back in: all 5000 rows, none different');
sql($src, 'DROP TABLE copy_back');

# pg_dump -Fc | pg_restore, and a plain SQL dump through psql
$node->command_ok([ 'pg_dump', '-Fc', '-f', "$work/src.dump", '-d', $node->connstr($src) ], 'pg_dump -Fc');
fresh_db($node, 'flakeid_dump_custom');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('flakeid_dump_custom'), "$work/src.dump" ],
	'pg_restore into a new database');
$node->command_ok([ 'pg_dump', '-f', "$work/src.sql", '-d', $node->connstr($src) ], 'a plain pg_dump');
fresh_db($node, 'flakeid_dump_plain');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('flakeid_dump_plain'), '-f', "$work/src.sql" ],
	'a plain pg_dump restores through psql');

my $row_count = () = $want_rows =~ /\n/g;
for my $db (qw(flakeid_dump_custom flakeid_dump_plain))
{
	ok(rows($db) eq $want_rows, "$db: every row of every table equal, in the same order (" . ($row_count + 1) . ' rows)');
	is(indexes($db), $want_indexes, "$db: the same btree, hash, BRIN minmax and bloom indexes");
	is(defaults($db), defaults($src), "$db: the same DEFAULT generators");
	is(sql($db, 'SET enable_seqscan = off; SELECT count(*) FROM every_type WHERE kuid_id = (SELECT kuid_id FROM every_type WHERE n = 77)
	              AND flax_id = (SELECT flax_id FROM every_type WHERE n = 77)'), '1', "$db: the restored indexes answer");
	my $plan = sql($db, "EXPLAIN (COSTS OFF) SELECT * FROM monthly WHERE id <@ tstzrange('2026-02-01', '2026-02-02')");
	is(sql($db, "SELECT count(*) FROM monthly WHERE id <@ tstzrange('2026-02-01', '2026-02-02')")
		  . '|' . (() = $plan =~ /monthly_2026_01/g) . '|' . ($plan =~ /monthly_2026_02/ ? 'read' : ''),
		'24|0|read', "$db: the partitions are restored, and a day's range reads February's only");
	is(sql($db, 'INSERT INTO every_type (n) VALUES (0) RETURNING sno_id > (SELECT max(sno_id) FROM every_type WHERE n > 0)'), 't',
		"$db: the DEFAULT generators go on after the restored IDs");
}

# The extension in a schema of its own (README, "In a schema of its own"):
# CREATE SCHEMA flakeid; CREATE EXTENSION flakeid SCHEMA flakeid, with the
# schema off the search_path.  A DEFAULT of flakeid.sno_new(), a range scan
# with OPERATOR(flakeid.<@) on the primary key, and a pg_dump/pg_restore
# round trip: the dump names every object with its schema, so the restored
# table, DEFAULT and index work whatever the search_path; a database's own
# search_path is not in a dump made without --create.
my $own = 'flakeid_own_schema';
fresh_db($node, $own);
sql($own, "CREATE SCHEMA flakeid; CREATE EXTENSION flakeid SCHEMA flakeid;
     CREATE TABLE orders (id flakeid.sno PRIMARY KEY DEFAULT flakeid.sno_new(), item text);
     INSERT INTO orders (item) VALUES ('tea'), ('cake');
     INSERT INTO orders (id, item) SELECT flakeid.sno_new_at(t), 'old ' || t FROM generate_series(timestamptz '2026-01-01 00:00+00', '2026-01-31 23:00+00', interval '1 hour') t;
     ANALYZE orders");
my $january = "tstzrange('2026-01-10 00:00+00', '2026-01-11 00:00+00')";
my $range_query = "SELECT count(*) FROM orders WHERE id OPERATOR(flakeid.<@) $january";
sub own_range
{
	my ($db) = @_;
	my $plan = sql($db, "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $range_query");
	return sql($db, $range_query) . '|' . ($plan =~ /Index Cond: \(\(id OPERATOR\(flakeid\.>=\)/ ? 'index' : $plan);
}
is(own_range($own), '24|index', 'schema flakeid off the search_path: OPERATOR(flakeid.<@) is a range scan of the primary key (24 rows)');
is(sqlstate_of($node, "SELECT count(*) FROM orders WHERE id = 'brpk4q72xwf2m63l'", db => $own), '42883',
	'with flakeid off the search_path, an unqualified operator on sno is not found (42883)');
sql($own, "ALTER DATABASE $own SET search_path = \"\$user\", public, flakeid");
is(sql($own, "SELECT count(*) FROM orders WHERE id <@ $january AND sno_time(id) IS NOT NULL"), '24',
	'with flakeid on the database\'s search_path, unqualified names and operators resolve');
my $own_rows = sql($own, 'COPY (SELECT * FROM orders ORDER BY id) TO STDOUT');
$node->command_ok([ 'pg_dump', '-Fc', '-f', "$work/own.dump", '-d', $node->connstr($own) ], 'pg_dump -Fc of the database with flakeid in its own schema');
fresh_db($node, 'flakeid_own_restored');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('flakeid_own_restored'), "$work/own.dump" ],
	'pg_restore into a new database');
is(sql('flakeid_own_restored', "SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'flakeid'"), 'flakeid',
	'restored: the extension is in schema flakeid');
ok(sql('flakeid_own_restored', 'COPY (SELECT * FROM orders ORDER BY id) TO STDOUT') eq $own_rows, 'restored: every row equal, in the same order');
is(sql('flakeid_own_restored', "SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'orders'::regclass"),
	'flakeid.sno_new()', 'restored: the DEFAULT is flakeid.sno_new()');
is(own_range('flakeid_own_restored'), '24|index', 'restored: the range scan on the primary key');
is(sql('flakeid_own_restored', "INSERT INTO orders (item) VALUES ('new') RETURNING id OPERATOR(flakeid.>) (SELECT flakeid.max(id) FROM orders WHERE item <> 'new')"), 't',
	'restored: the DEFAULT mints with flakeid off the search_path, after the restored IDs');
is(sqlstate_of($node, 'SELECT sno_new()', db => 'flakeid_own_restored'), '42883',
	'restored: the database\'s search_path is not in the dump (pg_dump without --create): unqualified sno_new() is not found');

stop_checked($node);
done_testing();
