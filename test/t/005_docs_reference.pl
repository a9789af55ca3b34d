# docs/REFERENCE.md against the catalog: every function, operator, operator
# class, cast and setting the extension has is named there, and everything
# named there exists.  A name documented generically as <type>_x must exist
# for every type.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my @types = map { $_->{type} } formats(fixed => 't');
my $types_alternation = join('|', sort { length($b) <=> length($a) } @types);
my $node = flakeid_node('reference', -extension => 0);
fresh_db($node, 'flakeid_reference');
sub sql { return $node->safe_psql('flakeid_reference', $_[0]); }
sub lines { my ($text) = @_; return grep { $_ ne '' } split /\n/, $text; }
sql('CREATE EXTENSION flakeid');

# docs/REFERENCE.md up to its end-of-catalog mark (the examples after it are readme's)
my $document = slurp_file(tree_root() . '/docs/REFERENCE.md');
my ($reference) = $document =~ /^(.*?)^[^\n]*end of the catalog-checked reference/ms;
ok(defined $reference && lines($reference) > 50, 'docs/REFERENCE.md has a reference part, ended by its mark');
$reference //= '';

# members(CATALOG, NAME-EXPRESSION): the extension's members of one catalog
sub members
{
	my ($catalog, $name) = @_;
	return lines(sql("SELECT DISTINCT $name FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'flakeid'
	     JOIN $catalog m ON m.oid = d.objid WHERE d.classid = '$catalog'::regclass AND d.deptype = 'e' ORDER BY 1"));
}
# the backquoted spans that start like a name (a word character or <type>)
my %documented = map { $_ => 1 } map { /((?:<type>|[a-z])[a-z0-9_<>]*)/g } $reference =~ /`([^`\n]+)`/g;
sub generic { my ($name) = @_; $name =~ s/^($types_alternation)_/<type>_/; return $name; }   # sno_cmp -> <type>_cmp
sub is_documented { my ($name) = @_; return $documented{$name} || $documented{ generic($name) }; }

# every function (aggregates included) is documented
my @functions = members('pg_proc', 'proname');
my %function = map { $_ => 1 } @functions;
is(join(' ', grep { !is_documented($_) } @functions), '',
	'every function of the extension is in the reference (' . scalar(@functions) . ' names)');

# every documented name in a function-shaped span exists: literally, or for every type
# (the name before a span's last parenthesis, and any <type>_ name but the operator classes')
my %claimed;
for my $before ($reference =~ /`([^`\n]*)\(/g)
{
	$claimed{$1} = 1 if $before =~ /((?:<type>|[a-z])[a-z0-9_<>]*)$/;
}
$claimed{$_} = 1 for grep { !/_ops$/ } $reference =~ /`(<type>_[a-z_]+)`/g;
my @missing;
for my $name (sort keys %claimed)
{
	my @wanted = $name =~ /^<type>_/ ? map { my $n = $name; $n =~ s/^<type>/$_/; $n } @types : ($name);
	push @missing, grep { !$function{$_} } @wanted;
}
is("@missing", '', 'every function the reference names exists (' . scalar(keys %claimed) . ' names, <type> for each type)');

# operators and operator classes
my @operators = members('pg_operator', 'oprname');
is(join(' ', grep { index($reference, "`$_`") < 0 } @operators), '', "every operator is in the reference (@operators)");
my @opclasses = members('pg_opclass', "opcname || ' ' || (SELECT amname FROM pg_am WHERE oid = opcmethod)");
my @undocumented_classes;
for (@opclasses)
{
	my ($name, $method) = split ' ';
	push @undocumented_classes, "$name/$method" if index(lc $reference, lc('`' . generic($name) . "` ($method")) < 0;
}
is("@undocumented_classes", '', 'every operator class is in the reference with its index method (' . scalar(@opclasses) . ')');

# casts: each source and target pair appears on the casts line
my @casts = members('pg_cast', "castsource::regtype || ' ' || casttarget::regtype");
my ($cast_line) = grep { /^\| casts/ } split /\n/, $reference;
$cast_line //= '';
my %is_type = map { $_ => 1 } @types;
my @undocumented;
for my $cast (@casts)
{
	my ($source, $target) = split ' ', $cast;
	my $pair = $is_type{$source} && $is_type{$target} ? join(' ↔ ', map { "`$_`" } sort($source, $target))   # written once, in name order
	  : $is_type{$source} ? "`<type>` ↔ `$target`" : "`<type>` ↔ `$source`";
	push @undocumented, "$source->$target" if index($cast_line, $pair) < 0;
}
is("@undocumented", '', 'every cast is in the reference (' . scalar(@casts) . ')');

# settings, with their defaults and contexts as the server reports them
my @settings = lines(sql("SELECT name, CASE WHEN vartype = 'string' AND boot_val = '' THEN '''''' ELSE boot_val END, context
                          FROM pg_settings WHERE name LIKE 'flakeid.%' ORDER BY 1"));
my @wrong;
for (@settings)
{
	my ($name, $default, $context) = split /\|/;
	push @wrong, $name unless $reference =~ /^\| `\Q$name\E` \|[^|]*\| `\Q$default\E` \| \Q$context\E \|/m;
}
is("@wrong", '', 'every setting is in the reference with its default and context (' . scalar(@settings) . ')');
my @documented_settings = $reference =~ /^\| `(flakeid\.[a-z_0-9]+)`/mg;
is(join(' ', sort @documented_settings), join(' ', map { (split /\|/)[0] } @settings),
	'the reference lists no setting the server does not have');

# the STRICT and PARALLEL exceptions the reference lists are exactly the catalog's
sub listed_names   # the backquoted names of the paragraph from the line with START to a blank line
{
	my ($start) = @_;
	my ($paragraph) = $reference =~ /^([^\n]*\Q$start\E.*?)(?:\n\n|\z)/ms;
	my %names = map { $_ => 1 } ($paragraph // '') =~ /`([a-z][a-z_0-9]*)(?:\([^`]*\))?`/g;
	return join(' ', sort keys %names);
}
sub catalog_names
{
	my ($condition) = @_;
	return join(' ', lines(sql("SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
	     AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e' JOIN pg_extension e ON e.oid = d.refobjid
	     AND e.extname = 'flakeid' WHERE $condition ORDER BY 1")));
}
is(listed_names('Every function is `STRICT`'), catalog_names('NOT p.proisstrict'),
	"the functions the reference says are not STRICT are exactly the catalog's");
is(listed_names('Every function is `PARALLEL SAFE`'), catalog_names("p.proparallel <> 's'"),
	"the functions the reference says are not PARALLEL SAFE are exactly the catalog's");

# the views
is(join(' ', sort(members('pg_class', 'relname'))), 'flakeid_generators flakeid_horizon_holders flakeid_partition_requests flakeid_partitions',
	"the extension's relations are the views flakeid_generators and flakeid_horizon_holders, and the tables flakeid_partitions and flakeid_partition_requests");
ok(index($reference, 'the table `flakeid_partitions`') >= 0 && index($reference, 'the table `flakeid_partition_requests`') >= 0, 'both tables are in the reference');
ok(index($reference, 'the view `flakeid_generators`') >= 0 && index($reference, 'the view `flakeid_horizon_holders`') >= 0,
	'both views are in the reference');
stop_checked($node);
done_testing();
