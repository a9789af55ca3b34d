# A standby made by pg_basebackup and promoted while its primary still runs
# (a clone for staging or reporting, a point-in-time restore, a failover
# drill) must never issue its original's IDs (issue 80, item 2).  The base
# backup copies the configuration, identities set there included, and the
# witness, which from 1.5 names the identities its server generated with;
# the promoted server shares the marks.  1.4 took the witness up as its own
# and generated: 86,346 of 100,000 sno and snowflakes were the original's.
#
# 1. A clone, promoted while the primary runs: every generator whose
#    identities are its upstream's is refused (55000), and kuid (which
#    carries none), live and back-fill; flax is not (random bits).  After a
#    restart, still refused.
# 2. Its identities set apart (and a restart): sno, siq, kuid96 and
#    snowflake generate, kuid is still refused; 50,000 sno and 50,000
#    snowflakes minted on both servers at once share no ID.
# 3. A failover target (flakeid.promotion_keeps_identities = on beforehand,
#    as docs/OPERATIONS.md says): promoted once the primary is gone, it
#    generates at once with every generator, above the primary's IDs, and
#    its log says it kept the identities.
# 4. A standby promoted without the setting after its primary has gone:
#    refused until the hint's step (the setting on, a reload), then above
#    the primary's IDs.
#
# Negative control: on ff78d13 (1.4) the refusals of 1 fail (the clone
# generates) and 2's count of shared IDs is not 0.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my %ids = ('flakeid.sno_partition' => 5, 'flakeid.siq_shard' => 3, 'flakeid.kuid_node' => 'pg@one',
	'flakeid.snowflake_worker' => 5, 'flakeid.snowflake_process' => 1);
my $primary = flakeid_node('original', %ids);
sub psql_on { my ($node, $sql) = @_; return $node->safe_psql('postgres', $sql); }
my @stateful = formats(stateful => 't');
psql_on($primary, 'CREATE TABLE ids (server text, format text, id text)');
sub mint    # mint(NODE, SERVER, N): N IDs of every stateful generator
{
	my ($node, $server, $n) = @_;
	psql_on($node, "INSERT INTO ids SELECT '$server', '$_->{format}', $_->{new}::text FROM generate_series(1, $n)") for @stateful;
}
mint($primary, 'original', 1000);
like(slurp_file($primary->data_dir . '/flakeid.issued'), qr/\nidentities: 5 3 \d+ 5 1\n/,
	'the witness names the identities its server generates with');

# 1. the clone
my ($clone) = flakeid_standby($primary, 'clone', undef, clone => 1);
$clone->promote;
$clone->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'the clone was not promoted';
sub refused_everywhere
{
	my ($what) = @_;
	for my $f (@stateful)
	{
		is(sqlstate_of($clone, "SELECT $f->{new}"), '55000', "$what: $f->{format}_new() refused (55000)");
	}
	is(sqlstate_of($clone, "SELECT sno_new_at(now() - interval '1 day')"), '55000', "$what: back-fill refused too (55000)");
	is(sqlstate_of($clone, 'SELECT flax_new()'), 'ok', "$what: flax, whose IDs carry random bits, generates");
}
refused_everywhere('a clone promoted beside its original');
# the auditor's run: sno and snowflakes minted on both at once, for 3 s
sub mint_both    # mint_both(RUN): (the original's exit status, the clone's, and how many IDs both issued)
{
	my ($run) = @_;
	my @jobs = map {
		my ($node, $server) = @$_;
		# (for 3 s, past the 2 s the promoted server resumes ahead of the marks it shares)
		psql_start($node, "DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
			WHILE clock_timestamp() < t0 + interval '3 s' LOOP
				INSERT INTO ids SELECT '$server$run', 'sno', sno_new()::text FROM generate_series(1, 1000);
				INSERT INTO ids SELECT '$server$run', 'snowflake', snowflake_new()::text FROM generate_series(1, 1000);
				PERFORM pg_sleep(0.01);
			END LOOP; END \$\$");
	} ([ $primary, 'original' ], [ $clone, 'clone' ]);
	my @status = map { (psql_finish($_))[0] } @jobs;
	my %clone_ids = map { $_ => 1 } split /\n/, psql_on($clone, "SELECT format || ' ' || id FROM ids WHERE server = 'clone$run'");
	my $shared = grep { $clone_ids{$_} } split /\n/, psql_on($primary, "SELECT format || ' ' || id FROM ids WHERE server = 'original$run'");
	return (@status, $shared);
}
{
	my ($original, $copy, $shared) = mint_both(1);
	is($original, 0, 'the original mints sno and snowflakes for 3 s');
	isnt($copy, 0, 'the clone, beside it, mints none (refused)');
	is($shared, 0, 'no ID issued by both (1.4: 86,346 of 100,000 in the audit)');
}
like(message_of($clone, 'SELECT snowflake_new()'),
	qr/ERROR:  cannot generate snowflake IDs on this promoted server: its identities are those of the server it was promoted from.*HINT:  If the server it was promoted from is gone for good \(a failover\), set flakeid.promotion_keeps_identities = on/s,
	'the refusal says why, and the two ways on');
like(message_of($clone, 'SELECT kuid_new()'), qr/DETAIL:  kuid IDs carry no identity/, "kuid's says it carries none");
ok(log_count($clone, qr/WARNING:  this promoted server refuses to generate sno, siq, kuid96, snowflake, kuid IDs/) >= 1,
	'the promotion itself is logged as a WARNING naming the generators');
$clone->restart;
refused_everywhere('after a restart');

# 2. its identities set apart
restart_with($clone, 'flakeid.sno_partition' => 6, 'flakeid.siq_shard' => 4, 'flakeid.kuid_node' => 'pg@two',
	'flakeid.snowflake_worker' => 6);
for my $f (grep { $_->{format} ne 'kuid' } @stateful)
{
	is(sqlstate_of($clone, "SELECT $f->{new}"), 'ok', "identities set apart: $f->{format}_new() generates");
}
is(sqlstate_of($clone, 'SELECT kuid_new()'), '55000', 'kuid, which carries none, is still refused (55000)');
# (its hint offered the failover branch as the only way on, once the
# identities were set apart; taken on a clone, every kuid beside the
# original repeated: 1.5's seventeenth auditor)
like(message_of($clone, 'SELECT kuid_new()'), qr/HINT:  .*a clone, a restore, a drill\), kuid stays refused here whatever the identities: generate kuid96, which carries flakeid.kuid_node, once that is set/s,
	"... and its hint says a clone's kuid stays refused, naming kuid96, not the identities' step");
