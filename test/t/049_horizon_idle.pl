# An idle server writes nothing; polled for horizons, at most two saves a
# second (issue 59, item 8, which the docs now say): a horizon closes the
# counters through the clock's last unit, and must hold across a crash, so
# the calls keep the marks past it.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();

my $node = flakeid_node('idle_horizon');
my $state = $node->data_dir . '/flakeid.state';
sub sql { return $node->safe_psql('postgres', $_[0]); }
sub file_id { my @st = Time::HiRes::stat($state); return "$st[1] $st[9]"; }
my @horizons = map { "$_->{format}_horizon()" } formats(stateful => 't');

# IDs minted, then idle: wait (30 s at most) until the file has not changed for 3 s
sql('SELECT ' . join(', ', map { $_->{new} } formats(stateful => 't')));
my ($last, $since, $settled) = (file_id(), Time::HiRes::time(), 0);
for (1 .. 300)
{
	my $now = file_id();
	($last, $since) = ($now, Time::HiRes::time()) if $now ne $last;
	last if $settled = Time::HiRes::time() - $since >= 3;
	Time::HiRes::sleep(0.1);
}
ok($settled, 'after its IDs, the idle server stops renewing the mark');

# idle and not polled: nothing written
my $before = file_id();
my $lsn = sql('SELECT pg_current_wal_insert_lsn()');
ok(!poll_until(sub { file_id() ne $before }, timeout => 4), 'idle and not polled for 4 s: the state file is not rewritten');
cmp_ok(sql("SELECT pg_current_wal_insert_lsn() - '$lsn'::pg_lsn"), '<', 1000, 'and next to no WAL is written');

# Polled: a horizon must hold across a crash, so the mark is kept past it,
# and a closing renews it (2 s ahead) once within 1 s of it: sno's mark and
# the other generators' one each, so at most two saves a second, made by
# the polling calls (as in 1.3; its renewer renewed for the closings too).
# Counted by the server's clock: each save is a new file (a new inode and
# mtime).
my ($polls, $saves, $seen) = (0, 0, file_id());
my $began = sql('SELECT extract(epoch FROM clock_timestamp())');
my $elapsed = 0;
while ($elapsed < 6)
{
	$elapsed = sql('SELECT ' . join(', ', @horizons) . ', extract(epoch FROM clock_timestamp()) - ' . $began) =~ s/^.*\|//r;
	$polls++;
	my $now = file_id();
	($saves, $seen) = ($saves + 1, $now) if $now ne $seen;
	Time::HiRes::sleep(0.05);
}
cmp_ok($saves, '<=', 2 * (int($elapsed) + 1),
	sprintf('%d polls of every horizon over %.1f s: %d saves, at most two a second (sno\'s mark and the others\')', $polls, $elapsed, $saves));

# minting again renews as before
sql('SELECT sno_new() FROM generate_series(1, 10)');
my $renewed = 0;
for (1 .. 100)
{
	sql('SELECT snowflake_new()');
	last if $renewed = file_id() ne $before;
	Time::HiRes::sleep(0.1);
}
ok($renewed, 'IDs minted on: the mark is renewed (within 10 s)');
stop_checked($node);
done_testing();
