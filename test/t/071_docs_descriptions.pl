# Every object of the extension is described: each type, function
# (aggregates too), operator, operator class and family, cast, view and
# table has a COMMENT, which \dT+, \df+, \do+ and \d+ show, and every
# setting a description (SHOW ALL, pg_settings).  Counted from pg_depend
# and pg_description after a fresh CREATE EXTENSION, and after CREATE
# EXTENSION flakeid VERSION '1.0' updated with ALTER EXTENSION flakeid
# UPDATE (the upgrade scripts set what the install script sets); the
# objects without one are listed.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $node = flakeid_node('descriptions', -extension => 0);

# the extension's members without a description, one per line (none: '')
my $undescribed = "SELECT pg_describe_object(d.classid, d.objid, 0)
    FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'flakeid'
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
      -- (array types, and the row types of the extension's views and tables,
      -- are members of their own on 18: psql shows no description of either;
      -- the element type's and the relation's are the ones it shows)
      AND NOT (d.classid = 'pg_type'::regclass
               AND EXISTS (SELECT 1 FROM pg_type t WHERE t.oid = d.objid AND (t.typrelid <> 0 OR t.typcategory = 'A')))
      AND NOT EXISTS (SELECT 1 FROM pg_description s
                      WHERE s.classoid = d.classid AND s.objoid = d.objid AND s.objsubid = 0
                        AND s.description <> '')
    ORDER BY 1";
my $members = "SELECT count(*) FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'flakeid'
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'";

for my $case ([ 'a fresh install', 'flakeid_fresh', 'CREATE EXTENSION flakeid' ],
	[ 'release 1.0 updated', 'flakeid_updated', "CREATE EXTENSION flakeid VERSION '1.0'; ALTER EXTENSION flakeid UPDATE" ])
{
	my ($what, $db, $install) = @$case;
	fresh_db($node, $db);
	$node->safe_psql($db, $install);
	my $count = $node->safe_psql($db, $members);
	my @missing = grep { $_ ne '' } split /\n/, $node->safe_psql($db, $undescribed);
	is(scalar(@missing), 0, "$what: every one of the extension's $count objects has a description (" . scalar(@missing) . ' without)');
	diag("$what, without a description:\n" . join("\n", map { "  $_" } @missing)) if @missing;
}

# what psql shows: \dT+ and \df+ read these descriptions
like($node->safe_psql('flakeid_fresh', 'SELECT obj_description(\'sno\'::regtype, \'pg_type\')'), qr/^sno \(Go's muyo\/sno\), 10 bytes/,
	"\\dT+ sno shows sno's description");

# the settings: every flakeid.* one has a short description
my @bare = grep { $_ ne '' } split /\n/, $node->safe_psql('postgres',
	"SELECT name FROM pg_settings WHERE name LIKE 'flakeid.%' AND coalesce(short_desc, '') = '' ORDER BY 1");
my $settings = $node->safe_psql('postgres', "SELECT count(*) FROM pg_settings WHERE name LIKE 'flakeid.%'");
cmp_ok($settings, '>', 10, "flakeid's $settings settings are defined");
is("@bare", '', 'every setting of flakeid has a description in pg_settings');

stop_checked($node);
done_testing();
