/*
 * marks.h — the saved bounds of everything this server issued: the marks
 * (instants every issued ID lies before), the back-fill low-waters, sno's
 * tick-tock, and the primary's bounds as replayed
 *
 * Their shared memory and flakeid_lock, which serialises saves and sno's
 * clock regressions, are marks_setup.h's; marks.c saves them (state.c) and
 * WAL-logs them (wal_record.c).  It never moves a counter: at start and after
 * replay it hands the bounds to resume.c, which does.
 */
#ifndef FLAKEID_MARKS_H
#define FLAKEID_MARKS_H

#include "durable/marks_setup.h"

/*
 * Takes flakeid_lock exclusively.  A waiter sleeps on a condition variable
 * that every release broadcasts (and wakes every 10 ms besides, for a
 * holder whose error released the lock without it), so that a cancel or
 * terminate ends the wait while the holder is stuck in an fsync or a
 * synchronous standby's wait, and nobody spins.  Every process but the
 * startup process's replay takes the lock this way: a plain LWLockAcquire
 * would hold interrupts off for the whole wait.
 */
extern void flakeid_lock_acquire(void);
extern void flakeid_lock_release(void);

static inline int64
mark_read(MarkId mark)
{
	return (int64) pg_atomic_read_u64(&mark_shared->marks[mark].value);
}

extern void mark_ensure_renewed(MarkId mark, int64 unit_start);

/*
 * Called before publishing an ID whose unit starts at `unit_start`: the ID
 * must lie before its saved mark.  Normally one atomic read, inline; when
 * the mark is within MARK_RENEW_US, mark_ensure_renewed (which may take
 * flakeid_lock, fsync, and raise).
 */
static inline void
mark_ensure(MarkId mark, int64 unit_start)
{
	if (likely(unit_start + MARK_RENEW_US < mark_read(mark)))
		return;
	mark_ensure_renewed(mark, unit_start);
}

/*
 * With flakeid_lock held: unless `mark` is more than MARK_RENEW_US ahead of
 * `unit_start`, saves the state with that mark renewed (fsync, durable
 * rename) and then publishes it.  A failure to save is an ERROR and
 * publishes nothing.
 */
extern void mark_renew_locked(MarkId mark, int64 unit_start);

typedef enum RenewOutcome
{
	RENEW_NOT_NEEDED,			/* another backend, or the renewer, renewed it meanwhile */
	RENEW_SAVED,
	RENEW_FAILED				/* only below ERROR: at ERROR a failure raises */
} RenewOutcome;

/*
 * With flakeid_lock held: every mark that is not more than `within` ahead
 * of the latest unit start given for it (0: none) moves a reserve ahead of
 * the clock and of that unit, in one save.
 */
extern RenewOutcome mark_renew_latest_locked(const int64 latest[MARK_COUNT], int64 within, int elevel);

/*
 * Before the live counter of `slot` publishes its first ID in `unit`, ahead
 * of the clock and recorded (issued_ahead.h, ahead_note true): unless a save covers
 * the unit by then, saves the state (and WAL-logs it) with it.  Takes
 * flakeid_lock (the _locked form: held) and fsyncs; raises on failure, and
 * the caller publishes nothing.
 */
extern void mark_save_ahead(int slot, uint64 unit);
extern void mark_save_ahead_locked(int slot, uint64 unit);

/* at start, or with flakeid_lock held: the tick-tock sno's counter carries, saved with the marks */
extern void mark_set_sno_ticktock(bool flag);

/*
 * At start, or with flakeid_lock held: raises every mark to the one of
 * `bounds` (marks only move up) and returns the marks in *marks.
 */
extern void mark_raise(const IssuedBounds *bounds, int64 marks[MARK_COUNT]);

/*
 * At start, or with flakeid_lock held: lowers the back-fill low-waters and
 * deep units to those of `bounds` and starts a new back-fill lifetime below
 * them.
 */
extern void mark_begin_backfill_lifetime(const IssuedBounds *bounds);

/* at start: the primary's bounds the file held, pending if they reach past this server's own */
extern void mark_set_upstream(const IssuedBounds *upstream);

/* whether the primary's replayed bounds hold something not taken up yet (one atomic read) */
static inline bool
mark_upstream_pending(void)
{
	return pg_atomic_read_u32(&mark_shared->upstream_pending) != 0;
}

/* with flakeid_lock held: the primary's bounds, and that they are taken up */
extern void mark_read_upstream(IssuedBounds *upstream);
extern void mark_upstream_taken_up(void);

/*
 * Replay of a record (startup process): raises the primary's bounds to the
 * record's (marks up, low-waters down, the epoch to the earlier one) and,
 * when that changed something, saves them; a failure to save is FATAL.
 */
extern void mark_replay(const IssuedBounds *bounds, int64 snowflake_epoch_ms);

/*
 * Replay of a DEEP record (startup process): the primary's deep unit joins
 * this server's record of deep units (deep_record.h), which a new
 * back-fill lifetime takes up once recovery has ended.  When the record
 * cannot take it (full, or unusable), the primary's low-water of the whole
 * slot comes down to it instead (a WARNING): fewer sequences for every unit
 * of the slot, never a repeat.  A failure to save is FATAL.
 */
extern void mark_replay_deep(int slot, uint64 unit, uint32 low);

/* saves the configured snowflake epoch unless it is saved or refused (may take flakeid_lock) */
extern void mark_save_snowflake_epoch(void);

/*
 * Makes the saved bounds cover `sequence`, back-filled in `unit` of `slot`:
 * unless the slot's low-water or the unit's deep entry (deep_record.h) or a
 * deep range of 1.3's holding it (IssuedBounds) is at or below it, saves
 * (and WAL-logs) `low` (at or below `sequence`) as the slot's low-water
 * (slot_wide: the state file) or as the unit's deep entry (flakeid.deep),
 * then publishes it.  Returns the unit's saved low-water afterwards.  Takes
 * flakeid_lock and fsyncs; raises on failure (54000 when the record of deep
 * units is full), and nothing is published.
 */
extern uint32 mark_cover_backfill(int slot, uint64 unit, uint32 sequence, uint32 low, bool slot_wide);

/*
 * Raises the back-fill floor to `instant` (Unix µs), never lowering it: the
 * state saved and WAL-logged with it before it returns (takes flakeid_lock
 * and fsyncs; raises on failure, and nothing is published).  Returns the
 * floor after.
 */
extern int64 mark_raise_backfill_floor(int64 instant);

/* the back-fill floor (Unix µs; 0: none): back-fill before it is refused (backfill.c) */
static inline int64
mark_backfill_floor(void)
{
	return (int64) pg_atomic_read_u64(&mark_shared->backfill_floor);
}

static inline uint32
mark_backfill_low(int slot)
{
	return pg_atomic_read_u32(&mark_shared->backfill_low[slot]);
}

/*
 * In the postmaster as it exits: saves marks just past the latest unit
 * starts given (0: none) where they lie below the saved ones.  Never raises.
 */
extern void mark_save_high_water(const int64 latest[MARK_COUNT]);

#endif
