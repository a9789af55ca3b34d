# The mark renewer allocates per pass in a context it resets (issue 59,
# item 2): 1.3's loop leaked about 150 bytes a save into TopMemoryContext.
# Its RSS (/proc/PID/status, VmRSS) must grow by less than 5 MB over its
# saves: 30,000 in the suite (about 95 s; 1.3 grew 6 MB), 100,000 with
# FLAKEID_RENEWER_SAVES=100000 (5.5 minutes; this tree +3.9 MB, 1.3 +20.4 MB).
#
# The cheapest way to make the renewer save at once, over and over: a
# superuser session issues a snowflake 1.25 s before the saved mark (its
# clock shifted with flakeid.debug_clock_offset_ms), which is within the
# renewer's 1.5 s but outside the callers' own 1 s, so only the renewer
# renews, moving the mark 0.75 s on; pg_reload_conf() wakes it from its
# 100 ms nap (its SIGHUP handler sets its latch).  The session waits up to
# 2 s for each save, reading the mark from flakeid.state.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $saves = $ENV{FLAKEID_RENEWER_SAVES} // 30000;
my $node = flakeid_node('renewer_memory', 'flakeid.allow_debug_clock_offset' => 'on', 'log_statement' => 'none');
sub sql { return $node->safe_psql('postgres', $_[0]); }
sql('SELECT snowflake_new()');
sql(q{
CREATE FUNCTION saved_mark() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	-- version 4: entries (tag 2 bytes, flags 2, length 4, payload) after a 16-byte header; the
	-- monotonic mark is 9 bytes into the payload of the first MARKS entry (tag 3): side 0's
	f bytea := pg_read_binary_file('flakeid.state');
	at int := 16;
	v bigint := 0;
BEGIN
	WHILE get_byte(f, at) <> 3 OR get_byte(f, at + 1) <> 0 LOOP
		at := at + 8 + get_byte(f, at + 4) + (get_byte(f, at + 5) << 8) + (get_byte(f, at + 6) << 16);
	END LOOP;
	FOR i IN REVERSE 7..0 LOOP
		v := (v << 8) | get_byte(f, at + 17 + i);
	END LOOP;
	RETURN v;
END $$;
CREATE FUNCTION renewer_saves(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	mark bigint;
	clock bigint;
	saves int := 0;
	deadline timestamptz;
BEGIN
	FOR k IN 1..n LOOP
		mark := saved_mark();
		clock := (extract(epoch FROM clock_timestamp()) * 1e6)::bigint;
		PERFORM set_config('flakeid.debug_clock_offset_ms', ((mark - 1250000 - clock) / 1000)::text, false);
		PERFORM snowflake_new();
		PERFORM pg_reload_conf();
		deadline := clock_timestamp() + interval '2 s';
		WHILE saved_mark() = mark AND clock_timestamp() < deadline LOOP
			PERFORM pg_sleep(0.0001);
		END LOOP;
		IF saved_mark() <> mark THEN
			saves := saves + 1;
		END IF;
	END LOOP;
	RETURN saves;
END $$;
});
is(sql('SELECT saved_mark()'), (state_file_fields($node->data_dir))[2], 'saved_mark() reads the monotonic mark of flakeid.state');

my $pid = sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'flakeid mark renewer'");
sub rss_kb
{
	open(my $fh, '<', "/proc/$pid/status") or die "/proc/$pid/status: $!";
	my ($kb) = join('', <$fh>) =~ /^VmRSS:\s+(\d+) kB/m;
	return $kb;
}
my $ws = 2000;
is(sql("SELECT renewer_saves($ws)"), $ws, "warm-up: $ws saves, each the renewer's");
my $before = rss_kb();
my $started = time;
my $done = sql("SELECT renewer_saves($saves)");
my $grown = rss_kb() - $before;
note(sprintf('%d saves in %d s; renewer VmRSS %d kB before, grown by %d kB', $done, time - $started, $before, $grown));
cmp_ok($done, '>=', $saves * 0.99, "the renewer saved at least 99% of $saves times ($done)");
is(sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'flakeid mark renewer'"), $pid, 'the same renewer process throughout');
cmp_ok($grown, '<', 5 * 1024, "the renewer's RSS grew by less than 5 MB over $done saves ($grown kB)");
stop_checked($node);
done_testing();
