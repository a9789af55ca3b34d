/*
 * backfill_refusals.c — why back-fill refuses a call (backfill_refusals.h):
 * a unit's pool used up, alone or shared with the live IDs of a closed
 * unit, and a time before the record of what back-fill gave was lost
 */
#include "postgres.h"

#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "backfill/backfill_refusals.h"
#include "base/clock.h"
#include "base/settings.h"
#include "base/table.h"
#include "durable/marks.h"

void
backfill_refuse_used_up(const GeneratorDef *def, int variant, TimestampTz ts, uint32 pool_size, uint32 lifetime_size,
						const LedgerUsage *usage)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("too many back-filled %s IDs in the time unit of %s", generator_variant_label(def, variant),
					timestamptz_to_str(ts)),
			 usage == NULL ?
			 errdetail("That time unit is the live %s generator's, and every sequence of its pool of %u was issued.",
					   def->name, pool_size) :
			 usage->set_aside == 0 && lifetime_size == pool_size ?
			 errdetail("Back-filled %s IDs of one time unit share a pool of %u sequences on this server, and every one of them was given.",
					   def->name, pool_size) :
			 usage->set_aside == 0 ?
			 errdetail("Back-filled %s IDs of one time unit share a pool of %u sequences on this server. Back-fill before the last restart took %u of this unit's, and the other %u were given.",
					   def->name, pool_size, pool_size - lifetime_size, lifetime_size) :
			 errdetail("Back-filled %s IDs of one time unit share a pool of %u sequences on this server. Back-fill before the last restart took %u of this unit's; %u were given in this unit, and %u set aside for the " UINT64_FORMAT " units the server no longer tracks one by one.",
					   def->name, pool_size, pool_size - lifetime_size, usage->own, usage->set_aside, usage->forgotten),
			 errhint("Spread the times over more units. Sequences back-filled before a restart are never given again, so a unit back-filled then has fewer left after it.")));
}

/* a closed unit's pool, shared by the live IDs issued before the closing and back-fill's */
void
backfill_refuse_shared_with_live(const GeneratorDef *def, int variant, TimestampTz ts, const CounterPool *pool,
						int64 live_top)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("too many back-filled %s IDs in the time unit of %s", generator_variant_label(def, variant),
					timestamptz_to_str(ts)),
			 errdetail("The live %s generator issued %u sequences of that time unit's pool of %u before a horizon or an advance closed it, and back-fill was given the others.",
					   def->name, (uint32) (live_top - pool->seq_min + 1), pool->seq_max - pool->seq_min + 1),
			 errhint("Spread the times over more units. Sequences back-filled before a restart are never given again, so a unit back-filled then has fewer left after it.")));
}

/*
 * A unit of a recorded run (issued_ahead.h): the live counter issued there ahead
 * of the clock, in this server lifetime or an earlier one, or its old
 * primary did (saved runs, taken up at start and at promotion); or, for
 * this lifetime only, the units from the clock at the start to the saved
 * mark, where the counter resumed.  Either way its live IDs are not
 * counted, and past units count down from the top (backfill.c), so the
 * first back-filled ID could repeat one.  The DETAIL gives the run's time,
 * from the start of its first unit to the start of the unit after it.  The
 * HINT names the times outside it: every run is recorded, across restarts
 * and promotions, since the runs are saved (until they were, 1.4's third
 * and fourth rounds of fresh eyes followed a HINT that named times near a
 * run into repeats, through units an earlier lifetime had filled and
 * forgotten); those that flakeid 1.3 filled before an upgrade are not
 * (docs/OPERATIONS.md).
 */
void
backfill_refuse_ahead(const GeneratorDef *def, TimestampTz ts, const AheadRun *run)
{
	char		from[MAXDATELEN + 1],
				to[MAXDATELEN + 1];

	/* timestamptz_to_str returns a static buffer: one call per message part */
	strlcpy(from, timestamptz_to_str(flakeid_timestamptz_from_unix_us(def->format->unit_start(run->low))),
			sizeof(from));
	strlcpy(to, timestamptz_to_str(flakeid_timestamptz_from_unix_us(def->format->unit_start(run->high + 1))),
			sizeof(to));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("cannot back-fill a %s ID for %s: this server does not count the live IDs of that time",
					def->name, timestamptz_to_str(ts)),
			 errdetail("From %s to %s, the live %s generator issued IDs ahead of the clock (after an advance, a clock step back, a restart or a promotion), or, from the clock at this server's start to its saved mark, an earlier lifetime of this server or its old primary may have issued IDs: a back-filled ID there could repeat one. (Past 32 such spans of a generator, the record joins the two closest, and the time between them counts too.)",
					   from, to, def->name),
			 errhint("Back-fill times outside that span: this server records every span its live generators ran ahead of the clock in, across restarts and promotions, from flakeid 1.4 on (see \"Back-fill\" in docs/OPERATIONS.md).")));
}

/*
 * A unit past the clock that the live counter sits in and that no run
 * holds: it got there at the clock before the clock stepped back (its next
 * live ID there, ahead of the clock, records the unit as a run), or an
 * advance closed it there.  Refused as not counted, as a run is; no retry
 * is promised (round 16's reviewer: a first version said "yet", and the
 * unit stayed refused).
 */
