# Lowering max_prepared_transactions leaves every horizon working (issue 59,
# item 6).  Three transactions that issued IDs are prepared, then
# committed, with no horizon call between, so flakeid.prepared still names
# them; the server restarts with max_prepared_transactions = 0.  b583abf's
# table held twice max_prepared_xacts holdings and called a file with more
# "damaged": every *_horizon() failed with XX001.  Now the file is read
# whatever its size (what does not fit is held by one overflow entry), and
# the holdings of transactions that no longer exist are dropped at the
# first horizon.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my @generators = formats(stateful => 't');
my $node = flakeid_node('prep_lowered', max_prepared_transactions => 10);
sub psql_on { my ($sql) = @_; return $node->safe_psql('postgres', $sql); }

psql_on(join('', map { "CREATE TABLE ids_$_->{format} (id $_->{type});\n" } @generators));
for my $gid (1 .. 3)
{
	psql_on('BEGIN; ' . join('', map { "INSERT INTO ids_$_->{format} SELECT $_->{new};\n" } @generators)
		  . "PREPARE TRANSACTION 'p$gid'");
}
psql_on("COMMIT PREPARED 'p$_'") for 1 .. 3;
$node->append_conf('postgresql.conf', "max_prepared_transactions = 0\n");
$node->restart;
is(log_count($node, qr/is damaged/), 0, 'the log calls no file damaged');
for my $g (@generators)
{
	my $f = $g->{format};
	is(sqlstate_of($node, "SELECT ${f}_horizon()"), 'ok', "$f: the horizon works with max_prepared_transactions = 0");
	ok($node->poll_query_until('postgres', "SELECT ${f}_horizon() > max(id) FROM ids_$f"),
		"$f: and passes the IDs of the committed transactions");
}
stop_checked($node);
done_testing();
