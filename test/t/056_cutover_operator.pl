# The cutover functions as an operator meets them (issue 61): an ordinary
# role (auditor: PUBLIC's rights, and INSERT where granted), a table owner
# (owner) and a non-superuser operator granted the functions (operator),
# each item of the audit in turn:
#   8. snowflake_adopt advances the generator past the column's maximum;
#   1. another session's temporary table (and a crash's orphan) is reported,
#      not an abort;
#   2. row-level security: a policy's code never runs as the operator, and
#      a maximum is never taken through a policy (42501 instead);
#   3. domains over the types and arrays of either are covered;
#   4. a far-future row is named with its column, and can be skipped;
#   5. a table the caller cannot read is an error naming it (42501);
#   6. the wait for a lock is bounded (lock_timeout, or 10 s where it is 0)
#      and the error names the table;
#   7. kuid96_advance_past never takes the generator more than 60 s ahead;
#   9. an empty kuid96 column takes no horizon (which closes the counter).
# Each check fails on b583abf (the issue's negative control).
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use Time::HiRes qw(time);

# (autovacuum off: it would drop the crash's orphaned temporary table of item 1 before the check)
my $node = flakeid_node('cutover_operator', 'flakeid.allow_debug_clock_offset' => 'on', autovacuum => 'off');
sub sql { my ($sql, %opt) = @_; return $node->safe_psql($opt{db} // 'postgres', $sql); }
# a check's query: its output, or '' where it fails (the negative control runs every check)
sub try
{
	my ($sql, %opt) = @_;
	my ($out, $err) = ('', '');
	$node->psql($opt{db} // 'postgres', $sql, stdout => \$out, stderr => \$err);
	return $out;
}
my $own = sql("SELECT identity_value FROM flakeid_identities() WHERE generator = 'kuid96'");

# the audit's roles: operator is granted every cutover function, as the docs suggest
sql(q{
	CREATE ROLE auditor LOGIN;
	CREATE ROLE owner LOGIN;
	CREATE ROLE operator LOGIN;
});
# a database of its own per item, with the extension
sub db
{
	my ($name) = @_;
	fresh_db($node, $name);
	sql(q{CREATE EXTENSION flakeid; GRANT CREATE ON SCHEMA public TO owner;
	DO $$ DECLARE f regprocedure; BEGIN
		FOR f IN SELECT oid::regprocedure FROM pg_proc WHERE proname LIKE '%advance_past%' OR proname = 'snowflake_adopt' LOOP
			EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO operator', f);
		END LOOP;
	END $$;}, db => $name);
	return $name;
}

# 8. snowflake_adopt advances the generator past the maximum: with the clock stepped back 5 s
# right after it (before the generator's own counter reached the old keys), new keys still sort after them
{
	my $d = db('adopt');
	sql(q{CREATE TABLE legacy (id bigserial PRIMARY KEY, note text);
		INSERT INTO legacy (id, note) VALUES (snowflake_lower_bound(clock_timestamp() - interval '200 ms'), 'old');
		SELECT snowflake_adopt('legacy', 'id');}, db => $d);
	is(try(q{SET flakeid.debug_clock_offset_ms = -5000;
		SELECT count(*) FILTER (WHERE v <= (SELECT max(id) FROM legacy)) FROM (SELECT snowflake_new() AS v FROM generate_series(1, 100)) s},
		db => $d), '0', '8. snowflake_adopt: after a clock step back of 5 s, 0 of 100 new snowflakes sort at or before the old keys');
}

# 1. another session's temporary table: reported in a row, not an abort
{
	my $d = db('temp_other');
	sql("CREATE TABLE orders (id sno); INSERT INTO orders VALUES (sno_new())", db => $d);
	my $auditor = session($node, connstr => $node->connstr($d) . ' user=auditor');
	$auditor->query('CREATE TEMP TABLE t (id sno); INSERT INTO t VALUES (sno_new())');
	is(sqlstate_of($node, 'SELECT flakeid_advance_past_all()', db => $d), 'ok',
		"1. another session's temporary table does not abort flakeid_advance_past_all");
	is(try(q{SELECT string_agg(tab || '.' || col || ': ' || coalesce(skipped, 'advanced past ' || (advanced_past IS NOT NULL)), '; ' ORDER BY tab::text)
		FROM flakeid_advance_past_all()}, db => $d) =~ s/pg_temp_\d+/pg_temp_N/r,
		"orders.id: advanced past true; pg_temp_N.t.id: a temporary table of another session (or left by a crash): no other session can read it",
		'1. ... it is reported in its row, and the other table advanced');
	# an orphan of a crash: the session's temporary table stays after an immediate stop
	$node->stop('immediate');
	eval { $auditor->close };
	$node->start;
	is(try(q{SELECT count(*) FILTER (WHERE skipped LIKE 'a temporary table of another session%') || '/' || count(*) FROM flakeid_advance_past_all()},
		db => $d), '1/2', "1. a temporary table left by a crash is reported too");
}

# 2. row-level security.  (a) a policy calling a function that advances the snowflake generator
# 59 s ahead, which its owner could not call: run as the operator, it must not run
{
	my $d = db('rls_code');
	sql(q{SET ROLE owner;
		CREATE TABLE t (id bigint DEFAULT snowflake_new(), hidden boolean DEFAULT false);
		INSERT INTO t (hidden) VALUES (false), (true);
		CREATE FUNCTION visible(bigint) RETURNS boolean LANGUAGE plpgsql AS $$
			BEGIN PERFORM public.snowflake_advance_past(public.snowflake_lower_bound(clock_timestamp() + interval '59 s')); RETURN true; END $$;
		CREATE POLICY p ON t USING (visible(id));
		ALTER TABLE t ENABLE ROW LEVEL SECURITY;
		GRANT SELECT ON t TO operator;}, db => $d);
	is(sqlstate_of($node, 'SET ROLE operator; SELECT flakeid_advance_past_all()', db => $d), '42501',
		"2. the operator's call on a table under row-level security is refused (42501)");
	is(try(q{SELECT snowflake_time(snowflake_new()) < clock_timestamp() + interval '40 s'}, db => $d), 't',
		"2. ... and the policy's code did not run as the operator: snowflake_new() is not 59 s ahead");
	is(try(q{SELECT advanced_past::bigint = (SELECT max(id) FROM t) FROM flakeid_advance_past_all()}, db => $d), 't',
		'2. a superuser bypasses the policy and advances past the true maximum');
}
# (b) a policy hiding the largest ID: the operator never takes a filtered maximum
{
	my $d = db('rls_hide');
	sql(q{SET ROLE owner;
		CREATE TABLE t (id sno, hidden boolean);
		INSERT INTO t VALUES (sno_new(), false), (sno_from_parts(clock_timestamp() + interval '20 s', 255, 65535, 65535, 1), true);
		CREATE POLICY p ON t USING (NOT hidden);
		ALTER TABLE t ENABLE ROW LEVEL SECURITY;
		GRANT SELECT ON t TO operator;}, db => $d);
	is(sqlstate_of($node, 'SET ROLE operator; SELECT flakeid_advance_past_all()', db => $d), '42501',
		'2. a policy hiding rows: refused (42501), no filtered maximum');
	is(try(q{SET ROLE operator; SELECT sno_new() > (SELECT max(id) FROM t WHERE NOT hidden)}, db => $d), 't',
		'2. (the operator sees the smaller ID only)');
	like(try(q{SET ROLE operator; SELECT skipped FROM flakeid_advance_past_all(skip => '{t.id}')}, db => $d), qr/named in skip/,
		'2. the operator may leave the table out knowingly (skip), and the row says so');
}

# 3. domains and arrays
{
	my $d = db('domains');
	sql(q{CREATE DOMAIN order_id AS sno;
		CREATE TABLE orders (id order_id);
		INSERT INTO orders VALUES (sno_from_parts(clock_timestamp() + interval '20 s', 255, 65535, 65535, 1));
		CREATE TABLE batches (ids order_id[]);
		INSERT INTO batches VALUES (ARRAY[sno_from_parts(clock_timestamp() + interval '25 s', 255, 65535, 65535, 1)::order_id]);
		CREATE TABLE tags (ids kuid96[]);
		INSERT INTO tags VALUES (ARRAY[kuid96(kuid_upper_bound(clock_timestamp() + interval '20 s'), } . $own . q{)]);}, db => $d);
	sql('SELECT flakeid_advance_past_all()', db => $d);
	is(try(q{SELECT sno_new() > (SELECT max(id::sno) FROM orders)}, db => $d), 't', '3. a domain over sno: sno_new() > max(id)');
	is(try(q{SELECT sno_new() > (SELECT max(e::sno) FROM batches, unnest(ids) e)}, db => $d), 't', '3. an array of that domain: sno_new() > its largest element');
	is(try(q{SELECT kuid96_new() > (SELECT max(e) FROM tags, unnest(ids) e)}, db => $d), 't', '3. a kuid96[] column: kuid96_new() > its largest element');
}

# 4. one far-future row, put in by an INSERT-only role: named with its column, and skippable
{
	my $d = db('far');
	sql(q{CREATE TABLE events (id sno); INSERT INTO events VALUES (sno_new()); GRANT INSERT ON events TO auditor;
		SET ROLE auditor; INSERT INTO events VALUES (sno_from_parts('2078-01-01', 0, 0, 0));}, db => $d);
	is(sqlstate_of($node, 'SELECT flakeid_advance_past_all()', db => $d), '22023', '4. a far-future row: 22023');
	like(message_of($node, 'SELECT flakeid_advance_past_all()', db => $d), qr/column "id" of table (public\.)?events.*\n(.*\n)*HINT:.*skip/,
		'4. ... naming the table and the column, with a hint to skip it');
	is(try(q{SELECT skipped FROM flakeid_advance_past_all(skip => '{public.events.id}')}, db => $d), 'named in skip',
		'4. skip leaves it out, and the row says so');
	is(sqlstate_of($node, q{SELECT flakeid_advance_past_all(skip => '{events.nope}')}, db => $d), '42703',
		'4. skip naming no such column is an error (a typo does not leave another column in)');
}

# 9. an empty kuid96 column: no horizon is taken (kuid96_horizon() closes the kuid counter).  With
# the session's clock 60 s behind, kuid_new() keeps the last used tick, unless something closed it
# (here: after item 3's raise and before item 5, whose call with `past` takes the counter 55 s ahead
# where b583abf's call runs it)
{
	my $d = db('empty_kuid96');
	sql('CREATE TABLE e (id kuid96)', db => $d);
	is(try(q{SET flakeid.debug_clock_offset_ms = -60000;
		CREATE TEMP TABLE ticks AS SELECT kuid_time(kuid_new()) AS a;
		SELECT count(*) FROM flakeid_advance_past_all();
		SELECT kuid_time(kuid_new()) = a FROM ticks;}, db => $d), "1\nt",
		'9. an empty kuid96 column: one row, and the kuid counter was not closed (no horizon taken)');
}

# 5. a table the caller cannot read: an error naming it, unless skipped
{
	my $d = db('unreadable');
	sql(q{CREATE TABLE secret (id sno); INSERT INTO secret VALUES (sno_from_parts(clock_timestamp() + interval '20 s', 255, 65535, 65535, 1))}, db => $d);
	is(sqlstate_of($node, 'SET ROLE operator; SELECT flakeid_advance_past_all()', db => $d), '42501',
		'5. a table the operator cannot read: 42501, not a silent skip');
	like(message_of($node, 'SET ROLE operator; SELECT flakeid_advance_past_all()', db => $d), qr/column "id" of table (public\.)?secret/,
		'5. ... naming it');
	is(sqlstate_of($node, q{SET ROLE operator; SELECT flakeid_advance_past_all(clock_timestamp() + interval '55 s')}, db => $d)
		. ' ' . try(q{SELECT sno_time(sno_new()) < clock_timestamp() + interval '40 s'}, db => $d), '42501 t',
		'5. refused before anything is advanced: with past 55 s ahead, sno_new() is not (item 3 took it 25 s ahead)');
	is(try(q{SET ROLE operator; SELECT skipped FROM flakeid_advance_past_all(skip => '{secret.id}')}, db => $d), 'named in skip',
		'5. skipped only when named');
}

# 6. a table locked ACCESS EXCLUSIVE by another transaction: with lock_timeout 0 the wait ends
# within 10 s (a 60 s statement_timeout backs the check), and the error names the table
{
	my $d = db('locks');
	sql('CREATE TABLE busy (id sno)', db => $d);
	my $holder = session($node, db => $d);
	$holder->query('BEGIN; LOCK TABLE busy IN ACCESS EXCLUSIVE MODE');
	my $t0 = time;
	is(sqlstate_of($node, q{SET statement_timeout = '60s'; SELECT flakeid_advance_past_all()}, db => $d), '55P03',
		'6. behind an ACCESS EXCLUSIVE lock, with lock_timeout 0: 55P03, not an endless wait');
	cmp_ok(time - $t0, '<', 30, '6. ... after at most 10 s (and a margin)');
	like(message_of($node, q{SET lock_timeout = '200ms'; SELECT flakeid_advance_past_all()}, db => $d), qr/could not lock table (public\.)?busy/,
		"6. with the session's lock_timeout: the error names the table");
	$holder->query('ROLLBACK');
	$holder->close;
}

# 7. kuid96's lead: an ID of a higher node, 10 s ahead of a clock 155 s before the end of the
# ID's 256-second window.  The session's clock is moved forward (debug offset) to such an instant.
{
	my $d = db('kuid96_lead');
	sql('CREATE TABLE k (id kuid96); GRANT INSERT ON k TO auditor', db => $d);
	# the offset (ms) that puts the clock LEFT s before the end of a full window, at or after the
	# instant FROM, and that instant
	my $place = sub {
		my ($left, $from) = @_;
		my $now = sql('SELECT extract(epoch FROM clock_timestamp())::bigint');
		for my $x (1 .. 900)
		{
			next if $now + $x < ($from // 0);
			my $sec = ($now + $x) % 1_000_000;
			my $start = $sec - $sec % 256;
			return (($x * 1000), $now + $x) if $start + 255 <= 999_999 && $start + 255 - $sec == $left;
		}
		die 'no window found';
	};
	my ($offset, $at) = $place->(155);
	my $id = sql("SELECT kuid96(kuid_upper_bound(to_timestamp($at + 10)), $own + 1)");
	is(sqlstate_of($node, "SET flakeid.debug_clock_offset_ms = $offset; SELECT kuid96_advance_past('$id')", db => $d), '22023',
		'7. kuid96_advance_past of a higher node whose window ends 155 s ahead: refused (22023)');
	cmp_ok(try("SET flakeid.debug_clock_offset_ms = $offset;
		SELECT extract(epoch FROM kuid_time(kuid_new())) - extract(epoch FROM clock_timestamp()) - $offset / 1000.0"), '<=', 61,
		'7. ... kuid_new() lies at most 60 s ahead of the clock');
	cmp_ok(try("SET flakeid.debug_clock_offset_ms = $offset;
		SELECT extract(epoch FROM kuid96_time(kuid96_new())) - extract(epoch FROM clock_timestamp()) - $offset / 1000.0"), '<=', 61,
		'7. ... and kuid96_new() too');
	# the same ID put in by an INSERT-only role: flakeid_advance_past_all names its column
	sql("SET ROLE auditor; INSERT INTO k VALUES ('$id')", db => $d);
	($offset, $at) = $place->(155 - 10, $at);
	like(message_of($node, "SET flakeid.debug_clock_offset_ms = $offset; SELECT flakeid_advance_past_all()", db => $d),
		qr/ERROR:.*column "id" of table (public\.)?k\b/, '7. flakeid_advance_past_all: refused, naming the column');
	cmp_ok(try("SET flakeid.debug_clock_offset_ms = $offset;
		SELECT extract(epoch FROM kuid_time(kuid_new())) - extract(epoch FROM clock_timestamp()) - $offset / 1000.0"), '<=', 61,
		'7. ... kuid_new() lies at most 60 s ahead of the clock');
	# a window ending within the lead: taken, and new IDs sort after the ID
	($offset, $at) = $place->(30, $at);
	$id = sql("SELECT kuid96(kuid_upper_bound(to_timestamp($at + 5)), $own + 1)");
	is(try("SET flakeid.debug_clock_offset_ms = $offset; SELECT kuid96_advance_past('$id') = '$id';
		SELECT count(*) FILTER (WHERE v <= '$id') FROM (SELECT kuid96_new() AS v FROM generate_series(1, 100)) s", db => $d), "t\n0",
		'7. a higher node whose window ends 30 s ahead: advanced, and 0 of 100 new kuid96 sort at or before it');
}

stop_checked($node);
done_testing();
