# The TAP files' psql calls through sessions kept open.
#
# PostgreSQL::Test::Cluster's psql, safe_psql and poll_query_until start a
# psql, and so a backend, for every call.  On a machine where creating a
# process is dear (a 2-core VM whose freed pages go back to its host: about
# 4 ms to fork and exec /bin/true), that was most of the suite's time: 100
# safe_psql('SELECT 1') took 21.6 s there, the same 100 queries in one
# open session 0.16 s (2026-11-28).  Loading this module (FlakeidTest does)
# routes those calls through one psql session per server, database,
# connection string, psql variables and libpq environment, which stays open
# across calls, with the same results as a psql of its own:
#
#   * the SQL is read as psql reads a script (`-XAtq -f -`, ON_ERROR_STOP as
#     asked), so meta-commands, COPY FROM STDIN and several statements
#     behave as before; an error with ON_ERROR_STOP ends that psql with
#     exit 3, as it did, and the next call opens a new session;
#   * what the call wrote to stdout and stderr is returned as psql's were,
#     the "psql:<stdin>:N:" of a message counted from the call's first line;
#   * after each call, DISCARD ALL: the next call finds no SET, temporary
#     table, prepared statement, lock or role of it.  A transaction the call
#     left open (DISCARD refuses to run in one) ends the session, and so the
#     transaction, as psql's exit did;
#   * a session whose backend has gone (a restart, a crash, a terminated
#     backend: kill(pid, 0) says so) is replaced before it is used;
#   * the node's own start, stop, restart, reload, promote and kill9 close
#     its sessions first, and a call whose SQL could disturb other sessions
#     or needs a backend started after it (pg_terminate_backend,
#     pg_cancel_backend, pg_reload_conf, ALTER SYSTEM, DROP/ALTER/CREATE
#     DATABASE, pg_promote, ...) closes them and runs in a psql of its own,
#     as before;
#   * calls with options it does not know (a replication connection, psql
#     options other than -v NAME=VALUE) run in a psql of their own.
#
# FLAKEID_FRESH_PSQL=1 turns it off: every call a psql of its own, as
# PostgreSQL's harness does.  A test that needs a backend of its own for
# one call asks for it with fresh_psql(NODE, ...), the original psql.
package FlakeidSessions;

use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils ();
use Time::HiRes ();

our $enabled = !$ENV{FLAKEID_FRESH_PSQL};
# how many calls went each way, for whoever keeps the suite's time down
our %calls = (session => 0, fresh => 0, opened => 0);

my %sessions;    # key -> session
my $serial = 0;

my $original_psql = \&PostgreSQL::Test::Cluster::psql;
my $original_poll = \&PostgreSQL::Test::Cluster::poll_query_until;

# what, in a call's SQL, makes it run as before, in a psql of its own, once
# the node's sessions are closed: it signals or ends other backends, changes
# what a new backend would see, or needs no one else in a database
my $disturbing = qr/
	pg_terminate_backend | pg_cancel_backend | pg_reload_conf | pg_promote
	| pg_signal_backend | pg_wal_replay_(?:pause|resume) | pg_ctl
	| \bALTER\s+SYSTEM\b | \b(?:DROP|ALTER|CREATE)\s+DATABASE\b
	| \bDROP\s+(?:ROLE|USER|OWNED)\b | \bALTER\s+(?:ROLE|USER)\b
	| \bREASSIGN\s+OWNED\b | \b(?:CREATE|DROP|ALTER)\s+EXTENSION\b | \bDROP\s+SCHEMA\b
	| ^\s*\\(?:c|connect|q|quit|!)\b
/xim;

sub node_key { my ($node) = @_; return $node->name . ':' . $node->port; }

sub close_session
{
	my ($key, $kill) = @_;
	my $s = delete $sessions{$key} or return;
	# (psql quits at once when idle; one busy, after a timeout, is killed)
	eval {
		die "kill\n" if $kill;
		$s->{in} .= "\\q\n";
		$s->{timer}->start(10);
		$s->{run}->finish;
		1;
	} or eval { $s->{run}->kill_kill; };
}

# close_sessions(NODE): every session of NODE closed (before a restart, or
# a call that needs no one else connected)
sub close_sessions
{
	my ($node) = @_;
	my $prefix = node_key($node) . "\0";
	close_session($_) for grep { index($_, $prefix) == 0 } keys %sessions;
}

sub close_all { close_session($_) for keys %sessions; }

# pump(SESSION, MARKER, TIMER): reads until MARKER has come on both streams
# or psql has ended; true if the marker came
sub pump_to
{
	my ($s, $marker) = @_;
	my $line = "$marker\n";
	while (1)
	{
		my $got_out = length($s->{out}) >= length($line) && substr($s->{out}, -length($line)) eq $line;
		my $got_err = length($s->{err}) >= length($line) && substr($s->{err}, -length($line)) eq $line;
		return 1 if $got_out && $got_err;
		return 0 unless $s->{run}->pumpable;
		$s->{run}->pump;
	}
}

