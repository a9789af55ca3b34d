/*
 * advance.c — the setval of flakeid: moving a live generator past an ID
 * that another server issued (README, "Moving to flakeid and between
 * servers")
 *
 * A raise uses the horizon's own means (horizon.c): sno's floor, then the
 * counter closed through a unit, so that the lock-free loops of issue.c
 * need nothing new; and the marks, so that it outlives the shared memory.
 */
#include "postgres.h"

#include "access/xlog.h"

#include "generator/clock.h"
#include "generator/counters.h"
#include "generator/generator.h"
#include "generator/issue.h"
#include "generator/marks.h"
#include "generator/table.h"

static void
refuse_ahead_of_clock(const GeneratorDef *def, int64 ahead_us)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the %s ID lies %.3f s ahead of this server's clock", def->name, ahead_us / 1e6),
			 errdetail("An ID to advance past may lie at most %d s ahead of the clock: the generator would issue that far ahead of it.",
					   (int) (ADVANCE_LEAD_US / USECS_PER_SEC)),
			 errhint("Check the clocks of both servers; once this server's clock is within %d s of the ID, call again.",
					 (int) (ADVANCE_LEAD_US / USECS_PER_SEC))));
}

/*
 * The marks first, then the counter: a restart between the two resumes
 * after the raised marks, and a generator call between them issues before
 * the raise, as it would have before the call.  sno raises both of its
 * marks: after a restart it takes up either tick-tock only past its mark,
 * so neither can go back below the unit.
 */
void
flakeid_advance_past(GeneratorId gen, int variant, int64 id_unix_us, uint64 through_unit)
{
	const GeneratorDef *def = &generator_defs[gen];
	int			slot = def->first_slot + variant;
	int64		latest[MARK_COUNT] = {0};
	int64		ahead;

	Assert(variant >= 0 && variant < def->variants);
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot advance the %s generator during recovery", def->name),
				 errhint("Advance it on the primary: the raise reaches the standbys through the WAL.")));
	(void) generator_prepare(def, variant);	/* the preload, the state file, settings, identities */
	ahead = id_unix_us - clock_read(def);
	if (ahead > ADVANCE_LEAD_US)
		refuse_ahead_of_clock(def, ahead);
	/* (unreachable while the lead is 60 s: a counter counts units far past any clock) */
	if (through_unit >= COUNTER_MAX_UNIT)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the %s generator cannot issue past the last time unit it can count", def->name)));

	if (def->ticktock)
		latest[MARK_SNO_FLAG0] = latest[MARK_SNO_FLAG1] = def->format->unit_start(through_unit + 1);
	else
		latest[MARK_MONOTONIC] = def->format->unit_start(through_unit + 1);
	/* (an error releases the lock with the transaction's abort, as everywhere) */
	flakeid_lock_acquire();
	(void) mark_renew_latest_locked(latest, MARK_RENEW_US, ERROR);
	flakeid_lock_release();

	if (def->ticktock)
		counters_raise_sno_floor(through_unit + 1);
	(void) issue_close_through(def, slot, through_unit);
}
