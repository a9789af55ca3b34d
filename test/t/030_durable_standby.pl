# A real streaming standby (pg_basebackup -R, taken while the primary mints)
# of a primary with flakeid preloaded.  On the hot standby every generator is
# refused, whatever its identities, unless flakeid.generate_on_standby is on;
# with it and identities of its own the standby mints alongside the primary
# without repeating one ID (kuid, which carries no node, stays refused).
# After promotion the derived identities differ from the primary's.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = flakeid_node('primary');
$primary->safe_psql('postgres',
	'CREATE TABLE standby_ids AS SELECT sno_new() AS id FROM generate_series(1, 100)');
my ($partition, $shard, $node, $worker, $process) = split /\|/, $primary->safe_psql('postgres',
	"SELECT sno_partition(sno_new()), siq_shard(siq_new('user')), kuid96_node(kuid96_new()),
	        snowflake_worker(s), snowflake_process(s) FROM (SELECT snowflake_new() s) x");

# the base backup is taken while the primary mints with every generator
my ($standby, $minted) = flakeid_standby($primary, 'standby',
	"SELECT count(sno_new()), count(siq_new('user')), count(kuid_new()), count(kuid96_new()),
	        count(snowflake_new()) FROM generate_series(1, 300000)");
is($minted, 0, 'the primary minted 1,500,000 IDs while pg_basebackup -R ran');
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't',
	'the standby starts with flakeid preloaded, as a hot standby');
is($standby->safe_psql('postgres', 'SELECT count(*), count(DISTINCT sno_partition(id)) FROM standby_ids'),
	'100|1', 'replicated IDs are readable on the standby');

# replay rewrites the state file only when a record changes something: after
# a crash the standby replays again the records since its last restartpoint,
# which it already holds, and leaves the file alone (1.1 rewrote it for each)
sub state_file_stamp { my ($node) = @_; my @st = stat($node->data_dir . '/flakeid.state'); return "$st[1] $st[9]"; }
sub replayed_up_to_primary
{
	my $lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
	return $standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn");
}
# The stamp is taken once the standby has replayed all the primary wrote (it
# may still be replaying the backup's WAL when it starts), and the round
# counts only if the primary saved nothing meanwhile (its renewer may renew
# once more after the minting ends, a record the standby has not held);
# otherwise it is run again (the first CI run on a loaded machine took the
# stamp mid-replay)
my ($replayed_again, $same_stamp, $primary_still) = (1, 0, 0);
for my $round (1 .. 5)
{
	my $primary_stamp = state_file_stamp($primary);
	replayed_up_to_primary() or die 'the standby did not catch up';
	my $replayed_stamp = state_file_stamp($standby);
	$standby->stop('immediate');
	$standby->start;
	$replayed_again &&= replayed_up_to_primary();
	$same_stamp = state_file_stamp($standby) eq $replayed_stamp;
	$primary_still = state_file_stamp($primary) eq $primary_stamp;
	last if $primary_still;
}
ok($replayed_again, 'the standby replayed again after a crash');
ok($primary_still, 'the primary saved nothing while the standby crashed and replayed (within 5 rounds)');
ok($same_stamp, 'replaying records it already held left flakeid.state alone');

# every stateful generator, live and back-fill, and kuid96's conversion, which mints
my @calls = ((map { ($_->{new}, backfill_call($_, 'now()')) } formats(stateful => 't')), 'kuid96(kuid_new())');
sub refused
{
	my ($label) = @_;
	is(join(' ', map { sqlstate_of($standby, "SELECT $_") } @calls), join(' ', ('55000') x @calls),
		"standby, $label: every generator is ERROR 55000 (@calls)");
}
refused("the primary's configuration");
like(message_of($standby, 'SELECT sno_new()'), qr/ERROR:  cannot generate IDs during recovery/,
	'the message says why');
like(message_of($standby, 'SELECT sno_new()'), qr/HINT:  .*set flakeid.generate_on_standby = on/,
	'the hint names flakeid.generate_on_standby');
like(message_of($standby, 'SELECT kuid_new()'), qr/DETAIL:  kuid IDs carry no node/,
	'kuid_new() says that kuid IDs carry no node');

# identities of its own, different from the primary's, do not open it alone
my %own = (
	'flakeid.sno_partition' => ($partition + 1) % 65536,
	'flakeid.siq_shard' => ($shard + 1) % 256,
	'flakeid.kuid_node' => 'standby@db',
	'flakeid.snowflake_worker' => ($worker + 1) % 32,
	'flakeid.snowflake_process' => ($process + 1) % 32);
restart_with($standby, %own);
refused('identities of its own but no opt-in');

# the opt-in with derived identities: still refused (they are the primary's)
restart_with($standby, 'flakeid.generate_on_standby' => 'on');
is(join('|', map { sqlstate_of($standby, "SELECT $_") } 'sno_new()', 'kuid96_new()', 'snowflake_new()'),
	'55000|55000|55000', 'standby, opt-in with derived identities: refused');
like(message_of($standby, 'SELECT sno_new()'), qr/HINT:  Set flakeid.sno_partition to a value no other server uses/,
	'the hint says to set an explicit identity');

# the opt-in with identities of its own: the standby mints next to the primary
restart_with($standby, %own, 'flakeid.generate_on_standby' => 'on');
is($standby->safe_psql('postgres',
		"SELECT pg_is_in_recovery(), sno_partition(sno_new()), siq_shard(siq_new('user')),
		        kuid96_node(kuid96_new()) = kuid_node_hash('standby\@db'),
		        snowflake_worker(snowflake_new()), snowflake_process(snowflake_new())"),
	join('|', 't', @own{qw(flakeid.sno_partition flakeid.siq_shard)}, 't',
		@own{qw(flakeid.snowflake_worker flakeid.snowflake_process)}),
	'standby, opt-in with identities of its own: every generator but kuid works and uses them');
isnt($standby->safe_psql('postgres', "SELECT kuid_node_hash('standby\@db')"), $node,
	"the standby's kuid96 node differs from the primary's");
is(sqlstate_of($standby, 'SELECT kuid_new()') . '|' . sqlstate_of($standby, 'SELECT kuid_new_at(now())'),
	'55000|55000', 'standby, opt-in: kuid_new() and kuid_new_at() stay refused');

my $mint = "SELECT x FROM (SELECT sno_new()::text, siq_new('user')::text, kuid96_new()::text,
                                  snowflake_new()::text FROM generate_series(1, 50000)) s(a, b, c, d),
                   LATERAL (VALUES (a), (b), (c), (d)) v(x)";
my ($on_primary, $on_standby) = ('', '');
my $primary_mint = IPC::Run::start([ 'psql', '-X', '-At', '-d', $primary->connstr('postgres'), '-c', $mint ],
	'>', \$on_primary);
$on_standby = $standby->safe_psql('postgres', $mint);
$primary_mint->finish;
my (%seen, $both);
my @primary_ids = split /\n/, $on_primary;
my @standby_ids = split /\n/, $on_standby;
$seen{$_} = 1 for @primary_ids;
my $primary_distinct = keys %seen;
my %standby_seen = map { $_ => 1 } @standby_ids;
$both = grep { $seen{$_} } keys %standby_seen;
is(sprintf('%d %d', $primary_distinct, scalar keys %standby_seen), '200000 200000',
	'primary and standby each minted 50,000 distinct sno, siq, kuid96 and snowflake IDs at once');
is($both, 0, 'no ID is minted by both');

# A generating standby keeps its own clock and epoch while both servers mint:
# replay raises only the primary's bounds, which it takes up at promotion.
# Its snowflake epoch is 10 s earlier than the primary's (1.1 counted on
# from each replayed mark, so its IDs ran ahead of its clock, and replay
# wrote the primary's epoch over its own).
my $own_epoch = 1420070400000 - 10000;
restart_with($standby, %own, 'flakeid.generate_on_standby' => 'on', 'flakeid.snowflake_epoch_ms' => $own_epoch);
my $lead_sql = "SELECT round(extract(epoch FROM max(t) - clock_timestamp()) * 1000)
                FROM generate_series(1, 2000),
                     LATERAL (VALUES (kuid96_time(kuid96_new())), (snowflake_time(snowflake_new())),
                                     (siq_time(siq_new('user'))), (sno_time(sno_new()))) v(t)";
my $primary_minter = IPC::Run::start([ 'psql', '-X', '-q', '-d', $primary->connstr('postgres'), '-c',
	"DO \$\$ BEGIN FOR i IN 1..50 LOOP
	   PERFORM count(sno_new()), count(siq_new('user')), count(kuid96_new()), count(snowflake_new())
	   FROM generate_series(1, 20000);
	   PERFORM pg_sleep(0.3); END LOOP; END \$\$" ]);
my ($max_lead, $rounds) = (-1e9, 0);
my $until = time + 20;
while (time < $until)
{
	my $lead = $standby->safe_psql('postgres', $lead_sql);
	$max_lead = $lead if $lead > $max_lead;
	$rounds++;
	sleep 1;
}
$primary_minter->finish;
# (within one second here, as nothing but its own clock moves its counters:
# 1.1 put them 2 s ahead at each replayed record, and further from there)
cmp_ok($max_lead, '<=', 1000,
	"a generating standby minting for 20 s ($rounds rounds) while its primary mints stays at its clock (lead at most $max_lead ms)");
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '"
	  . $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()') . "'::pg_lsn"),
	'the standby replayed every mark the primary saved meanwhile');
is($standby->safe_psql('postgres', "SELECT snowflake_time(snowflake_new()) - clock_timestamp() < interval '3 s'"), 't',
	"replay left the standby's own epoch in force");
$standby->restart;
my $lead = $standby->safe_psql('postgres', $lead_sql);
cmp_ok($lead, '<=', 3000, "after a clean restart it is still within 3 s of its clock ($lead ms)");
$standby->stop('immediate');
$standby->start;
$lead = $standby->safe_psql('postgres', $lead_sql);
cmp_ok($lead, '<=', 3000, "after a crash it is still within 3 s of its clock ($lead ms)");
restart_with($standby, %own, 'flakeid.generate_on_standby' => 'on', 'flakeid.snowflake_epoch_ms' => 1420070400000);
is(sqlstate_of($standby, 'SELECT snowflake_new()'), '55000',
	"restarted with a later epoch (the primary's), the standby refuses snowflakes: ERROR 55000");
like(message_of($standby, 'SELECT snowflake_new()'), qr/Snowflakes were issued with epoch $own_epoch ms/,
	'the message names the epoch its snowflakes were issued with');

# promotion: a new timeline, so new derived identities, and generation opens
restart_with($standby);
$standby->promote;
# (the WAL file name, not pg_control_checkpoint(): the end-of-recovery
# checkpoint that records the new timeline there may not have run yet)
is($standby->safe_psql('postgres',
		"SELECT pg_is_in_recovery(), ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int > 1"),
	'f|t', 'the promoted server is on a new timeline');
my $promoted = $standby->safe_psql('postgres', 'SELECT sno_partition(sno_new()), kuid96_node(kuid96_new())');
isnt($promoted, "$partition|$node",
	"after promotion the derived sno partition and kuid96 node differ from the primary's ($promoted vs $partition|$node)");
is($standby->safe_psql('postgres', 'SELECT count(DISTINCT kuid_new()) FROM generate_series(1, 1000)'),
	'1000', 'after promotion kuid_new() works');

# an idle server writes nothing: a start saves nothing until an ID is minted
$standby->stop;
my $stamp = state_file_stamp($standby);
$standby->start;
$standby->safe_psql('postgres', 'CHECKPOINT');
sleep 3;
is(state_file_stamp($standby), $stamp, 'started and idle for 3 s, the server leaves flakeid.state alone');
# (no wait: the first call after a start is past the mark, saved at the stop
# as the high-water mark, and "only a call past the mark waits for a
# renewal" (docs/OPERATIONS.md): the save is done when the call returns)
$standby->safe_psql('postgres', 'SELECT count(kuid_new()) FROM generate_series(1, 10)');
isnt(state_file_stamp($standby), $stamp, 'once it mints, the mark is saved, before the call returns');

# a standby whose flakeid.state is gone at its start keeps none of what it
# replays, and once promoted refuses every generator (docs/OPERATIONS.md, "A
# standby that starts without a usable flakeid.state"): said at that start,
# not first at the failover (1.5's third auditor, who removed the file
# before the standby's first start and failed over)
unlike(slurp_file($standby->logfile), qr/cannot generate IDs once promoted/,
	'a standby whose state file was usable at its starts never warned that it could not take over');
my ($lost) = flakeid_standby($primary, 'lost_state');
$lost->stop;
unlink($lost->data_dir . '/flakeid.state') or die "flakeid.state: $!";
my $log_from = -s $lost->logfile;
$lost->start;
like(slurp_file($lost->logfile, $log_from),
	qr/WARNING:  this standby cannot generate IDs once promoted: its generator state file "flakeid.state" is missing/,
	'65128c7: a standby started without its flakeid.state says at that start that it cannot take over');
$primary->safe_psql('postgres', 'SELECT count(sno_new()) FROM generate_series(1, 2000)');
my $lost_lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
$lost->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lost_lsn'") or die 'no catch-up';
$primary->stop;
$lost->promote;
$lost->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'not promoted';
is(sqlstate_of($lost, 'SELECT sno_new()'), 'XX001',
	'... and once promoted it refuses, as it warned (the replayed marks were kept nowhere)');
$lost->stop;

# The same refusal mended (the file made readable again, as the warning's
# hint said before 1.5's fifth auditor) and the standby restarted: the
# bounds it replayed meanwhile, past a restartpoint, were kept nowhere,
# and once promoted it issued its old primary's kuids again (24 of 600, its
# clock 10 s behind; all 600 after an excursion).  The first bounds it
# replays while refused are noted in flakeid.state.replay-lost, which
# refuses the mended file until a start afresh.
ok(!-e $standby->data_dir . '/flakeid.state.replay-lost', 'a standby whose file was usable notes no bounds lost');
# (the primary mints an hour ahead, an excursion of its clock: a start afresh
# at the clock + 62 s, after a note that kept no bounds, lay below its kuids:
# 1.5's sixth reviewer)
$primary->append_conf('postgresql.conf', "flakeid.allow_debug_clock_offset = on\n");
$primary->start;
my ($mended) = flakeid_standby($primary, 'mended_state');
my $md = $mended->data_dir;
$mended->stop;
chmod(0000, "$md/flakeid.state") or die "flakeid.state: $!";
$log_from = -s $mended->logfile;
$mended->start;
like(slurp_file($mended->logfile, $log_from),
	qr/WARNING:  this standby cannot generate IDs once promoted: its generator state file "flakeid.state" cannot be read or is damaged.*HINT:  Do not count on this standby for failover: make it again/s,
	'a standby whose file cannot be read: the warning says to make it again, not to mend the file');
$primary->safe_psql('postgres', 'SET flakeid.debug_clock_offset_ms = 3600000; CREATE TABLE primary_kuids AS SELECT kuid_new() AS id FROM generate_series(1, 600); CHECKPOINT');
my $mended_lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
$mended->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$mended_lsn'") or die 'no catch-up';
$mended->safe_psql('postgres', 'CHECKPOINT');    # (a restartpoint past the replayed bounds)
ok(-f "$md/flakeid.state.replay-lost", '... and the bounds it replayed while refused are kept in flakeid.state.replay-lost');
$mended->stop;
chmod(0600, "$md/flakeid.state") or die "flakeid.state: $!";
$log_from = -s $mended->logfile;
$mended->start;
like(slurp_file($mended->logfile, $log_from),
	qr/WARNING:  this standby cannot generate IDs once promoted: its generator state file "flakeid.state" lacks bounds it replayed while the file could not be used/,
	'the file mended and the standby restarted: it still warns, the replayed bounds being lost');
$primary->stop;
$mended->promote;
$mended->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'not promoted';
like(message_of($mended, 'SELECT kuid_new()'),
	qr/ERROR:  flakeid's generator state lacks bounds this server replayed from its primary.*HINT:  Set flakeid.start_afresh = on/s,
	'once promoted it refuses (XX001), naming the lost bounds, the hint a start afresh');
is(sqlstate_of($mended, 'SELECT kuid_new()'), 'XX001', '... with XX001');
# pg_upgrade of such a server, as OPERATIONS' steps say (the new cluster
# given the old one's flakeid.state* files and flakeid.accept_state_from):
# before 1.5's seventh auditor the steps copied flakeid.state alone, the
# new cluster took it up and issued the old primary's kuids again (1,496
# of 3,000); copied, the note refuses the file there too, and the new
# cluster's start afresh folds it in (it failed on another cluster's note).
{
	my $mended_kuids = $mended->safe_psql('postgres', "SELECT string_agg(id::text, ',') FROM primary_kuids");
	my $mended_sysid = $mended->safe_psql('postgres', 'SELECT system_identifier FROM pg_control_system()');
	$mended->stop;
	my $upgraded = flakeid_node('upgraded_from_mended');
	$upgraded->stop;
	for my $file (grep { -e "$md/$_" } 'flakeid.state', 'flakeid.state.ahead', 'flakeid.state.replay-lost', 'flakeid.deep')
	{
		system('cp', "$md/$file", $upgraded->data_dir . "/$file") == 0 or die "cp: $!";
		chmod 0600, $upgraded->data_dir . "/$file";
	}
	$upgraded->append_conf('postgresql.conf', "flakeid.accept_state_from = '$mended_sysid'\n");
	$upgraded->start;
	is(sqlstate_of($upgraded, 'SELECT kuid_new()'), 'XX001',
		'the old cluster\'s files copied by pg_upgrade\'s steps: the new cluster refuses too, flakeid.state.replay-lost with them');
	$upgraded->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
	$upgraded->restart;
	$upgraded->safe_psql('postgres', "CREATE TABLE primary_kuids AS SELECT unnest('{$mended_kuids}'::kuid[]) AS id");
	is(sqlstate_of($upgraded, 'SELECT kuid_new()'), 'ok', '... its start afresh folds in the old cluster\'s note');
	is($upgraded->safe_psql('postgres', 'SELECT count(*) FROM primary_kuids JOIN (SELECT kuid_new() AS id FROM generate_series(1, 2000)) n USING (id)'),
		'0', '... and issues none of the old primary\'s kuids');
	is($upgraded->safe_psql('postgres', 'SELECT kuid_new() > (SELECT max(id) FROM primary_kuids)'), 't', '... resuming above them');
	$upgraded->stop;
	$mended->start;
}
$mended->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
$mended->restart;
is($mended->safe_psql('postgres', 'SELECT count(*) FROM primary_kuids JOIN (SELECT kuid_new() AS id FROM generate_series(1, 2000)) n USING (id)'),
	'0', 'the start afresh issues none of the old primary\'s kuids');
is($mended->safe_psql('postgres', 'SELECT kuid_new() > (SELECT max(id) FROM primary_kuids)'), 't',
	'... resuming above them, an hour ahead of the clock: the marks of flakeid.state.replay-lost folded in');
ok(!-e "$md/flakeid.state.replay-lost", '... and takes the note away');
$mended->stop;

# A base backup restored without a signal file replays its original's
# records from its backup_label, and notes them while its flakeid.state
# cannot be read.  A start that ends mid-way (a crash) has renamed the
# label: would the next start, with neither label nor signal file, replay
# the original's records unnoted, and the mended file then be taken up
# below them (1.5's seventh reviewer, by reading)?  PostgreSQL refuses to
# end that crash recovery before the backup's end, whatever it replayed,
# and the start with recovery.signal (and a restore_command) replays them again
# from the backup's checkpoint, noted.  The backup is taken by hand
# (pg_backup_start, a copy, pg_backup_stop, the WAL), so that the
# original's kuids an hour ahead lie inside it; the first start ends at its
# first such record, whose note cannot be written (a directory in its
# place).
{
	my $orig = flakeid_node('label_orig', 'flakeid.allow_debug_clock_offset' => 'on');
	$orig->safe_psql('postgres', 'SELECT kuid_new()');
	my $backup = $orig->backup_dir . '/by_hand';
	my $held = session($orig);
	$held->query("SELECT pg_backup_start('by hand', true)");
	system("cp -a '" . $orig->data_dir . "' '$backup' 2>/dev/null");    # (files that vanish meanwhile are no matter)
	unlink("$backup/postmaster.pid", "$backup/postmaster.opts");
	unlink(glob("$backup/pg_wal/0*"));
	$orig->safe_psql('postgres', 'SET flakeid.debug_clock_offset_ms = 3600000; CREATE TABLE ahead_kuids AS SELECT kuid_new() AS id FROM generate_series(1, 600)');
	my $label = $held->query('SELECT labelfile FROM pg_backup_stop(false)');
	$held->close;
	open(my $fh, '>', "$backup/backup_label") or die "backup_label: $!";
	print $fh $label, ($label =~ /\n\z/ ? '' : "\n");
	close $fh;
	$orig->safe_psql('postgres', 'SELECT pg_switch_wal()');
	system("cp -a '" . $orig->data_dir . "'/pg_wal/0* '$backup/pg_wal/'") == 0 or die "cp pg_wal: $!";
	$orig->stop;
	my $restored = PostgreSQL::Test::Cluster->new('label_restored');
	$restored->init_from_backup($orig, 'by_hand');
	my $rd = $restored->data_dir;
	chmod(0000, "$rd/flakeid.state") or die "flakeid.state: $!";
	mkdir("$rd/flakeid.state.replay-lost") or die "mkdir: $!";
	ok(!$restored->start(fail_ok => 1), 'a restored backup whose note cannot be written ends its first start in redo');
	ok(-e "$rd/backup_label.old" && !-e "$rd/backup_label", '... its backup_label renamed (the crash mid-way the case needs)');
	rmdir("$rd/flakeid.state.replay-lost") or die "rmdir: $!";
	my $log_at = -s $restored->logfile;
	ok(!$restored->start(fail_ok => 1), 'the next start, with neither label nor signal file, does not end');
	like(slurp_file($restored->logfile, $log_at), qr/FATAL:  WAL ends before end of online backup/,
		'... PostgreSQL refusing to end a crash recovery before the backup\'s end');
	ok(!-e "$rd/flakeid.state.replay-lost", '... (the records it replayed meanwhile unnoted)');
	$restored->set_recovery_mode;
	$restored->append_conf('postgresql.conf', "restore_command = 'false'\n");    # (its WAL is all in pg_wal)
	$restored->start;
	$restored->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'recovery did not end';
	ok(-f "$rd/flakeid.state.replay-lost", 'with recovery.signal, the original\'s bounds it replays again are noted');
	$restored->stop;
	chmod(0600, "$rd/flakeid.state") or die "flakeid.state: $!";
	unlink("$rd/flakeid.issued") or die "flakeid.issued: $!";    # (the copy's own refusal answered as for a move: its original is gone)
	$restored->start;
	# (refused first as older than the last clean stop's: the backup's file is)
	is(sqlstate_of($restored, 'SELECT kuid_new()'), 'XX001', '... and the mended file is refused (XX001)');
	$restored->append_conf('postgresql.conf', "flakeid.start_afresh = on\n");
	$restored->restart;
	# (ahead_kuids came with the backup: the original made it while the backup was taken)
	is($restored->safe_psql('postgres', 'SELECT count(*) FROM ahead_kuids a JOIN (SELECT kuid_new() AS id FROM generate_series(1, 2000)) n USING (id)'),
		'0', '... and its start afresh issues none of the original\'s kuids an hour ahead');
	is($restored->safe_psql('postgres', "SELECT count(*) FROM ahead_kuids"), '600', '... (all 600 of them in the backup)');
	$restored->stop;
}

$standby->stop;
done_testing();