like(message_of($clone, 'SELECT kuid_new()'), qr/ERROR:  cannot generate kuid IDs on this promoted server: kuid carries no identity/,
	"... and its message does not say its identities are the original's (kuid has none; 1.5's twenty-second auditor)");
{
	my ($original, $copy, $shared) = mint_both(2);
	is("$original $copy", '0 0', 'both mint sno and snowflakes at once for 3 s');
	is($shared, 0, 'and share no ID');
}
$clone->stop('fast');

# 2a. the refused clone moved: a file-by-file copy of it, stopped, started elsewhere.  Its copy hint
# said "remove flakeid.issued once" for a move, and the record of the original went with the
# witness: kuid then issued the running original's IDs (1.5's twenty-second auditor: 3,477 of
# 20,000).  The hint keeps the witness and gives flakeid.take_over_from, which keeps the record.
$clone->backup_fs_cold('moved');
my $moved = PostgreSQL::Test::Cluster->new('clone_moved');
$moved->init_from_backup($clone, 'moved');
$moved->start;
my $copy_message = message_of($moved, 'SELECT sno_new()');
like($copy_message, qr/cannot generate sno IDs in a copy of another data directory.*HINT:  Do not remove flakeid\.issued: it holds the record of the server this data directory's original was promoted from/s,
	'a copy of the refused clone is refused as a copy, and its hint says not to remove the witness');
