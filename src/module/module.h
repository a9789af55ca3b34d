/*
 * module.h — the doors that _PG_init opens (flakeid.c), while preloading
 */
#ifndef FLAKEID_MODULE_H
#define FLAKEID_MODULE_H

/* registers the "flakeid mark renewer" background worker (renewer.c); the postmaster restarts it a second after it exits */
extern void renewer_register(void);

/* registers the resource manager of flakeid's WAL records (wal_redo.c) */
extern void mark_redo_init(void);

#endif
