/*
 * backfill.h — back-fill (*_new_at): IDs for the caller's time, one ledger
 * per server
 */
#ifndef FLAKEID_BACKFILL_H
#define FLAKEID_BACKFILL_H

#include "base/defs.h"

/* asks for the ledger's shared part (from _PG_init, while preloading) */
extern void backfill_init(void);

/*
 * A back-fill (*_new_at) ID for the caller's time: `key` is the time field
 * the ID stores, `live_unit` the live generator's unit that stores the same
 * field (they differ for snowflakes under another epoch), `ts` names it in
 * errors.  No two calls on one server, in any session or parallel worker,
 * and none after a restart, return the same (variant, key, sequence); a
 * unit the live generator may still use is drawn from it (so the ID is a
 * live one, sno's tick-tock included), and a later one is refused (22023);
 * a unit a horizon or an advance closed is drawn from the ledger above the
 * live IDs the closing recorded there.
 * Past a unit's pool it raises 54000, never wraps.  Refuses what
 * flakeid_generate refuses.  May take an LWLock of the ledger (no I/O under
 * it) and flakeid_lock with fsyncs to save a lower back-fill low-water.
 */
extern GeneratedId flakeid_generate_backfill(GeneratorId gen, int variant, uint64 key, uint64 live_unit,
											 TimestampTz ts);

#endif
