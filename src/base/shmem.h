/*
 * shmem.h — flakeid's shared memory, in parts that each module owns
 *
 * Each module that keeps state in shared memory asks for its part from its
 * init function (from _PG_init, while preloading), with the size, where to
 * put the address, a function that sets the part up the first time, and
 * the LWLocks it needs.  Nothing here knows what any part holds.
 */
#ifndef FLAKEID_SHMEM_H
#define FLAKEID_SHMEM_H

#include "storage/lwlock.h"

/* 18 replaced the trailing pg_attribute_noreturn() with the prefix pg_noreturn */
#if PG_VERSION_NUM < 180000
#define pg_noreturn_flakeid
#else
#define pg_noreturn_flakeid pg_noreturn
#endif

#define FLAKEID_PRELOAD_HINT "Add flakeid to shared_preload_libraries and restart the server."

typedef struct ShmemPart
{
	const char *name;			/* the shared memory's and the LWLock tranche's name */
	Size		size;
	Size		(*size_at_request) (void);	/* instead of size: asked when MaxBackends is known */
	void	  **address;		/* set in every process, aligned to a cache line */
	void		(*init) (void *part);	/* the first time, under AddinShmemInitLock; may be NULL */
	int			nlocks;			/* LWLocks of its own tranche; 0: none */
	LWLockPadded **locks;		/* set with the part when nlocks > 0 */
} ShmemPart;

/* from _PG_init while preloading: the parts are set up in the order asked */
extern void shmem_request_part(const ShmemPart *part);

/*
 * From _PG_init while preloading: `startup` runs once in the postmaster,
 * after every part was set up for the first time (again after a crash).
 */
extern void shmem_at_startup(void (*startup) (void));

/* whether the preload set up the shared state */
extern bool shmem_is_loaded;

static inline bool
shmem_loaded(void)
{
	return shmem_is_loaded;
}

pg_noreturn_flakeid extern void shmem_refuse(const char *what);

/* raises 55000 with the preload hint when the shared state is missing; `what` names the caller */
static inline void
shmem_require(const char *what)
{
	if (unlikely(!shmem_is_loaded))
		shmem_refuse(what);
}

#endif
