# Keyed masks of public IDs (docs/OPERATIONS.md, "Mask keys"): the key
# file's permission check, reloads and rotation, no key (55000), bad tokens
# (22P02), every type through SQL against test/vectors/mask.tsv, the primary
# key probed through an unmask, and a key in no setting, log line or error.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;
use POSIX ();

my $K1 = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
my $K2 = '2b7e151628aed2a6abf7158809cf4f3cef4359d8d580aa4f7f036d6f04fc6a94';
my @formats = formats();

my $node = flakeid_node('mask', 'flakeid.mask_keys_file' => 'mask.keys', log_min_messages => 'debug1');
my $keys = $node->data_dir . '/mask.keys';
sub sql { return $node->safe_psql('postgres', $_[0]); }

# write_keys(MODE, LINES...): the key file, then a reload
sub write_keys
{
	my ($mode, @lines) = @_;
	unlink $keys;
	open(my $fh, '>', $keys) or die "$keys: $!";
	print $fh map { "$_\n" } @lines;
	close($fh);
	chmod $mode, $keys;
	$node->reload;
}

# refused_as(REGEX): waits until a mask call has logged a refusal matching REGEX (each backend reads the file as it first masks)
sub refused_as
{
	my ($regex) = @_;
	return poll_until(sub { sqlstate_of($node, "SELECT sno_mask('222222222222222b')") eq '55000' && log_count($node, $regex) });
}

