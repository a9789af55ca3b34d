# Back-fill's record of deep units never costs a unit it was not drawn from
# (issue 60, part 1).  A unit back-filled deeper than every unit's share (an
# eighth of the pool per server lifetime) is recorded with the lowest
# sequence given in it, so that a restart does not give it again.  1.3 kept
# 32 ranges of units in flakeid.state and, past them, merged the two
# closest ranges of a generator into one with the lower bound: every unit
# between them lost its pool at the next restart.  Now each deep unit is an
# entry of its own in flakeid.deep (appended, and a DEEP WAL record each),
# up to flakeid.backfill_deep_units_max of them (default 65,536); past the
# bound a new deep unit is refused (54000), never merged.
#
# 1. The audit's loop: snowflake_new_at at 100 instants spread over
#    2015-2026, each until 54000; a restart; then 200 other past instants
#    back-fill once each: none is refused (1.3: 129 of 200 were).
# 2. N scattered units back-filled full, three restarts, then N other
#    units once each: none is refused, and the full units stay full.  The
#    issue's N is 10,000 units; snowflake's 4,096 sequences a unit make that
#    41 M calls, so this part runs sno with a pool of 8 sequences
#    (flakeid.sno_sequence_min = 0, _max = 7): 10,000 full units are 90,000
#    calls.  FLAKEID_DEEP_UNITS sets N (default 10,000).
# 3. The bound: with flakeid.backfill_deep_units_max = 5, units are filled
#    one after another until one is refused: the refusal names the bound,
#    the units recorded before keep their pools and other units theirs, and
#    flakeid.deep holds a 16-byte header and 48 bytes per entry.  After the
#    N units of part 2, the file holds at most 2 N + 1,025 entries (it is
#    rewritten whole, one entry per unit, past that).
# 4. A standby replays the DEEP records: 40 units filled on its primary stay
#    full on the promoted standby, and 40 units between them keep their
#    pools there.
use strict;
use warnings;
use FlakeidTest;
use Test::More;

my ($snowflake) = formats(format => 'snowflake');
my ($sno) = formats(format => 'sno');

# fill(times, call): back-fills each time until 54000 (one subtransaction
# per time: the ledger is shared memory, so what the rolled-back calls were
# given stays given); returns the calls given.  once(times): one back-fill
# per time, returns how many were refused (any error).
sub define_helpers
{
	my ($node, $f) = @_;
	my $call = backfill_call($f, 't');
	$node->safe_psql('postgres', qq{
CREATE FUNCTION fill(times timestamptz[]) RETURNS bigint LANGUAGE plpgsql AS \$\$
DECLARE
    t timestamptz;
    n bigint := 0;
BEGIN
    FOREACH t IN ARRAY times LOOP
        BEGIN
            LOOP
                PERFORM $call;
                n := n + 1;
            END LOOP;
        EXCEPTION WHEN program_limit_exceeded THEN
            NULL;
        END;
    END LOOP;
    RETURN n;
END \$\$;
CREATE FUNCTION once(times timestamptz[]) RETURNS bigint LANGUAGE plpgsql AS \$\$
DECLARE
    t timestamptz;
    refused bigint := 0;
BEGIN
    FOREACH t IN ARRAY times LOOP
        BEGIN
            PERFORM $call;
        EXCEPTION WHEN others THEN
            refused := refused + 1;
        END;
    END LOOP;
    RETURN refused;
END \$\$;
});
}

sub deep_file_size { return -s $_[0]->data_dir . '/flakeid.deep'; }

# --- 1. the audit's loop -----------------------------------------------------------------------
my $audit = flakeid_node('deep_audit');
define_helpers($audit, $snowflake);
# 100 instants 40 days apart from 2015 (to late 2025), 7 ms into a second
my $deep_times = q{ARRAY(SELECT timestamptz '2015-01-01 10:00:00.007+00' + i * interval '40 days'
	FROM generate_series(0, 99) i)};
my $given = $audit->safe_psql('postgres', "SELECT fill($deep_times)");
ok($given >= 100 * 4096 * 7 / 8, "audit: 100 snowflake milliseconds back-filled until 54000 ($given IDs given)");
$audit->restart;
# 200 other instants, 20 days apart and 12 hours off the first ones
my $other_times = q{ARRAY(SELECT timestamptz '2015-01-01 22:00:00.003+00' + i * interval '20 days'
	FROM generate_series(0, 199) i)};
is($audit->safe_psql('postgres', "SELECT once($other_times)"), '0',
	'audit: after a restart, 200 other past instants back-fill once each: none refused');
is($audit->safe_psql('postgres', "SELECT once($deep_times)"), '100',
	'audit: the 100 full milliseconds stay full after the restart');
stop_checked($audit);

# --- 2. N units full, three restarts, N others once ----------------------------------------------
my $n = $ENV{FLAKEID_DEEP_UNITS} // 10000;
my $many = flakeid_node('deep_many', 'flakeid.sno_sequence_min' => 0, 'flakeid.sno_sequence_max' => 7);
define_helpers($many, $sno);
# N sno units (4 ms) 8 hours apart from 2015 (10,000: to 2024), 1 ms into a second
my $full_times = qq{ARRAY(SELECT timestamptz '2015-01-01 00:00:00.001+00' + i * interval '8 hours'
	FROM generate_series(0, $n - 1) i)};
