# A copy of a data directory started as a second server beside its
# original does not issue the original's IDs (issue 60, part 3).  Derived
# identities come from the system identifier and the timeline, which a copy
# shares: 1.3's copy (cp -a, or a base backup started without a recovery
# signal) issued the same IDs as its original.  Now the witness
# (flakeid.issued) names the data directory it was written in, and a
# derived identity is refused (55000) in a copy until an operator sets the
# identities, or removes the witness once when the copy replaces its
# original for good.  The legitimate moves still issue: a promoted standby
# (a timeline of its own), a restore once the original is gone (one step,
# the hint's), and a witness of 1.3, which records no place, is taken up.
use strict;
use warnings;
use FlakeidTest;
use Test::More;
use PostgreSQL::Test::Utils qw(slurp_file);

# the generators whose IDs carry a derived identity (flax carries random bits, kuid none)
my @derived = grep { $_->{format} =~ /^(sno|siq|kuid96|snowflake)$/ } formats();
my $orig = flakeid_node('copy_orig');
my ($standby) = flakeid_standby($orig, 'copy_standby');
sub psql_on { my ($node, $sql) = @_; return $node->safe_psql('postgres', $sql); }
psql_on($orig, "SELECT $_->{new} FROM generate_series(1, 100)") for @derived;
my $witness = $orig->data_dir . '/flakeid.issued';
like(slurp_file($witness), qr/\nplace: timeline 1, inode \d+\n/, 'the witness names its timeline and inode');

# a copy file by file of the stopped original (as cp -a makes one), started beside it
$orig->stop;
$orig->backup_fs_cold('cold');
$orig->start;
my $copy = PostgreSQL::Test::Cluster->new('copy_cold');
$copy->init_from_backup($orig, 'cold');
$copy->start;
for my $f (@derived)
{
	is(sqlstate_of($copy, "SELECT $f->{new}"), '55000', "a cp -a copy refuses $f->{format}_new() (55000)");
	is(sqlstate_of($copy, 'SELECT ' . backfill_call($f, "'2024-01-01 00:00:00+00'")), '55000',
		"and $f->{format}'s back-fill");
	is(sqlstate_of($orig, "SELECT $f->{new}"), 'ok', "the original still issues $f->{format}");
}
my $message = message_of($copy, 'SELECT sno_new()');
like($message, qr/cannot generate sno IDs in a copy of another data directory/, 'the message says why');
like($message, qr/HINT:.*set this server's identities.*then remove flakeid\.issued once.*for a copy of the stopped original as it last was \(a move\), remove flakeid\.issued once/s,
	'the hint gives the ways out: identities of its own and the witness removed, or (the original gone) the witness removed');
# (seen set apart before the witness goes: a copy whose ALTER SYSTEM of kuid_node had failed, its witness
# removed all the same, repeated 20,000 of 20,000 kuid96: 1.5's seventeenth auditor)
like($message, qr/HINT:.*flakeid\.kuid_node as name\@host\), see each of them in SELECT \* FROM flakeid_identities\(\) once the server is restarted, and only then remove flakeid\.issued/s,
	'... each identity to be seen set apart in flakeid_identities() before the witness goes, kuid_node\'s form given');
is(sqlstate_of($copy, 'SELECT flax_new()'), 'ok', 'flax, whose IDs carry random bits and no identity, issues');

# identities set in the copy's configuration: still refused, since nothing tells them from ones that came
# with the copy (the fault campaign's copy returned 12,500 of its original's IDs under copied settings),
# until the witness is removed, the hint's step
$copy->append_conf('postgresql.conf', "flakeid.sno_partition = 4242\n");
$copy->restart;
is(sqlstate_of($copy, 'SELECT sno_new()'), '55000', 'with a flakeid.sno_partition set, the copy still refuses sno');

