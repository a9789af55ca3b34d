# CREATE EXTENSION flakeid SCHEMA ids: every type, function, operator, cast
# and opclass resolves through that schema with it off the search_path, the
# planner support finds its helper functions there, and ALTER EXTENSION
# ... SET SCHEMA moves it all.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $node = flakeid_node('schema', -extension => 0);
my $db = 'flakeid_schema_test';
fresh_db($node, $db);
sub sql { return $node->safe_psql($db, $_[0]); }
my @types = map { $_->{type} } formats(fixed => 't');
my $type_list = join(', ', map { "'$_'" } @types);

sql('CREATE SCHEMA ids; CREATE EXTENSION flakeid SCHEMA ids');
is(sql("SELECT count(*) FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid AND d.classid = 'pg_proc'::regclass
        WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'flakeid') AND d.deptype = 'e'
        AND p.pronamespace <> 'ids'::regnamespace"), '0', 'every function of the extension is in schema ids');
is(sql("SELECT count(*) FROM pg_type t WHERE t.typnamespace = 'ids'::regnamespace AND t.typname IN ($type_list)"),
	scalar(@types), "the types (@types) are in schema ids");
is(sqlstate_of($node, 'SELECT sno_new()', db => $db), '42883', 'with ids off the search_path, sno_new() is not found');

# qualified use, search_path = public only
sql('CREATE TABLE events (id ids.sno PRIMARY KEY DEFAULT ids.sno_new(), kid ids.kuid96 DEFAULT ids.kuid96_new(), body text)');
sql("INSERT INTO events (id, body) SELECT ids.sno_new_at('2026-03-01'::timestamptz + n * interval '1 min'), 'e' || n
     FROM generate_series(1, 2000) n");
sql('CREATE INDEX events_brin ON events USING brin (id); CREATE INDEX events_hash ON events USING hash (id);
     CREATE INDEX events_bloom ON events USING brin (id ids.sno_bloom_ops); ANALYZE events');
my $range = "tstzrange('2026-03-01 01:00+00', '2026-03-01 02:00+00')";
is(sql("SELECT count(*) FROM events WHERE id OPERATOR(ids.<@) $range"), '60', 'OPERATOR(ids.<@) answers a time range');
like(sql("EXPLAIN (COSTS OFF) SELECT count(*) FROM events WHERE id OPERATOR(ids.<@) $range"),
	qr/Index Cond: \(\(id OPERATOR\(ids\.>=\)/, 'a constant range becomes the index condition through schema ids');
like(sql("PREPARE q(tstzrange) AS SELECT count(*) FROM events WHERE id OPERATOR(ids.<@) \$1;
          SET plan_cache_mode = force_generic_plan; EXPLAIN (COSTS OFF) EXECUTE q('[2026-03-01,2026-03-02)')"),
	qr/ids\.sno_range_lower_bound\(\$1\)/, 'a run-time range finds ids.sno_range_lower_bound');
is(sql("SELECT ids.sno_time(id) FROM events WHERE body = 'e60'"), sql("SELECT '2026-03-01 01:00:00+00'::timestamptz"),
	'ids.sno_time extracts the time');
# (operators and aggregates outside the search_path are named with their schema, as in core)
is(sql('SELECT count(*) FROM events WHERE id::text::ids.sno OPERATOR(ids.=) id AND id::uuid::ids.sno OPERATOR(ids.=) id
        AND id::bytea::ids.sno OPERATOR(ids.=) id'), '2000', 'text, uuid and bytea casts round-trip through schema ids');
is(sql('SET enable_nestloop = off; SELECT count(*) FROM events e1 JOIN events e2 ON e1.id OPERATOR(ids.=) e2.id'), '2000',
	'equality joins (hash and merge operators) work');
is(sql('SELECT ids.sno_partition(ids.min(id)) IS NOT NULL, count(DISTINCT kid) FROM events'), 't|2000',
	'min() and the kuid96 DEFAULT work');
is(sql("SELECT count(*) FROM ids.flakeid_generators WHERE generator = 'sno'"), '1', 'the generators view is in schema ids');

# search_path = ids: unqualified use
is(sql("SET search_path = ids, public; SELECT count(*) FROM events WHERE id <@ $range AND sno_time(id) IS NOT NULL"), '60',
	'with ids on the search_path, unqualified operators and functions resolve');

# relocation
sql('CREATE SCHEMA moved; ALTER EXTENSION flakeid SET SCHEMA moved');
is(sql("SELECT count(*) FROM pg_type WHERE typnamespace = 'moved'::regnamespace AND typname IN ($type_list)"), scalar(@types),
	'ALTER EXTENSION flakeid SET SCHEMA moved moves the types');
is(sql("SELECT count(*) FROM events WHERE id OPERATOR(moved.<@) $range"), '60',
	'after the move, the range operator and its planner support still work');
is(sql("SELECT count(*) FROM events WHERE id OPERATOR(moved.<@) tstzrange(now() - interval '1 day', now())"), '0',
	'after the move, run-time ranges still find their bound functions');
is(sql("SELECT moved.sno_time(moved.sno_new()) > now() - interval '1 minute'"), 't', 'after the move, the generator works');
stop_checked($node);
done_testing();