my $full_given = $many->safe_psql('postgres', "SELECT fill($full_times)");
ok($full_given >= $n * 7, "$n sno units of a pool of 8 back-filled until 54000 ($full_given IDs given)");
my $after_fill = deep_file_size($many);
ok($after_fill <= 16 + 48 * (2 * $n + 1025) && ($after_fill - 16) % 48 == 0,
	"flakeid.deep after $n deep units: $after_fill bytes, a header and at most 2 N + 1,025 entries of 48 bytes");
$many->restart for 1 .. 3;
ok(log_count($many, qr/back-fill's record of deep units holds $n time units of at most 65536/) >= 3,
	"each start reads the $n deep units back");
my $between = qq{ARRAY(SELECT timestamptz '2015-01-01 04:00:00.001+00' + i * interval '8 hours'
	FROM generate_series(0, $n - 1) i)};
is($many->safe_psql('postgres', "SELECT once($between)"), '0',
	"after three restarts, $n other past units back-fill once each: none refused");
is($many->safe_psql('postgres', "SELECT once($full_times)"), $n,
	"and the $n full units stay full (nothing given twice)");
stop_checked($many);

# --- 3. the bound ----------------------------------------------------------------------------
my $bounded = flakeid_node('deep_bound', 'flakeid.backfill_deep_units_max' => 5);
define_helpers($bounded, $snowflake);
my $unit_time = sub { "timestamptz '2016-03-01 00:00:00.005+00' + interval '1 day' * $_[0]" };
my ($filled, $message) = (0, '');
for my $i (0 .. 9)
{
	my $t = $unit_time->($i);
	$bounded->safe_psql('postgres', "SELECT fill(ARRAY[$t])");
	$message = message_of($bounded, "SELECT snowflake_new_at($t)");
	last unless $message =~ /every one of them was given/;
	$filled++;
}
ok($filled >= 5 && $filled <= 6, "with flakeid.backfill_deep_units_max = 5, $filled units fill (one may stay within the slot's share)");
like($message, qr/ERROR:  cannot back-fill deeper into another snowflake time unit: back-fill's record of deep units is full\nDETAIL:  .*holds at most 5 of them \(flakeid.backfill_deep_units_max\)\. A new one is refused rather than merged/s,
	'the next unit is refused, naming the bound and that nothing is merged');
is(sqlstate_of($bounded, 'SELECT snowflake_new_at(' . $unit_time->($filled) . ')'), '54000', 'with SQLSTATE 54000');
my $bound_size = deep_file_size($bounded);
ok($bound_size <= 16 + 48 * (2 * 5 + 1025) && ($bound_size - 16) % 48 == 0,
	"flakeid.deep: $bound_size bytes, a header and 48 bytes per entry");
$bounded->restart;
ok(log_count($bounded, qr/back-fill's record of deep units holds 5 time units of at most 5/) >= 1,
	'after a restart the record holds its 5 units');
is($bounded->safe_psql('postgres', 'SELECT once(ARRAY(SELECT ' . $unit_time->('i') . ' + interval \'12 hours\' FROM generate_series(0, 49) i))'),
	'0', 'after a restart, 50 other units back-fill once each: none refused');
is($bounded->safe_psql('postgres', 'SELECT once(ARRAY(SELECT ' . $unit_time->('i') . " FROM generate_series(0, $filled - 1) i))"),
	$filled, 'the full units stay full');
stop_checked($bounded);

# --- 4. a standby replays the deep units, and keeps them once promoted ------------------------------
my $primary = flakeid_node('deep_primary');
define_helpers($primary, $snowflake);
my ($standby) = flakeid_standby($primary, 'deep_standby');
my $forty = q{ARRAY(SELECT timestamptz '2017-06-01 00:00:00.009+00' + i * interval '3 days'
	FROM generate_series(0, 39) i)};
ok($primary->safe_psql('postgres', "SELECT fill($forty)") > 0, 'the primary back-fills 40 snowflake milliseconds full');
my $lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
ok($standby->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn"), 'the standby replayed everything');
$primary->stop;
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
is($standby->safe_psql('postgres', "SELECT once($forty)"), '40', 'on the promoted standby the 40 units are full');
is($standby->safe_psql('postgres', q{SELECT once(ARRAY(SELECT timestamptz '2017-06-02 12:00:00.009+00' + i * interval '3 days'
	FROM generate_series(0, 39) i))}), '0', 'and 40 units between them back-fill once each: none refused');
ok(-f $standby->data_dir . '/flakeid.deep', 'the promoted standby keeps flakeid.deep');
$standby->restart;
is($standby->safe_psql('postgres', "SELECT once($forty)"), '40', 'after its restart the 40 units are still full');
stop_checked($standby);

done_testing();
