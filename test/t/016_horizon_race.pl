# What any role's horizon calls may do to writers.  A call ends no unit the
# clock is in, so no writer waits for it (1.2 ended the present unit at
# every call).  And the horizon raced against writers: one writer per
# generator commits one ID per transaction in a tight loop (so that, most
# of the time, one cell is held and then cleared), while pollers call every
# <type>_horizon() in tight loops.  No horizon may lie past the clock's next
# unit, and none may fail.  1.2 read the cells twice in one Min()
# (horizon.c), and a writer that committed between the two readings made the
# horizon jump to the end of its type's range for good;
# scripts/check_macro_args keeps the pattern out of the code.  The race is
# timed, not counted: the note prints how many calls it made.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my $seconds = $ENV{FLAKEID_RACE_SECONDS} // 8;
my $node = flakeid_node('horizon_race');
$node->safe_psql('postgres', q{
CREATE PROCEDURE write_for(seconds float8, generator text) LANGUAGE plpgsql AS $$
DECLARE
    until timestamptz := clock_timestamp() + make_interval(secs => seconds);
BEGIN
    WHILE clock_timestamp() < until LOOP
        CASE generator
            WHEN 'sno' THEN PERFORM sno_new();
            WHEN 'siq' THEN PERFORM siq_new('user');
            WHEN 'kuid' THEN PERFORM kuid_new();
            WHEN 'snowflake' THEN PERFORM snowflake_new();
        END CASE;
        COMMIT;
    END LOOP;
END $$;
-- "calls bad first_bad_call worst": a horizon is bad when its time lies past
-- the clock (read after the call) by more than one unit (1 s: siq's)
CREATE FUNCTION poll_for(seconds float8) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    until timestamptz := clock_timestamp() + make_interval(secs => seconds);
    calls int := 0;
    bad int := 0;
    first_bad int;
    worst text := '';
    t timestamptz;
BEGIN
    WHILE clock_timestamp() < until LOOP
        calls := calls + 1;
        FOREACH t IN ARRAY ARRAY[sno_time(sno_horizon()), siq_time(siq_horizon()), kuid_time(kuid_horizon()),
                                 kuid96_time(kuid96_horizon()), snowflake_time(snowflake_horizon())] LOOP
            IF t > clock_timestamp() + interval '1 s' THEN
                bad := bad + 1;
                first_bad := coalesce(first_bad, calls);
                worst := t::text;
            END IF;
        END LOOP;
    END LOOP;
    RETURN format('%s %s %s %s', calls, bad, coalesce(first_bad, 0), worst);
END $$;
});

# A horizon call ends no unit the clock is in, so no writer waits for it:
# 200 times in a row, an ID, a horizon and an ID, each in a transaction of
# its own.  Pairs of IDs share their unit unless the clock crosses one in
# between (with 1 ms units under load, often), and no horizon lies after
# the clock read right after it.  1.2
# ended the present unit at every call: the ID after it always lay in a
# later unit, and a role polling in a loop held every writer to a few
# hundred IDs a second.
$node->safe_psql('postgres', 'CREATE TABLE triples (generator text, a timestamptz, h timestamptz, clock timestamptz, b timestamptz)');
for my $f (['sno', 'sno_new()', 'sno_horizon()', 'sno_time'], ['siq', "siq_new('user')", 'siq_horizon()', 'siq_time'],
	['kuid', 'kuid_new()', 'kuid_horizon()', 'kuid_time'], ['snowflake', 'snowflake_new()', 'snowflake_horizon()', 'snowflake_time'])
{
	my ($name, $new, $horizon, $time) = @$f;
	$node->safe_psql('postgres', "DO \$\$ DECLARE a timestamptz; h timestamptz; c timestamptz; b timestamptz; BEGIN
		FOR i IN 1 .. 200 LOOP
			a := $time($new); COMMIT;
			h := $time($horizon); c := clock_timestamp(); COMMIT;
			b := $time($new); COMMIT;
			INSERT INTO triples VALUES ('$name', a, h, c, b); COMMIT;
		END LOOP; END \$\$");
	my ($same, $ahead) = split /\|/, $node->safe_psql('postgres', "SELECT count(*) FILTER (WHERE b = a), count(*) FILTER (WHERE h > clock)
	        FROM triples WHERE generator = '$name'");
	# (how many pairs share a unit depends on the machine's load: 1 ms units are short)
	cmp_ok($same, '>=', 10, "$name: $same of 200 IDs minted after a horizon call share the unit of the ID before it (at least 10; 1.2: none)");
	is($ahead, '0', "$name: no horizon lies after the clock read right after it");
}

my @writers = map { psql_start($node, "CALL write_for($seconds, '$_')") } qw(sno siq kuid snowflake);
my @pollers = map { psql_start($node, "SELECT poll_for($seconds)") } 1 .. 2;
my ($calls, $bad) = (0, 0);
for my $i (0 .. $#pollers)
{
	my ($status, $out, $err) = psql_finish($pollers[$i]);
	my ($n, $b, $first, $worst) = $status ? (0, 1, 0, "an error: $err") : split / /, $out, 4;
	note('poller ' . ($i + 1) . ": $out$err");
	$calls += $n;
	is($b, '0', 'poller ' . ($i + 1) . ": $n rounds of the five horizons beside four writers, none past the clock's next unit, none failing"
		  . ($b ? " (first bad at round $first: $worst)" : ''));
}
is(join(' ', map { (psql_finish($_))[0] } @writers), '0 0 0 0', 'the writers ran to the end');
cmp_ok($calls, '>', 1000, "the pollers made $calls rounds (the race needs many)");
is($node->safe_psql('postgres', "SELECT sno_time(sno_horizon()) <= clock_timestamp() + interval '1 s',
	snowflake_time(snowflake_horizon()) <= clock_timestamp() + interval '1 s',
	kuid_time(kuid_horizon()) <= clock_timestamp() + interval '1 s'"), 't|t|t', 'and afterwards every horizon is at the clock');
stop_checked($node);
done_testing();
