# Shared by the TAP files test/t/*.pl (`make prove_installcheck`), one file
# per test: servers with flakeid preloaded, made by PostgreSQL::Test::Cluster;
# the ID formats every test goes over (test/lib/formats.tsv); psql sessions
# at once; the state file's marks; a clock faked per process (clock_env);
# and a relay for pgTAP files, whose checks psql prints as TAP.
package FlakeidTest;

use strict;
use warnings;

# The servers a test talks to are the ones it makes: none of the caller's
# libpq variables (PGHOST, PGPORT, ... as `make prove_installcheck PGHOST=…`
# exports them), nor make's own (MAKEFLAGS carries command-line variables
# into every make a test runs, the upgrade test's installcheck among them).
# libpq's variables are PG and a letter (PGHOST, PGSSLMODE); PG_REGRESS
# and PG_TEST_* are the harness's own settings, and stay.
BEGIN
{
	delete $ENV{$_} for grep { /^PG[A-Z]/ } keys %ENV;
	delete @ENV{qw(MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS)};
}

use Exporter 'import';
use Cwd ();
use File::Basename qw(dirname);
use File::Temp ();
use InitdbTemplate qw(crc32c);   # (and initdb by copy: see there)
use IPC::Run;
use POSIX ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
# (psql calls through sessions kept open: see there)
use FlakeidSessions;
use Test::More;
use Time::HiRes ();

our @EXPORT = qw(flakeid_node flakeid_standby restart_with sqlstate_of message_of
  fresh_db psql_start psql_finish psql_together log_count formats backfill_call
  state_file_mark state_file_sno_mark state_file_fields clock_env
  tree_root run_tap_script session stop_checked psql_argv wait_clock_past poll_until log_times
  partman_unavailable cron_unavailable prepare_ids held_then_released crash_with_prepared_save_paused crc32c
  renewer_pid stop_renewer answers);

# tree_root(): the top of the tree the tests run from (they read its docs,
# scripts and fixtures)
sub tree_root
{
	return Cwd::abs_path(dirname(__FILE__) . '/../..');
}

# formats(FIELD => VALUE, ...): the rows of test/lib/formats.tsv (hashes
# keyed by its header), in its order, those with every FIELD equal to VALUE
sub formats
{
	my (%where) = @_;
	my $file = tree_root() . '/test/lib/formats.tsv';
	open(my $fh, '<', $file) or die "$file: $!";
	my (@header, @rows);
	while (my $line = <$fh>)
	{
		chomp $line;
		next if $line =~ /^#/ || $line eq '';
		my @fields = split /\t/, $line;
		if (!@header) { @header = @fields; next; }
		my %row;
		@row{@header} = @fields;
		push @rows, \%row;
	}
	close($fh);
	return grep { my $r = $_; !grep { $r->{$_} ne $where{$_} } keys %where } @rows;
}

# backfill_call(FORMAT, TIME-SQL): FORMAT's back-fill call at TIME-SQL
sub backfill_call
{
	my ($format, $time) = @_;
	return sprintf($format->{new_at}, $time);
}

