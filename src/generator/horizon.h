/*
 * horizon.h — what a reader by ID may read up to: the lowest unit that a
 * transaction still open may have issued an ID in
 *
 * The contract (README, "Reading by ID: the horizon"): for h, the start of
 * the unit horizon_unit returns, every ID the live generator issued below h
 * belongs to a transaction that has ended (and is visible to a snapshot
 * taken after the call, if it committed), and every ID it issues after the
 * call lies at or after h, sno's after a clock step back too (issue.c counts
 * on from its last unit while the clock is behind the highest horizon given,
 * instead of toggling below it).  Back-fill is outside it.
 */
#ifndef FLAKEID_HORIZON_H
#define FLAKEID_HORIZON_H

#include "postgres.h"

#include "format/counter.h"
#include "generator/defs.h"

/* asks for the shared part, registers the transaction callback (from _PG_init, while preloading) */
extern void horizon_init(void);

/*
 * Before a transaction's first ID of a counter slot: publishes, in this
 * backend's cells (a parallel worker: its leader's), a unit at or below
 * every ID the transaction will get from that slot.  Per ID the cost is one
 * test of a backend-local flag.
 */
extern bool horizon_recorded[GEN_SLOT_COUNT];
extern void horizon_record(int slot);

static inline void
horizon_note_issue(int slot)
{
#ifdef FLAKEID_NO_HORIZON		/* bench/horizon_cost's baseline, the test's negative control */
	(void) slot;
#else
	if (unlikely(!horizon_recorded[slot]))
		horizon_record(slot);
#endif
}


/*
 * sno's toggle after a clock step back takes its word below units that
 * cells were written from.  Before the toggle is published (and before the
 * caller reads sno's floor), the toggling backend lowers its own cell to
 * the unit it toggles to; right after, every cell of the slot still holding
 * a unit is lowered to it, so that a transaction that then issues from the
 * toggled word holds the horizon there.  horizon_record covers a cell
 * written from the old word during the toggle: it reads the word again
 * after writing the cell.  Nothing is added per ID.  Full barriers.
 */
extern void horizon_lower_own_for_toggle(int slot, uint64 unit);
extern void horizon_lower_all_for_toggle(int slot, uint64 unit);

/*
 * The lowest unit of `def` that an open or prepared transaction may hold,
 * or that the generator may issue in next (its caller has checked the
 * preload: generator_prepare).  Takes the horizon's LWLock
 * (shared; exclusive to forget prepared transactions that have ended).
 */
extern uint64 horizon_unit(const GeneratorDef *def);

#endif
