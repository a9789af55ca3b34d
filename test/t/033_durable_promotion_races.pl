# Two races of a promotion (the 1.2 review, findings 1 and 2), each held
# open with flakeid.debug_pause_at (allowed on these servers only).
#
# 1. A first call during promotion.  A primary whose clock ran 2 minutes
#    ahead minted snowflakes after its standbys' base backups, so the
#    standbys' counters still hold the backups' marks and the primary's
#    later bounds wait, replayed, until recovery ends.  A call that looked
#    at recovery just before the promotion ended it must refuse (55000),
#    never issue from the old counter; clients calling in a loop through the
#    promotion get nothing at or below the old primary's last snowflake.
#    (The pause at recovery_decided ends as soon as recovery does, before
#    the renewer's next pass takes the bounds up: the window of the race.)
#    1.2 looked at recovery twice (before taking the bounds up, and before
#    refusing), and issued below it.
# 2. A back-fill draw across a new lifetime.  On a generating standby a
#    back-fill draws a unit's first sequence, then the promotion's take-up
#    begins a new back-fill lifetime whose first draw of the same unit is
#    that same sequence.  1.2 returned it from both.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $primary = flakeid_node('promote_primary', 'flakeid.allow_debug_clock_offset' => 'on',
	'flakeid.snowflake_worker' => 3, 'flakeid.snowflake_process' => 4);
$primary->safe_psql('postgres', 'SELECT snowflake_new() FROM generate_series(1, 1000)');
my ($plain) = flakeid_standby($primary, 'promote_plain');
my ($looped) = flakeid_standby($primary, 'promote_looped');
my ($generating) = flakeid_standby($primary, 'promote_generating');
restart_with($generating, 'flakeid.generate_on_standby' => 'on', 'flakeid.snowflake_worker' => 5);

# the primary's clock 2 minutes ahead: its marks move there, through the WAL only
my $last = $primary->safe_psql('postgres',
	'SET flakeid.debug_clock_offset_ms = 120000; SELECT max(snowflake_new()) FROM generate_series(1, 20000)');
my $lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
for my $standby ($plain, $looped, $generating)
{
	$standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn")
	  or die 'the standby did not replay the primary\'s marks';
}
$primary->stop('immediate');    # fenced: it mints nothing more

# --- 1. a first call during promotion --------------------------------------------------------
my $paused = psql_start($plain,
	"SET flakeid.debug_pause_at = 'recovery_decided'; SET flakeid.debug_pause_ms = 60000;
	 SELECT snowflake_new()");
# loops: each call a first one of its backend, until 50 IDs came after the promotion
my $loop = q{
DO $$
DECLARE got int := 0; id bigint;
BEGIN
    FOR i IN 1 .. 200000 LOOP
        BEGIN
            id := snowflake_new();
            RAISE NOTICE 'minted %', id;
            got := got + 1;
            EXIT WHEN got >= 50;
        EXCEPTION WHEN object_not_in_prerequisite_state THEN
            PERFORM pg_sleep(0.001);
        END;
    END LOOP;
END $$};
ok($plain->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%SELECT snowflake_new()' AND wait_event = 'Extension'"),
	'a first snowflake_new() pauses after it looked at recovery');
$plain->promote;
my ($status, $out, $err) = psql_finish($paused);
ok(($status != 0 && $err =~ /cannot generate IDs during recovery/) || ($status == 0 && $out > $last),
	'the call that saw recovery before the promotion ended it refuses (55000), or issues above the old primary\'s last')
  or diag("status $status, out $out, err $err, old primary's last $last");
# (on a standby of their own: their first calls after the promotion would take the bounds up before the paused one goes on)
my @loops = map { psql_start($looped, $loop) } 1 .. 3;
$looped->poll_query_until('postgres', "SELECT count(*) = 3 FROM pg_stat_activity WHERE query LIKE '%minted%' AND pid <> pg_backend_pid()")
  or die 'the looping clients did not start';
$looped->promote;
my @minted;
for my $job (@loops)
{
	my ($loop_status, undef, $loop_err) = psql_finish($job);
	is($loop_status, 0, 'a client calling in a loop through the promotion ends') or diag($loop_err);
	push @minted, $loop_err =~ /minted (\d+)/g;
}
is(scalar(@minted), 150, 'the looping clients got 150 snowflakes after the promotion');
is(scalar(grep { $_ <= $last } @minted), 0, 'none at or below the old primary\'s last snowflake');

# --- 2. a back-fill draw across a new lifetime -------------------------------------------------
my $at = "'2024-01-01 00:00:00.001+00'";
my $drawing = psql_start($generating,
	"SET flakeid.debug_pause_at = 'backfill_drawn'; SET flakeid.debug_pause_ms = 3000;
	 SELECT snowflake_new_at($at)");
ok($generating->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%snowflake_new_at%' AND wait_event = 'Extension'"),
	'a back-fill on the generating standby pauses after drawing its sequence');
$generating->promote;
# the take-up of the old primary's bounds begins a new lifetime; this call draws the unit's first sequence in it
my $after = $generating->safe_psql('postgres', "SELECT snowflake_new_at($at)");
($status, $out, $err) = psql_finish($drawing);
is($status, 0, 'the paused back-fill returns') or diag($err);
isnt($out, $after, 'the draw across the new lifetime and the first draw in it differ')
  or diag("both $out");
my $more = $generating->safe_psql('postgres', "SELECT count(DISTINCT id) FROM (SELECT snowflake_new_at($at) AS id FROM generate_series(1, 100)
	UNION ALL SELECT '$out'::bigint UNION ALL SELECT '$after'::bigint) ids");
is($more, 102, 'and 100 more back-filled in that unit repeat neither');

stop_checked($plain, $looped, $generating);
done_testing();
