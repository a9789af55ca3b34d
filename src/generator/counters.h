/*
 * counters.h — the counter words in shared memory, one per generator
 * variant (rules/counter.h: last unit | flag | sequence), and sno's
 * timeline
 *
 * counters.c owns them: setting them up, resuming them after the marks, and
 * reading them.  The loops that advance them are issue.c's.
 */
#ifndef FLAKEID_COUNTERS_H
#define FLAKEID_COUNTERS_H

#include "base/defs.h"
#include "format/sno.h"

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
	 * The highest word a horizon or an advance closed the counter at
	 * (issue_close_through), raised once the closing's compare-and-swap
	 * succeeded: a counter holding it was closed, and neither used its pool
	 * up nor was resumed there (counters_closed).  A wait on it is the
	 * closing's.
	 */
	PaddedWord	closed_word;
	/*
	 * The highest word a closing replaced (a closed word replaced is not
	 * counted), raised before the compare-and-swap: while the counter holds
	 * the word that closing put there, this is the last ID the live counter
	 * issued in the closed unit, if it holds that unit (counters_closed).
	 */
	PaddedWord	closed_replaced;
	/*
	 * Closings of this counter under way (issue_close_through): counted up
	 * before the compare-and-swap, down once closed_word is raised, so that
	 * a back-fill that meets a closed word before closed_word says so waits
	 * for it (counters_await_closed) instead of taking the pool as used up.
	 */
	PaddedWord	closings;
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
 * mark of its tick-tock.  With `closings` false, a counter a horizon or an
 * advance closed and nothing issued from since counts as none: every ID was
 * below the mark as it was issued (mark_ensure_renewed), so a closing alone
 * needs no renewal (the renewer).  At exit, where the marks come down to
 * the latest units, a closing counts at its unit, as a bound of the IDs.
 */
extern void counters_latest_unit_starts(int64 latest[MARK_COUNT], bool closings);

/*
 * Whether the counter word `word` of `slot`, seen in a unit with no sequence
 * left, is a horizon's closing of that unit (issue_close_through) rather
 * than a pool the live counter used up or a counter resumed after its mark
 * (whose earlier lifetime's IDs in that unit nothing records).  A closing
 * raises closed_word after its compare-and-swap, so for an instant after it
 * the answer may still be false (counters_await_closed waits it out).
 */
static inline bool
counters_closed(int slot, uint64 word)
{
	return word == pg_atomic_read_u64(&counter_shared->slots[slot].closed_word.value);
}

/*
 * counters_closed, once no closing of `slot` is under way or the counter
 * has left `word`: a closing that swapped `word` in has raised closed_word
 * by then.  Waits (cancellably, 10 µs naps) only while a closing is between
 * its compare-and-swap and that raise, which takes no lock and no I/O (a
 * test's closing_swapped pause aside).  Read at once, such a word looked
 * like a pool used up, and back-fill at the present was refused beside a
 * poller (the fault campaign counted it apart until 1.4).
 */
extern bool counters_await_closed(int slot, uint64 word);

/*
 * For a back-fill into the unit of `word`, a counter word of `slot` that a
 * horizon or an advance closed (counters_closed, read before this): true
 * with *live_top, the highest sequence of back-fill's tick-tock (0) the
 * live counter issued in that unit (pool->seq_min - 1 when none), which
 * back-fill's sequences there must lie above; when a later closing's record
 * shows the counter has left the unit, it is a past unit (pool->seq_min - 1:
 * its live IDs are no longer known, README "Past units count down").  False
 * when the record does not say (sno on tick-tock 1 in a unit its tick-tock 0
 * may have reached): the caller takes every sequence as issued.  For sno,
 * with flakeid_lock held (its timeline).
 */
extern bool counters_closed_live_top(int slot, uint64 word, const CounterPool *pool, int64 *live_top);

/* the lowest unit the live counter of `slot` may still issue in: its last unit, or the clock's */
extern uint64 counters_live_floor(const GeneratorDef *def, int slot);

/* the generator's clock read as a unit of its format; 22008 outside the format's range */
extern uint64 generator_clock_unit(const GeneratorDef *def);

#endif
