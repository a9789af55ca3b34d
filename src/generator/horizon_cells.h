/*
 * horizon_cells.h — what each transaction may hold: a cell per backend and
 * counter slot in shared memory, below the horizon (horizon.h) and the
 * loops that issue IDs (issue.c), which both write them
 *
 * Before a transaction's first ID of a slot, the backend writes in its cell
 * the unit its counter word holds (a parallel worker writes its leader's
 * cell): the counters only move up, so every ID the transaction then gets
 * from that slot lies in that unit or later.  sno's toggle after a clock
 * step back takes its word down, and lowers the cells to its unit
 * (horizon_lower_*_for_toggle).  The cell is cleared at commit or abort,
 * from horizon.c's transaction callback.
 */
#ifndef FLAKEID_HORIZON_CELLS_H
#define FLAKEID_HORIZON_CELLS_H

#include "base/defs.h"

#define HORIZON_NONE		PG_UINT64_MAX	/* a cell that holds nothing */

/* asks for the shared part (from horizon_init, while preloading) */
extern void horizon_cells_init(void);

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
 * cells were written from.  Before it reads sno's floor, the toggling
 * backend lowers its own cell to the unit it toggles to
 * (horizon_lower_own_for_toggle).  Then, under flakeid_lock (toggles never
 * overlap), horizon_toggle_begin marks a toggle in progress and lowers
 * every cell of the slot still holding a unit, before the compare-and-swap;
 * horizon_toggle_end lowers them again if the toggle was made (cells
 * written from the old word meanwhile) and ends the mark.  A horizon's scan
 * (horizon_cells_lowest) that overlapped a toggle is made again once the
 * toggle has ended, so it never reads one cell before the toggle and the
 * next after its transaction ended.  horizon_record covers a cell written
 * from the old word during the toggle: it reads the word again after
 * writing the cell.  Nothing is added per ID.  Full barriers.
 */
extern void horizon_lower_own_for_toggle(int slot, uint64 unit);
extern void horizon_toggle_begin(int slot, uint64 unit);
extern void horizon_toggle_end(int slot, uint64 unit, bool made);

/*
 * The lowest unit the cells of every backend hold for these slots
 * (HORIZON_NONE: none), from a scan that no sno toggle overlapped.  While
 * one is in progress it waits (interruptibly) for it: a few sweeps of the
 * cells under flakeid_lock, with no I/O.
 */
extern uint64 horizon_cells_lowest(int first_slot, int nslots);


/*
 * At the end of this backend's transaction (the leader clears what its
 * parallel workers wrote too): its cells cleared, with `into` (a
 * PRE_PREPARE, GEN_SLOT_COUNT units) copied there first and left as they
 * are.  True when any cell held a unit.  Never raises.
 */
extern bool horizon_cells_take(uint64 *into);

/*
 * For flakeid_horizon_holders: the units the cells of process number
 * `procno` (0 .. horizon_cells_nprocs() - 1) hold (HORIZON_NONE: none), with
 * the process's pid and top transaction ID (InvalidTransactionId: none
 * assigned).  False when they hold nothing.  Unlocked reads: a snapshot
 * for monitoring, which a process may change under it.
 */
extern int	horizon_cells_nprocs(void);
extern bool horizon_cells_of_process(int procno, uint64 units[GEN_SLOT_COUNT], int *pid, TransactionId *xid);

/* a transaction or a parallel worker's part of one ended: the next ID records again */
static inline void
horizon_cells_forget_recorded(void)
{
	memset(horizon_recorded, 0, sizeof(horizon_recorded));
}

#endif
