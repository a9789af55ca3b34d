/*
 * marks_internal.h — what marks.c shares with marks_replay.c and
 * marks_backfill.c, and no other file: this server's bounds as a save
 * writes them, the state built from them, and the save
 */
#ifndef FLAKEID_MARKS_INTERNAL_H
#define FLAKEID_MARKS_INTERNAL_H

#include "durable/marks.h"
#include "durable/state.h"

/* this server's bounds as a save writes them: the marks, the back-fill low-waters, the epoch */
typedef struct OwnBounds
{
	int64		marks[MARK_COUNT];
	uint32		lows[GEN_SLOT_COUNT];
	DeepUnits	deep;
	int64		floor;			/* back-fill before it is refused; 0: none */
	int64		snowflake_epoch_ms;
} OwnBounds;

/* the bounds as published now, for a save to change */
extern void published_bounds(OwnBounds *own);

/* the state to save: `own` with sno's tick-tock, and the primary's bounds as replayed */
extern void current_state(FlakeidPersisted *state, const OwnBounds *own);

/*
 * With flakeid_lock held: saves `own` (and logs it to the WAL), then
 * publishes it; when either fails nothing is published: at ERROR it raises,
 * below it reports the failure at `elevel` and returns false
 */
extern bool save_locked(const OwnBounds *own, int elevel);

/* whether `bounds` reaches past what this server was resumed at; with flakeid_lock held, or at start */
extern bool bounds_exceed_own(const IssuedBounds *bounds);

#endif
