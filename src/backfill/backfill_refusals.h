/*
 * backfill_refusals.h — back-fill's refusals (backfill.c), each an ERROR
 * that says why and what the caller may do instead, and the judgement of a
 * unit past the clock that picks among them (backfill_past_the_clock)
 */
#ifndef FLAKEID_BACKFILL_REFUSALS_H
#define FLAKEID_BACKFILL_REFUSALS_H

#include "durable/issued_ahead.h"
#include "generator/counters.h"
#include "rules/ledger.h"

/* a unit's pool used up: the live generator's (usage NULL), or back-fill's of this server */
extern void backfill_refuse_used_up(const GeneratorDef *def, int variant, TimestampTz ts, uint32 pool_size,
									uint32 lifetime_size, const LedgerUsage *usage);

/* a closed unit's pool, shared by the live IDs issued before the closing and back-fill's */
extern void backfill_refuse_shared_with_live(const GeneratorDef *def, int variant, TimestampTz ts,
											 const CounterPool *pool, int64 live_top);

/* a unit in a run the live counter reached ahead of the clock (issued_ahead.h) */
extern void backfill_refuse_ahead(const GeneratorDef *def, TimestampTz ts, const AheadRun *run);

/* a unit past the clock: false if it is not; true if the counter passed it; else refused */
extern bool backfill_past_the_clock(const GeneratorDef *def, int slot, uint64 live_unit, TimestampTz ts);

/* a time before the floor of a fresh start, unless flakeid.accept_backfill_loss; returns otherwise */
extern void backfill_refuse_below_floor(const GeneratorDef *def, uint64 live_unit, TimestampTz ts);

#endif
