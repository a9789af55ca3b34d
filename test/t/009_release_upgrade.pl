# Upgrades: every earlier release (sql/released/flakeid--<v>.sql) is
# installed, updated with ALTER EXTENSION flakeid UPDATE, compared object by
# object with a fresh install of the current version; the oldest and the
# latest are then given the whole pg_regress suite.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = tree_root();
my ($current) = slurp_file("$root/flakeid.control") =~ /^default_version = '(.*)'$/m;
sub by_version { my @a = split /\./, $a; my @b = split /\./, $b; return $a[0] <=> $b[0] || $a[1] <=> $b[1]; }
my @releases = sort by_version map { m{flakeid--(.*)\.sql$} } glob("$root/sql/released/flakeid--*.sql");
my $node = flakeid_node('upgrade', -extension => 0);

# every extension member, with what defines a function's behaviour, who may use it and its description
my $members = "SELECT pg_describe_object(d.classid, d.objid, 0) || coalesce(' ' || (
             SELECT concat_ws(' ', p.provolatile, p.proisstrict, p.proparallel, p.proleakproof,
                              p.prosupport::regproc, p.prosrc, pg_get_function_result(p.oid), p.proacl,
                              p.proconfig, p.procost, p.prorows)
             FROM pg_proc p WHERE d.classid = 'pg_proc'::regclass AND p.oid = d.objid), '')
             || coalesce(' ' || (SELECT c.relacl::text FROM pg_class c
                                 WHERE d.classid = 'pg_class'::regclass AND c.oid = d.objid), '')
             || coalesce(' -- ' || (SELECT s.description FROM pg_description s
                                    WHERE s.classoid = d.classid AND s.objoid = d.objid AND s.objsubid = 0), '')
         FROM pg_depend d
         WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
           AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'flakeid')
         ORDER BY 1";
my $version_of = "SELECT extversion FROM pg_extension WHERE extname = 'flakeid'";

# the PGXN META.json releases the same version
my $meta = `/usr/bin/python3 -c 'import json; m = json.load(open("$root/META.json")); print(m["version"], m["provides"]["flakeid"]["version"])'`;
chomp $meta;
is($meta, "$current.0 $current.0", "META.json is valid JSON and releases $current ($current.0 in PGXN's semantic versions)");

# CHANGELOG.md has an entry for every release, the current one first
is(join(' ', slurp_file("$root/CHANGELOG.md") =~ /^## ([0-9][0-9.]*) /mg),
	join(' ', map { "$_.0" } reverse sort by_version ($current, @releases)),
	"CHANGELOG.md has an entry for $current and every earlier release, newest first");

fresh_db($node, 'flakeid_fresh');
$node->safe_psql('flakeid_fresh', 'CREATE EXTENSION flakeid');
my $fresh = $node->safe_psql('flakeid_fresh', $members);
is($node->safe_psql('flakeid_fresh', $version_of), $current, "CREATE EXTENSION installs flakeid.control's default_version $current");
my $member_count = my @member_lines = split /\n/, $fresh;
cmp_ok($member_count, '>', 300, "a fresh install has its $member_count members");
is($node->safe_psql('flakeid_fresh', "SELECT string_agg(version, ' ' ORDER BY version) FROM pg_available_extension_versions WHERE name = 'flakeid'"),
	join(' ', sort (@releases, $current)), "the installable versions are the released ones and $current");
$node->psql('flakeid_fresh', 'ALTER EXTENSION flakeid UPDATE');
is($node->safe_psql('flakeid_fresh', $members), $fresh, "ALTER EXTENSION flakeid UPDATE at $current changes nothing");
note('earlier releases: ' . scalar(@releases) . " (@releases)");

for my $v (@releases)
{
	(my $db = "flakeid_from_$v") =~ s/\./_/g;
	fresh_db($node, $db);
	$node->safe_psql($db, "CREATE EXTENSION flakeid VERSION '$v'");
	is($node->safe_psql($db, $version_of), $v, "release $v installs");
	$node->safe_psql($db, 'ALTER EXTENSION flakeid UPDATE');
	is($node->safe_psql($db, $version_of), $current, "release $v updates to $current");
	is($node->safe_psql($db, $members), $fresh, "release $v updated has exactly the objects of a fresh $current");
	# the whole pg_regress suite on the updated database (setup.sql keeps the extension), from a
	# copy of the tree of its own: the tree may be read-only, and pg_regress writes beside its inputs.
	# Run from the oldest release (the longest chain of updates) and the latest (the update users
	# make): the others' objects are those of a fresh install, checked above, and each run costs
	# about a minute of every lane of the test command
	next unless $v eq $releases[0] || $v eq $releases[-1];
	my $tree = PostgreSQL::Test::Utils::tempdir();
	system("cp -r '$root/sql' '$root/expected' '$root/test' '$root/Makefile' '$root/flakeid.control' '$tree/'") == 0
	  or die "cannot copy the tree's tests";
	my $log = "$tree/installcheck.log";
	local @ENV{qw(PGHOST PGPORT PGUSER)} = ($node->host, $node->port, scalar getpwuid($>));
	my $status = system("make -s -C '$tree' installcheck REGRESS_OPTS='--use-existing --dbname=$db' >'$log' 2>&1");
	ok($status == 0, "release $v updated to $current passes the pg_regress suite");
	diag(slurp_file("$tree/regression.diffs")) if -f "$tree/regression.diffs";
}
# A DBA's privileges on the extension's functions stay the DBA's across the update: the update
# neither resets them nor records them as the extension's own (pg_init_privs), which pg_dump
# leaves out (1.5's upgrade ran flakeid_cluster_identities()'s REVOKE and GRANT again: the
# twenty-eighth reviewer and auditor)
fresh_db($node, 'flakeid_dba');
$node->safe_psql('flakeid_dba', "CREATE EXTENSION flakeid VERSION '$releases[-1]'; CREATE ROLE dba_watch;
	GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO dba_watch;
	REVOKE EXECUTE ON FUNCTION flakeid_cluster_identities() FROM pg_monitor");
$node->safe_psql('flakeid_dba', 'ALTER EXTENSION flakeid UPDATE');
is($node->safe_psql('flakeid_dba', "SELECT (SELECT count(*) FROM pg_init_privs WHERE initprivs::text LIKE '%dba_watch%') || ' '
	|| (SELECT proacl::text LIKE '%dba_watch=X%' AND proacl::text NOT LIKE '%pg_monitor%' FROM pg_proc WHERE oid = 'flakeid_cluster_identities()'::regprocedure)"),
	'0 true', "release $releases[-1] updated: a DBA's grants and revokes kept, none recorded as the extension's own");
$node->safe_psql('postgres', 'DROP DATABASE flakeid_dba; DROP ROLE dba_watch');
stop_checked($node);
done_testing();
