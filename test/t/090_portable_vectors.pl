# The portable edition (portable/): installed from the plain script by a role
# that is not a superuser and has only CREATE (and USAGE) on one schema; every
# vector of test/vectors and every format of test/lib/formats.tsv; malformed
# text refused with the C edition's SQLSTATE (the C edition, in another
# database of the same cluster, is the reference for each input); IDs made
# by either edition read back identically in the other (text, bytes, uuid,
# order, time); the time-range operator plans an index range.
use strict;
use warnings;
use FlakeidTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = tree_root();
my $node = flakeid_node('portable');   # the C edition in database postgres
fresh_db($node, 'portable');
$node->safe_psql('portable', q{
	CREATE ROLE installer LOGIN;
	CREATE SCHEMA ids;
	GRANT CREATE, USAGE ON SCHEMA ids TO installer;
	REVOKE CREATE ON SCHEMA public FROM PUBLIC;
	ALTER ROLE installer SET search_path = ids;});
my ($rc, $out, $err) = $node->psql('portable', undef, extra_params => [ '-U', 'installer', '-f', "$root/portable/flakeid_portable.sql" ],
	on_error_stop => 1);
is($rc, 0, 'a role with only CREATE on schema ids installs the plain script') or diag($err);
is($node->safe_psql('portable', q{SELECT rolsuper OR rolcreatedb OR rolcreaterole FROM pg_roles WHERE rolname = 'installer'}),
	'f', '(the installer is no superuser and may create no database or role)');
is($node->safe_psql('portable', q{SELECT count(*) FROM pg_proc WHERE pronamespace = 'ids'::regnamespace AND proowner = 'installer'::regrole}) > 100
	? 'many' : 'few', 'many', 'its functions are in schema ids, owned by the installer');
my @p = ('portable', extra_params => [ '-U', 'installer' ]);
sub p { my ($sql) = @_; return $node->safe_psql('portable', "SET search_path = ids; $sql", extra_params => [ '-U', 'installer' ]); }
sub c { my ($sql) = @_; return $node->safe_psql('postgres', $sql); }

# a search_path set later reaches no function of the edition: a function of
# the caller's schema named as one the edition calls is never called
$node->safe_psql('portable', q{CREATE SCHEMA evil; GRANT USAGE ON SCHEMA evil TO PUBLIC;
	CREATE FUNCTION evil.flakeid_encode(bytea, text, int, int, bool) RETURNS text LANGUAGE sql RETURN 'hijacked';
	CREATE FUNCTION evil.flakeid_be_int(bytea, int, int) RETURNS bigint LANGUAGE sql RETURN 0;});
is($node->safe_psql('portable', q{SET search_path = evil, ids, pg_catalog; SELECT ids.sno_to_text(ids.sno_from_parts('2024-01-01', 0, 0, 0)), ids.sno_time(ids.sno_lower_bound('2024-01-01'))}),
	'8for5hi222222222|2024-01-01 00:00:00+00', "another schema first on search_path hijacks none of the edition's calls");

