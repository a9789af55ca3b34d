/*
 * horizon_holdings.h — the table of prepared transactions' holdings: what
 * each prepared transaction that issued IDs holds the horizon at, in shared
 * memory and in "flakeid.prepared" (horizon_file.h)
 *
 * The table never refuses a holding and never stops recovery: what it has
 * no room for is merged into one overflow entry, which holds the horizon at
 * the lowest unit of everything it covers until every transaction it covers
 * has ended (horizon_file.h, PreparedHolding).  A holding is kept while its
 * transaction may be open: recovery never asks the commit log about a
 * transaction at or past the next transaction ID.
 */
#ifndef FLAKEID_HORIZON_HOLDINGS_H
#define FLAKEID_HORIZON_HOLDINGS_H

#include "postgres.h"

#include "generator/defs.h"
#include "generator/horizon_file.h"

/* asks for the shared part and loads the file at start (from _PG_init, while preloading) */
extern void holdings_init(void);

/* whether flakeid.prepared could not be read at start (the horizon refuses) */
extern bool holdings_damaged(void);

/*
 * PRE_PREPARE (a backend) or replay of a PREPARED record (the startup
 * process, `in_recovery`): the holding joins the table, replacing one of
 * the same transaction, and the table is durable when this returns.  May
 * block: on the table's LWLock (memory only), on a save under way (a
 * condition variable: a cancel or statement_timeout ends the wait with an
 * ERROR), and on a save of its own (write, fsync, rename, directory fsync,
 * with the file's LWLock held).  A save that began after this holding was
 * stored covers it, so concurrent PREPAREs share saves.  ERROR when the file
 * cannot be written.
 */
extern void holdings_hold(const PreparedHolding *holding, bool in_recovery);

/*
 * The lower of `low` and the lowest unit the holdings of prepared
 * transactions still open hold for `def`; forgets those that ended, and
 * saves the table then if no save is under way (never waits for one).
 * Takes the table's LWLock.
 */
extern uint64 holdings_lowest(const GeneratorDef *def, uint64 low);

/* a palloc'd copy of the holdings of transactions still open; their count */
extern int	holdings_open(PreparedHolding **holdings);

#endif
