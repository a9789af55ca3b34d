# The pgTAP files of test/pgtap/ (every vector row through SQL, index
# shapes, back-fill, partition pruning, vector clocks), each through psql
# against one server with flakeid preloaded; each file rolls itself back.
# Needs pgTAP installed for this PostgreSQL (a skip says so otherwise).
# One file by hand: psql -X -f test/pgtap/NAME.sql against a preloaded server,
# or pg_prove.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $sharedir = `pg_config --sharedir`;
chomp $sharedir;
plan skip_all => "pgTAP is not installed in $sharedir/extension"
  unless -f "$sharedir/extension/pgtap.control";
chdir(tree_root()) or die "chdir: $!";
my @files = sort glob('test/pgtap/*.sql');

my $node = flakeid_node('pgtap');
for my $file (@files)
{
	my ($name) = $file =~ m{([^/]+)\.sql$};
	run_tap_script($node, "pgtap $name", 'psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-f', $file);
}
stop_checked($node);
done_testing();
