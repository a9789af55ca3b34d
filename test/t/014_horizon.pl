# The horizon, <type>_horizon(): for each generator, an open transaction's
# ID holds the horizon below IDs committed after it; once every transaction
# has ended the horizon lies above every issued ID; IDs minted after a call
# are at or above its value.  Savepoints, parallel workers, prepared
# transactions (across their backend's exit and a restart), a clock step
# back (sno and kuid), and the poller model check: 16 writers of 4,000 rows
# each with random sleeps before commit, read by the README's poller,
# directly (and a quarter as many through pgbouncer in transaction mode),
# must give every committed row exactly once; a naive "after the last ID
# seen" poller running alongside must miss some (the negative control).
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();

my ($writers, $rows) = (16, 4000);
my $node = flakeid_node('horizon', 'flakeid.allow_debug_clock_offset' => 'on', max_prepared_transactions => 10);
my $observer = session($node);
sub one { return $observer->query($_[0]); }
sub below   # below(TYPE, A, B): A < B in the type's own order
{
	my ($type, $a, $b) = @_;
	return one("SELECT '$a'::$type < '$b'::$type") eq 't';
}

# --- the contract, generator by generator -------------------------------------------------
for my $f (formats(stateful => 't'))
{
	my ($name, $type, $call) = @$f{qw(format type new)};
	my $horizon = "SELECT ${name}_horizon()::text";
	my $holder = session($node);    # a transaction left open
	$holder->query('BEGIN');
	my $held = $holder->query("SELECT ${call}::text");
	my $committed = one("SELECT ${call}::text");
	my $h = one($horizon);
	ok(!below($type, $held, $h), "$name: an open transaction's ID holds the horizon at or below it")
	  or diag("held $held, horizon $h");
	ok(below($type, $h, $committed) || $h eq $held, "$name: so an ID committed after it lies at or above the horizon")
	  or diag("$committed vs $h");
	$holder->query('COMMIT');
	$holder->close;
	# the horizon is the clock's unit at most: it passes an ID once the clock has left the ID's unit
	wait_clock_past($node, "$f->{time}('$committed'::$type)");
	$h = one($horizon);
	ok(below($type, $committed, $h) && below($type, $held, $h),
		"$name: once every transaction has ended and the clock has left the last ID's unit, the horizon lies above every issued ID")
	  or diag($h);
	my $after = one("SELECT ${call}::text");
	ok(!below($type, $after, $h), "$name: an ID minted after the call is at or above it") or diag("$after vs $h");
	is(one("SELECT pg_typeof(${name}_horizon())::text"), $type, "${name}_horizon() returns $type");
}

# siq's kinds have counters of their own: an idle kind does not hold the horizon back
my $siq_a = one("SELECT siq_new('message')::text");
wait_clock_past($node, "siq_time('$siq_a')");
ok(below('siq', $siq_a, one('SELECT siq_horizon()::text')), "siq: the horizon passes an idle kind's last ID");

# --- savepoints and parallel workers ---------------------------------------------------------
for my $case ([ 'released savepoint', 'RELEASE a' ], [ 'rolled-back savepoint', 'ROLLBACK TO a' ])
{
	my ($how, $ending) = @$case;
	my $holder = session($node);
	$holder->query('BEGIN');
	$holder->query('SAVEPOINT a');
	my $held = $holder->query('SELECT sno_new(0)::text');
	$holder->query($ending);
	ok(!below('sno', $held, one('SELECT sno_horizon()::text')),
		"sno: an ID minted in a $how still holds the horizon until the transaction ends");
	$holder->query('ROLLBACK');
	$holder->close;
}

