# Clock faults in a live server: one session steps the generators' clock
# (flakeid.debug_clock_offset_ms) back to one unit (50 for sno), one second
# and ten seconds below its first IDs, going forward to the wall clock in
# between, and mints IDs at every step, for every stateful generator.
# sno must toggle tick-tock on the first step back and wait on a second
# one into the unsafe period; the others must count on from the last used
# unit.  No ID may repeat, and the others keep their order across steps.
# Only a superuser may shift the clock; a long wait shows its wait event,
# and a cancel ends it.
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use Time::HiRes ();

my $per_step = 2000;
my $node = flakeid_node('clock', 'flakeid.allow_debug_clock_offset' => 'on');
sub sql { return $node->safe_psql('postgres', $_[0]); }
sub sql_as { my ($role, $sql) = @_; local $ENV{PGUSER} = $role; return $node->safe_psql('postgres', $sql); }
sql('CREATE TABLE clock_ids (generator text, step int, offset_ms int, n int, id text, t timestamptz, ticktock int)');

# steps(FORMAT, UNIT-MS, TICKTOCK-EXPR): mints $per_step IDs at each clock offset, in one session
sub steps
{
	my ($f, $unit_ms, $ticktock) = @_;
	my ($name, $step, $script) = ($f->{format}, 0, 'SET client_min_messages = warning;');
	for my $back (0, $unit_ms, 0, 1000, 0, 10000, 0)
	{
		$step++;
		# A step back is taken from the first step's last ID, in the
		# statement that mints, so the time between statements (20 ms once
		# on a CI machine) cannot leave the clock no longer behind the IDs.
		my $offset = $back == 0 ? '0'
		  : "(extract(epoch FROM (SELECT max(t) FROM clock_ids WHERE generator = '$name' AND step = 1) - clock_timestamp()) * 1000)::int - $back";
		$script .= "DO \$\$ BEGIN
			PERFORM set_config('flakeid.debug_clock_offset_ms', ($offset)::text, false);
			INSERT INTO clock_ids SELECT '$name', $step, current_setting('flakeid.debug_clock_offset_ms')::int, n, x::text, $f->{time}(x), "
		  . ($ticktock // 'NULL') . "
			FROM (SELECT n, $f->{new} AS x FROM generate_series(1, $per_step) n) s;
			END \$\$;";
	}
	sql($script);
	is(sql("SELECT count(*) FROM clock_ids WHERE generator = '$name'"), 7 * $per_step,
		"$name: $per_step IDs minted at each of 7 clock offsets");
}

# sno's first step back is 50 units (200 ms), a fraction of the 1 s step that
# must land in the unsafe period, and well beyond the coarse clock's jumps of
# up to 8 ms (one unit failed a run on such a jump).  kuid's tick is 1.024 ms.
my %unit_ms = (sno => 200, kuid => 2, kuid96 => 2);
my @stateful = formats(stateful => 't');
for my $f (@stateful)
{
	steps($f, $unit_ms{ $f->{format} } // 1, $f->{format} eq 'sno' ? 'sno_ticktock(x)' : undef);
}
for my $f (@stateful)
{
	my $g = $f->{format};
	is(sql("SELECT count(*) - count(DISTINCT id) FROM clock_ids WHERE generator = '$g'"), '0',
		"$g: no duplicates over 7 clock steps (back 1 unit, 1 s, 10 s, forward in between)");
}

# the monotonic generators but sno: one order across every step, and time never goes back
for my $f (grep { $_->{format} ne 'sno' } @stateful)
{
	my ($g, $type) = ($f->{format}, $f->{type});
	is(sql("SELECT count(*) FROM (SELECT id::$type AS id, lag(id::$type) OVER (ORDER BY step, n) AS prev
	        FROM clock_ids WHERE generator = '$g') s WHERE prev >= id"), '0',
		"$g: IDs strictly increase across the steps back (counting on from the last used unit)");
	is(sql("SELECT count(*) FROM (SELECT step, min(t) AS first FROM clock_ids WHERE generator = '$g' GROUP BY step) a
	        JOIN (SELECT step, max(t) AS last FROM clock_ids WHERE generator = '$g' GROUP BY step) b ON b.step = a.step - 1
	        WHERE a.first < b.last"), '0', "$g: after a step back the time carries on from the last used unit");
}

# sno (spec §5.1): the first step back toggles tick-tock at once, the IDs
# going back in time.  A later step back into the unsafe period (times
# both tick-tock values have covered) waits until the clock has left it:
# then the generator either goes on in its last unit or toggles again,
# and a toggled value is only ever taken up after its last earlier ID.
sub sno_step { my ($agg, $where) = @_; return "(SELECT $agg(t) FROM clock_ids WHERE generator = 'sno' AND $where)"; }
my $first_ticktock = sql("SELECT string_agg(DISTINCT ticktock::text, ',') FROM clock_ids WHERE generator = 'sno' AND step = 1");
like($first_ticktock, qr/^[01]$/, "sno: one tick-tock ($first_ticktock) before any step back");
my $toggled = $first_ticktock eq '1' ? 0 : 1;
is(sql("SELECT min(ticktock) || ',' || max(ticktock) || ',' || (" . sno_step('min', 'step = 2') . ' < ' . sno_step('max', 'step = 1')
	  . ")::text FROM clock_ids WHERE generator = 'sno' AND step = 2"),
	"$toggled,$toggled,true", 'sno: the first step back (50 units) toggles tick-tock without waiting: IDs go back in time');
is(sql('SELECT ' . sno_step('min', 'step = 4') . ' > ' . sno_step('max', 'step = 1')), 't',
	'sno: the second step back (1 s) waits until the clock has left the unsafe period');
is(sql('SELECT ' . sno_step('min', 'step = 6') . ' > ' . sno_step('max', 'step = 1')), 't', 'sno: the third step back (10 s) waits likewise');
is(sql("SELECT count(*) FROM clock_ids a WHERE generator = 'sno' AND step > 1
        AND t < (SELECT max(t) FROM clock_ids b WHERE b.generator = 'sno' AND b.ticktock = a.ticktock AND b.step < a.step)
        AND ticktock <> (SELECT ticktock FROM clock_ids c WHERE c.generator = 'sno' AND c.step = a.step - 1 ORDER BY n DESC LIMIT 1)"),
	'0', 'sno: a toggled tick-tock is never used below an earlier ID of the same tick-tock');
is(sql("SELECT exhausted_waits >= 2 FROM flakeid_generators WHERE generator = 'sno'"), 't', 'sno: flakeid_generators counts the waits');
is(sql("SELECT count(*) FROM (SELECT step, id::sno AS id, lag(id::sno) OVER (PARTITION BY step ORDER BY n) AS prev
        FROM clock_ids WHERE generator = 'sno') s WHERE prev >= id"), '0', 'sno: within each step, IDs strictly increase');

# the view saw it
is(sql("SELECT string_agg(generator || ':' || (clock_regressions > 0)::text, ' ' ORDER BY generator) FROM flakeid_generators
        WHERE generator IN ('sno', 'siq user', 'kuid', 'snowflake')"),
	'kuid:true siq user:true sno:true snowflake:true', 'flakeid_generators counts the clock regressions of every generator');

# only a superuser may shift the clock
is(sqlstate_of($node, 'CREATE ROLE clock_tester; SET ROLE clock_tester; SET flakeid.debug_clock_offset_ms = -1000'), '42501',
	'flakeid.debug_clock_offset_ms is superuser-only (42501 for others)');
is(sqlstate_of($node, 'CREATE ROLE clock_granted; GRANT SET ON PARAMETER flakeid.debug_clock_offset_ms TO clock_granted;
	SET ROLE clock_granted; SET flakeid.debug_clock_offset_ms = -1000'), '42501',
	'and stays so whatever is granted: GRANT SET ON PARAMETER does not open it (42501)');
# ... through every source a role's value can come from (1.2 took the
# startup packet's and the login's ALTER ROLE/DATABASE values unchecked:
# an application role's IDs ran an hour ahead)
sql('CREATE ROLE clock_login LOGIN; GRANT SET ON PARAMETER flakeid.debug_clock_offset_ms TO clock_login;
	GRANT SET ON PARAMETER flakeid.debug_pause_ms TO clock_login');
like(message_of($node, 'SHOW flakeid.debug_clock_offset_ms',
		env => { PGUSER => 'clock_login', PGOPTIONS => '-c flakeid.debug_clock_offset_ms=3600000' }, refused => 1),
	qr/FATAL:  invalid value for parameter "flakeid.debug_clock_offset_ms": 3600000/,
	'PGOPTIONS from a role granted SET: the connection is refused');
like(message_of($node, 'SHOW flakeid.debug_pause_ms', env => { PGUSER => 'clock_login', PGOPTIONS => '-c flakeid.debug_pause_ms=1000' },
		refused => 1),
	qr/FATAL:  invalid value for parameter "flakeid.debug_pause_ms"/, 'the same for flakeid.debug_pause_ms');
sql("ALTER ROLE clock_login SET flakeid.debug_clock_offset_ms = 3600000");
is(sql_as('clock_login', 'SHOW flakeid.debug_clock_offset_ms'), '0', 'ALTER ROLE ... SET by a superuser: the role logs in with no offset');
sql("ALTER DATABASE postgres SET flakeid.debug_pause_ms = 1000");
is(sql_as('clock_login', 'SHOW flakeid.debug_pause_ms'), '0', 'ALTER DATABASE ... SET: no pause either');
like(message_of($node, 'SELECT 1', env => { PGUSER => 'clock_login' }),
	qr/WARNING:  invalid value for parameter "flakeid.debug_clock_offset_ms": 3600000\nDETAIL:  Only superusers may set this, whatever is granted on the parameter\./, 'and is told why');
sql("ALTER ROLE clock_login RESET ALL; ALTER DATABASE postgres RESET ALL");
note(sql("SELECT step, min(t), max(t), min(ticktock), max(ticktock) FROM clock_ids WHERE generator = 'sno' GROUP BY step ORDER BY step"));

# A long wait (a second step back of 30 s into sno's unsafe period) shows its
# wait event in pg_stat_activity, and a cancel ends it at once.
my $event = sql('SHOW server_version_num') < 170000 ? 'Extension:Extension' : 'Extension:FlakeidUnitWait';
my $waiter = psql_start($node, "SET client_min_messages = warning;
	SET flakeid.debug_clock_offset_ms = 0; SELECT sno_new();
	SET flakeid.debug_clock_offset_ms = -30000; SELECT sno_new();
	SET flakeid.debug_clock_offset_ms = 0; SELECT sno_new();
	SET flakeid.debug_clock_offset_ms = -30000; SELECT sno_new();",
	env => { PGAPPNAME => 'flakeid_waiter' }, extra => [ '-v', 'VERBOSITY=sqlstate' ]);
my $seen = '';
poll_until(sub { ($seen = sql("SELECT wait_event_type || ':' || wait_event FROM pg_stat_activity
	             WHERE application_name = 'flakeid_waiter' AND state = 'active'")) eq $event });
is($seen, $event, "a sno_new() waiting out the unsafe period shows the wait event $event");
# (the waiter picked first: a qual the planner may test before the name would cancel every backend)
my ($waiter_pid, $cancelled_at) = split /\|/, sql("SELECT pid, extract(epoch FROM clock_timestamp())
	FROM (SELECT pid FROM pg_stat_activity WHERE application_name = 'flakeid_waiter' OFFSET 0) w WHERE pg_cancel_backend(pid)");
my ($status, $out, $err) = psql_finish($waiter);
like($err, qr/ERROR:\s+57014/, 'pg_cancel_backend() ends the wait with 57014');
# "A query cancel ... ends it at once" (docs/OPERATIONS.md, "Waiting"; the
# wait sleeps 10 ms at a time): from the cancel to its ERROR in the log, on
# the server's clock, within 1 s, not the rest of its 30 s
my ($ended_at) = log_times($node, qr/\[$waiter_pid\] flakeid_waiter ERROR:  canceling statement due to user request/);
my $took = defined $ended_at ? $ended_at - $cancelled_at : undef;
ok(defined $took && $took < 1, 'the cancelled call did not wait out its 30 s: it ended '
	. (defined $took ? sprintf('%.3f s', $took) : '(no ERROR logged)') . ' after the cancel');
stop_checked($node);
done_testing();
