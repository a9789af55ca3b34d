/*
 * prepared_internal.h — what prepared_holdings.c (the table) and
 * prepared_saves.c (flakeid.prepared: its saves, and the start and stop)
 * share; not for the rest of the tree
 */
#ifndef FLAKEID_HORIZON_HOLDINGS_INTERNAL_H
#define FLAKEID_HORIZON_HOLDINGS_INTERNAL_H

#include "storage/lwlock.h"

#include "horizon/prepared_holdings.h"

typedef struct HoldingsShared
{
	pg_atomic_uint64 changed;	/* changes made to prepared[], counted (under the table's lock) */
	pg_atomic_uint64 saved;		/* the count of changes the last completed save holds */
	pg_atomic_uint64 saved_lsn; /* the last completed save's L (PreparedSaved) */
	bool		damaged;		/* flakeid.prepared could not be read at start */
	uint64		start_floor[GEN_SLOT_COUNT];	/* the floors of the save read at start */
	int			nprepared;		/* entries of prepared[] in use or free */
	PreparedHolding prepared[FLEXIBLE_ARRAY_MEMBER];
} HoldingsShared;

extern HoldingsShared *prepared_holdings;
extern LWLockPadded *prepared_holdings_locks;

#define TABLE_LOCK	(&prepared_holdings_locks[0].lock)	/* prepared[]: memory only, never held across I/O */
#define FILE_LOCK	(&prepared_holdings_locks[1].lock)	/* held by the one save under way */

/* prepared_holdings.c: the table's room; stores a holding (the table's lock held, or at start) */
extern int	holding_capacity(void);
extern uint64 store_holding(const PreparedHolding *holding);

#endif
