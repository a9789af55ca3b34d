# The portable edition as a Trusted Language Extension (pg_tle 1.5.2, built
# from the vendored source into a private installation of this major by
# scripts/build_pgtle; scripts/test_major names it in FLAKEID_PGTLE_INSTALL):
# a server with pg_tle preloaded and no flakeid library; a role whose only
# right is pgtle_admin (and CREATE on the schema it installs into) runs
# portable/flakeid_portable_pgtle.sql and CREATE EXTENSION flakeid_portable
# in a schema of its own; every type minted and a vector of each read back;
# ALTER EXTENSION ... UPDATE to the next version; pg_dump and a restore of
# a table using the types, as pg_tle's own dump test does it (plain SQL into
# a new database); a role that only mints needs nothing on the sequences.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

if (!$ENV{FLAKEID_PGTLE_INSTALL})
{
	# a build that failed is a failure, never a skip
	if ($ENV{FLAKEID_PGTLE_ERROR})
	{
		fail("pg_tle builds for this major: $ENV{FLAKEID_PGTLE_ERROR}");
		done_testing();
		exit 0;
	}
	plan skip_all => $ENV{FLAKEID_PGTLE_WHY}
	  // 'no pg_tle installation named (FLAKEID_PGTLE_INSTALL): bash scripts/build_pgtle PG_CONFIG makes one and prints it; scripts/test_major does';
}

my $root = tree_root();
my $node = flakeid_node('pgtle', -extension => 0, -install_path => $ENV{FLAKEID_PGTLE_INSTALL},
	shared_preload_libraries => 'pg_tle');
