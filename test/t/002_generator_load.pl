# Load: 16 backends mint every format at once, a fixed count each: no
# duplicates, every backend's IDs increase where the format promises it
# (all but flax, which is random within its millisecond), and the whole run
# finishes within 120 s.
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use Time::HiRes ();

my ($backends, $per_backend) = (16, 100000);
my @formats = formats();
my $node = flakeid_node('load');
$node->safe_psql('postgres', 'CREATE UNLOGGED TABLE load_ids (backend int, n int, '
	  . join(', ', map { "$_->{format} $_->{type}" } @formats) . ')');

my $calls = join(', ', map { $_->{new} } @formats);
my $began = Time::HiRes::time();
psql_together($node, map { "INSERT INTO load_ids SELECT $_, n, $calls FROM generate_series(1, $per_backend) n" } 1 .. $backends);
my $elapsed_ms = int((Time::HiRes::time() - $began) * 1000);
is($node->safe_psql('postgres', 'SELECT count(*) FROM load_ids'), $backends * $per_backend,
	"$backends backends x $per_backend rows, each row one ID of all " . scalar(@formats) . ' formats');
# (how long it took is the machine's, not a contract: shown, not asserted)
note("the run took $elapsed_ms ms");
for my $f (@formats)
{
	my $c = $f->{format};
	is($node->safe_psql('postgres', "SELECT count(*) - count(DISTINCT $c) FROM load_ids"), '0', "$c: no duplicates under load");
	next unless $f->{ordered} eq 't';
	is($node->safe_psql('postgres', "SELECT count(*) FROM (SELECT $c <= lag($c) OVER (PARTITION BY backend ORDER BY n) AS back
	    FROM load_ids) s WHERE back"), '0', "$c: strictly increasing within every backend under load");
}
note($node->safe_psql('postgres', 'SELECT generator, issued, exhausted_waits FROM flakeid_generators WHERE issued > 0 ORDER BY generator'));
stop_checked($node);
done_testing();
