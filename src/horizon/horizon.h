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

#include "horizon/prepared_file.h"

/* asks for the shared part, registers the transaction callback (from _PG_init, while preloading) */
extern void horizon_init(void);

/*
 * The lowest unit of `def` that an open or prepared transaction may hold,
 * or that the generator may issue in next (its caller has checked the
 * preload: generator_prepare).  Takes the horizon's LWLock
 * (shared; exclusive to forget prepared transactions that have ended).
 */
extern uint64 horizon_unit(const GeneratorDef *def);

/*
 * For flakeid_horizon_holders: a palloc'd copy of the holdings of prepared
 * transactions still in progress; their count.  Raises, as horizon_unit
 * does, while flakeid.prepared is damaged.  Takes the table's LWLock
 * (shared).
 */
extern int	horizon_prepared_holdings(PreparedHolding **holdings);

/*
 * Replay of a PREPARED record (startup process): the holding joins the
 * table, replacing one of the same transaction, and is saved, so that a
 * promoted standby's horizon (and a primary's after a crash) stays below
 * the prepared transaction's IDs until it ends.  A failure to save stops
 * recovery (ERROR in the startup process), as the marks' replay does; a
 * full table never does (prepared_holdings.h: the overflow entry).
 */
extern void horizon_redo_prepared(const PersistedHolding *holding);

/*
 * The horizon of a generator (below) as a unit: the smallest ID the
 * generator could issue in it (sequence 0, tick-tock 0, this server's
 * identities) lies above every ID it issued to a transaction that has not
 * ended, and at or below every ID it issues after the call.  Refuses what
 * generation refuses; during recovery, 55000 unless the standby generates
 * (flakeid.generate_on_standby).
 */
extern uint64 flakeid_horizon_unit(GeneratorId gen);

#endif