# a base backup started as an independent server (no recovery signal: it stays on timeline 1)
$orig->backup('hot');
my $restored = PostgreSQL::Test::Cluster->new('copy_restored');
$restored->init_from_backup($orig, 'hot');
$restored->start;
is(psql_on($restored, 'SELECT timeline_id FROM pg_control_checkpoint()'), '1', 'the restored backup is on timeline 1');
for my $f (@derived)
{
	is(sqlstate_of($restored, "SELECT $f->{new}"), '55000', "a base backup started beside its original refuses $f->{format}");
}
is(sqlstate_of($restored, "SELECT snowflake_new_at('2024-01-01 00:00:00+00')"), '55000',
	'and its back-fill (1.3 returned the original\'s IDs)');

# a promoted standby is on a timeline of its own: it issues, and its witness becomes its own
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
is(sqlstate_of($standby, "SELECT $_->{new}"), 'ok', "the promoted standby issues $_->{format}") for @derived;
like(slurp_file($standby->data_dir . '/flakeid.issued'), qr/\nplace: timeline 2, /,
	"its witness now names its own timeline");
ok(log_count($standby, qr/flakeid recorded this data directory/) >= 1, 'which its log says');

# the original gone, the restore takes over: the hint's one step
$orig->stop;
unlink($restored->data_dir . '/flakeid.issued') or die $!;
is(sqlstate_of($restored, "SELECT $_->{new}"), 'ok', "the witness removed, the restore issues $_->{format}") for @derived;
$restored->restart;
is(sqlstate_of($restored, 'SELECT sno_new()'), 'ok', 'and again after a restart: the witness is its own now');
like(slurp_file($restored->data_dir . '/flakeid.issued'), qr/\nplace: timeline 1, inode \d+\n/,
	'the witness was written again, with this data directory');

# the original gone, an older copy takes over (a restore of a backup): flakeid.take_over_from with the
# inode the refusal names, the hint's other step; the original may have issued after the copy, so
# the generators resume 62 s ahead and back-fill before that is refused (kuid, without identity, too)
my $older = PostgreSQL::Test::Cluster->new('copy_older');
$older->init_from_backup($orig, 'cold');
my $sibling = PostgreSQL::Test::Cluster->new('copy_sibling');    # another restore of the same backup
$sibling->init_from_backup($orig, 'cold');
$older->start;
my ($inodes) = message_of($older, 'SELECT snowflake_new()') =~ /set flakeid.take_over_from = '(\d+:\d+)'/;
ok(defined $inodes, 'the hint names flakeid.take_over_from with the two inodes, for a copy that may be older');
$inodes //= '';
$older->append_conf('postgresql.conf', "flakeid.take_over_from = '$inodes'\n");
$older->restart;
$sibling->append_conf('postgresql.conf', "flakeid.take_over_from = '$inodes'\n");
$sibling->start;
is(sqlstate_of($sibling, 'SELECT sno_new()'), '55000',
	'a sibling copy given the same setting takes nothing over (its witness file is another): refused');
ok(log_count($sibling, qr/took nothing over/) == 1, 'its log says so');
is(sqlstate_of($older, "SELECT $_->{new}"), 'ok', "with flakeid.take_over_from, the older copy takes over and issues $_->{format}") for @derived;
ok(log_count($older, qr/flakeid took this copy of a data directory over as its own, as flakeid.take_over_from says/) == 1,
	'its log says it took over, at start');
is(sqlstate_of($older, "SELECT snowflake_new_at('2024-01-01 00:00:00+00')"), '55000',
	'and refuses back-fill before then (what the original back-filled after the copy is not in it)');
is(sqlstate_of($older, "SELECT kuid_new_at('2024-01-01 00:00:00+00')"), '55000',
	'kuid back-fill too (a generator without identity; the first takeover, at derivation, missed it)');
$older->restart;
is(sqlstate_of($older, "SELECT sno_new(), snowflake_new_at('2024-01-01 00:00:00+00')"), '55000',
	'after a restart the floor holds');
is(sqlstate_of($older, 'SELECT sno_new()'), 'ok', 'and the witness is its own');

