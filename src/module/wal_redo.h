/*
 * wal_redo.h — the resource manager of flakeid's WAL records
 */
#ifndef FLAKEID_MARK_REDO_H
#define FLAKEID_MARK_REDO_H

/* registers the resource manager (from _PG_init, while preloading) */
extern void mark_redo_init(void);

#endif
