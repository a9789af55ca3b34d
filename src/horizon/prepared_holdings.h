/*
 * prepared_holdings.h — the table of prepared transactions' holdings: what
 * each prepared transaction that issued IDs holds the horizon at, in shared
 * memory and in "flakeid.prepared" (prepared_file.h)
 *
 * The table never refuses a holding and never stops recovery: what it has
 * no room for is merged into one overflow entry, which holds the horizon at
 * the lowest unit of everything it covers until every transaction it covers
 * has ended (prepared_file.h, PreparedHolding).  A holding is kept while its
 * transaction may be open: recovery never asks the commit log about a
 * transaction at or past the next transaction ID.
 */
#ifndef FLAKEID_HORIZON_HOLDINGS_H
#define FLAKEID_HORIZON_HOLDINGS_H

#include "horizon/prepared_file.h"

/* asks for the table's shared part (from _PG_init, while preloading) */
extern void holdings_init(void);

/*
 * After holdings_init (prepared_saves.c): loads the file at start, and saves
 * it at a clean stop.  `floors` fills, per slot, the highest horizon given
 * outside recovery (0: none): what a save records as its floors.
 */
extern void holdings_saves_init(void (*floors) (uint64 *floor));

/* whether flakeid.prepared could not be read at start (the horizon refuses) */
extern bool holdings_damaged(void);

/*
 * PRE_PREPARE (a backend) or replay of a PREPARED record (the startup
 * process, `in_recovery`): the holding joins the table, replacing one of
 * the same transaction.  The caller logs it in the WAL after (a backend)
 * or has replayed it; the file is saved later (prepared_saves.c: by the
 * startup process after the record, holdings_save_in_redo).  Blocks only
 * on the table's LWLock (memory only), and never fails.
 */
extern void holdings_hold(const PreparedHolding *holding, bool in_recovery);

/*
 * The renewer, each pass (prepared_saves.c): saves the file if the table
 * changed since the last save, or a checkpoint began after it; false when
 * that save failed (a WARNING).  Never waits for a save under way.
 */
extern bool holdings_save_if_due(void);

/*
 * The startup process, at each record of flakeid's it replays: the same,
 * at most once a second (a failure is a WARNING).
 */
extern void holdings_save_in_redo(void);

/*
 * The lower of `low` and the lowest unit the holdings of prepared
 * transactions still open hold for `def`; forgets those that ended (the
 * renewer saves the table then).  Takes the table's LWLock.
 */
extern uint64 holdings_lowest(const GeneratorDef *def, uint64 low);

/* a palloc'd copy of the holdings of transactions still open; their count */
extern int	holdings_open(PreparedHolding **holdings);

#endif
