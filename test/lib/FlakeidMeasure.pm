# What one TAP file costs: its wall time, the CPU time of every process it
# made (its servers included, which pg_ctl detaches from it), and, with
# scripts/forks_traced running beside the suite, how many processes it
# created.  Loaded into each test/t/*.pl by PERL5OPT=-MFlakeidMeasure
# (scripts/test_major sets it for `make prove_installcheck`), so it is the
# first module a file compiles: its END block runs last, after
# PostgreSQL::Test::Cluster's has stopped the file's servers.
#
# FLAKEID_MEASURE_DIR (writable by the test's user) receives, per file, one
# line "LABEL<TAB>FILE<TAB>WALL-S<TAB>CPU-S<TAB>HOW" in costs.<pid>, where
# HOW says what the CPU time counts:
#   * "cgroup": the file runs in a cgroup of its own under
#     FLAKEID_MEASURE_CGROUP (a cgroup v1 cpuacct directory that root made
#     and gave to the test's user): every process it made, servers too;
#   * "children": without such a cgroup, this process and the children it
#     reaped (not its servers, which pg_ctl detaches).
# And reg.<pid>, holding LABEL/FILE, which scripts/forks_traced reads to
# count the processes this one and its descendants create.
#
# It never fails a test: whatever it cannot do, it leaves undone.
package FlakeidMeasure;

use strict;
use warnings;
use Time::HiRes ();

my ($began, $file, $dir, $cgroup, $label);

sub slurp
{
	my ($path) = @_;
	open(my $fh, '<', $path) or return undef;
	local $/;
	my $text = <$fh>;
	close($fh);
	return $text;
}

sub spit
{
	my ($path, $text) = @_;
	open(my $fh, '>', $path) or return 0;
	my $ok = print $fh $text;
	return close($fh) && $ok;
}

BEGIN
{
	$dir = $ENV{FLAKEID_MEASURE_DIR};
	if ($dir && $0 =~ m{(?:^|/)(test/t/[^/]+\.pl)$} && -d $dir && -w $dir)
	{
		$file = $1;
		$began = Time::HiRes::time();
		$label = $ENV{FLAKEID_MEASURE_LABEL} // 'tap';
		# (before this process forks anything: the tracer labels a fork by its parent)
		spit("$dir/reg.$$", "$label/$file");
		my $parent = $ENV{FLAKEID_MEASURE_CGROUP};
		if ($parent && -d $parent && -w $parent)
		{
			my $mine = "$parent/" . ($file =~ s{.*/}{}r) . ".$$";
			$cgroup = $mine if mkdir($mine) && spit("$mine/cgroup.procs", "$$\n");
		}
	}
}

END
{
	if (defined $file)
	{
		my $wall = Time::HiRes::time() - $began;
		my ($cpu, $how);
		if ($cgroup && defined(my $ns = slurp("$cgroup/cpuacct.usage")))
		{
			($cpu, $how) = ($ns / 1e9, 'cgroup');
			# out of it again, so that it can go (a process the file left
			# running keeps it, and its CPU was counted up to now)
			spit("$ENV{FLAKEID_MEASURE_CGROUP}/cgroup.procs", "$$\n");
			rmdir($cgroup);
		}
		else
		{
			my ($user, $system, $cuser, $csystem) = times;
			($cpu, $how) = ($user + $system + $cuser + $csystem, 'children');
		}
		spit("$dir/costs.$$", sprintf("%s\t%s\t%.1f\t%.1f\t%s\n", $label, $file, $wall, $cpu, $how));
	}
}

1;
