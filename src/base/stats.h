/*
 * stats.h — what the generators have done: IDs issued, waits and clock
 * regressions per counter slot, for the flakeid_generators view
 */
#ifndef FLAKEID_STATS_H
#define FLAKEID_STATS_H

#include "base/defs.h"

/* asks for the shared part (from _PG_init, while preloading) */
extern void stats_init(void);

/* per-backend counts not yet added to shared memory (stats.c owns them) */
typedef struct StatsPending
{
	uint64		issued[GEN_SLOT_COUNT];
	uint64		regressions[GEN_SLOT_COUNT];
	int			total;
	bool		flush_at_xact_end;	/* the transaction callback is registered */
} StatsPending;

extern StatsPending stats_pending;
extern void stats_batch_full(void);

/* adds this backend's pending counts to shared memory */
extern void stats_flush(void);

/*
 * Counts a call that waited (exhausted_waits).  A wait because the unit's
 * pool was used up is also told to the server log, at most one line a
 * minute per generator variant, with the count since the line before.
 */
extern void stats_waited(const GeneratorDef *def, int slot, bool pool_used_up);

/* the counts of one slot, for the view */
typedef struct SlotCounts
{
	int64		issued;
	int64		exhausted_waits;
	int64		clock_regressions;
} SlotCounts;

extern SlotCounts stats_read(int slot);

/* the per-ID count: local increments; shared memory every STATS_BATCH IDs and at transaction end */
#define STATS_BATCH			256
static inline void
stats_issued(int slot, bool clock_behind)
{
	stats_pending.issued[slot]++;
	if (clock_behind)
		stats_pending.regressions[slot]++;
	if (unlikely(++stats_pending.total >= STATS_BATCH || !stats_pending.flush_at_xact_end))
		stats_batch_full();
}

#endif