# masks_with(KEY_ID): waits until a new session's sno_mask uses that key (a reload is asynchronous)
sub masks_with
{
	my ($id) = @_;
	return poll_until(sub {
		my $out = '';
		$node->psql('postgres', "SELECT sno_mask('222222222222222b')", stdout => \$out);
		return $out ne '' && header_key($out) == $id;
	});
}
# the key ID a token names (its 2nd and 3rd characters hold bits 6-15 of the header)
sub header_key
{
	my ($token) = @_;
	my $alphabet = join('', 'A' .. 'Z', 'a' .. 'z', 0 .. 9, '-', '_');
	my $bits = join('', map { sprintf('%06b', index($alphabet, $_)) } split //, substr($token, 0, 3));
	return oct('0b' . substr($bits, 6, 10));
}

# --- the file: permissions, malformed, none --------------------------------
is(sqlstate_of($node, "SELECT sno_mask(sno_new())"), '55000', 'no key file yet: sno_mask is 55000');
like(message_of($node, "SELECT sno_mask(sno_new())"), qr/HINT:  Set flakeid.mask_keys_file to a file/, '... with a hint');
is(sqlstate_of($node, 'SELECT * FROM flakeid_mask_keys()'), '55000', '... and so is flakeid_mask_keys()');

write_keys(0644, "1 $K1");
ok(refused_as(qr/mask key file ".*mask.keys" refused: it has group or world access \(mode 0644\)/),
	'a group- and world-readable file is refused, the reason in the log');
is(sqlstate_of($node, "SELECT sno_mask(sno_new())"), '55000', '... and sno_mask is 55000');
write_keys(0640, "1 $K1");
is(sqlstate_of($node, "SELECT sno_mask(sno_new())"), '55000', 'a group-readable file (0640) is refused too');
write_keys(0600, "1 $K1", "2 xyz");
ok(refused_as(qr/refused: line 2: the key is not 64 hexadecimal digits/),
	'a malformed line refuses the file, its line named in the log');
is(sqlstate_of($node, "SELECT sno_mask(sno_new())"), '55000', '... and sno_mask is 55000');
# a role that is not a superuser is told why, without the file's path (1.4: no DETAIL at all)
sql("CREATE ROLE masker");
{
	my $message = message_of($node, "SET ROLE masker; SELECT sno_mask('222222222222222b')");
	like($message, qr/ERROR:  flakeid has no mask key\nDETAIL:  The key file was refused when the server last read it: line 2: the key is not 64 hexadecimal digits/,
		'another role is told why the mask functions have no key');
	unlike($message, qr/mask\.keys|\Q$keys\E/, '... without the path of the key file');
}

unlink $keys;
POSIX::mkfifo($keys, 0600) or die "mkfifo: $!";
$node->reload;
ok(refused_as(qr/refused: it is not a regular file/), "a FIFO in the file's place is refused, and opening it does not hang");

# --- every type against the second implementation's vectors ----------------
write_keys(0600, "1 $K1", "1023 $K2");
ok(masks_with(1), 'a 0600 file of two keys is read after a reload, without a restart: key 1 masks');
my ($rows, $masked, $unmasked) = (0, 0, 0);
open(my $vectors, '<', tree_root() . '/test/vectors/mask.tsv') or die $!;
my @header;
while (my $line = <$vectors>)
{
	chomp $line;
	next if $line =~ /^#/;
	my @f = split /\t/, $line, -1;
	if (!@header) { @header = @f; next; }
	my %r;
	@r{@header} = @f;
	my $id = $r{type} eq 'snowflake' ? "('x' || '$r{id}')::bit(64)::int8" : "'\\x$r{id}'::bytea::$r{type}";
	(my $purpose = $r{purpose}) =~ s/'/''/g;
	my $back = "$r{type}_unmask('$r{token}', '$purpose') = $id";
	my ($mask, $unmask) = split /\|/, sql("SELECT $r{type}_mask($id, '$purpose') = '$r{token}', $back");
	$rows++;
	$masked++ if $r{key_id} eq '1' && $mask eq 't';
	$unmasked++ if $unmask eq 't';
}
close($vectors);
is($masked, $rows / 2, "mask.tsv: every token of key 1 is what <type>_mask gives ($masked of " . $rows / 2 . ')');
is($unmasked, $rows, "mask.tsv: every token (keys 1 and 1023) unmasks to its ID ($unmasked of $rows)");

# --- the keys' check values (issue 80, item 3) -------------------------------
# AES-256 of a zero block under each key, its first 3 bytes, as openssl's
# command line computes it: what an operator compares across servers
sub check_value
{
	my ($key) = @_;
	my $hex = `head -c 16 /dev/zero | openssl enc -aes-256-ecb -nopad -K $key | od -An -tx1`;
	$hex =~ s/\s//g;
	die "openssl gave no block for the check value" unless length($hex) == 32;
	return substr($hex, 0, 6);
}
is(sql('SELECT key_id, check_value, masks FROM flakeid_mask_keys() ORDER BY key_id'),
	join("\n", '1|' . check_value($K1) . '|t', '1023|' . check_value($K2) . '|f'),
	"flakeid_mask_keys(): each key's ID, its check value (openssl's AES-256 of a zero block), and which masks");
unlike(slurp_file($node->logfile), qr/\Q$K1\E|\Q$K2\E/, '... and neither key is in the log');
is(sqlstate_of($node, 'SET ROLE masker; SELECT * FROM flakeid_mask_keys()'), '42501', '... not executable by PUBLIC');

for my $f (@formats)
{
	my ($t, $new) = @$f{qw(format new)};
	my $width = $t eq 'snowflake' ? 8 : sql("SELECT typlen FROM pg_type WHERE typname = '$t'");
	my $len = int((8 * ($width + 2) + 5) / 6);
	is(sql("SELECT count(*) FILTER (WHERE ${t}_unmask(m, 'orders') = id AND ${t}_unmask(d) = id
	                                  AND length(m) = $len AND m ~ '^U[A-Za-z0-9_-]+\$' AND m <> d
	                                  AND d = ${t}_mask(id, ''))
	        FROM (SELECT id, ${t}_mask(id, 'orders') m, ${t}_mask(id) d FROM (SELECT $new id FROM generate_series(1, 500)) s) s"),
		'500', "$t: 500 new IDs round-trip; $len-character tokens of base64url starting with U; purposes differ; '' is the default");
	my $type = $t eq 'snowflake' ? 'bigint' : $t;
	is(sql("SELECT count(*) FILTER (WHERE pg_input_is_valid(${t}_mask(id, p), '$type'))
	        FROM (SELECT $new id FROM generate_series(1, 200)) s, unnest(ARRAY['', 'orders', 'x']) p"), '0',
		"$t: no token reads as $type text (600 tokens)")
	  if $node->safe_psql('postgres', 'SHOW server_version_num') >= 160000;
	is(sqlstate_of($node, "SELECT ${t}_mask($new)::$type"), '22P02', "$t: a token cast to $type is 22P02");
}

# --- rotation --------------------------------------------------------------
my $session = session($node);
my $old = $session->query("SELECT sno_mask('3333333333333333', 'orders')");
write_keys(0600, "2 $K2", "1 $K1");
ok(masks_with(2), 'rotation: a new first key masks after a reload');
ok(poll_until(sub { header_key($session->query("SELECT sno_mask('3333333333333333', 'orders')")) == 2 }),
	'rotation: a session open before the reload masks with the new key too');
isnt($session->query("SELECT sno_mask('3333333333333333', 'orders')"), $old, 'rotation: the new token differs from the old');
is($session->query("SELECT sno_unmask('$old', 'orders')"), '3333333333333333', 'rotation: an old token still unmasks');
$session->close;
write_keys(0600, "2 $K2");
ok(poll_until(sub { sqlstate_of($node, "SELECT sno_unmask('$old', 'orders')") eq '22P02' }),
	'a token of a key taken out of the file is 22P02');
like(message_of($node, "SELECT sno_unmask('$old', 'orders')"), qr/DETAIL:  The token names key 1, which flakeid.mask_keys_file does not hold/,
	'... its detail names the key ID');

# --- bad tokens ----------------------------------------------------------------
my $good = sql("SELECT sno_mask('3333333333333333')");
for my $case ([substr($good, 0, 15), qr/this text has 15/, 'one character short'],
	[$good . 'A', qr/this text has 17/, 'one character long'],
	[substr($good, 0, 5) . '=' . substr($good, 6), qr/"=" \(character 6\) is not one of them/, 'a character outside base64url'],
	['V' . substr($good, 1), qr/starts with "U"/, 'another first character'],
	['3333333333333333', qr/starts with "U"/, "the ID's own text"],
	['', qr/this text has 0/, 'an empty string'])
{
	my ($token, $detail, $what) = @$case;
	is(sqlstate_of($node, "SELECT sno_unmask('$token')"), '22P02', "$what: 22P02");
	like(message_of($node, "SELECT sno_unmask('$token')"), $detail, "$what: the detail says why");
}
is(sqlstate_of($node, "SELECT snowflake_unmask('12345678901234')"), '22P02', "snowflake: a bigint's text is not a token");
# a long bad token is quoted in part: any caller could otherwise write it whole into the log at each call
my $long = message_of($node, "SELECT sno_unmask(repeat('A', 100000))");
like($long, qr/invalid mask token for type sno: "A{64}\.\.\."/, 'a bad token of 100,000 characters is quoted to 64 and "..."');
ok(length($long) < 2000, 'and the message stays short (' . length($long) . ' characters)');

# --- volatility, privileges, the primary key -----------------------------------
is(sql("SELECT string_agg(DISTINCT provolatile::text || proparallel::text || proisstrict::text, ','), count(*)
        FROM pg_proc WHERE proname ~ '_(un)?mask\$'"), 'srtrue|12', 'the 12 functions are STABLE PARALLEL RESTRICTED STRICT');
sql("CREATE ROLE app LOGIN");
is(sql("SET ROLE app; SELECT sno_unmask(sno_mask('3333333333333333'))"), '3333333333333333', 'PUBLIC may mask and unmask');
is(sqlstate_of($node, "SET ROLE app; SHOW flakeid.mask_keys_file"), '42501', 'only superusers see flakeid.mask_keys_file');
is(sqlstate_of($node, "SET ROLE app; ALTER SYSTEM SET flakeid.mask_keys_file = '/tmp/mine'"), '42501', '... and only they set it');
is(sqlstate_of($node, "SET flakeid.mask_keys_file = 'x'"), '55P02', 'it is not a session setting');

sql("CREATE TABLE orders (id sno PRIMARY KEY DEFAULT sno_new(), n int); INSERT INTO orders (n) SELECT generate_series(1, 20000); ANALYZE orders");
my $token = sql("SELECT sno_mask(id, 'orders') FROM orders WHERE n = 777");
like(sql("EXPLAIN (COSTS OFF) SELECT n FROM orders WHERE id = sno_unmask('$token', 'orders')"), qr/Index Scan using orders_pkey/,
	'WHERE id = sno_unmask(literal) probes the primary key');
like(sql("PREPARE q(text) AS SELECT n FROM orders WHERE id = sno_unmask(\$1, 'orders'); SET plan_cache_mode = force_generic_plan;
          EXPLAIN (COSTS OFF) EXECUTE q('$token')"), qr/Index Scan using orders_pkey/, '... and so does a generic plan of sno_unmask($1)');
is(sql("PREPARE q(text) AS SELECT n FROM orders WHERE id = sno_unmask(\$1, 'orders'); EXECUTE q('$token')"), '777', '... finding the row');

# --- README's example, which its doc test skips for want of a key file ------------
my ($readme_block) = slurp_file(tree_root() . '/README.md') =~ /doc-test: skip needs a key file[^\n]*\n```sql\n(.*?)```/s;
fresh_db($node, 'readme_mask');
$node->safe_psql('readme_mask', 'CREATE EXTENSION flakeid');
is($node->safe_psql('readme_mask', $readme_block // 'SELECT 0'), '17.50', "README's mask example gives what it says");

# --- no key anywhere but the file --------------------------------------------------
is(sql("SELECT count(*) FROM pg_settings WHERE setting ~* '$K1|$K2'"), '0', 'no key in pg_settings');
my $log = slurp_file($node->logfile);
ok($log !~ /$K1|$K2/i, 'no key in the server log (debug1 included)');
ok(message_of($node, "SELECT sno_mask(sno_new())") !~ /$K1|$K2/i, 'no key in an error');
write_keys(0600, "7 $K1 $K2");
ok(refused_as(qr/refused: line 1: something follows the key/), 'a refused line is named by number');
$log = slurp_file($node->logfile);
ok($log !~ /$K1|$K2/i, 'and not quoted');
# --- the setting on the server's command line: a reload still reaches open sessions --------------
# (-c outranks the configuration files, so a reload sets nothing and ran no assign hook: an audit of
# 1a91153 rotated key 1 away and an open session went on masking with it)
write_keys(0600, "1 $K1");
$node->stop('fast');
PostgreSQL::Test::Utils::system_or_bail('pg_ctl', '-D', $node->data_dir, '-l', $node->logfile, '-w',
	'-o', '-c flakeid.mask_keys_file=mask.keys', 'start');
$node->_update_pid(1);
my $open = session($node);
is(header_key($open->query("SELECT sno_mask('222222222222222b')")), 1, 'with the setting from -c, an open session masks with key 1');
write_keys(0600, "2 $K2");
ok(poll_until(sub { header_key($open->query("SELECT sno_mask('222222222222222b')")) == 2 }, timeout => 30),
	'after key 1 is rotated away and the configuration reloaded, the open session masks with key 2');
like($open->query("SELECT sno_unmask(sno_mask('222222222222222b')) = '222222222222222b'"), qr/^t$/, '... and unmasks its tokens');
$open->close;
$node->stop('fast');
$node->start;

stop_checked($node);

# --- without flakeid preloaded ------------------------------------------------------------
my $plain = flakeid_node('mask_plain', shared_preload_libraries => '', 'flakeid.mask_keys_file' => 'mask.keys');
$keys = $plain->data_dir . '/mask.keys';
open(my $fh, '>', $keys) or die $!;
print $fh "5 $K1\n";
close($fh);
chmod 0600, $keys;
my ($same, $plain_token) = split /\|/, $plain->safe_psql('postgres',
	"SELECT kuid_unmask(kuid_mask('.0123456783', 'x'), 'x') = '.0123456783', kuid_mask('.0123456783')");
ok($same eq 't' && header_key($plain_token) == 5, 'without flakeid preloaded: the setting exists and masks work (key 5)');
stop_checked($plain);

done_testing();
