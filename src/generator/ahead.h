/*
 * ahead.h — the units each live counter reached ahead of the clock, for
 * back-fill (this server lifetime)
 *
 * The live counter of a generator issues ahead of the clock after an
 * advance (*_advance_past to a later ID), a clock step back, a restart or
 * a promotion with the clock behind the mark: it counts on from its last
 * unit and leaves a unit only when its pool is used up.  Once the clock
 * gets there, such a unit is a past one to back-fill, whose sequences
 * count down from the top of the pool (backfill.c) straight into the live
 * IDs issued there in advance.  1.4's fault campaign found it (seed
 * 26002: back-fill "at the present" on a promoted standby whose clock was
 * behind repeated four live siq IDs).  So every unit a counter issues in
 * ahead of the clock is recorded before the ID is published, as runs of
 * consecutive units, and back-fill there is refused (backfill.c).
 *
 * At start and at promotion (counters_resume), the units from the clock to
 * the mark are recorded as one run (the mark's unit alone when the clock
 * has passed it; sno: for the marks of tick-tock 0 and of the one it
 * resumes with): the earlier lifetime, or the old primary, may have issued
 * in them, ahead of this server's clock or where the counter resumes, and
 * no record says how many.
 *
 * Bounded: AHEAD_RUNS runs per counter slot.  Past them, the two runs with
 * the fewest units between them are joined, so back-fill of those units
 * is refused too: a refusal, never a repeat.  Shared memory only: a restart
 * forgets the runs that the clock had passed, and back-fill there then
 * repeats live IDs (docs/OPERATIONS.md: a known defect, open until the runs
 * are saved with the marks).
 */
#ifndef FLAKEID_AHEAD_H
#define FLAKEID_AHEAD_H

#include "postgres.h"

#include "port/atomics.h"
#include "storage/s_lock.h"

#include "generator/defs.h"

#define AHEAD_RUNS	16

/* a run of consecutive units, both ends included */
typedef struct AheadRun
{
	uint64		low;
	uint64		high;
} AheadRun;

typedef struct AheadSlot
{
	/* the last run's ends, for ahead_note's check without the lock (0, 0: none) */
	pg_atomic_uint64 last_low;
	pg_atomic_uint64 last_high;
	slock_t		mutex;			/* the runs; held for a copy or an insert, nothing else */
	int			count;
	AheadRun	runs[AHEAD_RUNS];	/* ascending, disjoint, not adjacent */
} AheadSlot;

extern AheadSlot *ahead_slots;

/* asks for the shared part (from _PG_init, while preloading) */
extern void ahead_init(void);

/* records the units low..high of `slot` (a resume, or a unit not yet recorded) */
extern void ahead_record(int slot, uint64 low, uint64 high);

/*
 * Before the live counter of `slot` publishes an ID in `unit` with the clock
 * at `now`: when `unit` is ahead of the clock, records it.  Two atomic reads
 * when the unit is already in the last run (every ID but the first of a
 * unit, while the counter runs ahead); nothing at all otherwise.
 */
static inline void
ahead_note(int slot, uint64 now, uint64 unit)
{
	AheadSlot  *s;

	if (likely(now >= unit))
		return;
	s = &ahead_slots[slot];
	/* high first: a run appended between the two reads then holds nothing below it */
	if (unit <= pg_atomic_read_u64(&s->last_high))
	{
		pg_read_barrier();
		if (unit >= pg_atomic_read_u64(&s->last_low))
			return;
	}
	ahead_record(slot, unit, unit);
}

/*
 * Whether `unit` of `slot` lies in a recorded run: true with the run in
 * *run.  Back-fill reads it after the counter word that showed the
 * counter past `unit`: the unit was recorded before any ID was published
 * there, so a counter seen past it shows every record of it.
 */
extern bool ahead_find(int slot, uint64 unit, AheadRun *run);

#endif