# flakeid_node(NAME, SETTING => VALUE, ...): a started server, able to stream
# to a standby, with flakeid preloaded and the extension created in database
# postgres.  The settings are those initdb gives (the module's own are for
# tiny servers: 10 connections, 1 MB of shared buffers, every statement
# logged), UTF-8, with data checksums on every major (18's initdb default,
# and what 1.4's witness under global/ broke on 15: every standby made from
# a checksummed primary by pg_basebackup), 128 MB of WAL kept for its
# standbys (wal_keep_size), and the caller's.  Options:
# -env => {NAME => VALUE} is the server's environment at this start
# (LD_PRELOAD, say), -extension => 0 leaves the extension uncreated, and
# -checksums => 0 makes it without data checksums.  -install_path => DIR
# runs the PostgreSQL installed there (PostgreSQL::Test::Cluster's
# install_path: scripts/build_pgtle's private installation with pg_tle).
sub flakeid_node
{
	my ($name, %settings) = @_;
	my %env = %{ delete $settings{-env} // {} };
	my $create = delete $settings{-extension} // 1;
	my $checksums = delete $settings{-checksums} // 1;
	my $install_path = delete $settings{-install_path};
	my $node = PostgreSQL::Test::Cluster->new($name, $install_path ? (install_path => $install_path) : ());
	$node->init(allows_streaming => 1,
		extra => [ '--encoding=UTF8', '--locale=C.UTF-8',
			# (--no-data-checksums from 18, where they are initdb's default)
			$checksums ? '--data-checksums' : $node->pg_version >= 18 ? '--no-data-checksums' : () ]);
	my %conf = (
		shared_preload_libraries => 'flakeid',
		max_connections => 100,
		shared_buffers => '128MB',
		max_wal_size => '1GB',
		log_statement => 'none',
		# (as an operator keeps WAL for standbys without slots: each base
		# backup ends with a segment switch and its checkpoint may remove the
		# segment a standby made just before has yet to stream, on a machine
		# slow enough that it had not; 068 on 19 once waited out its catch-up)
		wal_keep_size => '128MB',
		%settings);
	$node->append_conf('postgresql.conf', join('', map { "$_ = '$conf{$_}'\n" } sort keys %conf));
	{
		local @ENV{ keys %env } = values %env;
		$node->start;
	}
	$node->safe_psql('postgres', 'CREATE EXTENSION flakeid') if $create;
	return $node;
}

# flakeid_standby(PRIMARY, NAME, SQL): a hot standby of PRIMARY made as an
# operator makes one: pg_basebackup -R (streaming its WAL), taken while SQL
# (if given; statements commit one by one) runs on the primary in another
# session; the primary's
# configuration comes along, identities included.  Its settings of each
# start go into replica.conf (restart_with).  It is a failover target, as
# docs/OPERATIONS.md ("A promoted standby") says to make one:
# flakeid.promotion_keeps_identities = on, so that once promoted it
# generates with the identities that came along; with clone => 1 it is not
# (a copy promoted while its original may still run).  Returns the started
# standby and the exit status of SQL.
sub flakeid_standby
{
	my ($primary, $name, $sql, %opt) = @_;
	my ($out, $err) = ('', '');
	my $minter;
	# (read from standard input, so that each statement commits on its own)
	$minter = IPC::Run::start([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $primary->connstr('postgres') ],
		'<', \$sql, '>', \$out, '2>', \$err)
	  if defined $sql;
	$primary->backup("$name-backup", backup_options => [ '-R', '-X', 'stream' ]);
	my $status = 0;
	if ($minter)
	{
		# finish is true when the session exited 0
		$status = $minter->finish ? 0 : 1;
		diag("the primary's session during the backup failed: $err") if $status;
	}
	my $standby = PostgreSQL::Test::Cluster->new($name);
	$standby->init_from_backup($primary, "$name-backup");
	$standby->append_conf('postgresql.conf', "include_if_exists = 'replica.conf'\n");
	$standby->append_conf('postgresql.conf', "flakeid.promotion_keeps_identities = on\n") unless $opt{clone};
	$standby->start;
	return ($standby, $status);
}

# restart_with(NODE, SETTING => VALUE, ...): restarts NODE with exactly
# these settings on top of its configuration (the previous start's are gone)
sub restart_with
{
	my ($node, %settings) = @_;
	open(my $fh, '>', $node->data_dir . '/replica.conf') or die "replica.conf: $!";
	print $fh map { "$_ = '$settings{$_}'\n" } sort keys %settings;
	close($fh);
	$node->restart;
}

# sqlstate_of(NODE, SQL, db => DB, env => {NAME => VALUE}): the SQLSTATE SQL
# fails with, or 'ok'
sub sqlstate_of
{
	my ($node, $sql, %opt) = @_;
	my ($out, $err) = ('', '');
	local @ENV{ keys %{ $opt{env} // {} } } = values %{ $opt{env} // {} };
	my $rc = $node->psql($opt{db} // 'postgres', $sql, stdout => \$out, stderr => \$err,
		extra_params => [ '-v', 'VERBOSITY=sqlstate' ]);
	return 'ok' if $rc == 0;
	return $err =~ /ERROR:\s+([0-9A-Z]{5})/ ? $1 : "exit $rc: $err";
}

# message_of(NODE, SQL, db => DB, env => {...}): what SQL prints on stderr
# (its WARNINGs, ERROR, DETAIL, HINT), each line as psql -c prints it
# (without the "psql:<stdin>:1: " of a script read from standard input)
# With refused => 1 the SQL goes on psql's command line, not its standard
# input: for a connection the server refuses, psql exits before it reads
# its input, and writing that input then failed with EPIPE, ending the
# test file (a race seen once in 010).
sub message_of
{
	my ($node, $sql, %opt) = @_;
	my ($out, $err) = ('', '');
	local @ENV{ keys %{ $opt{env} // {} } } = values %{ $opt{env} // {} };
	if ($opt{refused})
	{
		IPC::Run::run([ 'psql', '-X', '-v', 'VERBOSITY=default', '-d', $node->connstr($opt{db} // 'postgres'), '-c', $sql ],
			'<', '/dev/null', '>', \$out, '2>', \$err);
		return $err;
	}
	$node->psql($opt{db} // 'postgres', $sql, stdout => \$out, stderr => \$err,
		extra_params => [ '-v', 'VERBOSITY=default' ]);
	return $err =~ s/^psql:<stdin>:\d+: //mgr;
}

# answers(NODE): whether NODE takes a connection and answers SELECT 1, the
# statement on psql's command line: fed on its standard input (->psql), a
# server still refusing connections (a crash's recovery) made psql exit
# before it read it, and the write died with EPIPE, ending the test file
# (052 on 19: "exited 32")
sub answers
{
	my ($node) = @_;
	my ($out, $err) = ('', '');
	return IPC::Run::run([ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c', 'SELECT 1' ],
		'<', '/dev/null', '>', \$out, '2>', \$err);
}

# fresh_db(NODE, NAME): a new empty database (one an interrupted run left is
# dropped first)
sub fresh_db
{
	my ($node, $db) = @_;
	$node->safe_psql('postgres', "SET client_min_messages = warning; DROP DATABASE IF EXISTS $db");
	$node->safe_psql('postgres', "CREATE DATABASE $db");
}

# psql_argv(CONNSTR, PSQL-OPTION...): a psql of the tests' sessions, which
# print bare values (no psqlrc, quiet, unaligned, tuples only)
sub psql_argv
{
	my ($connstr, @options) = @_;
	return [ 'psql', '-X', '-q', '-A', '-t', @options, '-d', $connstr ];
}

# psql_start(NODE, SQL, db => DB, env => {...}, extra => [PSQL-OPTION...]):
# SQL in a psql session of its own, running while the caller goes on; psql_finish(JOB) waits for it
# and returns (exit status, stdout, stderr)
sub psql_start
{
	my ($node, $sql, %opt) = @_;
	my $job = { out => '', err => '' };
	local @ENV{ keys %{ $opt{env} // {} } } = values %{ $opt{env} // {} };
	$job->{run} = IPC::Run::start(
		[ @{ psql_argv($node->connstr($opt{db} // 'postgres'), '-v', 'ON_ERROR_STOP=1', @{ $opt{extra} // [] }) }, '-c', $sql ],
		'>', \$job->{out}, '2>', \$job->{err});
	return $job;
}

sub psql_finish
{
	my ($job) = @_;
	$job->{run}->finish;
	my $status = $job->{run}->result(0);
	chomp $job->{out};
	return ($status, $job->{out}, $job->{err});
}

# psql_together(NODE, SQL, ...): each SQL in a session of its own, all at
# once; their outputs, in order.  Dies, with the error, if any fails.
sub psql_together
{
	my ($node, @sqls) = @_;
	my @jobs = map { psql_start($node, $_) } @sqls;
	my @outs;
	for my $i (0 .. $#jobs)
	{
		my ($status, $out, $err) = psql_finish($jobs[$i]);
		die "a session of psql_together failed (exit $status): $err\nits SQL: $sqls[$i]\n" if $status;
		push @outs, $out;
	}
	return @outs;
}

# session(NODE, db => DB, connstr => CONNSTR): one psql session that stays
# open (a transaction held across checks, a poller); $session->query(SQL)
# runs SQL in it and returns its output, dying on an ERROR, and
# $session->close ends it.  query() and close wait at most 300 s each.
sub session
{
	my ($node, %opt) = @_;
	my $self = bless { in => '', out => '', err => '' }, 'FlakeidTest::Session';
	$self->{run} = IPC::Run::start(
		psql_argv($opt{connstr} // $node->connstr($opt{db} // 'postgres'), '-v', 'ON_ERROR_STOP=0'),
		'<', \$self->{in}, '>', \$self->{out}, '2>', \$self->{err}, $self->{timer} = IPC::Run::timeout(300));
	return $self;
}

sub FlakeidTest::Session::query
{
	my ($self, $sql) = @_;
	@$self{qw(out err)} = ('', '');
	$self->{timer}->start(300);
	# (the marker on both streams: what psql wrote to stderr before it has been read too)
	$self->{in} .= "$sql;\n\\echo __flakeid_done__\n\\warn __flakeid_done__\n";
	$self->{run}->pump until $self->{out} =~ /__flakeid_done__\n/ && $self->{err} =~ /__flakeid_done__\n/;
	my ($out, $err) = map { s/__flakeid_done__\n//r } @$self{qw(out err)};
	chomp $out;
	die "the session's query failed: $sql\n$err" if $err =~ /^(ERROR|FATAL|PANIC):/m;
	return $out;
}

sub FlakeidTest::Session::close
{
	my ($self) = @_;
	# (300 s from the close: the timer of the last query ran on while the
	# session was idle, and an idle 316 s (056's A17 listing, CI of 34cfd70
	# on 15) ended the close in "IPC::Run: timeout")
	$self->{timer}->start(300);
	$self->{in} .= "\\q\n";
	$self->{run}->finish;
}

# stop_checked(NODE...): stops each node after one check of its server log:
# no PANIC, and no server process ended by a signal or an exception (a crash
# the test did not ask for; an immediate stop is neither)
sub stop_checked
{
	for my $node (@_)
	{
		my @crashes = grep { /\bPANIC:|terminated by signal|terminated by exception/ } split /\n/, slurp_file($node->logfile);
		ok(!@crashes, $node->name . ': no PANIC and no crash in the server log')
		  or diag(join("\n", @crashes[ 0 .. ($#crashes < 9 ? $#crashes : 9) ]));
		$node->stop;
	}
}

# extension_unavailable(NODE, EXTENSION, MAJOR, MINOR, ARGS): why NODE's
# PostgreSQL cannot run EXTENSION MAJOR.MINOR or later, or undef when it
# can.  The test command installs it for each major (scripts/debian_extension
# ARGS) and, where that fails, says why in FLAKEID_<EXTENSION>_WHY (its name
# without "pg_", upper case), which the reason repeats.
sub extension_unavailable
{
	my ($node, $extension, $want_x, $want_y, $args) = @_;
	my ($newest, $major) = split /\|/, $node->safe_psql('postgres',
		qq{SELECT coalesce((SELECT version FROM pg_available_extension_versions WHERE name = '$extension'
		                    ORDER BY (regexp_match(version, '^(\\d+)\\.(\\d+)'))::int[] DESC NULLS LAST LIMIT 1), 'none'),
		          current_setting('server_version_num')::int / 10000});
	my ($x, $y) = $newest =~ /^(\d+)\.(\d+)/;
	return undef if defined $x && ($x > $want_x || ($x == $want_x && $y >= $want_y));
	my $why = $ENV{ 'FLAKEID_' . uc($extension =~ s/^pg_//r) . '_WHY' };
	return "$extension $want_x.$want_y or later is not installed for PostgreSQL $major (newest: $newest)"
	  . ($why ? ": $why" : "; bash scripts/debian_extension $args installs it");
}

# partman_unavailable(NODE): pg_partman 5.2 or later, the first whose
# create_parent takes p_time_encoder and p_time_decoder (extension_unavailable)
sub partman_unavailable { return extension_unavailable($_[0], 'pg_partman', 5, 2, 'pg_partman partman pg-partman 5.2'); }

# cron_unavailable(NODE): pg_cron 1.4 or later (extension_unavailable)
sub cron_unavailable { return extension_unavailable($_[0], 'pg_cron', 1, 4, 'pg_cron cron pg-cron 1.4'); }

# wait_clock_past(NODE, TIME-SQL): waits until NODE's clock has left the
# unit that begins at TIME-SQL (an SQL expression of type timestamptz, such
# as "sno_time('...')") as every generator reads it, and returns true then.
# The longest unit is sno's 4 ms, and sno may read the coarse clock, which
# trails the precise one by up to a timer tick (at most 4 ms, else sno reads
# the precise clock) and the kernel's update delay (docs/OPERATIONS.md, "The
# clock"): the wait ends once clock_timestamp() lies 50 ms past TIME-SQL,
# read on the server.  A check that follows asserts what the contract
# promises from then on (for the horizon: that it passes every ID of that
# unit once no transaction holds it), whatever the machine's speed.  An ID
# may lie ahead of the clock (after a restart or promotion, up to the 2 s
# the mark is kept ahead: docs/OPERATIONS.md): the wait is then up to that
# long.  False only if the clock has not got there within
# poll_query_until's deadline.
sub wait_clock_past
{
	my ($node, $time_sql) = @_;
	return $node->poll_query_until('postgres', "SELECT clock_timestamp() > ($time_sql) + interval '50 ms'");
}

# renewer_pid(NODE): the pid of NODE's "flakeid mark renewer"
sub renewer_pid
{
	my ($node) = @_;
	return $node->safe_psql('postgres', "SELECT pid FROM pg_stat_activity WHERE backend_type = 'flakeid mark renewer'");
}

# stop_renewer(NODE, PID): one check that SIGSTOP stopped the renewer PID
# while it sleeps between passes (its wait event, read once it is stopped),
# never inside a save, where it holds flakeid_lock: stopped there, every
# call that must renew waited for the lock (013 hung on 18 for 25 minutes
# once).  kill 'CONT' lets it go on.
sub stop_renewer
{
	my ($node, $pid) = @_;
	ok(poll_until(sub {
		kill 'STOP', $pid;
		return 1 if $node->safe_psql('postgres', "SELECT wait_event_type FROM pg_stat_activity WHERE pid = $pid") eq 'Extension';
		kill 'CONT', $pid;
		return 0;
	}, interval => 0.01), '(the renewer stopped while it sleeps between passes, holding no lock)');
}

# poll_until(CODE, timeout => S, interval => S): calls CODE until it returns
# a true value or S seconds have passed (default: the harness's
# $PostgreSQL::Test::Utils::timeout_default, as poll_query_until), every
# interval (0.1 s); returns CODE's last value (false when the deadline
# passed: the caller's check then fails), and in list context the seconds it
# waited too.  For conditions SQL cannot see (a file, a log line, a process);
# a condition SQL can see is $node->poll_query_until's.  Wait with this for
# what a check needs to have happened, never with a fixed sleep: the deadline
# is only how long a machine may take before the check is a failure, and a
# bound the product states is asserted apart (docs/TESTS.md).
sub poll_until
{
	my ($code, %opt) = @_;
	my $timeout = $opt{timeout} // $PostgreSQL::Test::Utils::timeout_default;
	my $interval = $opt{interval} // 0.1;
	my $began = Time::HiRes::time();
	my $value;
	while (1)
	{
		$value = $code->();
		last if $value || Time::HiRes::time() - $began >= $timeout;
		Time::HiRes::sleep($interval);
	}
	return wantarray ? ($value, Time::HiRes::time() - $began) : $value;
}

# log_times(NODE, REGEX): the times (the server's clock, Unix seconds with
# milliseconds, from the "%m" of the log_line_prefix PostgreSQL::Test::Cluster
# sets) of the lines of NODE's server log that match REGEX, in order; NODE
# must be running (it reads the times in the log's own zone)
sub log_times
{
	my ($node, $regex) = @_;
	my @stamps = map { /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \S+) / ? $1 : () }
	  grep { /$regex/ } split /\n/, slurp_file($node->logfile);
	return () unless @stamps;
	return split /\n/, $node->safe_psql('postgres',
		'SELECT extract(epoch FROM t::timestamptz) FROM unnest(ARRAY[' . join(', ', map { "'$_'" } @stamps) . ']) WITH ORDINALITY u(t, n) ORDER BY n');
}

# log_count(NODE, REGEX): how many lines of NODE's server log match
sub log_count
{
	my ($node, $regex) = @_;
	return scalar grep { /$regex/ } split /\n/, slurp_file($node->logfile);
}

# state_file_bytes(DATADIR): the bytes of DATADIR's flakeid.state
sub state_file_bytes
{
	my ($datadir) = @_;
	open(my $fh, '<:raw', "$datadir/flakeid.state") or die "$datadir/flakeid.state: $!";
	local $/;
	my $bytes = <$fh>;
	close($fh);
	return $bytes;
}

# state_file_fields(DATADIR): the system identifier, and of this server's
# own bounds sno's tick-tock and the three marks (Unix us: the monotonic
# generators', sno's for tick-tock 0 and 1), read from a version 4
# flakeid.state (docs/FORMATS.md: entries SYSTEM, and MARKS of side 0) or a
# version 3 one (fixed offsets)
sub state_file_fields
{
	my $bytes = state_file_bytes($_[0]);
	my ($version, $length) = unpack('x4 L< L<', $bytes);
	return (unpack('Q<', substr($bytes, 16, 8)), unpack('L<', substr($bytes, 56, 4)), unpack('q< q< q<', substr($bytes, 32, 24)))
	  if $version == 3;
	die "flakeid.state of version $version" unless $version == 4;
	my ($system, @own);
	for (my $at = 16; $at < 16 + $length;)
	{
		my ($tag, $flags, $size) = unpack('S< S< L<', substr($bytes, $at, 8));
		$system = unpack('Q<', substr($bytes, $at + 8, 8)) if $tag == 2;
		@own = unpack('L< x4 q< q< q<', substr($bytes, $at + 9, 32)) if $tag == 3 && ord(substr($bytes, $at + 8, 1)) == 0;
		$at += 8 + $size;
	}
	die 'flakeid.state without its own marks' unless @own;
	return ($system, @own);
}

# state_file_mark(DATADIR): the saved mark of the monotonic generators;
# state_file_sno_mark: sno's, of its tick-tock in use
sub state_file_mark
{
	my (undef, undef, @marks) = state_file_fields($_[0]);
	return $marks[0];
}

sub state_file_sno_mark
{
	my (undef, $ticktock, @marks) = state_file_fields($_[0]);
	return $marks[ 1 + $ticktock ];
}

# --- a clock faked per process (test/lib/clock_offset.c) --------------------
# clock_env(OFFSET-FILE) and clock_env(fixed => OFFSET): the environment that
# runs a server on a faked wall clock, for PostgreSQL::Test::Cluster's
# start(-env => ...) or a local %ENV: the real clock shifted by the offset
# in seconds ("+2", "-1.5", "+20s") held in OFFSET-FILE, read at every clock
# read (write a new one and rename it over: every process of the server
# takes it at its next read), or fixed.  The library is built from
# test/lib/clock_offset.c once per test file (it says why it replaced
# libfaketime, which aborted backends in malloc from PostgreSQL's SIGALRM
# handler).  Every process of the server reads it, background workers too.
my $clock_offset_lib;
sub clock_offset_lib
{
	return $clock_offset_lib if $clock_offset_lib;
	my $dir = PostgreSQL::Test::Utils::tempdir('clock');
	chmod 0755, $dir;
	system('cc', '-shared', '-fPIC', '-O2', '-o', "$dir/clock_offset.so", tree_root() . '/test/lib/clock_offset.c', '-ldl') == 0
	  or die "test/lib/clock_offset.c does not build\n";
	return $clock_offset_lib = "$dir/clock_offset.so";
}

sub clock_env
{
	my @args = @_;
	return { LD_PRELOAD => clock_offset_lib(), FLAKEID_CLOCK_OFFSET => $args[1] } if $args[0] eq 'fixed';
	return { LD_PRELOAD => clock_offset_lib(), FLAKEID_CLOCK_OFFSET_FILE => $args[0] };
}

# run_tap_script(NODE, LABEL, COMMAND...): runs COMMAND (psql with a pgTAP
# file, whose checks are SQL and print themselves as TAP) with the libpq
# environment of NODE (undef: none), PGDATA, FLAKEID_PG_LOG (its server log),
# and relays its TAP: each "ok"/"not ok" line becomes a check named "LABEL:
# ...", "ok N # skip why" a skipped check, "1..0 # SKIP why" a skipped
# script, and "#" lines diagnostics (shown when they follow a failure).  A
# last check holds the script to a clean exit and to its whole plan, so a
# script that dies half-way never passes; when that check fails, what the
# script printed on stderr and the end of NODE's server log follow.  Returns the script's exit status.
sub run_tap_script
{
	my ($node, $label, @command) = @_;
	local %ENV = %ENV;
	if ($node)
	{
		$ENV{PGHOST} = $node->host;
		$ENV{PGPORT} = $node->port;
		$ENV{PGUSER} = scalar getpwuid($>);
		$ENV{PGDATABASE} = 'postgres';
		$ENV{PGDATA} = $node->data_dir;
		$ENV{FLAKEID_PG_LOG} = $node->logfile;
	}
	delete @ENV{qw(PGPASSWORD PGSERVICE PGOPTIONS)};

	my ($planned, $seen, $failing, $began) = (undef, 0, 0, time);
	# PostgreSQL::Test::Utils points this process's stderr at its log file,
	# which goes with the test's copy of the tree: the script's stderr is
	# kept apart and shown if the script fails
	my $stderr = File::Temp->new;
	my $saved_stderr = POSIX::dup(2);
	POSIX::dup2(fileno($stderr), 2);
	my $opened = open(my $out, '-|', @command);
	POSIX::dup2($saved_stderr, 2);
	POSIX::close($saved_stderr);
	die "cannot run @command: $!" unless $opened;
	while (my $line = <$out>)
	{
		chomp $line;
		if ($line =~ /^\s*(not )?ok\s+\d+\s*(?:-\s*)?(.*)$/)
		{
			my ($failed, $text) = ($1, $2);
			$seen++;
			$failing = $failed ? 1 : 0;
			if ($text =~ /^(.*?)\s*#\s*skip\b\s*(.*)$/i)
			{
			  SKIP: { skip("$label: $1 ($2)", 1); }
				next;
			}
			$text =~ s/\s*#\s*TODO\b.*$//i;
			ok(!$failed, "$label: $text");
		}
		elsif ($line =~ /^\s*1\.\.(\d+)(?:\s*#\s*skip\w*\s*(.*))?/i)
		{
			$planned = $1;
			if ($1 == 0)
			{
			  SKIP: { skip("$label: the whole script (" . ($2 // 'no reason given') . ")", 1); }
			}
		}
		elsif ($line =~ /^\s*#/)
		{
			$failing ? diag("$label $line") : note("$label $line");
		}
		else
		{
			note("$label: $line");
		}
	}
	close($out);
	my $status = $? >> 8;
	$status = 1 if $? & 127;
	# (what each script costs, for whoever keeps the suite's time down)
	note("$label: took " . (time - $began) . " s");
	my $whole = defined $planned && ($planned == 0 || $planned == $seen);
	my $passed = ok($status == 0 && $whole,
		"$label: exits 0 after its whole plan (exit $status, "
		  . ($planned // 'no') . " planned, $seen ran)");
	if (!$passed)
	{
		my @err = split /\n/, PostgreSQL::Test::Utils::slurp_file($stderr->filename);
		diag("$label: what it printed on stderr:") if @err;
		diag("$label:   $_") for @err;
	}
	# a failed script's server may say why: the end of its log, as
	# scripts/with_cluster shows it
	if (!$passed && $node && -f $node->logfile)
	{
		my @log = split /\n/, PostgreSQL::Test::Utils::slurp_file($node->logfile);
		diag("$label: the last lines of the server log (" . $node->logfile . "):");
		diag("$label:   $_") for @log[ ($#log > 29 ? $#log - 29 : 0) .. $#log ];
	}
	return $status;
}


# prepare_ids(NODE, GID, TABLE): a transaction that inserts ten sno_new() IDs
# into TABLE (id sno, gid text) and is prepared as GID; returns its IDs, as
# text (they are not visible until it commits)
sub prepare_ids
{
	my ($node, $gid, $table) = @_;
	my $out = $node->safe_psql('postgres',
		"BEGIN; INSERT INTO $table SELECT sno_new(), '$gid' FROM generate_series(1, 10) RETURNING id::text;
		PREPARE TRANSACTION '$gid'");
	my @ids = grep { /^\S{16}$/ } split /\n/, $out;
	die "prepare_ids($gid): " . scalar(@ids) . ' IDs' unless @ids == 10;
	return \@ids;
}

# held_then_released(NODE, IDS, GID, TABLE, WHAT): the checks of a prepared
# transaction GID (its IDS from prepare_ids) after a restart: the horizon,
# read once the clock has left their units, lies at or below each of them;
# once GID commits, a horizon passes them all, and TABLE has its rows
sub held_then_released
{
	my ($node, $ids, $gid, $table, $what) = @_;
	my $list = join(',', map { "'$_'::sno" } @$ids);
	ok(wait_clock_past($node, "(SELECT max(sno_time(i)) FROM unnest(ARRAY[$list]) i)"),
		"$what: the clock leaves $gid\'s IDs' units");
	my $horizon = $node->safe_psql('postgres', 'SELECT sno_horizon()::text');
	is($node->safe_psql('postgres',
			"SELECT count(*) FILTER (WHERE i < '$horizon'::sno) || '/' || count(*) FROM unnest(ARRAY[$list]) i"),
		'0/10', "$what: the horizon lies at or below every ID of the prepared $gid");
	$node->safe_psql('postgres', "COMMIT PREPARED '$gid'");
	ok($node->poll_query_until('postgres', "SELECT sno_horizon() > (SELECT max(id) FROM $table WHERE gid = '$gid')"),
		"$what: once $gid has committed, a horizon passes its IDs");
	is($node->safe_psql('postgres', "SELECT count(*) FROM $table WHERE gid = '$gid'"), '10', "$what: $gid\'s rows are there");
}

# crash_with_prepared_save_paused(NODE, CODE): the renewer's next save of
# flakeid.prepared is held paused before its write (flakeid.debug_pause_at
# = 'prepared_saving' by ALTER SYSTEM, reset once it pauses: the renewer read
# it, and nothing else saves that file), CODE (which prepares a transaction)
# runs, then a CHECKPOINT moves the redo point past it and an immediate stop
# ends the server; it starts again.  NODE needs
# flakeid.allow_debug_clock_offset.  Checks that the renewer paused; returns
# NODE's log from the start on.
sub crash_with_prepared_save_paused
{
	my ($node, $code) = @_;
	$node->safe_psql('postgres', "ALTER SYSTEM SET flakeid.debug_pause_ms = 600000;
		ALTER SYSTEM SET flakeid.debug_pause_at = 'prepared_saving'; SELECT pg_reload_conf()");
	my $log_at = -s $node->logfile;
	my $pid = $node->safe_psql('postgres', "SELECT pid FROM pg_stat_activity WHERE backend_type = 'flakeid mark renewer'");
	$code->();
	ok(poll_until(sub { substr(slurp_file($node->logfile), $log_at) =~ /\[$pid\] LOG:  flakeid pauses at "prepared_saving"/ }),
		"the renewer's save of flakeid.prepared pauses before its write");
	$node->safe_psql('postgres', 'ALTER SYSTEM RESET flakeid.debug_pause_at; ALTER SYSTEM RESET flakeid.debug_pause_ms');
	$node->safe_psql('postgres', 'CHECKPOINT');
	$node->stop('immediate');
	$log_at = -s $node->logfile;
	$node->start;
	return substr(slurp_file($node->logfile), $log_at);
}

1;