one('CREATE TABLE horizon_rows AS SELECT g FROM generate_series(1, 200000) g; ANALYZE horizon_rows');
my $holder = session($node);
$holder->query('BEGIN');
$holder->query('SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
                SET max_parallel_workers_per_gather = 2');
my $plan = $holder->query('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
                           CREATE TABLE horizon_parallel AS SELECT sno_new(0) AS id FROM horizon_rows');
my ($launched) = $plan =~ /Workers Launched: (\d+)/;
my $lowest = $holder->query('SELECT min(id)::text FROM horizon_parallel');
SKIP:
{
	skip("sno: IDs minted by parallel workers hold the horizon (no parallel worker was launched: $plan)", 1)
	  unless $launched;
	ok(!below('sno', $lowest, one('SELECT sno_horizon()::text')),
		"sno: IDs minted by $launched parallel workers hold the horizon after the workers exit, until the leader commits");
}
$holder->query('ROLLBACK');
$holder->close;
ok(below('sno', $lowest, one('SELECT sno_horizon()::text')), "sno: the leader's end releases what its workers held");

# --- prepared transactions ------------------------------------------------------------------
for my $ending ('COMMIT PREPARED', 'ROLLBACK PREPARED')
{
	my $preparer = session($node);
	$preparer->query('BEGIN');
	my $prepared = $preparer->query('SELECT sno_new(0)::text');
	$preparer->query("PREPARE TRANSACTION 'horizon_2pc'");
	$preparer->close;    # its backend exits
	my $later = one('SELECT sno_new(0)::text');
	# the same wait as below, with the transaction still prepared: the clock alone would let the horizon pass it
	wait_clock_past($node, "sno_time('$later')");
	ok(!below('sno', $prepared, one('SELECT sno_horizon()::text')),
		"sno: a prepared transaction holds the horizon after its backend exits, the clock past its unit ($ending case)");
	if ($ending eq 'COMMIT PREPARED')
	{
		$observer->close;
		$node->restart;
		$observer = session($node);
		ok(!below('sno', $prepared, one('SELECT sno_horizon()::text')), 'sno: ... and across a restart');
	}
	one("$ending 'horizon_2pc'");
	wait_clock_past($node, "sno_time('$later')");
	my $h = one('SELECT sno_horizon()::text');
	ok(below('sno', $later, $h) && below('sno', $prepared, $h),
		"sno: $ending releases it: once the clock has left the last ID's unit, the horizon lies above every issued ID")
	  or diag("prepared $prepared, later $later, horizon $h");
}

# --- who holds the horizon back: flakeid_horizon_holders ----------------------------------
{
	my $open = session($node);
	my $open_pid = $open->query('SELECT pg_backend_pid()');
	$open->query('BEGIN');
	# (the clock, then an sno ID of another session: the unit the transaction holds from is sno's
	# last used unit when it first issues, which an idle generator leaves however far back its last
	# ID lay (a run on a loaded machine: more than 1 s after the restart above); so not before this)
	my $before_first = $open->query('SELECT clock_timestamp()');
	one('SELECT sno_new()');
	my $open_id = $open->query('SELECT sno_new()::text');
	my $open_xid = $open->query('SELECT txid_current()');
	$open->query("SELECT kuid_new(), siq_new('event')");
	my $preparer = session($node);
	$preparer->query('BEGIN');
	my $prepared_id = $preparer->query('SELECT snowflake_new()');
	my $prepared_xid = $preparer->query('SELECT txid_current()');
	$preparer->query("PREPARE TRANSACTION 'holders_2pc'");
	$preparer->close;
	is(one("SELECT string_agg(format('%s|%s|%s|%s|%s', generator, CASE WHEN pid IS NULL THEN 'none' WHEN pid = $open_pid THEN 'open' END,
	                                  transaction::text, gid, prepared), ' ' ORDER BY generator)
	        FROM flakeid_horizon_holders"),
		"kuid|open|$open_xid||f siq event|open|$open_xid||f sno|open|$open_xid||f snowflake|none|$prepared_xid|holders_2pc|t",
		'flakeid_horizon_holders: the open transaction (pid, xid) per generator it used, and the prepared one (gid, no pid)');
	is(one("SELECT held_from <= sno_time('$open_id') AND held_from > '$before_first'::timestamptz - interval '1 s'
	        FROM flakeid_horizon_holders WHERE generator = 'sno'"), 't',
		'held_from is at or before the unit of the first ID, and not before the clock read before the call');
	is(one("SELECT held_from <= snowflake_time($prepared_id) FROM flakeid_horizon_holders WHERE prepared"), 't',
		'and for the prepared transaction too');
	$open->query('COMMIT');
	$open->close;
	one("COMMIT PREPARED 'holders_2pc'");
	is(one('SELECT count(*) FROM flakeid_horizon_holders'), '0', 'once both end, nothing holds the horizon');
	$node->safe_psql('postgres', 'CREATE ROLE holder_app LOGIN; CREATE ROLE holder_watch LOGIN IN ROLE pg_monitor');
	is(join(' ', map { sqlstate_of($node, $_, env => { PGUSER => 'holder_app' }) }
			'SELECT * FROM flakeid_horizon_holders', 'SELECT * FROM flakeid_horizon_holders()'),
		'42501 42501', 'a plain role reads neither the view nor its function (42501)');
	is(join(' ', map { sqlstate_of($node, $_, env => { PGUSER => 'holder_watch' }) }
			'SELECT * FROM flakeid_horizon_holders', 'SELECT * FROM flakeid_horizon_holders()'),
		'ok ok', 'a pg_monitor member reads both');
}

# --- a damaged flakeid.prepared ------------------------------------------------------------
# The horizon is refused (XX001), and a PREPARE that issued IDs is refused
# too, leaving the file as it is: 1.2 replaced it with that transaction's
# holding alone, and served the horizon without the old holdings after the
# next restart.  A PREPARE that issued nothing still works.
{
	my $file = $node->data_dir . '/flakeid.prepared';
	$observer->close;
	$node->stop;
	unlink $file;
	PostgreSQL::Test::Utils::append_to_file($file, 'damaged: a header cut short');
	my $damaged = PostgreSQL::Test::Utils::slurp_file($file);
	$node->start;
	$observer = session($node);
	is(sqlstate_of($node, 'SELECT sno_horizon()'), 'XX001', 'a damaged flakeid.prepared: the horizon is refused (XX001)');
	is(sqlstate_of($node, "BEGIN; SELECT sno_new(); PREPARE TRANSACTION 'while_damaged'"), 'XX001',
		'a damaged flakeid.prepared: PREPARE of a transaction that generated IDs is refused (XX001)');
	is(PostgreSQL::Test::Utils::slurp_file($file) eq $damaged ? 'kept' : 'rewritten', 'kept', '... and the file is kept as it was');
	is(sqlstate_of($node, "BEGIN; CREATE TEMP TABLE t (); DROP TABLE t; SELECT 1; COMMIT"), 'ok', 'a transaction without IDs is untouched');
	is(sqlstate_of($node, "BEGIN; SELECT txid_current(); PREPARE TRANSACTION 'no_ids'; COMMIT PREPARED 'no_ids'"), 'ok',
		'a PREPARE that issued no ID works');
	$observer->close;
	$node->stop;
	unlink $file;
	$node->start;
	$observer = session($node);
	is(sqlstate_of($node, 'SELECT sno_horizon()'), 'ok', 'once the file is removed and the server restarted, the horizon is given again');
}

# --- a clock step back --------------------------------------------------------------------
# kuid counts on from its last unit: the contract holds
my $before = one('SELECT kuid_horizon()::text');
my $stepped = session($node);
$stepped->query('SET flakeid.debug_clock_offset_ms = -60000');
my $minted = $stepped->query('SELECT kuid_new()::text');
ok(!below('kuid', $minted, $before), 'kuid: after the clock steps back a minute, new IDs are still at or above the horizon');
# sno, with a horizon given after the clock it now reads, counts on from its
# last unit like kuid instead of toggling below it (1.2 toggled: IDs below a
# horizon already given, negative control run against 1.2)
$before = one('SELECT sno_horizon()::text');
my $ticktock = one("SELECT sno_ticktock('$before'::sno)");
$minted = $stepped->query('SELECT sno_new(0)::text');
ok(!below('sno', $minted, $before) && one("SELECT sno_ticktock('$minted'::sno)") eq $ticktock,
	'sno: after the clock steps back a minute, new IDs are still at or above the horizon given before, with the same tick-tock')
  or diag("$minted vs $before");
my $after = $stepped->query('SELECT sno_horizon()::text');
ok(!below('sno', $stepped->query('SELECT sno_new(0)::text'), $after) && !below('sno', $after, $before),
	'sno: ... and the horizon never moves back');
$stepped->close;
one('SELECT pg_sleep(0.2)');

# sno toggling on a server that has given no horizon yet: the toggle lowers
# the cell of a transaction that recorded it from the word before, so the
# horizon stays at or below the IDs that transaction then issues from the
# toggled word (without that sweep, negative control: the horizon lay above
# them)
{
	my $fresh = flakeid_node('horizon_toggle', 'flakeid.allow_debug_clock_offset' => 'on');
	$fresh->safe_psql('postgres', 'SELECT sno_new()');    # (a counter at 0 would make every cell 0)
	my $open = session($fresh);
	$open->query('BEGIN');
	my $first = $open->query('SELECT sno_new()::text');
	my $toggler = session($fresh);
	$toggler->query('SET flakeid.debug_clock_offset_ms = -60000');
	my $toggled = $toggler->query('SELECT sno_new()::text');
	$open->query('SET flakeid.debug_clock_offset_ms = -60000');
	my $second = $open->query('SELECT sno_new()::text');
	my $h = $fresh->safe_psql('postgres', 'SELECT sno_horizon()::text');
	ok($fresh->safe_psql('postgres', "SELECT sno_ticktock('$toggled') <> sno_ticktock('$first') AND '$second'::sno < '$first'::sno") eq 't'
		  && $fresh->safe_psql('postgres', "SELECT '$h'::sno <= '$second'::sno") eq 't',
		'sno: a toggle lowers an open transaction\'s cell: the horizon stays at or below the IDs it then issues from the toggled word')
	  or diag("first $first, toggled $toggled, second $second, horizon $h");
	$open->query('COMMIT');
	$open->close;
	$toggler->close;
	stop_checked($fresh);
}

# --- the poller model check -----------------------------------------------------------------
# WRITERS writers each commit ROWS rows one by one, a random sleep (seeded by
# the writer) inside each transaction before its commit; two pollers read
# meanwhile, every 5 ms, through CONNSTR: the README's (the horizon, then the
# rows in [last, horizon)) and a naive one (the rows after the last ID seen).
sub model_check
{
	my ($label, $connstr, $rows_each) = @_;
	one('DROP TABLE IF EXISTS horizon_feed; CREATE TABLE horizon_feed (id sno PRIMARY KEY DEFAULT sno_new(0), writer int, n int)');
	my $work = PostgreSQL::Test::Utils::tempdir();
	my @jobs;
	my $began = Time::HiRes::time();
	for my $w (0 .. $writers - 1)
	{
		srand($w);
		PostgreSQL::Test::Utils::append_to_file("$work/writer_$w.sql", join('', map {
			sprintf("BEGIN; INSERT INTO horizon_feed (writer, n) VALUES (%d, %d); SELECT pg_sleep(%.6f); COMMIT;\n", $w, $_, rand(0.002))
		} 0 .. $rows_each - 1));
		my $job = { out => '', err => '' };
		$job->{run} = IPC::Run::start([ @{ psql_argv($connstr, '-v', 'ON_ERROR_STOP=1') }, '-f', "$work/writer_$w.sql" ],
			'<', '/dev/null', '>', \$job->{out}, '2>', \$job->{err});
		push @jobs, $job;
	}
	my %exact = (last => '2222222222222222', seen => [], reads => 0, session => session($node, connstr => $connstr));
	my %naive = (last => '2222222222222222', seen => [], reads => 0, session => session($node, connstr => $connstr));
	my @errors;
	my $poll = sub {
		eval {
			# the README's pattern: the horizon, then the rows in [last, horizon)
			my $h = $exact{session}->query('SELECT sno_horizon()::text');
			push @{ $exact{seen} }, grep { $_ ne '' } split /\n/,
			  $exact{session}->query("SELECT id::text FROM horizon_feed WHERE id >= '$exact{last}'::sno AND id < '$h'::sno");
			$exact{last} = $h;
			$exact{reads}++;
			my @new = grep { $_ ne '' } split /\n/,
			  $naive{session}->query("SELECT id::text FROM horizon_feed WHERE id > '$naive{last}'::sno ORDER BY id");
			push @{ $naive{seen} }, @new;
			$naive{last} = $new[-1] if @new;
			$naive{reads}++;
			1;
		} or push @errors, $@;
	};
	while (grep { $_->{run}->pumpable } @jobs)
	{
		$_->{run}->pump_nb for grep { $_->{run}->pumpable } @jobs;
		$poll->();
		last if @errors;
		Time::HiRes::sleep(0.005);
	}
	my $failed_writers = 0;
	for my $job (@jobs)
	{
		$job->{run}->finish;
		$failed_writers++ if $job->{run}->result(0);
	}
	# once more, after every writer has ended and the clock has left the last row's unit
	# (the horizon passes a unit's rows once the clock has left it)
	wait_clock_past($node, "(SELECT sno_time(max(id)) FROM horizon_feed)");
	$poll->();
	$_->{session}->close for \%exact, \%naive;
	my @committed = split /\n/, one('SELECT id::text FROM horizon_feed');
	ok(!$failed_writers && @committed == $writers * $rows_each,
		"$label: $writers writers committed " . $writers * $rows_each . ' rows with random sleeps before commit ('
		  . int(Time::HiRes::time() - $began) . ' s)') or diag(join("\n", map { $_->{err} } grep { $_->{err} } @jobs));
	ok(!@errors, "$label: both pollers ran to the end ($exact{reads} and $naive{reads} reads)") or diag(join("\n", @errors));
	my %seen;
	$seen{$_}++ for @{ $exact{seen} };
	ok(!grep({ $_ > 1 } values %seen), "$label: the horizon poller read no row twice");
	my @missed = grep { !$seen{$_} } @committed;
	ok(!@missed && keys %seen == @committed, "$label: the horizon poller read every committed row (" . scalar(@{ $exact{seen} }) . ')')
	  or diag('missed ' . scalar(@missed) . ', the lowest ' . ((sort @missed)[0] // 'none') . "; the last horizon $exact{last}");
	my %naive_seen = map { $_ => 1 } @{ $naive{seen} };
	my $naive_missed = grep { !$naive_seen{$_} } @committed;
	cmp_ok($naive_missed, '>', 0, "$label: the naive poller (after the last ID seen) missed $naive_missed rows: the negative control");
}

model_check('direct', $node->connstr('postgres'), $rows);

my ($pgbouncer) = grep { -x } map { "$_/pgbouncer" } split(/:/, $ENV{PATH}), '/usr/sbin';
SKIP:
{
	skip('through pgbouncer in transaction mode: the model check (pgbouncer is not installed)', 5) unless $pgbouncer;
	my $work = PostgreSQL::Test::Utils::tempdir();
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	my $user = one('SELECT current_user');
	PostgreSQL::Test::Utils::append_to_file("$work/pgbouncer.ini", "[databases]
* = host=${\ $node->host} port=${\ $node->port}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $work/users.txt
pool_mode = transaction
max_client_conn = 100
default_pool_size = 4
logfile = $work/pgbouncer.log
pidfile = $work/pgbouncer.pid
");
	PostgreSQL::Test::Utils::append_to_file("$work/users.txt", "\"$user\" \"\"\n");
	my $bouncer = IPC::Run::start([ $pgbouncer, "$work/pgbouncer.ini" ], '>', '/dev/null', '2>', '/dev/null');
	my $connstr = "host=127.0.0.1 port=$port dbname=postgres";
	for (1 .. 50)
	{
		last if system("psql -X -q -d '$connstr connect_timeout=1' -c 'SELECT 1' >/dev/null 2>&1") == 0;
		Time::HiRes::sleep(0.1);
	}
	# the writers share 4 server connections: their transactions interleave on pooled backends
	model_check('through pgbouncer (transaction mode, 4 server connections)', $connstr, $rows / 4);
	$bouncer->kill_kill;
}
is(log_count($node, qr/used up its pool/), 0,
	'no used-up pool was logged for the pollers\' horizons');
$observer->close;
stop_checked($node);
done_testing();
