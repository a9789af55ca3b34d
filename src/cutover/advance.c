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
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/datetime.h"
#include "utils/wait_event.h"

#include "base/clock.h"
#include "base/shmem.h"
#include "base/table.h"
#include "generator/counters.h"
#include "generator/generator.h"
#include "generator/issue.h"
#include "generator/resume.h"

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
 * The ID lies within the lead, but this server's IDs sort after it only
 * from a later unit: kuid96 of a node above this server's, passed only at
 * the end of its 256-second window.  1.3 closed the counter through that
 * end at once, taking kuid_new() up to 315 s ahead of the clock; 1.4's
 * first version refused where the end lay more than the lead ahead (3 calls
 * in 4 for a fresh ID).  The call waits instead until that end lies within
 * the lead, at most 256 s (the ID is at most the lead ahead, its window at
 * most 256 s long), so the generator never issues more than the lead ahead
 * of its clock, which marks_afresh.c's fresh start relies on, and the call
 * the docs call good is taken.  Other sessions issue meanwhile as before;
 * a cancel ends the wait (it holds no lock).
 */
static void
wait_until_within_lead(const GeneratorDef *def, int64 issue_from_us)
{
	int64		now = clock_read(def);

	if (issue_from_us - now <= ADVANCE_LEAD_US)
		return;
	ereport(NOTICE,
			(errmsg("waiting %.0f s for this server's clock: its %s IDs sort after this ID only after %s, and a generator is never advanced more than %d s ahead of the clock",
					(issue_from_us - ADVANCE_LEAD_US - now) / 1e6, def->name,
					timestamptz_to_str(flakeid_timestamptz_from_unix_us(issue_from_us)),
					(int) (ADVANCE_LEAD_US / USECS_PER_SEC)),
			 errdetail("kuid96 orders by a 256-second window before the node, and the ID's node sorts after this server's.")));
	while ((now = clock_read(def)) < issue_from_us - ADVANCE_LEAD_US)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 (long) Min((issue_from_us - ADVANCE_LEAD_US - now) / 1000 + 1, 1000), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
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
	uint64		word;
	int64		now;
	bool		reached;

	Assert(variant >= 0 && variant < def->variants);
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot advance the %s generator during recovery", def->name),
				 errhint("Advance it on the primary: the raise reaches the standbys through the WAL.")));
	(void) generator_prepare(def, variant);	/* the preload, the state file, settings, identities */

	/*
	 * A counter itself more than the lead ahead of the clock (after an
	 * excursion of the clock, or a start afresh that resumed ahead, it goes
	 * on there) and already in the ID's unit or past it moves at most to
	 * the next unit: no further ahead than it is, and the lead is not
	 * asked.  Refused, the server's own IDs could not be passed, the
	 * refusal blaming the clocks (1.5's fifth auditor: sno_advance_past(
	 * max(id)), "3573.270 s ahead of this server's clock").  A counter
	 * within the lead is asked it as before: the next unit of a coarse one
	 * (kuid96's 256-second window) may lie far past it.
	 */
	now = clock_read(def);
	word = pg_atomic_read_u64(slot_word(slot));
	reached = word != 0 && counter_unit(word) >= through_unit &&
		def->format->unit_start(counter_unit(word)) - now > ADVANCE_LEAD_US;
	ahead = id_unix_us - now;
	if (ahead > ADVANCE_LEAD_US && !reached)
		refuse_ahead_of_clock(def, ahead);
	/* (unreachable while the lead is 60 s: a counter counts units far past any clock) */
	if (through_unit >= COUNTER_MAX_UNIT)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the %s generator cannot issue past the last time unit it can count", def->name)));
	/* the units it will issue in: at most the lead ahead as well (kuid96's window may end later) */
	if (!reached)
		wait_until_within_lead(def, def->format->unit_start(through_unit));

	if (def->ticktock)
		latest[MARK_SNO_FLAG0] = latest[MARK_SNO_FLAG1] = def->format->unit_start(through_unit + 1);
	else
		latest[def->mark] = def->format->unit_start(through_unit + 1);
	/* (an error releases the lock with the transaction's abort, as everywhere) */
	flakeid_lock_acquire();
	(void) mark_renew_latest_locked(latest, MARK_RENEW_US, ERROR);
	flakeid_lock_release();

	if (def->ticktock)
		counters_raise_sno_floor(through_unit + 1);
	(void) issue_close_through(def, slot, through_unit);
}

int64
flakeid_raise_backfill_floor(int64 instant)
{
	int64		ahead;

	shmem_require("flakeid_backfill_floor_raise");
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot raise the back-fill floor during recovery"),
				 errhint("Raise it on the primary: the raise reaches the standbys through the WAL.")));
	if (!mark_state_usable())
		mark_refuse_unusable_state();
	/* (a promoted standby saves the primary's bounds with it, not its own alone) */
	resume_take_up_upstream();
	ahead = instant - flakeid_clock_unix_us();
	if (ahead > ADVANCE_LEAD_US)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the back-fill floor may lie at most %d s ahead of this server's clock; %s lies %.3f s ahead",
						(int) (ADVANCE_LEAD_US / USECS_PER_SEC),
						timestamptz_to_str(flakeid_timestamptz_from_unix_us(instant)), ahead / 1e6),
				 errdetail("Back-fill before the floor is refused for every generator: a floor far ahead would refuse it for that long."),
				 errhint("Check this server's clock against the one whose IDs it took over.")));
	return mark_raise_backfill_floor(instant);
}
