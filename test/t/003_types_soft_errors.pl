# Soft input errors (PostgreSQL 16+): bad text reports 22P02 softly, so
# pg_input_is_valid() and pg_input_error_info() work, and on 17+ COPY's
# ON_ERROR ignore skips bad rows.  On 15 the functions do not exist and the
# file is skipped; hard 22P02 errors are tested by pg_regress on every version.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $node = flakeid_node('soft_errors');
my $version = $node->safe_psql('postgres', 'SHOW server_version_num');
if ($version < 160000)
{
	$node->stop;
	plan skip_all => "pg_input_is_valid() arrives in PostgreSQL 16 (this is $version)";
}

# type => [a valid text, invalid texts]
my @cases = (
	[ 'sno', 'brpk4q72xwf2m63l', 'BRPK4Q72XWF2M63L', 'brpk4q72xwf2m63', 'brpk4q72xwf2m63l2' ],
	[ 'flax', '0RdKJcxqVBiAiQr0', ' 0RdKJcxqVBiAiQr0', '0RdKJcxqVBiAiQr', '0RdKJcxqVBiAiQr0!' ],
	[ 'siq', '5W2YJY000000000000007', '', 'did:SIQ:iuxvojaaf4c6s6aaaaaaaaaaaaaah', 'did:siq:iuxvojaaf4c6s6aaaaaaaaaaaaaai',
		'ZZZZZZZZZZZZZZZZZZZZZZZZ', '5W2YJY00000000000000U' ],
	[ 'kuid', '.5.tXbhdV.3', '..........1', '.5.tXbhdV.', '.5.tXbhdV.3.' ],
	[ 'kuid96', '.5.tXVEf8n4vPN.0', '.5.tXVEf8n4vPN.0.', '.5.tXVEf8n4vPN!0' ]);
is(join(' ', sort map { $_->[0] } @cases), join(' ', sort map { $_->{type} } formats(fixed => 't')),
	'a case for every type of its own');
for my $case (@cases)
{
	my ($type, $valid, @bad) = @$case;
	is($node->safe_psql('postgres', "SELECT pg_input_is_valid('$valid', '$type')"), 't', "$type: '$valid' is valid input");
	for my $text (@bad)
	{
		is($node->safe_psql('postgres', "SELECT pg_input_is_valid('$text', '$type')"), 'f',
			"$type: pg_input_is_valid('$text') is false, without an error");
		is($node->safe_psql('postgres', "SELECT sql_error_code || ' ' || message FROM pg_input_error_info('$text', '$type')"),
			"22P02 invalid input syntax for type $type: \"$text\"",
			"$type: pg_input_error_info('$text') gives 22P02 and the message");
		is($node->safe_psql('postgres', "SELECT detail LIKE '$type text is %' FROM pg_input_error_info('$text', '$type')"), 't',
			"$type: pg_input_error_info('$text') has the DETAIL saying what $type text is");
	}
}

# binary input has no soft form in core: a wrong length still raises
is(sqlstate_of($node, "SELECT '\\x00'::bytea::sno"), '22P03', 'a bytea of the wrong length is still ERROR 22P03');

if ($version >= 170000)
{
	$node->safe_psql('postgres', 'CREATE TABLE soft_copy (id sno, k kuid96)');
	my $rows = join('', map { "$_\n" } "brpk4q72xwf2m63l\t.5.tXVEf8n4vPN.0", "BRPK4Q72XWF2M63L\t.5.tXVEf8n4vPN.0",
		"brpk4q72xwf2m63m\t.5.tXVEf8n4vPN!0", "brpk4q72xwf2m63n\t.5.tXVEf8n4vPN.1");
	IPC::Run::run([ 'psql', '-X', '-q', '-d', $node->connstr('postgres'), '-c', 'COPY soft_copy FROM STDIN WITH (ON_ERROR ignore)' ],
		'<', \$rows, '>', \my $out, '2>', \my $err);
	is($node->safe_psql('postgres', "SELECT string_agg(id::text || ' ' || k::text, ',' ORDER BY id) FROM soft_copy"),
		'brpk4q72xwf2m63l .5.tXVEf8n4vPN.0,brpk4q72xwf2m63n .5.tXVEf8n4vPN.1',
		'COPY ... (ON_ERROR ignore) keeps the 2 good rows and skips the 2 bad ones');
}
stop_checked($node);
done_testing();
