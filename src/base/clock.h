/*
 * clock.h — the clocks the generators read, and the time base they share
 * with the types: Unix microseconds
 */
#ifndef FLAKEID_CLOCK_H
#define FLAKEID_CLOCK_H

#include "base/defs.h"

/* PostgreSQL's epoch (2000-01-01) in Unix microseconds */
#define FLAKEID_PG_EPOCH_UNIX_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

static inline TimestampTz
flakeid_timestamptz_from_unix_us(int64 unix_us)
{
	return (TimestampTz) (unix_us - FLAKEID_PG_EPOCH_UNIX_US);
}

/* defines the clock settings (from _PG_init, while preloading) */
extern void clock_init(void);

/* the precise clock, shifted by flakeid.debug_clock_offset_ms */
extern int64 flakeid_clock_unix_us(void);

/*
 * Unix microseconds from the clock a generator reads: the coarse clock
 * where the generator and flakeid.sno_coarse_clock allow it and it ticks at
 * least once a unit, else the precise one; never blocks.
 */
extern int64 clock_read(const GeneratorDef *def);

/*
 * Where a test may hold a race's window open (flakeid.debug_pause_at), and
 * the pause there: flakeid.debug_pause_ms on the latch, ended by a cancel
 * or terminate (with its ERROR or FATAL) even where a lock is held.
 * Settable only by superusers on a server started with
 * flakeid.allow_debug_clock_offset; one comparison when unset.
 */
typedef enum DebugPausePoint
{
	DEBUG_PAUSE_NONE,
	DEBUG_PAUSE_RECOVERY_DECIDED,	/* a first call has looked at recovery (generator.c) */
	DEBUG_PAUSE_BACKFILL_DRAWN, /* a back-fill sequence is drawn, not yet returned (backfill.c) */
	DEBUG_PAUSE_SAVE_WRITTEN,	/* a file's temporary copy is written, not fsynced (durable_file.c) */
	DEBUG_PAUSE_SAVE_SYNCED,	/* fsynced, not renamed over the file */
	DEBUG_PAUSE_SAVE_RENAMED,	/* renamed, its directory not fsynced */
	DEBUG_PAUSE_TOGGLE_SWAPPED, /* sno's toggle is published, the cells not yet lowered again (issue.c) */
	DEBUG_PAUSE_HORIZON_CELL_READ,	/* a horizon's scan read a cell holding a unit (horizon_cells.c) */
	DEBUG_PAUSE_BACKFILL_CLOSED,	/* a back-fill found its unit closed, the closing's record not read (backfill.c) */
	DEBUG_PAUSE_CLOSING_SWAPPED,	/* a closing's word is swapped in, closed_word not yet raised (issue.c) */
	DEBUG_PAUSE_PREPARED_SAVING,	/* a save of flakeid.prepared holds its lock, not yet written (prepared_saves.c) */
	DEBUG_PAUSE_COUNT
} DebugPausePoint;

extern int	debug_pause_point;
extern void debug_pause_slow(void);

/* serves a pending cancel or terminate (ERROR, FATAL) even under an LWLock; see clock.c */
extern void flakeid_serve_cancel_or_terminate(void);

static inline void
debug_pause(DebugPausePoint point)
{
	if (unlikely(debug_pause_point == (int) point) && point != DEBUG_PAUSE_NONE)
		debug_pause_slow();
}

/* for flakeid_generators: "precise" or "coarse (4000 us)" */
extern char *clock_describe(const GeneratorDef *def);

#endif