# send(SESSION, TEXT): TEXT to psql's input, its lines counted
sub send_text
{
	my ($s, $text) = @_;
	$s->{lines} += ($text =~ tr/\n//);
	$s->{in} .= $text;
}

sub open_session
{
	my ($node, $key, $connstr, $vars) = @_;
	my $s = { in => '', out => '', err => '', lines => 0, key => $key };
	$s->{timer} = IPC::Run::timeout(10 * $PostgreSQL::Test::Utils::timeout_default, exception => 'flakeid session timeout');
	my $ok = eval {
		$s->{run} = IPC::Run::start(
			[ $node->installed_command('psql'), '-XAtq', '-d', $connstr, '-f', '-', '-v', 'ON_ERROR_STOP=1', map { ('-v', $_) } @$vars ],
			'<', \$s->{in}, '>', \$s->{out}, '2>', \$s->{err}, $s->{timer});
		my $marker = '__flakeid_session_' . $$ . '_' . ++$serial . '__';
		send_text($s, "SELECT pg_backend_pid();\n\\echo $marker\n\\warn $marker\n");
		$s->{timer}->start;
		pump_to($s, $marker) or die "no session\n";
		$s->{timer}->reset;
		($s->{pid}) = $s->{out} =~ /^(\d+)$/m or die "no backend pid\n";
		# what the server said at login (a WARNING about a role's setting,
		# say), which a psql of its own would print at every call
		$s->{login_err} = $s->{err} =~ s/\Q$marker\E\n\z//r;
		@$s{qw(out err)} = ('', '');
		1;
	};
	if (!$ok)
	{
		eval { $s->{run}->kill_kill if $s->{run}; };
		return undef;
	}
	$calls{opened}++;
	return $sessions{$key} = $s;
}

# routable(PARAMS): the psql variables of a call this module can run, or
# undef for one it leaves to a psql of its own
sub routable
{
	my (%params) = @_;
	for my $k (keys %params)
	{
		return undef unless $k =~ /^(?:stdout|stderr|on_error_die|on_error_stop|extra_params|connstr|timeout|timed_out)$/;
	}
	return undef if defined $params{on_error_stop} && !$params{on_error_stop};
	my @vars;
	my @extra = @{ $params{extra_params} // [] };
	while (@extra)
	{
		my $opt = shift @extra;
		if ($opt eq '-v' && @extra && $extra[0] =~ /^\w+=/) { push @vars, shift @extra; }
		elsif ($opt =~ /^-v(\w+=.*)$/) { push @vars, $1; }
		else { return undef; }
	}
	return \@vars;
}

sub env_key
{
	return join("\0", map { "$_=$ENV{$_}" } sort grep { /^(?:PG|LD_|FLAKEID_CLOCK|FLAKEID_SESSION_POLL)/ && $_ ne 'PGPORT' && $_ ne 'PGHOST' } keys %ENV);
}

# the sessions of a poll (a key of their own: see poll_query_until), closed when it ends
sub close_poll_sessions
{
	close_session($_) for grep { /\0FLAKEID_SESSION_POLL=/ } keys %sessions;
}

# the override of PostgreSQL::Test::Cluster::psql
sub psql
{
	my ($self, $dbname, $sql, %params) = @_;
	my $vars = $enabled ? routable(%params) : undef;
	if (!$vars || !defined $sql || $sql =~ $disturbing)
	{
		close_sessions($self) if $enabled && defined $sql && $sql =~ $disturbing;
		$calls{fresh}++;
		return $original_psql->(@_);
	}
	local %ENV = $self->_get_env();
	my $connstr = $params{connstr} // $self->connstr($dbname);
	my $key = join("\0", node_key($self), $connstr, @$vars, env_key());
	my $s = $sessions{$key};
	# a session whose backend has gone (restart, crash, termination)
	if ($s && !kill(0, $s->{pid}))
	{
		close_session($key);
		$s = undef;
	}
	$s //= open_session($self, $key, $connstr, $vars);
	if (!$s)
	{
		# (no session could be had: the server refuses, say; psql says why)
		$calls{fresh}++;
		return $original_psql->(@_);
	}
	$calls{session}++;

	my ($stdout, $stderr) = @params{qw(stdout stderr)};
	if (wantarray)
	{
		$stdout //= \(my $temp_out = '');
		$stderr //= \(my $temp_err = '');
	}
	my $marker = '__flakeid_session_' . $$ . '_' . ++$serial . '__';
	my $offset = $s->{lines};
	@$s{qw(out err)} = ('', '');
	send_text($s, "$sql\n;\n\\echo $marker\n\\warn $marker\n");
	my $timed_out = 0;
	if (defined $params{timeout}) { $s->{timer}->start($params{timeout}); }
	else { $s->{timer}->start(100 * $PostgreSQL::Test::Utils::timeout_default); }
	my $done = eval { pump_to($s, $marker) };
	if (!defined $done)
	{
		die $@ unless $@ =~ /flakeid session timeout/;
		$timed_out = 1;
	}
	$s->{timer}->reset;
	my ($out, $err) = @$s{qw(out err)};
	my $ret = 0;
	if ($timed_out)
	{
		close_session($key, 'kill');
		$ret = undef;
	}
	elsif (!$done)
	{
		# psql ended: an error with ON_ERROR_STOP (3), the connection lost (2)
		eval { $s->{run}->finish; };
		my $status = $s->{run}->full_result(0) // 0;
		delete $sessions{$key};
		die "psql exited with signal " . ($status & 127) . ": '$err' while running '$sql'" if $status & 127;
		$ret = $status >> 8;
	}
	$out =~ s/\n?\Q$marker\E\n\z/\n/;
	$err =~ s/\n?\Q$marker\E\n\z/\n/;
	# (a statement the SQL left unterminated ran at its last line, where
	# psql's end of input would have run it, not at the ";" sent after it)
	my $sql_lines = ($sql =~ tr/\n//) + ($sql =~ /\n\z/ ? 0 : 1);
	$err =~ s/^(psql:<stdin>:)(\d+):/$1 . ($2 - $offset > $sql_lines ? $sql_lines : $2 - $offset) . ':'/mge;
	$err = $s->{login_err} . $err;
	chomp $out;
	chomp $err;
	$$stdout = $out if ref $stdout;
	$$stderr = $err if ref $stderr;

	# a fresh psql's exit ended its backend's session state: DISCARD ALL
	# does here (and refuses inside a transaction the call left open: then
	# the session goes, which ends the transaction as psql's exit did)
	if ($done && $sessions{$key})
	{
		my $reset = '__flakeid_session_' . $$ . '_' . ++$serial . '__';
		@$s{qw(out err)} = ('', '');
		send_text($s, "DISCARD ALL;\n\\echo $reset\n\\warn $reset\n");
		$s->{timer}->start(10 * $PostgreSQL::Test::Utils::timeout_default);
		my $reset_done = eval { pump_to($s, $reset) };
		$s->{timer}->reset;
		close_session($key) unless $reset_done && $s->{err} eq "$reset\n";
		@$s{qw(out err)} = ('', '');
	}

	if ($timed_out)
	{
		die "psql timed out: stderr: '$err'\nwhile running '$sql'" unless defined $params{timed_out};
		${ $params{timed_out} } = 1;
	}
	elsif (defined $params{timed_out})
	{
		${ $params{timed_out} } = 0;
	}
	if ($ret && $params{on_error_die})
	{
		die "psql error: stderr: '$err'\nwhile running '$sql'" if $ret == 1;
		die "connection error: '$err'\nwhile running '$sql'" if $ret == 2;
		die "error running SQL: '$err'\nwhile running '$sql'" if $ret == 3;
		die "psql returns $ret: '$err'\nwhile running '$sql'";
	}
	return wantarray ? ($ret, $out, $err) : $ret;
}

# the override of PostgreSQL::Test::Cluster::poll_query_until: the same
# loop (every 0.1 s, up to 10 * timeout_default attempts; true once stdout
# is EXPECTED and stderr empty), its query through the node's session
sub poll_query_until
{
	my ($self, $dbname, $query, $expected) = @_;
	return $original_poll->(@_) if !$enabled || !defined $query || $query =~ $disturbing;
	$expected //= 't';
	my ($stdout, $stderr) = ('', '');
	my $max_attempts = 10 * $PostgreSQL::Test::Utils::timeout_default;
	# A poll's first attempt is a new connection, as each was: a backend
	# left idle before (a crash the test caused with kill, say, that the
	# postmaster has not yet met) must not answer for a server still to
	# restart.  The attempts after it reuse that connection while it lasts.
	local $ENV{FLAKEID_SESSION_POLL} = ++$serial;
	for (my $attempts = 0; $attempts < $max_attempts; $attempts++)
	{
		psql($self, $dbname, $query, stdout => \$stdout, stderr => \$stderr);
		if ($stdout eq $expected && $stderr eq '')
		{
			close_poll_sessions();
			return 1;
		}
		Time::HiRes::usleep(100_000);
	}
	close_poll_sessions();
	Test::More::diag(qq(poll_query_until timed out executing this query:
$query
expecting this output:
$expected
last actual query output:
$stdout
with stderr:
$stderr));
	return 0;
}

{
	no warnings 'redefine';
	*PostgreSQL::Test::Cluster::psql = \&psql;
	*PostgreSQL::Test::Cluster::poll_query_until = \&poll_query_until;
	# what restarts, stops or signals a node closes its sessions first
	for my $method (qw(start stop restart reload promote kill9 teardown_node clean_node))
	{
		my $original = PostgreSQL::Test::Cluster->can($method) or next;
		no strict 'refs';
		*{"PostgreSQL::Test::Cluster::$method"} = sub {
			close_sessions($_[0]);
			goto &$original;
		};
	}
}

# fresh_psql(NODE, DBNAME, SQL, PARAMS...): PostgreSQL's own psql call, a
# psql and a backend of its own, for a check that needs a new backend
sub fresh_psql { return $original_psql->(@_); }

END
{
	# (the sessions go before PostgreSQL::Test::Cluster's END stops the
	# servers; $? is the test's exit status, which Cluster's END and
	# Test::Builder read after this, and reaping psql would set it to 0:
	# a test that died would keep no data directory and say nothing)
	local $?;
	close_all();
}

1;