static void
backfill_refuse_counter_there(const GeneratorDef *def, TimestampTz ts, uint64 unit)
{
	char		start[MAXDATELEN + 1];

	strlcpy(start, timestamptz_to_str(flakeid_timestamptz_from_unix_us(def->format->unit_start(unit))), sizeof(start));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("cannot back-fill a %s ID for %s: this server does not count the live IDs of that time",
					def->name, timestamptz_to_str(ts)),
			 errdetail("The live %s generator reached the time unit from %s before the clock did (after a clock step back or an advance): a back-filled ID there could repeat one of its IDs.",
					   def->name, start),
			 errhint("Back-fill times before the present.")));
}

/*
 * A back-fill's unit, judged against the clock (from_live_counter, before
 * it asks the live counter): false where the unit is not past the clock;
 * true where it is but the live counter passed it since the caller looked
 * (a past unit to the counter, as when it had passed it before the call:
 * the caller asks the ahead runs, then the ledger); else a refusal.  The
 * future is judged by the precise clock, as now() is taken: sno's coarse
 * clock may trail now() by a unit, and issue_at waits for it.  A unit past
 * the clock is never served from the counter (that would put every later
 * ID ahead of the clock), but "not reached" is said only where the counter
 * has not got there (rounds 14 to 16 of fresh eyes; the docs always said
 * 55000 for a unit it reached ahead of the clock):
 *   - a run holds it (filled ahead of the clock, or resumed over at a
 *     start or a promotion): 55000 with the span, as it stays;
 *   - the counter sits in it, reached at the clock before the clock
 *     stepped back, or closed there by an advance: 55000, saying so (no
 *     retry is promised: a live ID there records it as a run);
 *   - else 22023 (sno: also a unit its other tick-tock reached before a
 *     step back, not looked for: a refusal either way).
 */
bool
backfill_past_the_clock(const GeneratorDef *def, int slot, uint64 live_unit, TimestampTz ts)
{
	uint64		present = 0,
				word_now;
	AheadRun	run;

	if (def->format->units_at(flakeid_clock_unix_us(), &present) && live_unit <= present)
		return false;
	word_now = pg_atomic_read_u64(&counter_shared->slots[slot].word.value);
	if (present != 0 && word_now != 0 && counter_unit(word_now) > live_unit)
		return true;
	if (ahead_find(slot, live_unit, &run))
		backfill_refuse_ahead(def, ts, &run);
	if (present != 0 && word_now != 0 && counter_unit(word_now) == live_unit)
		backfill_refuse_counter_there(def, ts, live_unit);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot back-fill a %s ID for %s, a time the live generator has not reached",
					def->name, timestamptz_to_str(ts)),
			 errdetail("The live %s generator may issue IDs in that time unit when it gets there, and a back-filled ID there could repeat one of them.",
					   def->name),
			 errhint("Back-fill takes times up to the present; IDs for later times cannot be made in advance.")));
	return false;				/* (not reached) */
}

/*
 * Back-fill before the floor is refused: the floor that flakeid.start_afresh
 * left (marks_afresh.c), what back-fill gave before that start having been
 * lost with the state file, or the one the cutover's step raised
 * (flakeid_raise_backfill_floor), what the other server back-filled never
 * having been recorded here; back-filled IDs lie in the past, where no
 * clock covers them.  The floor's own unit is refused too (an ID given
 * before it could share it).  flakeid.accept_backfill_loss lets it through.
 */
void
backfill_refuse_below_floor(const GeneratorDef *def, uint64 live_unit, TimestampTz ts)
{
	int64		floor = mark_backfill_floor();
	uint64		floor_unit = 0;
	char		lost[MAXDATELEN + 1];

	if (floor == 0 || accept_backfill_loss || !def->format->units_at(floor, &floor_unit) || live_unit > floor_unit)
		return;
	/* (a configured value the server refused is named: the operator meant something by it) */
	settings_refuse_rejected(SETTING_ACCEPT_BACKFILL_LOSS, def->name);
	/* timestamptz_to_str returns a static buffer: one call per message part */
	strlcpy(lost, timestamptz_to_str(flakeid_timestamptz_from_unix_us(floor)), sizeof(lost));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("cannot back-fill a %s ID for %s: this server holds no record of the IDs back-filled before %s",
					def->name, timestamptz_to_str(ts), lost),
			 errdetail("The generators started afresh then (flakeid.start_afresh), or took over another server's IDs up to then (flakeid_advance_past_all, the cutover's step), without the record of what back-fill had given before: a back-filled ID for an earlier time could repeat one of those."),
			 errhint("Back-fill times after it. Before it, only if no ID back-filled before it can meet a new one (the tables that held them are gone or emptied, or none was ever back-filled) and no live ID of those times can either (the record of units the live generators filled ahead of the clock before it is gone too: times before this cluster's first live ID, or on a server with identities of its own): then set flakeid.accept_backfill_loss = on.")));
}
