# A data directory made by copying one initdb made before, rather than by
# running initdb again (issue 58: about 107 initdb runs a major's TAP files
# make, each about 0.7 CPU-s on a 2-core machine where the whole test
# command is CPU-bound; a copy costs about 0.15).  PostgreSQL 17's
# INITDB_TEMPLATE does the same only for nodes made without initdb options
# (ours have an encoding and a locale), only from 17 on, and hands every
# node the template's system identifier: flakeid's state file names its
# cluster by that identifier, and tests make clusters that must differ.
#
# So here: PostgreSQL::Test::Cluster's call of initdb (through
# PostgreSQL::Test::Utils::system_or_bail, on every major) is met, when
# FLAKEID_INITDB_TEMPLATES names a directory (scripts/test_major sets it to
# one of its own, removed with it), by a copy of the template for the same
# initdb binary and the same options, made by the first node that needs it
# (under a lock: TAP files run at once), followed by a system identifier of
# its own: written into pg_control (its CRC made again) and into the long
# header of the first page of each WAL segment, the only places PostgreSQL
# keeps it.  Anything unexpected (no template directory, a pg_control whose
# CRC cannot be found, a WAL header that does not carry the identifier)
# makes the node by initdb as before, so the outcome is never a node that
# differs from initdb's but in its identifier (and its copy's mock
# authentication nonce).
package InitdbTemplate;

use strict;
use warnings;

use Exporter 'import';
use Fcntl qw(:flock);
use File::Basename qw(basename);
use PostgreSQL::Test::Utils ();
use Time::HiRes ();

our @EXPORT_OK = qw(crc32c);

# crc32c(BYTES): CRC-32C, as pg_control and flakeid's own files end in it
my @crc32c_table = map { my $c = $_; $c = ($c & 1) ? (($c >> 1) ^ 0x82F63B78) : ($c >> 1) for 1 .. 8; $c } 0 .. 255;
sub crc32c
{
	my $crc = 0xFFFFFFFF;
	$crc = $crc32c_table[ ($crc ^ $_) & 0xFF ] ^ ($crc >> 8) for unpack('C*', $_[0]);
	return $crc ^ 0xFFFFFFFF;
}

my $system_or_bail = \&PostgreSQL::Test::Utils::system_or_bail;
{
	no warnings 'redefine';
	*PostgreSQL::Test::Utils::system_or_bail = sub {
		return if $_[0] eq 'initdb' && initdb_by_copy(@_);
		return $system_or_bail->(@_);
	};
}

# initdb_by_copy('initdb', ARGS...): true when the data directory ARGS name
# was made from a template; false (nothing made) when initdb must run
sub initdb_by_copy
{
	my (undef, @args) = @_;
	my $dir = $ENV{FLAKEID_INITDB_TEMPLATES};
	return 0 unless defined $dir && -d $dir;
	# the data directory: -D DIR or --pgdata DIR (15, 19), or --pgdata=DIR
	my ($pgdata, @options);
	for (my $i = 0; $i < @args; $i++)
	{
		if ($args[$i] eq '-D' || $args[$i] eq '--pgdata') { $pgdata = $args[ ++$i ]; }
		elsif ($args[$i] =~ /^--pgdata=(.*)$/s) { $pgdata = $1; }
		else { push @options, $args[$i]; }
	}
	return 0 unless defined $pgdata && !-e $pgdata;
	my ($initdb) = grep { -x } map { "$_/initdb" } split /:/, $ENV{PATH};
	return 0 unless defined $initdb;
	my @st = stat $initdb;
	# (the template is of this binary, as built, and of these options)
	my $key = sprintf('%08x', crc32c(join("\0", $initdb, $st[7], $st[9], @options)));
	my $template = "$dir/$key";
	open my $lock, '>', "$template.lock" or return 0;
	flock($lock, LOCK_EX) or return 0;
	if (!-d $template)
	{
		PostgreSQL::Test::Utils::system_log('rm', '-rf', "$template.new");
		my @made = map { $_ eq $pgdata ? "$template.new" : $_ } @args;
		$system_or_bail->('initdb', @made);
		rename("$template.new", $template) or return 0;
	}
	close $lock;
	return 0 unless PostgreSQL::Test::Utils::system_log('cp', '-RPp', $template, $pgdata) == 0;
	return 1 if new_system_identifier($pgdata);
	# (the copy could not be given an identifier of its own: initdb, as before)
	PostgreSQL::Test::Utils::system_log('rm', '-rf', $pgdata);
	return 0;
}

# new_system_identifier(PGDATA): a system identifier made as initdb makes
# one (seconds, microseconds, the process), with random bits for nodes made
# in one microsecond, written where PostgreSQL keeps it; false if the
# layout is not the one expected (nothing written then)
sub new_system_identifier
{
	my ($pgdata) = @_;
	my $control = slurp("$pgdata/global/pg_control") // return 0;
	my $old = substr($control, 0, 8);
	# the CRC follows the fields it covers, 4-byte aligned: found where it
	# matches them (pg_control's layout differs across majors)
	my ($crc_at) = grep { crc32c(substr($control, 0, $_)) == unpack('V', substr($control, $_, 4)) }
	  map { $_ * 4 } 4 .. 1024 / 4;
	return 0 unless defined $crc_at;
	my @segments = grep { basename($_) =~ /^[0-9A-F]{24}$/ } glob("$pgdata/pg_wal/*");
	my %wal;
	for my $segment (@segments)
	{
		my $head = slurp($segment, 32) // return 0;
		return 0 unless substr($head, 24, 8) eq $old;
		$wal{$segment} = 1;
	}
	my ($s, $us) = Time::HiRes::gettimeofday();
	my $id = pack('Q<', (($s << 32) | ($us << 12) | ($$ & 0xFFF)) ^ int(rand(2**32)));
	substr($control, 0, 8) = $id;
	substr($control, $crc_at, 4) = pack('V', crc32c(substr($control, 0, $crc_at)));
	poke("$pgdata/global/pg_control", 0, $control) or return 0;
	for my $segment (keys %wal)
	{
		poke($segment, 24, $id) or return 0;
	}
	return 1;
}

sub slurp
{
	my ($path, $length) = @_;
	open my $fh, '<:raw', $path or return undef;
	my $bytes;
	defined read($fh, $bytes, $length // -s $fh) or return undef;
	return $bytes;
}

# poke(PATH, OFFSET, BYTES): BYTES written over PATH at OFFSET
sub poke
{
	my ($path, $offset, $bytes) = @_;
	open my $fh, '+<:raw', $path or return 0;
	seek($fh, $offset, 0) or return 0;
	print $fh $bytes or return 0;
	return close $fh;
}

1;