# the setting left on takes no later copy over: that copy's witness records another inode
$older->stop;
$older->backup_fs_cold('older');
$older->start;
my $later = PostgreSQL::Test::Cluster->new('copy_later');
$later->init_from_backup($older, 'older');
$later->start;
is(sqlstate_of($later, 'SELECT sno_new()'), '55000', 'a copy of the taken-over server, the setting still on, is refused');
ok(log_count($later, qr/took nothing over/) == 1, 'its log says the setting took nothing over');

# a witness of 1.3 (no place line) is taken up as this data directory's own
my $sysid = psql_on($copy, 'SELECT system_identifier FROM pg_control_system()');
$copy->stop;
open(my $fh, '>', $copy->data_dir . '/flakeid.issued') or die $!;
print $fh "flakeid issued IDs in the cluster with system identifier $sysid\n";
close $fh;
$copy->start;
is(sqlstate_of($copy, 'SELECT snowflake_new()'), 'ok', "a witness of 1.3 is taken up: the server issues");
like(slurp_file($copy->data_dir . '/flakeid.issued'), qr/\nplace: timeline 1, inode \d+\n/,
	'and its witness now names this data directory');
# a copy made before any ID (a golden image: the extension created, nothing issued): the witness is
# written when recovery ends, saying no ID was issued yet, and names the data directory all the same
my $golden = flakeid_node('copy_golden');
ok(poll_until(sub { -e $golden->data_dir . '/flakeid.issued' }, timeout => 60),
	'a server that issued nothing has a witness once recovery ended');
like(slurp_file($golden->data_dir . '/flakeid.issued'), qr/^flakeid runs, and has issued no ID yet, .*\nplace: timeline 1, /s,
	'which says no ID was issued yet (a missing state file is then a first start)');
$golden->stop;
$golden->backup_fs_cold('golden');
$golden->start;
my $image = PostgreSQL::Test::Cluster->new('copy_image');
$image->init_from_backup($golden, 'golden');
$image->start;
is(sqlstate_of($image, 'SELECT kuid_new()'), '55000',
	'the copy refuses kuid, which carries no identity (1.4 first issued it there, and its first save lost the copy\'s witness)');
is(sqlstate_of($image, 'SELECT sno_new()'), '55000',
	'a copy made before any ID is still refused a derived identity (1.4 first missed it, then lost it to that first save)');
