/*
 * issued_ahead.h — the units each live counter issued in ahead of the clock, for
 * back-fill, kept across restarts and promotions
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
 * consecutive units (rules/unit_runs.h), and back-fill there is refused.
 *
 * Saved.  The runs go into every save of the state file and every ISSUED
 * record (IssuedBounds.ahead), so a restart, a crash and a standby's
 * promotion keep them (1.4's first version kept them in shared memory
 * only, and after a restart back-fill into units the clock had passed
 * repeated live IDs: found by its reviewer and auditor).  A unit is
 * published only once a save covers it: the first unit of a run costs a
 * save (ahead_note says so, and the caller saves: marks.h), and a save
 * writes a run that may still grow (its last unit at or after the clock)
 * open to the mark it saves, which every ID until the next save lies
 * before, so the units after it cost nothing more.  A save that fails
 * leaves nothing counted as saved: the next unit ahead saves again, and
 * raises if it cannot (nothing is issued).
 *
 * At start and at promotion (counters_resume), the units from the clock to
 * the mark are recorded too, for this lifetime only, not saved (the mark's
 * unit alone when the clock has passed it; sno: for the marks of tick-tock
 * 0 and of the one it resumes with): the counter resumes there with its
 * pool taken as used up, and the earlier lifetime's IDs there are not
 * counted.
 *
 * Bounded: AHEAD_RUNS saved runs per counter slot.  Past them, the two runs
 * with the fewest units between them are joined, so back-fill of those
 * units is refused too: a refusal, never a repeat.
 */
#ifndef FLAKEID_AHEAD_H
#define FLAKEID_AHEAD_H

#include "storage/s_lock.h"

#include "base/defs.h"
#include "rules/unit_runs.h"

#define AHEAD_RUNS			UNIT_RUNS_MAX
#define AHEAD_RESUMED_RUNS	8

typedef UnitRun AheadRun;

typedef struct AheadSlot
{
	/*
	 * Units of the last run that a save covers, for ahead_note's check
	 * without the lock (0, 0: none).  Only raised (its low end never moves
	 * down), so a reader that takes the high end first sees a saved range.
	 */
	pg_atomic_uint64 last_low;
	pg_atomic_uint64 last_high;
	slock_t		mutex;			/* the runs below; held for a few comparisons and copies */
	UnitRuns	issued;			/* issued in ahead of the clock (saved), and taken up at promotion */
	UnitRuns	saved;			/* as the last save that succeeded wrote them */
	UnitRuns	writing;		/* as a save under way writes them (while writing_active) */
	bool		writing_active;
	UnitRuns	resumed;		/* this lifetime only: from the clock to the mark at start or promotion */
} AheadSlot;

extern AheadSlot *ahead_slots;

/* asks for the shared part (from _PG_init, while preloading) */
extern void ahead_init(void);

/*
 * Records unit `unit` of `slot` as issued ahead; true when no save covers
 * it yet: the caller saves before it publishes (marks.h, mark_save_ahead).
 */
extern bool ahead_record_issued(int slot, uint64 unit);

/*
 * Before the live counter of `slot` publishes an ID in `unit` with the clock
 * at `now`: when `unit` is ahead of the clock, records it; true when a save
 * must cover it first.  Two atomic reads when the unit is already recorded
 * in the saved part of the last run (every ID but the first of a unit,
 * while the counter runs ahead); the slot's spinlock once for each new unit
 * (and for every ID in a unit of an earlier run: not published for this
 * check); nothing at all when the unit is not ahead.
 */
static inline bool
ahead_note(int slot, uint64 now, uint64 unit)
{
	AheadSlot  *s;

	if (likely(now >= unit))
		return false;
	s = &ahead_slots[slot];
	/* high first: the low end only rises, so the pair read is a saved range or empty */
	if (unit <= pg_atomic_read_u64(&s->last_high))
	{
		pg_read_barrier();
		if (unit >= pg_atomic_read_u64(&s->last_low))
			return false;
	}
	return ahead_record_issued(slot, unit);
}

/*
 * Whether a save covers `unit` of `slot` (the last that succeeded and the
 * one under way, if any): then it may be published.
 */
extern bool ahead_saved_covers(int slot, uint64 unit);

/*
 * For a save (with flakeid_lock held): the runs of `slot` to write into
 * *runs, the last one open to `mark_unit` when it reaches `now_unit` or
 * later; they count as the save under way until ahead_end_write.  A save
 * still under way (it raised an ERROR, perhaps after its rename) leaves no
 * runs counted as saved.
 */
extern void ahead_begin_write(int slot, uint64 now_unit, uint64 mark_unit, UnitRuns *runs);

/* after that save: `saved` true when the file holds them, false when it may not */
extern void ahead_end_write(bool saved);

/*
 * At start or promotion (before the counters resume): runs of `slot` an
 * earlier lifetime saved (`saved`: this server's own file, which holds them
 * already) or the old primary did (taken up, saved with the next save).
 */
extern void ahead_take_up(int slot, const UnitRuns *runs, bool saved);

/* at start or promotion: low..high of `slot`, for this lifetime only (counters_resume) */
extern void ahead_record_resumed(int slot, uint64 low, uint64 high);

/* whether every run of `runs` is taken up for `slot` */
extern bool ahead_holds(int slot, const UnitRuns *runs);

/*
 * Whether `unit` lies in a recorded run of `slot`: true with the run in
 * *run.  Back-fill reads it after the counter word that showed the
 * counter past `unit`: the unit was recorded before any ID was published
 * there, so a counter seen past it shows every record of it.
 */
extern bool ahead_find(int slot, uint64 unit, AheadRun *run);

#endif
