# Shared by the TAP files test/t/*.pl (`make prove_installcheck`): servers
# with flakeid preloaded, made by PostgreSQL::Test::Cluster, and a relay that
# runs a TAP-producing script (bash, psql with pgTAP, a client driver) and
# turns each of its result lines into a check of the calling file.
package FlakeidTest;

use strict;
use warnings;

# The servers a test talks to are the ones it makes: none of the caller's
# libpq variables (PGHOST, PGPORT, ... as `make prove_installcheck PGHOST=…`
# exports them), nor make's own (MAKEFLAGS carries command-line variables
# into every make a test runs, upgrade.t's installcheck among them).
# PG_TEST_* are the harness's own settings, and stay.
BEGIN
{
	delete $ENV{$_} for grep { /^PG/ && !/^PG_TEST_/ } keys %ENV;
	delete @ENV{qw(MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS)};
}

use Exporter 'import';
use File::Basename qw(basename);
use File::Temp ();
use IPC::Run;
use POSIX ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(flakeid_node flakeid_standby restart_with sqlstate_of message_of
  run_tap_script selected_scripts script_command);

# flakeid_node(NAME, SETTING => VALUE, ...): a started server, able to stream
# to a standby, with flakeid preloaded and the extension created in database
# postgres.  The settings are those initdb gives (the module's own are for
# tiny servers: 10 connections, 1 MB of shared buffers, every statement
# logged), UTF-8, and the caller's.
sub flakeid_node
{
	my ($name, %settings) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => 1, extra => [ '--encoding=UTF8', '--locale=C.UTF-8' ]);
	my %conf = (
		shared_preload_libraries => 'flakeid',
		max_connections => 100,
		shared_buffers => '128MB',
		max_wal_size => '1GB',
		log_statement => 'none',
		%settings);
	$node->append_conf('postgresql.conf', join('', map { "$_ = '$conf{$_}'\n" } sort keys %conf));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION flakeid');
	return $node;
}

# flakeid_standby(PRIMARY, NAME, SQL): a hot standby of PRIMARY made as an
# operator makes one: pg_basebackup -R (streaming its WAL), taken while SQL
# (if given; statements commit one by one) runs on the primary in another
# session; the primary's
# configuration comes along, identities included.  Its settings of each
# start go into replica.conf (restart_with).  Returns the started standby
# and the exit status of SQL.
sub flakeid_standby
{
	my ($primary, $name, $sql) = @_;
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

# sqlstate_of(NODE, SQL): the SQLSTATE SQL fails with, or 'ok'
sub sqlstate_of
{
	my ($node, $sql) = @_;
	my ($out, $err) = ('', '');
	my $rc = $node->psql('postgres', $sql, stdout => \$out, stderr => \$err,
		extra_params => [ '-v', 'VERBOSITY=sqlstate' ]);
	return 'ok' if $rc == 0;
	return $err =~ /ERROR:\s+([0-9A-Z]{5})/ ? $1 : "exit $rc: $err";
}

# message_of(NODE, SQL): what SQL prints on stderr (its ERROR, DETAIL, HINT)
sub message_of
{
	my ($node, $sql) = @_;
	my ($out, $err) = ('', '');
	$node->psql('postgres', $sql, stdout => \$out, stderr => \$err,
		extra_params => [ '-v', 'VERBOSITY=default' ]);
	return $err;
}

# selected_scripts(GLOB): the files GLOB finds, in name order; FLAKEID_TESTS
# (names without directory or extension, separated by spaces or commas)
# keeps only those named.
sub selected_scripts
{
	my ($glob) = @_;
	my @scripts = sort glob($glob);
	return @scripts unless $ENV{FLAKEID_TESTS};
	my %wanted = map { $_ => 1 } split /[\s,]+/, $ENV{FLAKEID_TESTS};
	return grep { my $n = basename($_); $n =~ s/\.[^.]*$//; $wanted{$n} } @scripts;
}

# script_command(FILE): how to run a test script: with the interpreter its
# "#!" line names (perl, python3), with bash otherwise
sub script_command
{
	my ($file) = @_;
	open(my $fh, '<', $file) or die "$file: $!";
	my $first = <$fh> // '';
	close($fh);
	return ('perl', $file) if $first =~ /^#!.*\bperl\b/;
	return ('python3', $file) if $first =~ /^#!.*\bpython3?\b/;
	return ('bash', $file);
}

# run_tap_script(NODE, LABEL, COMMAND...): runs COMMAND with the libpq
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

1;
