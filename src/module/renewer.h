/*
 * renewer.h — the "flakeid mark renewer" background worker
 */
#ifndef FLAKEID_RENEWER_H
#define FLAKEID_RENEWER_H

/* registers the worker (from _PG_init, while preloading); the postmaster restarts it a second after it exits */
extern void renewer_register(void);

#endif
