# One generator's time ahead stays its own (issue 80, item 4; 1.4's second
# auditor).  Through the debug clock offset one monotonic generator mints a
# week ahead of the clock, as a clock excursion would make it; after a clean
# restart and after a crash, that generator (and kuid96 with kuid, whose
# counter it shares) resumes after what it issued, and every other mints at
# the clock.  1.4 kept one mark for siq, kuid and snowflake: after kuid's
# week ahead, snowflake_new() minted IDs dated 604,799 s ahead, and its
# horizon stayed at the present, so a poller read those rows a week late.
#
# The state file keeps the latest of the three marks where 1.4 reads its
# one (a downgrade resumes every generator after it, as 1.4 always did),
# and each generator's own in entries 1.4 skips; a file without them (1.4's)
# gives its one mark to all three.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $week_ms = 7 * 24 * 3600 * 1000;    # (the offset's limit)
my $node = flakeid_node('own_marks', 'flakeid.allow_debug_clock_offset' => 'on');
sub sql { return $node->safe_psql('postgres', $_[0]); }
my @formats = grep { $_->{format} ne 'flax' } formats(stateful => 't');
# the generator whose mark each format's IDs lie before
my %mark_of = (sno => 'sno', siq => 'siq', kuid => 'kuid', kuid96 => 'kuid', snowflake => 'snowflake');

# ahead(FORMAT): seconds its next ID's time lies ahead of the clock
sub ahead
{
	my ($f) = @_;
	return sql("SELECT round(extract(epoch FROM $f->{time}(x) - clock_timestamp()))::int FROM (SELECT $f->{new} x) n");
}
sql(join '; ', map { "SELECT $_->{new}" } @formats);

my %went_ahead;
for my $excursion (qw(kuid snowflake siq))
{
	my ($f) = grep { $_->{format} eq $excursion } @formats;
	sql("SET flakeid.debug_clock_offset_ms = $week_ms; SELECT $f->{new} FROM generate_series(1, 100)");
	$went_ahead{$excursion} = 1;
	for my $stop (qw(fast immediate))
	{
		$node->stop($stop);
		$node->start;
		if (!$went_ahead{snowflake})
		{
			# a poller's view: a committed snowflake row lies below the
			# horizon within the contract's seconds (1.4: a week later)
			sql("CREATE TABLE IF NOT EXISTS polled (id bigint); INSERT INTO polled VALUES (snowflake_new())");
			ok(poll_until(sub { sql('SELECT count(*) = 0 FROM polled WHERE id >= snowflake_horizon()') eq 't' }, timeout => 30),
				"after $excursion\'s week ahead and a $stop stop: a committed snowflake row lies below the horizon");
			sql('TRUNCATE polled');
		}
		for my $g (@formats)
		{
			my $lead = ahead($g);
			if ($went_ahead{ $mark_of{ $g->{format} } })
			{
				cmp_ok($lead, '>=', 7 * 24 * 3600 - 60,
					"after $excursion\'s week ahead and a $stop stop: $g->{format} resumes after what it issued ($lead s ahead)");
			}
			else
			{
				cmp_ok(abs($lead), '<', 60,
					"after $excursion\'s week ahead and a $stop stop: $g->{format} mints at the clock ($lead s ahead)");
			}
		}
	}
}
# the file: the latest mark first, where 1.4 reads it; each generator's own
# in entries not marked required
$node->stop('fast');
my $file = $node->data_dir . '/flakeid.state';
my $bytes = slurp_file($file);
my ($length) = unpack('L<', substr($bytes, 8, 4));
my ($entries, $at, $required, %own) = (substr($bytes, 16, $length), 0, 0);
while ($at < length $entries)
{
	my ($tag, $flags, $size) = unpack('S< S< L<', substr($entries, $at, 8));
	if ($tag == 14)
	{
		my ($side, $n) = unpack('C C', substr($entries, $at + 8, 2));
		$own{ substr($entries, $at + 10, $n) } = unpack('q<', substr($entries, $at + 10 + $n, 8)) if $side == 0;
		$required++ if $flags & 1;
	}
	$at += 8 + $size;
}
is(join(' ', sort keys %own), 'kuid siq snowflake', 'the state file names the mark of each monotonic generator');
is($required, 0, '... in entries not marked required, which 1.4 skips');
my $latest = (sort { $b <=> $a } values %own)[0];
is(state_file_mark($node->data_dir), $latest, 'and keeps the latest of them where 1.4 reads its one mark');

# a file without them, as 1.4 wrote it, on a server where only kuid went
# ahead: its one mark is every monotonic generator's (1.4's resume, never
# below what any of them issued); sno keeps its own marks, at the clock
stop_checked($node);
my $old = flakeid_node('old_file', 'flakeid.allow_debug_clock_offset' => 'on');
$node = $old;
sql(join '; ', map { "SELECT $_->{new}" } @formats);
sql("SET flakeid.debug_clock_offset_ms = $week_ms; SELECT kuid_new()");
$old->stop('fast');
$file = $old->data_dir . '/flakeid.state';
$bytes = slurp_file($file);
($length) = unpack('L<', substr($bytes, 8, 4));
($entries, $at) = (substr($bytes, 16, $length), 0);
my ($body, $dropped) = ('', 0);
while ($at < length $entries)
{
	my ($tag, undef, $size) = unpack('S< S< L<', substr($entries, $at, 8));
	if ($tag == 14) { $dropped++; } else { $body .= substr($entries, $at, 8 + $size); }
	$at += 8 + $size;
}
is($dropped, 6, "1.4's file: the three generators' own marks taken out, of this server's side and its primary's");
my $head = pack('L< L< L< L<', 0x464C4B31, 4, length($body), unpack('L<', substr($bytes, 12, 4)));
open(my $fh, '>:raw', $file) or die "$file: $!";
print $fh $head . $body . pack('L<', crc32c($head . $body));
close($fh);
$old->start;
for my $g (@formats)
{
	my $lead = ahead($g);
	if ($g->{format} eq 'sno')
	{
		cmp_ok(abs($lead), '<', 60, "1.4's file, kuid a week ahead: sno mints at the clock ($lead s ahead)");
	}
	else
	{
		cmp_ok($lead, '>=', 7 * 24 * 3600 - 60, "1.4's file, kuid a week ahead: $g->{format} resumes after its one mark ($lead s ahead)");
	}
}
stop_checked($old);
done_testing();
