/*
 * counters.h — the counter words in shared memory, one per generator
 * variant (format/counter.h: last unit | flag | sequence), and sno's
 * timeline
 *
 * counters.c owns them: setting them up, resuming them after the marks, and
 * reading them.  The loops that advance them are issue.c's.
 */
#ifndef FLAKEID_COUNTERS_H
#define FLAKEID_COUNTERS_H

#include "postgres.h"

#include "port/atomics.h"

#include "format/sno.h"
#include "generator/defs.h"

typedef struct CounterSlot
{
	PaddedWord	word;			/* the counter word */
	/*
	 * The word the counter was resumed at (start, promotion; under
	 * flakeid_lock): while it holds it, the counter has issued nothing since,
	 * and the renewer leaves its mark alone.
	 */
	PaddedWord	resumed_word;
	/*
	 * The last word a horizon closed the counter at (issue_close_through):
	 * a wait on it is the closing's, not a pool used up.
	 */
	PaddedWord	closed_word;
} CounterSlot;

typedef struct CounterShared
{
	CounterSlot slots[GEN_SLOT_COUNT];
	PaddedWord	sno_wall_safe;	/* sno_timeline.wall_safe, for waiters without the lock */
	/*
	 * The highest sno horizon given or being given, or unit advanced to
	 * (horizon.c, advance.c raise it before closing the counter): a clock
	 * behind it counts on from the last unit instead of toggling, so no ID
	 * lands below a horizon or an ID advanced past.
	 */
	PaddedWord	sno_floor;
	SnoTimeline sno_timeline;	/* under flakeid_lock */
} CounterShared;

extern CounterShared *counter_shared;

/* asks for the shared part (from _PG_init, while preloading) */
extern void counters_init(void);

static inline pg_atomic_uint64 *
slot_word(int slot)
{
	return &counter_shared->slots[slot].word.value;
}

/*
 * Raises sno's floor to `unit` (never lowers it), with a full barrier: a
 * caller about to close the counter below `unit` raises it first, so that
 * a clock step back counts on instead of toggling below it (issue.c).
 */
static inline void
counters_raise_sno_floor(uint64 unit)
{
	(void) atomic_raise_u64(&counter_shared->sno_floor.value, unit);
	pg_memory_barrier();
}

/*
 * With flakeid_lock held (or at start): sets sno's timeline, and publishes
 * its unsafe-period bound for waiters that do not take the lock.
 */
static inline void
sno_timeline_publish(const SnoTimeline *timeline)
{
	counter_shared->sno_timeline = *timeline;
	pg_atomic_write_u64(&counter_shared->sno_wall_safe.value, timeline->wall_safe);
}

/*
 * At start, or with flakeid_lock held: resumes every counter after the
 * marks (each only moves up), sno with the tick-tock `flag` unless its
 * counter already lies at or above its own value's mark, and records each
 * word as resumed.  Returns the tick-tock sno's counter carries afterwards.
 */
extern bool counters_resume(const int64 marks[MARK_COUNT], bool flag);

/*
 * The latest start of a unit (Unix µs) the counters of each mark used
 * since they were resumed, 0 where none was: for sno, its counter under the
 * mark of its tick-tock.
 */
extern void counters_latest_unit_starts(int64 latest[MARK_COUNT]);

/* the lowest unit the live counter of `slot` may still issue in: its last unit, or the clock's */
extern uint64 counters_live_floor(const GeneratorDef *def, int slot);

/* the generator's clock read as a unit of its format; 22008 outside the format's range */
extern uint64 generator_clock_unit(const GeneratorDef *def);

#endif
