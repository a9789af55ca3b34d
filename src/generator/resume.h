/*
 * resume.h — where the marks meet the counters: at start, once recovery
 * has ended, and at a clean stop
 */
#ifndef FLAKEID_RESUME_H
#define FLAKEID_RESUME_H

/* registers the start and the save at exit with the shared memory (from _PG_init, while preloading) */
extern void resume_init(void);

#include "durable/marks.h"

extern void resume_take_up_upstream_pending(void);

/*
 * Once recovery has ended (promotion, or the end of crash recovery), takes
 * up the primary's bounds replayed from the WAL (may take flakeid_lock).
 * Inline and cheap when there is nothing to take up (one atomic read).
 */
static inline void
resume_take_up_upstream(void)
{
	if (unlikely(mark_upstream_pending()))
		resume_take_up_upstream_pending();
}

#endif