is(sqlstate_of($golden, 'SELECT sno_new()'), 'ok', 'its original issues');
# the image taken over (flakeid.take_over_from, as its refusal says) where no renewer runs
# (max_worker_processes too low for it): its witness says IDs were issued from the take-over, so that
# the state file lost later is refused as missing.  (1.4's ninth fresh eyes: the take-over kept the
# image's "no ID yet", noted seen in every process, and the state file removed was a first start at
# the clock, below the IDs issued: 3 of 5 sno IDs again.)
my ($image_inodes) = message_of($image, 'SELECT sno_new()') =~ /set flakeid.take_over_from = '(\d+:\d+)'/;
ok(defined $image_inodes, 'the image\'s refusal names flakeid.take_over_from');
$image->stop;
$image->append_conf('postgresql.conf', "max_worker_processes = 0\nflakeid.take_over_from = '" . ($image_inodes // '') . "'\n");
$image->start;
is(sqlstate_of($image, 'SELECT sno_new() FROM generate_series(1, 5)'), 'ok', 'taken over with no renewer, it issues');
like(slurp_file($image->data_dir . '/flakeid.issued'), qr/^flakeid issued IDs/, 'and its witness says IDs were issued');
$image->stop;
$image->append_conf('postgresql.conf', "flakeid.take_over_from = ''\n");
unlink($image->data_dir . '/flakeid.state') or die $!;
$image->start;
like(message_of($image, 'SELECT sno_new()'), qr/state file is missing/, 'its state file lost after it: refused as missing, not a first start');

# a promoted standby copied before its first ID: the witness is taken up when recovery ends
my ($standby2) = flakeid_standby($golden, 'copy_standby2');
$standby2->promote;
ok(poll_until(sub { slurp_file($standby2->data_dir . '/flakeid.issued') =~ /place: timeline 2, / }, timeout => 60),
	'a promoted standby takes the witness up when recovery ends, before any ID');
$standby2->stop;
$standby2->backup_fs_cold('promoted');
$standby2->start;
my $promoted_copy = PostgreSQL::Test::Cluster->new('copy_promoted');
$promoted_copy->init_from_backup($standby2, 'promoted');
$promoted_copy->start;
is(sqlstate_of($promoted_copy, 'SELECT snowflake_new()'), '55000', 'a copy of it is refused (1.4 first missed it: 45,111 equal snowflakes)');
is(sqlstate_of($standby2, 'SELECT snowflake_new()'), 'ok', 'the promoted standby issues');
# the witness removed beside a state file (the move's step): it is written again saying IDs were
# issued, so that a state file lost later is refused as missing, not a first start
$golden->stop;
unlink($golden->data_dir . '/flakeid.issued') or die $!;
$golden->start;
ok(poll_until(sub { (-e $golden->data_dir . '/flakeid.issued') && slurp_file($golden->data_dir . '/flakeid.issued') =~ /^flakeid issued IDs/ },
		timeout => 60), 'the witness removed beside a state file: written again saying IDs were issued');
$golden->stop;
unlink($golden->data_dir . '/flakeid.state') or die $!;
$golden->start;
is(sqlstate_of($golden, 'SELECT kuid_new()'), 'XX001', 'the state lost after it: refused as missing, not a first start');

# identities set in the configuration, copied along with it (the data directory holds postgresql.conf):
# the copy would issue its original's IDs under them, kuid's too (it carries none), and is refused them
# until its operator removes the witness, the identities set apart first; its own witness then names
# it, so that a copy of the copy is refused in turn
my $set = flakeid_node('copy_set', 'flakeid.sno_partition' => 77, 'flakeid.siq_shard' => 7,
	'flakeid.kuid_node' => 'pg@setnode', 'flakeid.snowflake_worker' => 3, 'flakeid.snowflake_process' => 5);
psql_on($set, "SELECT $_->{new}") for @derived;
$set->stop;
$set->backup_fs_cold('set');
# (an edit of the original's configuration made before the copy, which its witness could not know)
$set->append_conf('postgresql.conf', "flakeid.snowflake_process = 9\n");
$set->start;
my $set_copy = PostgreSQL::Test::Cluster->new('copy_set_copy');
$set_copy->init_from_backup($set, 'set');
$set_copy->append_conf('postgresql.conf', "flakeid.snowflake_process = 9\n");
$set_copy->start;
for my $f (@derived)
{
	is(sqlstate_of($set_copy, "SELECT $f->{new}"), '55000', "a copy with its original's identities set refuses $f->{format}_new()");
	is(sqlstate_of($set, "SELECT $f->{new}"), 'ok', "its original issues $f->{format}");
}
is(sqlstate_of($set_copy, 'SELECT kuid_new()'), '55000', 'and kuid, which carries no identity at all (the campaign\'s copy returned its original\'s)');
like(message_of($set_copy, "SELECT kuid_new_at('2024-01-01 00:00:00+00')"), qr/cannot generate kuid IDs in a copy of another data directory/,
	'kuid\'s back-fill too, saying why');
# (1.5's third auditor: kuid96_new, which shares kuid's counter, was refused as "kuid")
like(message_of($set_copy, 'SELECT kuid96_new()'), qr/cannot generate kuid96 IDs in a copy of another data directory/,
	'65128c7: kuid96_new() is refused by its own name, not as kuid');
like(message_of($set_copy, "SELECT kuid96_new_at('2024-01-01 00:00:00+00')"), qr/cannot generate kuid96 IDs in a copy/,
	'65128c7: and kuid96\'s back-fill');
is(sqlstate_of($set, 'SELECT kuid_new()'), 'ok', 'which its original issues');
# what only reads is not refused in the copy (the second review): the identities, horizons, conversions
is(sqlstate_of($set_copy, 'SELECT count(*) FROM flakeid_identities()'), 'ok', 'the copy lists its identities (what the operator must set apart)');
is(sqlstate_of($set_copy, 'SELECT sno_horizon(), snowflake_horizon(), siq_horizon(), kuid_horizon(), kuid96_horizon()'), 'ok',
	'and gives horizons (a poller of the copy reads on)');
is(sqlstate_of($set_copy, "SELECT kuid96('.6.udOGBV..'::kuid)"), 'ok', 'and converts a kuid to kuid96');
# the operator sets the copy's identities apart, then removes the witness, as the hint says
$set_copy->append_conf('postgresql.conf', "flakeid.sno_partition = 78\nflakeid.siq_shard = 8\nflakeid.kuid_node = 'pg\@setcopy'\nflakeid.snowflake_process = 6\n");
$set_copy->stop;
unlink($set_copy->data_dir . '/flakeid.issued') or die $!;
$set_copy->start;
is(sqlstate_of($set_copy, "SELECT $_->{new}"), 'ok', "its identities set apart and the witness removed, the copy issues $_->{format}") for @derived;
ok(poll_until(sub { slurp_file($set_copy->data_dir . '/flakeid.issued') =~ /\nplace: timeline 1, inode \d+\n/ }, timeout => 60),
	'and its own witness names it');
# a copy of that copy (the auditor's: 1.4's first cut compared identities with the first original's only)
$set_copy->stop;
$set_copy->backup_fs_cold('set_copy');
$set_copy->start;
my $set_copy2 = PostgreSQL::Test::Cluster->new('copy_set_copy2');
$set_copy2->init_from_backup($set_copy, 'set_copy');
$set_copy2->start;
is(sqlstate_of($set_copy2, 'SELECT sno_new()'), '55000', 'a copy of the copy is refused beside it');
is(sqlstate_of($set_copy, 'SELECT sno_new()'), 'ok', 'which issues');
stop_checked($copy, $restored, $standby, $older, $sibling, $later, $golden, $image, $standby2, $promoted_copy, $set, $set_copy, $set_copy2);

# A witness that cannot be read as this cluster's (emptied, another cluster's, unreadable) names no
# data directory.  Read as absent, a copy made of such a data directory was never told apart (1.4's
# auditor: the witness emptied, the server stopped, cp -a, both started: 17,239 sno IDs issued by
# both).  Every generator but flax is refused (XX001) until an operator, having checked, removes it;
# flakeid then writes it again for that data directory, and a copy is told apart again.
my $blank = flakeid_node('copy_blank');
psql_on($blank, "SELECT $_->{new}") for @derived;
my $blank_witness = $blank->data_dir . '/flakeid.issued';
my $blank_sysid = psql_on($blank, 'SELECT system_identifier FROM pg_control_system()');
my @refusable = (@derived, grep { $_->{format} eq 'kuid' } formats());
sub write_witness { my ($file, $text) = @_; open(my $wf, '>', $file) or die "$file: $!"; print $wf $text; close $wf; }
for my $case ([ 'emptied', sub { write_witness($blank_witness, '') } ],
	[ "another cluster's", sub { write_witness($blank_witness, 'flakeid issued IDs in the cluster with system identifier ' . ($blank_sysid + 1) . "\n") } ],
	[ 'unreadable (mode 000)', sub { chmod(0000, $blank_witness) or die $! } ])
{
	my ($what, $damage) = @$case;
	my $kept = slurp_file($blank_witness);
	$damage->();
	is(join(' ', map { sqlstate_of($blank, "SELECT $_->{new}") } @refusable), join(' ', ('XX001') x @refusable),
		"a witness $what: every generator but flax is refused, XX001 (" . join(', ', map { $_->{format} } @refusable) . ')');
	is(sqlstate_of($blank, 'SELECT flax_new()'), 'ok', "a witness $what: flax (random bits, no identity) issues");
	chmod(0600, $blank_witness);
	write_witness($blank_witness, $kept);
}
# another cluster's witness beside a missing state file: refused as missing, never a first start at
# the clock (1.4's auditor: a state file lost to a failed start afresh, then that, resumed below issued IDs)
$blank->stop;
rename($blank->data_dir . '/flakeid.state', $blank->data_dir . '/flakeid.state.kept') or die $!;
write_witness($blank_witness, 'flakeid issued IDs in the cluster with system identifier ' . ($blank_sysid + 1) . "\n");
$blank->start;
like(message_of($blank, 'SELECT snowflake_new()'), qr/state file is missing/,
	"another cluster's witness beside a missing state file: refused as missing, not a first start");
$blank->stop;
rename($blank->data_dir . '/flakeid.state.kept', $blank->data_dir . '/flakeid.state') or die $!;
$blank->start;
write_witness($blank_witness, '');
like(message_of($blank, 'SELECT sno_new()'),
	qr/cannot generate sno IDs: "flakeid.issued" cannot be read as this cluster's.*HINT:.*set this server's identities.*Then remove flakeid\.issued once/s,
	'the message names the file; the hint: identities apart if it may be a copy, then remove the witness once');
# the auditor's sequence: emptied, stopped, copied, both started
$blank->stop;
$blank->backup_fs_cold('blank');
$blank->start;
my $blank_copy = PostgreSQL::Test::Cluster->new('copy_blank_copy');
$blank_copy->init_from_backup($blank, 'blank');
$blank_copy->start;
is(join(' ', map { sqlstate_of($_, 'SELECT sno_new()') . ' ' . sqlstate_of($_, 'SELECT kuid_new()') } $blank, $blank_copy), 'XX001 XX001 XX001 XX001',
	'a cp -a copy of a data directory whose witness was emptied, started beside it: both refuse sno and kuid (1.4 issued the same IDs in both)');
# the original, having checked, removes it: it issues, its witness is written again, and a later copy is told apart
unlink($blank_witness) or die $!;
is(join(' ', map { sqlstate_of($blank, "SELECT $_->{new}") } @refusable), join(' ', ('ok') x @refusable),
	'the witness removed, as the hint says: the original issues again');
psql_on($blank, 'SELECT sno_new() FROM generate_series(1, 100000)');
ok(poll_until(sub { (-e $blank_witness) && slurp_file($blank_witness) =~ /^flakeid issued IDs .*\nplace: timeline 1, inode \d+\n/s }, timeout => 60),
	'and its witness is written again, naming this data directory');
$blank->stop;
$blank->backup_fs_cold('blank2');
$blank->start;
my $blank_copy2 = PostgreSQL::Test::Cluster->new('copy_blank_copy2');
$blank_copy2->init_from_backup($blank, 'blank2');
$blank_copy2->start;
is(sqlstate_of($blank_copy2, 'SELECT sno_new()') . ' ' . sqlstate_of($blank, 'SELECT sno_new()'), '55000 ok',
	'a copy made after that is refused as a copy (55000), beside its original, which issues');
# the witness removed while the server runs (the hints' step): the next save writes it again, in a
# process that had seen it too (1.4's reviewer: a per-process flag left it unwritten while the renewer
# and long-lived backends issued, and a copy made meanwhile was not told apart)
my $held = session($blank);
$held->query("SELECT sno_advance_past(sno_from_parts(clock_timestamp() + interval '3 s', 0, 0, 0))");    # (a save in this backend)
unlink($blank_witness) or die $!;
$held->query("SELECT sno_advance_past(sno_from_parts(clock_timestamp() + interval '6 s', 0, 0, 0))");
ok((-e $blank_witness) && slurp_file($blank_witness) =~ /^flakeid issued IDs .*\nplace: timeline 1, inode \d+\n/s,
	'the witness removed while the server runs: the next save of a backend that had saved with it writes it again');
$held->close;
stop_checked($blank, $blank_copy, $blank_copy2);
# An original that was issuing ahead of its clock (here an hour: a session's
# clock offset stands for an excursion of NTP, and the stop's save, more
# than 62 s ahead of the real clock, is kept in flakeid.state.ahead) goes
# on there after the copy is made, where nothing waits for the clock: a
# takeover that resumed at the copy's marks issued again every snowflake
# the original minted since (1.5's fifth reviewer: 2,000 of 2,000).  It
# takes nothing over until the clock has passed them; then (a clock two
# hours on, for the copy's server alone) it takes over above them.
my $ahead_orig = flakeid_node('copy_ahead_orig', 'flakeid.allow_debug_clock_offset' => 'on');
psql_on($ahead_orig, 'SET flakeid.debug_clock_offset_ms = 3600000; SELECT snowflake_new() FROM generate_series(1, 2000)');
$ahead_orig->stop;
$ahead_orig->backup_fs_cold('ahead');
$ahead_orig->start;
psql_on($ahead_orig, 'CREATE TABLE after_copy AS SELECT snowflake_new() AS id FROM generate_series(1, 2000)');
my $after_copy = psql_on($ahead_orig, "SELECT string_agg(id::text, ',') FROM after_copy");
$ahead_orig->stop;
my $ahead_copy = PostgreSQL::Test::Cluster->new('copy_ahead');
$ahead_copy->init_from_backup($ahead_orig, 'ahead');
$ahead_copy->start;
my ($ahead_inodes) = message_of($ahead_copy, 'SELECT snowflake_new()') =~ /set flakeid.take_over_from = '(\d+:\d+)'/;
$ahead_copy->append_conf('postgresql.conf', "flakeid.take_over_from = '" . ($ahead_inodes // '') . "'\n");
$ahead_copy->restart;
is(sqlstate_of($ahead_copy, 'SELECT snowflake_new()'), '55000',
	'a copy of an original issuing an hour ahead of its clock: flakeid.take_over_from takes nothing over yet (refused as a copy)');
ok(log_count($ahead_copy, qr/took nothing over: this copy's generators were issuing ahead of the clock, until .*/) >= 1,
	'... and its log says until when');
# (the client's refusal said only "a copy", its hint the witness's removal
# as the other way, which, followed, gave again all 2,000 snowflakes the
# original minted after the copy: 1.5's seventh reviewer and auditor)
{
	my $waiting = message_of($ahead_copy, 'SELECT snowflake_new()');
	like($waiting, qr/ERROR:  cannot generate snowflake IDs yet: flakeid.take_over_from waits until the clock has passed .* to take this copy over/,
		'... and the client is told the takeover waits, and until when');
	unlike($waiting, qr/remove flakeid.issued once/, '... its hint never offers the witness\'s removal');
}
$ahead_copy->stop;
{
	my $env = clock_env(fixed => '+7200');
	local @ENV{ keys %$env } = values %$env;
	$ahead_copy->start;
}
ok(log_count($ahead_copy, qr/flakeid took this copy of a data directory over as its own/) == 1,
	'once the clock has passed its marks, the copy takes over');
psql_on($ahead_copy, "CREATE TABLE original (id bigint); INSERT INTO original SELECT unnest('{$after_copy}'::bigint[])");
is(psql_on($ahead_copy, 'SELECT count(*) FROM original o JOIN (SELECT snowflake_new() AS id FROM generate_series(1, 2000)) c USING (id)'), '0',
	'... and issues none of the snowflakes the original minted after the copy');
is(psql_on($ahead_copy, 'SELECT snowflake_new() > (SELECT max(id) FROM original)'), 't', '... resuming above them');
$ahead_copy->stop;

done_testing();
