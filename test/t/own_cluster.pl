# The scripts of test/own_cluster/, each of which starts its servers itself
# (scripts/with_cluster), one or more per case, with settings of its own:
# the settings and their refusals, the state file, a real step back of
# every process's clock (libfaketime), restarts after a step back, the log
# of a used-up pool.  They use the installed PostgreSQL that pg_config
# names.  FLAKEID_TESTS=name[,name] runs only those.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my @scripts = selected_scripts('test/own_cluster/*.t');
plan skip_all => "FLAKEID_TESTS names no script of test/own_cluster" unless @scripts;
local $ENV{PG_BINDIR} = `pg_config --bindir`;
chomp $ENV{PG_BINDIR};
for my $script (@scripts)
{
	my ($name) = $script =~ m{([^/]+)\.t$};
	run_tap_script(undef, $name, script_command($script));
}
done_testing();
