/*
 * issued_ahead.c — the units each live counter issued in ahead of the clock
 * (issued_ahead.h): runs of units per counter slot, in shared memory, under a
 * spinlock per slot held for a few comparisons and copies (no I/O, no
 * allocation, no error); saved by marks.c.
 */
#include "postgres.h"

#include "storage/spin.h"

#include "base/shmem.h"
#include "durable/issued_ahead.h"

AheadSlot  *ahead_slots = NULL;

static void
ahead_shared_init(void *part)
{
	AheadSlot  *slots = (AheadSlot *) part;

	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		pg_atomic_init_u64(&slots[s].last_low, 0);
		pg_atomic_init_u64(&slots[s].last_high, 0);
		SpinLockInit(&slots[s].mutex);
		unit_runs_clear(&slots[s].issued);
		unit_runs_clear(&slots[s].saved);
		unit_runs_clear(&slots[s].writing);
		slots[s].writing_active = false;
		unit_runs_clear(&slots[s].resumed);
	}
}

void
ahead_init(void)
{
	shmem_request_part(&(ShmemPart) {.name = "flakeid ahead", .size = sizeof(AheadSlot) * GEN_SLOT_COUNT,
	.address = (void **) &ahead_slots, .init = ahead_shared_init});
}

/* with the slot's mutex: whether the saves cover `unit` (the last that succeeded, and the one under way) */
static bool
covered_locked(const AheadSlot *s, uint64 unit, UnitRun *range)
{
	UnitRun		done,
				under_way;

	if (!unit_runs_find(&s->saved, unit, &done))
		return false;
	if (s->writing_active)
	{
		if (!unit_runs_find(&s->writing, unit, &under_way))
			return false;
		done.low = Max(done.low, under_way.low);
		done.high = Min(done.high, under_way.high);
	}
	*range = done;
	return true;
}

/*
 * With the slot's mutex, `unit` covered and recorded: publishes for
 * ahead_note the units of its run that the saves cover, unless that would
 * move the low end down (issued_ahead.h: a reader may pair the old high end with
 * the new low end).
 */
static void
publish_saved_range(AheadSlot *s, uint64 unit, UnitRun saved)
{
	UnitRun		run;

	if (!unit_runs_find(&s->issued, unit, &run))
		return;
	run.low = Max(run.low, saved.low);
	run.high = Min(run.high, saved.high);
	if (run.low < pg_atomic_read_u64(&s->last_low))
		return;
	pg_atomic_write_u64(&s->last_low, run.low);
	pg_write_barrier();
	pg_atomic_write_u64(&s->last_high, run.high);
}

bool
ahead_record_issued(int slot, uint64 unit)
{
	AheadSlot  *s = &ahead_slots[slot];
	UnitRun		saved;
	bool		covered;

	Assert(slot >= 0 && slot < GEN_SLOT_COUNT);
	SpinLockAcquire(&s->mutex);
	(void) unit_runs_add(&s->issued, unit, unit, AHEAD_RUNS);
	covered = covered_locked(s, unit, &saved);
	if (covered)
		publish_saved_range(s, unit, saved);
	SpinLockRelease(&s->mutex);
	return !covered;
}

bool
ahead_saved_covers(int slot, uint64 unit)
{
	AheadSlot  *s = &ahead_slots[slot];
	UnitRun		saved;
	bool		covered;

	SpinLockAcquire(&s->mutex);
	covered = covered_locked(s, unit, &saved);
	if (covered)
		publish_saved_range(s, unit, saved);
	SpinLockRelease(&s->mutex);
	return covered;
}

void
ahead_begin_write(int slot, uint64 now_unit, uint64 mark_unit, UnitRuns *runs)
{
	AheadSlot  *s = &ahead_slots[slot];

	SpinLockAcquire(&s->mutex);
	/*
	 * A save still under way here raised an ERROR, or its process exited
	 * (save_locked ends the saves that return): it may have renamed its
	 * file into place first, so the file is the last good save's or its
	 * own.  As after a failed save, neither counts: left as the last good
	 * save's, a unit that save held open and the failed one closed before
	 * would count as covered once this save held it too, before any save
	 * of it had succeeded.
	 */
	if (s->writing_active)
		unit_runs_clear(&s->saved);
	*runs = s->issued;
	/*
	 * A last run at or after the clock may still grow, unit by unit, as the
	 * counter counts on ahead: open to the mark saved with it, so that its
	 * next units are covered without a save of their own.  One before the
	 * clock is closed: the counter's next unit ahead of the clock lies past
	 * it, and is recorded and saved anew.
	 */
	if (runs->count > 0 && runs->runs[runs->count - 1].high >= now_unit)
		runs->runs[runs->count - 1].high = Max(runs->runs[runs->count - 1].high, mark_unit);
	s->writing = *runs;
	s->writing_active = true;
	SpinLockRelease(&s->mutex);
}

void
ahead_end_write(bool saved)
{
	for (int slot = 0; slot < GEN_SLOT_COUNT; slot++)
	{
		AheadSlot  *s = &ahead_slots[slot];

		SpinLockAcquire(&s->mutex);
		if (s->writing_active)
		{
			/* (a failed save may have left the old file or the new one: neither counts) */
			if (saved)
				s->saved = s->writing;
			else
				unit_runs_clear(&s->saved);
			s->writing_active = false;
		}
		SpinLockRelease(&s->mutex);
	}
}

void
ahead_take_up(int slot, const UnitRuns *runs, bool saved)
{
	AheadSlot  *s = &ahead_slots[slot];

	SpinLockAcquire(&s->mutex);
	(void) unit_runs_merge(&s->issued, runs, AHEAD_RUNS);
	if (saved)
		(void) unit_runs_merge(&s->saved, runs, AHEAD_RUNS);
	SpinLockRelease(&s->mutex);
}

void
ahead_record_resumed(int slot, uint64 low, uint64 high)
{
	AheadSlot  *s = &ahead_slots[slot];

	Assert(slot >= 0 && slot < GEN_SLOT_COUNT && low <= high);
	SpinLockAcquire(&s->mutex);
	(void) unit_runs_add(&s->resumed, low, high, AHEAD_RESUMED_RUNS);
	SpinLockRelease(&s->mutex);
}

bool
ahead_holds(int slot, const UnitRuns *runs)
{
	AheadSlot  *s = &ahead_slots[slot];
	bool		holds;

	SpinLockAcquire(&s->mutex);
	holds = unit_runs_cover(&s->issued, runs);
	SpinLockRelease(&s->mutex);
	return holds;
}

bool
ahead_find(int slot, uint64 unit, AheadRun *run)
{
	AheadSlot  *s = &ahead_slots[slot];
	bool		found;

	SpinLockAcquire(&s->mutex);
	found = unit_runs_find(&s->issued, unit, run) || unit_runs_find(&s->resumed, unit, run);
	SpinLockRelease(&s->mutex);
	return found;
}
