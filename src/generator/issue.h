/*
 * issue.h — the loops that advance the counter words: every ID is a value a
 * counter word took through a successful compare-and-swap
 */
#ifndef FLAKEID_ISSUE_H
#define FLAKEID_ISSUE_H

#include "base/defs.h"

/*
 * The next counter word of `slot` under the generator's rule: lock-free
 * while the clock moves forward; may sleep until the next unit when the
 * unit's pool is used up (interruptible), take flakeid_lock and fsync the
 * state file when the saved mark needs renewing or sno's clock is behind.
 */
extern uint64 issue_next(const GeneratorDef *def, int slot, const CounterPool *pool);

/*
 * Back-fill of a unit the live generator may still use: the live counter
 * issues in exactly `unit` (the clock read as that unit), so the ID is a
 * live one.  `unit` must not be after the precise clock's; when it is after
 * the generator's own clock (sno's coarse one trails the precise clock by a
 * few milliseconds) the call first waits, interruptibly, until that clock
 * gets there, so the counter never runs ahead of the clock the live
 * generator reads (which its next call would take for a step back).
 * Returns COUNTER_ISSUE with *word the word published, COUNTER_WAIT when
 * the unit has no sequence left (its pool used up, or closed: *word the
 * word found, for counters_closed), COUNTER_BEHIND when the counter has
 * passed the unit.
 */
extern CounterOutcome issue_at(const GeneratorDef *def, int slot, const CounterPool *pool,
							   uint64 unit, uint64 *word);

/*
 * Ends every unit up to `unit` for the counter of `slot`: unless it already
 * lies after `unit`, the counter moves to `unit` with its pool used up, so
 * every ID it issues afterwards lies in a later unit (the horizon closes the
 * present unit this way).  The mark covers `unit` first (mark_ensure).
 * The word it replaces is recorded before, and the closed word after, the
 * compare-and-swap (counters.h: closed_replaced, closed_word), so that a
 * back-fill into the closed unit knows what the live counter issued there.
 * Returns the unit the counter lies in afterwards.
 */
extern uint64 issue_close_through(const GeneratorDef *def, int slot, uint64 unit);

#endif