sub su { my ($sql, $db) = @_; return $node->safe_psql($db // 'postgres', $sql); }
is(su(q{SELECT current_setting('shared_preload_libraries'), (SELECT count(*) FROM pg_available_extensions WHERE name = 'flakeid')}),
	'pg_tle|0', 'the server preloads pg_tle and has no flakeid library to load');
su(q{CREATE EXTENSION pg_tle;
	CREATE ROLE tle_admin LOGIN;
	GRANT pgtle_admin TO tle_admin;
	CREATE SCHEMA ids;
	GRANT CREATE, USAGE ON SCHEMA ids TO tle_admin;
	REVOKE CREATE ON SCHEMA public FROM PUBLIC;});
is(su(q{SELECT rolsuper OR rolcreatedb OR rolcreaterole OR rolbypassrls,
	(SELECT string_agg(roleid::regrole::text, ',') FROM pg_auth_members WHERE member = 'tle_admin'::regrole)
	FROM pg_roles WHERE rolname = 'tle_admin'}), 'f|pgtle_admin', '(tle_admin is no superuser, and a member of pgtle_admin only)');

my ($rc, $out, $err) = $node->psql('postgres', undef, on_error_stop => 1,
	extra_params => [ '-U', 'tle_admin', '-f', "$root/portable/flakeid_portable_pgtle.sql" ]);
is($rc, 0, 'tle_admin registers the edition with pg_tle (portable/flakeid_portable_pgtle.sql)') or diag($err);
sub admin { my ($sql, $db) = @_; return $node->safe_psql($db // 'postgres', $sql, extra_params => [ '-U', 'tle_admin' ]); }
is(admin(q{SELECT string_agg(version, ',' ORDER BY version) FROM pgtle.available_extension_versions() WHERE name = 'flakeid_portable'}),
	'1.5,1.5.1', '... versions 1.5 and 1.5.1 are available');
admin(q{CREATE EXTENSION flakeid_portable VERSION '1.5' SCHEMA ids});
is(admin(q{SELECT e.extversion, n.nspname, e.extowner::regrole FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE extname = 'flakeid_portable'}),
	'1.5|ids|tle_admin', 'tle_admin creates the extension flakeid_portable 1.5 in schema ids');
is(admin(q{SELECT count(*) FROM pg_depend d JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'flakeid_portable') AND d.deptype = 'e'
	  AND p.pronamespace <> 'ids'::regnamespace}), 0, '... every function of it is in schema ids');

# --- every type minted, and a vector of each read back ---------------------
sub ids { my ($sql) = @_; return admin("SET search_path = ids; $sql"); }
is(admin(q{SELECT pg_typeof(ids.sno_new()), pg_typeof(ids.flax_new()), pg_typeof(ids.siq_new('user')), pg_typeof(ids.kuid_new()),
	pg_typeof(ids.kuid96_new()), pg_typeof(ids.snowflake_new())}), 'ids.sno|ids.flax|ids.siq|ids.kuid|ids.kuid96|bigint',
	'each generator returns its type');
is(ids(q{SELECT count(DISTINCT a) || ',' || count(DISTINCT b) || ',' || count(DISTINCT c) || ',' || count(DISTINCT d) || ',' || count(DISTINCT e) || ',' || count(DISTINCT f)
	|| ' ' || bool_and(abs(extract(epoch FROM sno_time(a) - now())) < 60 AND abs(extract(epoch FROM flax_time(b) - now())) < 60
	   AND abs(extract(epoch FROM siq_time(c) - now())) < 60 AND abs(extract(epoch FROM kuid_time(d) - now())) < 60
	   AND abs(extract(epoch FROM kuid96_time(e) - now())) < 60 AND abs(extract(epoch FROM snowflake_time(f) - now())) < 60)
	FROM (SELECT sno_new() a, flax_new() b, siq_new('user') c, kuid_new() d, kuid96_new() e, snowflake_new() f FROM generate_series(1, 1000)) s}),
	'1000,1000,1000,1000,1000,1000 true', 'it mints 1,000 distinct IDs of every type, each of now');

sub rows
{
	my ($file) = @_;
	open my $fh, '<', "$root/test/vectors/$file" or die "$file: $!";
	my @lines = grep { !/^#/ } map { chomp; $_ } <$fh>;
	my @head = split /\t/, shift @lines;
	return map { my @f = split /\t/, $_, -1; my %r; @r{@head} = @f; \%r } @lines;
}
# (the middle row of each file: its first rows are often all zeros)
sub middle { return $_[ int(@_ / 2) ]; }
my $sno = middle(rows('sno_codec.tsv'));
my $flax = middle(rows('flax.tsv'));
my $siq = middle(grep { $_->{cb32} ne '' } rows('siq.tsv'));
my $kuid = middle(grep { $_->{kind} eq 'local' } rows('uid.tsv'));
my $kuid96 = middle(grep { $_->{kind} ne 'local' && ($_->{drift} eq '-' || $_->{drift} eq '8') } rows('uid.tsv'));
my $sf = middle(grep { $_->{value} =~ /^\d+$/ && $_->{value} < 2**63 } rows('snowflake.tsv'));
for my $v ([ 'sno', $sno->{hex}, $sno->{encoded} ], [ 'flax', $flax->{bytes12_hex}, $flax->{flax_id} ],
	[ 'siq', $siq->{bytes14_hex}, ('0' x (23 - length $siq->{cb32})) . $siq->{cb32} ], [ 'kuid', $kuid->{hex}, $kuid->{b64} ],
	[ 'kuid96', $kuid96->{hex}, $kuid96->{b64} ])
{
	my ($type, $hex, $text) = @$v;
	is(ids("SELECT encode(${type}_from_text('$text'), 'hex') || ' ' || ${type}_to_text(decode('$hex', 'hex')::$type)
		|| ' ' || (${type}_from_uuid(${type}_to_uuid(${type}_from_text('$text'))) = decode('$hex', 'hex'))"),
		"$hex $text true", "$type: a vector's text and bytes read back each way, and through uuid");
}
is(ids("SELECT snowflake_worker($sf->{value}) || ',' || snowflake_process($sf->{value}) || ',' || snowflake_sequence($sf->{value})
	|| ',' || (snowflake_time($sf->{value}, 'epoch') = 'epoch'::timestamptz + $sf->{ts_ms_since_epoch} * interval '1 millisecond')"),
	"$sf->{worker},$sf->{shard},$sf->{sequence},true", "snowflake: a vector's fields and time");

# --- ALTER EXTENSION ... UPDATE ---------------------------------------------
admin(q{ALTER EXTENSION flakeid_portable UPDATE});
is(admin(q{SELECT extversion FROM pg_extension WHERE extname = 'flakeid_portable'}),
	'1.5.1', 'ALTER EXTENSION flakeid_portable UPDATE reaches 1.5.1 (the default version the script sets)');
is(ids(q{SELECT sno_to_text(sno_from_parts('2024-01-01', 0, 0, 0))}), '8for5hi222222222', '... and the edition still works');

# --- a role that only mints -------------------------------------------------
su(q{CREATE ROLE minter LOGIN; GRANT USAGE ON SCHEMA ids TO minter;});
is(su(q{SELECT count(*) FILTER (WHERE has_sequence_privilege('minter', c.oid, 'SELECT') OR has_sequence_privilege('minter', c.oid, 'USAGE')
	OR has_sequence_privilege('minter', c.oid, 'UPDATE')) || ' of ' || count(*)
	FROM pg_class c WHERE c.relkind = 'S' AND c.relnamespace = 'ids'::regnamespace}), '0 of 4',
	'minter has no right on any of the 4 state sequences');
# (its answer, or its error: a refusal fails this check rather than the file)
sub minter
{
	my ($sql) = @_;
	my ($rc, $out, $err) = $node->psql('postgres', "SET search_path = ids; $sql", extra_params => [ '-U', 'minter' ]);
	return $rc == 0 ? $out : $err;
}
is(minter(q{SELECT count(DISTINCT sno_new()) + count(DISTINCT flax_new()) + count(DISTINCT siq_new('user')) + count(DISTINCT kuid_new())
	+ count(DISTINCT kuid96_new()) + count(DISTINCT snowflake_new()) FROM generate_series(1, 100)}), 600,
	'... and mints 100 of every type (flakeid_next, the one SECURITY DEFINER step, moves the states)');
is(sqlstate_of($node, q{SET ROLE minter; SELECT setval('ids.flakeid_sno_state', 1)}), '42501', '... but cannot move a state with setval (42501)');
is(sqlstate_of($node, q{SET ROLE minter; SELECT ids.flakeid_next('ids.flakeid_sno_state', 1, 16, 0, 65535, 1 << 45, 'sno')}), '42883',
	'... nor through flakeid_next, which takes no unit (42883)');
is(sqlstate_of($node, q{SET ROLE minter; BEGIN; LOCK TABLE ids.flakeid_sno_lock IN ACCESS SHARE MODE}), '42501',
	'... nor hold a generator\'s lock (42501)');

# --- pg_dump and a restore, as pg_tle's own test does (plain SQL, new database)
ids(q{CREATE TABLE events (id sno PRIMARY KEY DEFAULT sno_new(), k kuid DEFAULT kuid_new(), q siq DEFAULT siq_new('user'),
	f flax DEFAULT flax_new(), s bigint DEFAULT snowflake_new(), n int);
	INSERT INTO events (n) SELECT g FROM generate_series(1, 1000) g;});
my $digest = q{SELECT count(*) || ' ' || md5(string_agg(ids.sno_to_text(id) || ids.kuid_to_text(k) || ids.siq_to_text(q) || ids.flax_to_text(f) || s || ',' || n, ';' ORDER BY id))
	FROM ids.events};
my $before = su($digest);
my $dump = PostgreSQL::Test::Utils::tempdir() . '/dump.sql';
$node->command_ok([ 'pg_dump', '-d', $node->connstr('postgres'), '-f', $dump ], 'pg_dump of the database with the extension and a table of its types');
su('CREATE DATABASE restored');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('restored'), '-f', $dump ], '... restored into a new database with psql');
is(su(q{SELECT extversion FROM pg_extension WHERE extname = 'flakeid_portable'}, 'restored'), '1.5.1', '... the extension restored at the version dumped');
is(su($digest, 'restored'), $before, '... 1,000 rows of every type the same as dumped');
is(su(q{EXPLAIN (COSTS OFF) SELECT * FROM ids.events WHERE id = ids.sno_from_parts('2024-01-01', 0, 0, 0)}, 'restored') =~ /Index Scan using events_pkey/ ? 'index' : 'no index',
	'index', '... its primary key restored and used');
# (the state sequences, members of the extension, are made again at 0 by the
# restore: the clock carries the generators past every restored ID)
is(su(q{SELECT (SELECT count(*) FROM ids.events WHERE id >= n.sno OR k >= n.kuid OR q >= n.siq OR s >= n.s)
	FROM (SELECT ids.sno_new() sno, ids.kuid_new() kuid, ids.siq_new('user') siq, ids.snowflake_new() s) n}, 'restored'), 0,
	'... and IDs minted after the restore sort after every restored one');

done_testing();