# rows of a vector file: hashes keyed by its header
sub rows
{
	my ($file) = @_;
	open my $fh, '<', "$root/test/vectors/$file" or die "$file: $!";
	my @lines = grep { !/^#/ } map { chomp; $_ } <$fh>;
	my @head = split /\t/, shift @lines;
	return map { my @f = split /\t/, $_, -1; my %r; @r{@head} = @f; \%r } @lines;
}
sub lit { my ($s) = @_; $s =~ s/'/''/g; return "'$s'"; }
sub us_of_ms { return "$_[0]000"; }

# --- valid vectors: text -> bytes -> text, time ---------------------------
# each file is one query over all its rows.  On the oldest tested major
# every row is a check of its own, named by its first column, as the C
# layer's unit tests count every row of every vector (the encoders are
# PL/pgSQL there, in the same words on every major: the other majors count
# each file once, and a row that differs fails either way)
my $per_row = $node->pg_version < 16;
sub check_rows
{
	my ($name, $values, $columns, $where) = @_;
	if ($per_row)
	{
		my ($key) = split /,\s*/, $columns;
		my @got = split /\n/, p("SELECT left(regexp_replace(${key}::text, '[[:cntrl:]|]', '?', 'g'), 40) || '|' || coalesce(($where)::text, 'null') FROM (VALUES $values) v($columns)");
		ok(scalar(@got) > 0, "$name: the file has rows (" . scalar(@got) . ')');
		my $n = 0;
		for my $row (@got)
		{
			my ($k, $verdict) = $row =~ /^(.*)\|([^|]*)$/;
			$n++;
			is($verdict, 'true', "$name: row $n ($k)");
		}
		return;
	}
	my $bad = p("SELECT count(*) FILTER (WHERE NOT ($where)) || ' of ' || count(*) FROM (VALUES $values) v($columns)");
	like($bad, qr/^0 of [1-9]/, "$name: every row ($bad differ)");
}
# (times compared as exact microseconds: extract gives numeric; an instant
# built with float8 seconds, as the first version of this test and of
# flakeid_timestamptz did, is off by up to 64 µs past 2^53 µs)

my @sno = rows('sno_codec.tsv');
check_rows('sno_codec.tsv: text, bytes and time',
	join(',', map { "(" . lit($_->{hex}) . "," . lit($_->{encoded}) . "," . us_of_ms($_->{time_unix_ms}) . "::bigint)" } @sno),
	'hex, t, us', "encode(sno_from_text(t), 'hex') = hex AND sno_to_text(decode(hex, 'hex')::sno) = t AND extract(epoch FROM sno_time(sno_from_text(t))) * 1000000 = us");
my @snot = grep { $_->{in_range} eq 'yes' } rows('sno_time.tsv');
# (nanoseconds truncated to PostgreSQL's microseconds: the floor is the same unit)
sub us_trunc { my ($t) = @_; $t =~ s/\.(\d{1,6})\d*Z$/.$1Z/; return $t; }
check_rows('sno_time.tsv: sno_from_parts and sno_lower_bound of each instant',
	join(',', map { "(" . lit(us_trunc($_->{input_rfc3339nano_utc})) . "," . lit($_->{id_hex}) . ")" } @snot),
	'ts, hex', "encode(sno_from_parts(ts::timestamptz, 0, 0, 0), 'hex') = hex AND encode(sno_lower_bound(ts::timestamptz), 'hex') = hex");
my @flax = rows('flax.tsv');
check_rows('flax.tsv: text, bytes, time and random',
	join(',', map { "(" . lit($_->{bytes12_hex}) . "," . lit($_->{flax_id}) . "," . us_of_ms($_->{unix_ms}) . "::bigint," . lit($_->{random56_hex}) . ")" } @flax),
	'hex, t, us, r', "encode(flax_from_text(t), 'hex') = hex AND flax_to_text(decode(hex, 'hex')::flax) = t AND extract(epoch FROM flax_time(flax_from_text(t))) * 1000000 = us AND lpad(to_hex(flax_random(flax_from_text(t))), 14, '0') = r");
my @siq = grep { $_->{cb32} ne '' } rows('siq.tsv');
check_rows('siq.tsv: numeral, zero-padded text, DID, time (rounded up), shard, domain',
	join(',', map { "(" . lit($_->{bytes14_hex}) . "," . lit($_->{cb32}) . "," . lit($_->{cb32_0c}) . "," . lit($_->{did}) . "," . $_->{'unix_us_ceil(derived)'} . "::bigint,$_->{shard}," . lit($_->{domain_hash_hex}) . ")" } @siq),
	'hex, cb32, c0, did, us, shard, dom',
	"encode(siq_from_text(cb32), 'hex') = hex AND encode(siq_from_text(c0), 'hex') = hex AND siq_to_text(decode(hex, 'hex')::siq) = lpad(cb32, 23, '0')
	 AND siq_did(decode(hex, 'hex')::siq) = did AND encode(siq_from_text(did), 'hex') = hex AND extract(epoch FROM siq_time(decode(hex, 'hex')::siq)) * 1000000 = us
	 AND siq_shard(decode(hex, 'hex')::siq) = shard AND lpad(to_hex(siq_domain(decode(hex, 'hex')::siq)), 8, '0') = dom");
my @dom = rows('siq_domains.tsv');
check_rows('siq_domains.tsv: siq_domain_hash',
	join(',', map { "(" . lit($_->{domain}) . "," . $_->{make_domain_hash_dec} . "::bigint)" } grep { $_->{local_id} eq "" && $_->{make_domain_hash_dec} =~ /^\d+$/ } @dom),
	'd, h', 'siq_domain_hash(d) = h');
# (global rows of another neighbourhood interval than kuid96's 8 are kuid96_encode's, a C-only function)
my @uid = grep { $_->{drift} eq '-' || $_->{drift} eq '8' } rows('uid.tsv');
check_rows('uid.tsv: kuid and kuid96 text, bytes, time, sequence, node',
	join(',', map { "(" . lit($_->{kind}) . "," . lit($_->{hex}) . "," . lit($_->{b64}) . "," . $_->{time_us} . "::bigint,$_->{seq}," . lit($_->{node_hex}) . ")" } @uid),
	'kind, hex, b64, us, seq, node',
	"CASE kind WHEN 'local' THEN encode(kuid_from_text(b64), 'hex') = hex AND kuid_to_text(decode(hex, 'hex')::kuid) = b64
	   AND extract(epoch FROM kuid_time(kuid_from_text(b64))) * 1000000 = us AND kuid_seq(kuid_from_text(b64)) = seq
	 ELSE encode(kuid96_from_text(b64), 'hex') = hex AND kuid96_to_text(decode(hex, 'hex')::kuid96) = b64
	   AND extract(epoch FROM kuid96_time(kuid96_from_text(b64))) * 1000000 = us AND kuid96_seq(kuid96_from_text(b64)) = seq
	   AND lpad(to_hex(kuid96_node(kuid96_from_text(b64))), 8, '0') = node END");
my @nh = rows('uid_node_hash.tsv');
check_rows('uid_node_hash.tsv: kuid_node_hash',
	join(',', map { "(convert_from(decode(" . lit($_->{atom_utf8_hex}) . ", 'hex'), 'UTF8')," . $_->{phash2_u32} . "::bigint)" } @nh),
	'n, h', 'kuid_node_hash(n) = h');
my @sf = grep { $_->{value} =~ /^\d+$/ && $_->{value} < 2**63 } rows('snowflake.tsv');
check_rows('snowflake.tsv: fields and time after the epoch',
	join(',', map { "($_->{value}::bigint,$_->{worker},$_->{shard},$_->{sequence},$_->{ts_ms_since_epoch}::bigint)" } @sf),
	'v, w, s, q, ms',
	"snowflake_worker(v) = w AND snowflake_process(v) = s AND snowflake_sequence(v) = q AND snowflake_time(v, 'epoch') = 'epoch'::timestamptz + ms * interval '1 millisecond'");

# --- invalid text: the C edition's verdict and SQLSTATE for each input ----
# (inputs as hex: any text PostgreSQL can hold; NUL and invalid UTF-8 rows
# belong to the C tests)
my $try = q{CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
	DECLARE r text; BEGIN EXECUTE q INTO r; RETURN r; EXCEPTION WHEN others THEN RETURN 'ERROR ' || SQLSTATE; END $$;};
my %inputs;
push @{ $inputs{sno} }, map { $_->{input_hex} } grep { $_->{api} eq 'FromEncodedString' } rows('sno_invalid.tsv');
push @{ $inputs{flax} }, map { unpack('H*', $_->{input}) } grep { $_->{kind} eq 'parse' } rows('flax_invalid.tsv');
push @{ $inputs{siq} }, map { unpack('H*', $_->{input}) } grep { $_->{form} eq 'text' } rows('siq_invalid_verdicts.tsv');
for my $r (grep { $_->{form} eq 'text' } rows('uid_invalid_verdicts.tsv')) { push @{ $inputs{$r->{type}} }, unpack('H*', $r->{input}); }
for my $type (qw(sno flax siq kuid kuid96))
{
	my @hex = grep { $_ !~ /^(..)*00/ && utf8::decode(my $s = pack('H*', $_)) } @{ $inputs{$type} // [] };
	my $values = join(',', map { "(" . lit($_) . ")" } @hex);
	my $cq = "$try SELECT string_agg(pg_temp.try(format('SELECT encode(%L::${type}::bytea, ''hex'')', convert_from(decode(h, 'hex'), 'UTF8'))), ' ') FROM (VALUES $values) v(h)";
	my $pq = "$try SELECT string_agg(pg_temp.try(format('SELECT encode(ids.${type}_from_text(%L), ''hex'')', convert_from(decode(h, 'hex'), 'UTF8'))), ' ') FROM (VALUES $values) v(h)";
	my ($cv, $pv) = (c($cq), p($pq));
	my $refused = () = $cv =~ /ERROR 22P02/g;
	ok($refused > 0, "$type: the C edition refuses $refused of " . scalar(@hex) . " inputs of the vector files with 22P02");
	is($pv, $cv, "$type: the portable edition reads each of those inputs as the C edition does (the same bytes, or the same SQLSTATE)");
}

# --- both editions: random IDs of each type read back identically ---------
# made by from_parts at random times in each edition (the same arguments),
# compared as text, bytes, uuid and time; then moved as text and as bytes
my %make = (
	sno => "sno_from_parts(t, (i * 7) % 256, (i * 7919) % 65536, (i * 104729) % 65536, i % 2)",
	flax => "flax_from_parts(t, (i::bigint * 2654435761 * 97) % 72057594037927936)",
	siq => "siq_from_parts(t, i % 256, (i::bigint * 2654435761) % 4294967296, (ARRAY['user','content','message','premium'])[1 + i % 4], i % 2048)",
	kuid => "kuid_lower_bound(t)",
	kuid96 => "kuid96_lower_bound(t)",
);
my $times = "SELECT i, timestamptz '2015-01-01' + (i::float8 * 3153600.123457) * interval '1 second' AS t FROM generate_series(1, 300) i";
for my $type (sort keys %make)
{
	my $cv = c("SELECT string_agg(x::text || ' ' || encode(x::bytea, 'hex') || ' ' || x::uuid || ' ' || ${type}_time(x), ',' ORDER BY x) FROM (SELECT $make{$type} x FROM ($times) s) y");
	my $pv = p("SELECT string_agg(${type}_to_text(x) || ' ' || encode(x, 'hex') || ' ' || ${type}_to_uuid(x) || ' ' || ${type}_time(x), ',' ORDER BY x) FROM (SELECT $make{$type} x FROM ($times) s) y");
	is($pv, $cv, "$type: 300 IDs from_parts makes are the same text, bytes, uuid, time and order in both editions");
	my $cu = c("SELECT string_agg(encode(${type}_upper_bound(t)::bytea, 'hex'), ',') FROM ($times) s");
	is(p("SELECT string_agg(encode(${type}_upper_bound(t), 'hex'), ',') FROM ($times) s"), $cu, "$type: the same upper bounds");
	# IDs the C generator mints, read by the portable edition, and back
	my $minted = c("SELECT string_agg(x::text || ' ' || encode(x::bytea, 'hex') || ' ' || ${type}_time(x), ',' ORDER BY x) FROM (SELECT " .
		(formats(format => $type))[0]{new} . " x FROM generate_series(1, 200)) y");
	my $texts = join(',', map { lit((split / /)[0]) } split /,/, $minted);
	is(p("SELECT string_agg(${type}_to_text(x) || ' ' || encode(x, 'hex') || ' ' || ${type}_time(x), ',' ORDER BY x) FROM (SELECT ${type}_from_text(t) x FROM unnest(ARRAY[$texts]) t) y"),
		$minted, "$type: 200 IDs the C edition minted, moved as text, read the same in the portable edition (bytes, time, order)");
	my $pminted = p("SELECT string_agg(encode(x, 'hex'), ',' ORDER BY x) FROM (SELECT " . (formats(format => $type))[0]{new} . " x FROM generate_series(1, 200)) y");
	my $hexes = join(',', map { lit($_) } split /,/, $pminted);
	is(c("SELECT string_agg(encode(x::bytea, 'hex'), ',' ORDER BY x) FROM (SELECT decode(h, 'hex')::${type} x FROM unnest(ARRAY[$hexes]) h) y"),
		$pminted, "$type: 200 IDs the portable edition minted, moved as bytes, are valid C-edition IDs in the same order");
}
is(p("SELECT snowflake_from_parts('2024-05-06 07:08:09.123+00', 3, 4, 5)"), c("SELECT snowflake_from_parts('2024-05-06 07:08:09.123+00', 3, 4, 5)"),
	'snowflake: from_parts gives the same bigint in both editions');

# --- every format of formats.tsv: new and time --------------------------------
for my $f (formats())
{
	is(p("SELECT $f->{time}(x) BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '1 second' FROM (SELECT $f->{new} x) y"),
		't', "$f->{format}: $f->{new} in the portable edition is of now ($f->{time})");
}

# --- bad arguments: the C edition's SQLSTATEs ---------------------------------
for my $q ("sno_from_parts('2024-01-01', 256, 0, 0)", "sno_from_parts('2009-12-31', 0, 0, 0)", "sno_lower_bound('infinity')",
	"flax_from_parts('2024-01-01', -1)", "siq_from_parts('2024-01-01', 0, 0, 'nope', 0)", "siq_from_parts('2024-01-01', 0, 0, 'user', 2048)",
	"siq_domain_hash('é')", "kuid_lower_bound('1969-12-31')", "snowflake_from_parts('2014-01-01', 0, 0, 0)",
	"decode('00', 'hex')::sno", "sno_from_uuid(gen_random_uuid())")
{
	my $pq = $q;
	$pq =~ s/^decode\('00', 'hex'\)::sno$/decode('00', 'hex')::sno/;
	is(sqlstate_of($node, "SET search_path = ids; SELECT $pq", db => 'portable'), sqlstate_of($node, "SELECT $q"),
		"$q: the C edition's SQLSTATE");
}

# --- time ranges: <@ plans an index range and is exact ---------------------
p(q{CREATE TABLE events (id sno PRIMARY KEY);
	INSERT INTO events SELECT sno_from_parts(timestamptz '2024-01-01' + i * interval '1 second', 0, 0, 0) FROM generate_series(0, 86399) i;
	ANALYZE events;});
my $plan = p(q{EXPLAIN (COSTS OFF) SELECT count(*) FROM events WHERE id <@ tstzrange('2024-01-01 10:00', '2024-01-01 11:00')});
like($plan, qr/Index (Only )?Scan using events_pkey.*\n.*Index Cond: \(\(id >= '\\x[0-9a-f]+'::bytea\) AND \(id <= '\\x[0-9a-f]+'::bytea\)\)/, "id <@ tstzrange(...) is an index range scan:\n$plan");
is(p(q{SELECT count(*) FROM events WHERE id <@ tstzrange('2024-01-01 10:00', '2024-01-01 11:00')}), 3600, '... and finds exactly the hour');
is(p(q{SELECT count(*) FROM events WHERE id <@ tstzrange('2024-01-01 10:00', '2024-01-01 11:00', '(]')}), 3600, '... with its bounds as the range says');
is(p(q{SELECT count(*) FROM events WHERE tstzrange('2024-01-01 23:00', NULL) @> id}), 3600, '... and @> with an infinite bound');

done_testing();
