# The scripts of test/in_cluster/, each against a server of its own with
# flakeid preloaded and flakeid.allow_debug_clock_offset on (the clock tests
# move it) and max_prepared_transactions 10 (the horizon test prepares): concurrency, clock faults, load, schemas, the reference, soft
# errors, upgrades, dump and restore, mark renewal, restarts and crashes, the
# README's examples.
# FLAKEID_TESTS=name[,name] runs only those.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my @scripts = selected_scripts('test/in_cluster/*.t');
plan skip_all => "FLAKEID_TESTS names no script of test/in_cluster" unless @scripts;
for my $script (@scripts)
{
	my ($name) = $script =~ m{([^/]+)\.t$};
	my $node = flakeid_node($name, 'flakeid.allow_debug_clock_offset' => 'on', 'max_prepared_transactions' => 10);
	run_tap_script($node, $name, script_command($script));
	$node->stop('immediate');
	$node->clean_node;
}
done_testing();