unlike($copy_message, qr/remove flakeid\.issued once/, '... and gives no step that removes it');
my ($moved_inodes) = $copy_message =~ /set flakeid\.take_over_from = '(\d+:\d+)'/;
ok(defined $moved_inodes, '... but flakeid.take_over_from, with the two inodes');
$moved->append_conf('postgresql.conf', "flakeid.take_over_from = '" . ($moved_inodes // '') . "'\n");
$moved->restart;
# (a copy whose generators were ahead of the clock waits for it, and says until when: the
# clock waited for, then a restart, as that refusal's hint says)
if (message_of($moved, 'SELECT sno_new()') =~ /waits until the clock has passed (.+?) to take this copy over/)
{
	$moved->poll_query_until('postgres', "SELECT clock_timestamp() > '$1'::timestamptz")
	  or die 'the clock did not pass the takeover\'s instant';
	$moved->restart;
}
is(sqlstate_of($moved, 'SELECT sno_new()'), 'ok', 'the hint followed, for a move: sno generates');
is(sqlstate_of($moved, 'SELECT kuid_new()'), '55000', '... and kuid stays refused: the record of the original is kept');
like(slurp_file($moved->data_dir . '/flakeid.issued'), qr/\npromoted from identities: /, '... in the witness');
$moved->stop('fast');

# 2b. a clone of a primary that had issued nothing yet (its witness "no ID
# yet"), promoted with no renewer, so that a backend's first save (here
# snowflake_horizon's record of the epoch) is the first to write the
# witness after the promotion: it must keep the earlier timeline's place
# for the promotion to be seen (1.5's first try re-placed it: 355,025
# snowflakes issued by both, the reviewer's count)
my $fresh = flakeid_node('fresh', %ids);
ok(poll_until(sub { my $f = $fresh->data_dir . '/flakeid.issued'; -e $f && slurp_file($f) =~ /^flakeid runs, and has issued no ID yet/ }),
	'a primary that has issued nothing yet: its witness says so');
my ($fresh_clone) = flakeid_standby($fresh, 'fresh_clone', undef, clone => 1);
restart_with($fresh_clone, max_worker_processes => 0, hot_standby => 'off');
$fresh_clone->promote;
$fresh_clone->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'not promoted';
is(sqlstate_of($fresh_clone, 'SELECT snowflake_horizon()'), 'ok', 'its first call after the promotion saves (no renewer runs)');
is(sqlstate_of($fresh_clone, 'SELECT snowflake_new()'), '55000', 'a clone of a primary that had issued nothing yet: snowflake refused (55000)');
is(sqlstate_of($fresh_clone, 'SELECT sno_new()'), '55000', '... sno too');
is(sqlstate_of($fresh_clone, 'SELECT kuid_new()'), '55000', '... and kuid');

# 2c. a failover target of that refused clone, promoted once the clone has
# stopped: the setting speaks of the clone, not of its original, which
# still runs; the clone's record goes on (1.5's first try dropped it:
# 23,625 snowflakes issued by both)
restart_with($fresh_clone);
my ($grandchild) = flakeid_standby($fresh_clone, 'grandchild');
$fresh_clone->stop('fast');
$grandchild->promote;
$grandchild->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'not promoted';
is(sqlstate_of($grandchild, 'SELECT snowflake_new()'), '55000',
	"a failover target of a refused clone, promoted: still refused, its original's original runs (55000)");
is(sqlstate_of($grandchild, 'SELECT kuid_new()'), '55000', '... kuid too');
$grandchild->stop('fast');
$fresh->stop('fast');

# 2d. a derived identity compared as the server generated with it: a clone
# that sets sno's partition to the value its original derived
my $derived = flakeid_node('derived');
psql_on($derived, 'SELECT sno_new()');
my $partition = psql_on($derived, "SELECT identity_value FROM flakeid_identities() WHERE generator = 'sno'");
psql_on($derived, 'CHECKPOINT');
my ($pinned) = flakeid_standby($derived, 'pinned', undef, clone => 1);
restart_with($pinned, 'flakeid.sno_partition' => $partition);
# (a standby lists its identities: one derived, which it cannot have during recovery, says so; 1.5
# raised that refusal and listed none: the twenty-third auditor)
is(psql_on($pinned, "SELECT string_agg(generator || ':' || coalesce(identity_value::text, 'none') || ':' || (source LIKE 'derived, not during recovery%set ' || CASE generator WHEN 'sno' THEN 'flakeid.sno_partition' WHEN 'siq' THEN 'flakeid.siq_shard' WHEN 'kuid96' THEN 'flakeid.kuid_node' ELSE 'flakeid.snowflake_process' END || ' to a value no other server uses, and flakeid.generate_on_standby)'), ' ' ORDER BY generator) FROM flakeid_identities()"),
	"kuid:none:false kuid96:none:true siq:none:true sno:$partition:false snowflake:none:true",
	'a standby lists its identities: the set one, and the derived ones as not had during recovery');
$pinned->promote;
$pinned->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'not promoted';
is(sqlstate_of($pinned, 'SELECT sno_new()'), '55000',
	"a clone whose set sno partition ($partition) is the one its original derived: refused (55000)");
$pinned->stop('fast');
$derived->stop('fast');

# 3. a failover target, promoted once its primary is gone
my ($target) = flakeid_standby($primary, 'target');
# 4. and a standby without the setting
my ($late) = flakeid_standby($primary, 'late', undef, clone => 1);
mint($primary, 'original', 1000);
my $lsn = psql_on($primary, 'SELECT pg_current_wal_lsn()');
for my $standby ($target, $late)
{
	$standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'") or die 'no catch-up';
}
$primary->stop('fast');
$target->promote;
$target->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'not promoted';
sub above_original    # above_original(NODE, WHAT): NODE's IDs of every generator above the original's
{
	my ($node, $what) = @_;
	mint($node, $what, 100);
	for my $f (@stateful)
	{
		is(psql_on($node, "SELECT min(id::$f->{type}) > (SELECT max(id::$f->{type}) FROM ids WHERE format = '$f->{format}' AND server LIKE 'original%')"
			  . " FROM ids WHERE format = '$f->{format}' AND server = '$what'"), 't', "$what: $f->{format} generates above the original's IDs");
	}
}
above_original($target, 'target');
ok(log_count($target, qr/WARNING:  this promoted server generates .* IDs with the identities of the server it was promoted from, as flakeid.promotion_keeps_identities says/) >= 1,
	'the failover target generated at once, and its log says it kept the identities');
$target->stop('fast');

$late->promote;
$late->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'not promoted';
is(sqlstate_of($late, 'SELECT snowflake_new()'), '55000', 'a standby promoted without the setting: refused until an operator says');
psql_on($late, "ALTER SYSTEM SET flakeid.promotion_keeps_identities = on");
psql_on($late, 'SELECT pg_reload_conf()');
ok($late->poll_query_until('postgres', "SELECT current_setting('flakeid.promotion_keeps_identities') = 'on'"), 'the hint\'s step: the setting on, reloaded');
above_original($late, 'late');
$late->restart;
is(sqlstate_of($late, 'SELECT kuid_new()'), 'ok', 'resolved for good: after a restart too');
stop_checked($late);
done_testing();
