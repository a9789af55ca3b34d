/*
 * marks.c — the saved marks: instants that every issued ID lies before
 *
 * Every counter has a mark (defs.h, MarkId): one for the generators with
 * the monotonic rule, one per sno tick-tock value.  The marks are saved to
 * disk (state.c) ahead of the clock and renewed before they run out, so
 * that a restart, clean or after a crash, resumes above everything issued
 * before it whatever the clock then says (resume.c).  The state file also
 * keeps sno's tick-tock in use, the back-fill low-waters and the snowflake
 * epoch (epoch.c).  Every save also goes through the WAL (wal_record.c), so
 * standbys follow it (marks_replay.c); the renewer is renewer.c.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "base/clock.h"
#include "base/epoch.h"
#include "base/table.h"
#include "durable/deep_record.h"
#include "durable/issued_ahead.h"
#include "durable/marks.h"
#include "durable/marks_internal.h"
#include "durable/state_seal.h"
#include "durable/wal_record.h"

/* the bounds as published now, for a save to change */
void
published_bounds(OwnBounds *own)
{
	for (int m = 0; m < MARK_COUNT; m++)
		own->marks[m] = mark_read((MarkId) m);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		own->lows[s] = mark_backfill_low(s);
	own->deep = mark_shared->backfill_deep;
	own->floor = (int64) pg_atomic_read_u64(&mark_shared->backfill_floor);
	own->snowflake_epoch_ms = epoch_issued_under();
}

/*
 * The runs of units each counter issued in ahead of the clock, as this save
 * writes them (issued_ahead.h): a run that may still grow, open to the unit of the
 * mark saved for its generator (sno: the later of its two).
 */
static void
ahead_to_save(IssuedBounds *bounds, const int64 marks[MARK_COUNT])
{
	for (int g = 0; g < GEN_COUNT; g++)
	{
		const GeneratorDef *def = &generator_defs[g];
		int64		mark = def->ticktock ? Max(marks[MARK_SNO_FLAG0], marks[MARK_SNO_FLAG1]) : marks[def->mark];
		uint64		now = 0;

		(void) def->format->units_at(clock_read(def), &now);
		for (int v = 0; v < def->variants; v++)
			ahead_begin_write(def->first_slot + v, now, mark_unit(def->format, mark), &bounds->ahead[def->first_slot + v]);
	}
}

/*
 * The state to save: `own` with sno's tick-tock, the runs issued ahead, and
 * the primary's bounds as replayed.  The runs count as a save under way
 * until the caller's ahead_end_write.
 */
void
current_state(FlakeidPersisted *state, const OwnBounds *own)
{
	state_set_empty(state);
	memcpy(state->own.marks, own->marks, sizeof(state->own.marks));
	state->own.sno_ticktock = mark_shared->sno_ticktock;
	memcpy(state->own.backfill_low, own->lows, sizeof(state->own.backfill_low));
	state->own.backfill_deep = own->deep;
	state->own.backfill_floor = own->floor;
	ahead_to_save(&state->own, own->marks);
	state->upstream = mark_shared->upstream;
	state->snowflake_epoch_ms = own->snowflake_epoch_ms;
	state->deep_record = deep_record_id();
}

/*
 * Whether `bounds` reaches past what this server's counters and back-fill
 * were resumed at; with flakeid_lock held, or at start.
 */
bool
bounds_exceed_own(const IssuedBounds *bounds)
{
	uint32		lows[GEN_SLOT_COUNT];

	for (int m = 0; m < MARK_COUNT; m++)
		if (bounds->marks[m] > mark_read((MarkId) m))
			return true;
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		lows[s] = mark_backfill_low(s);
		if (bounds->backfill_low[s] < lows[s])
			return true;
	}
	if (bounds->backfill_floor > (int64) pg_atomic_read_u64(&mark_shared->backfill_floor))
		return true;
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		if (!ahead_holds(s, &bounds->ahead[s]))
			return true;
	return !deep_units_imply(&mark_shared->backfill_deep, lows, &bounds->backfill_deep);
}

void
mark_raise(const IssuedBounds *bounds, int64 marks[MARK_COUNT])
{
	for (int m = 0; m < MARK_COUNT; m++)
	{
		int64		published = mark_read((MarkId) m);	/* once: Max() reads its arguments twice */

		marks[m] = Max(bounds->marks[m], published);
		pg_atomic_write_u64(&mark_shared->marks[m].value, (uint64) marks[m]);
	}
}

void
mark_set_sno_ticktock(bool flag)
{
	mark_shared->sno_ticktock = flag ? 1 : 0;
}

void
mark_begin_backfill_lifetime(const IssuedBounds *bounds)
{
	uint32		lows[GEN_SLOT_COUNT];
	DeepUnits	deep = mark_shared->backfill_deep;

	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		uint32		published = mark_backfill_low(s);	/* once: Min() reads its arguments twice */

		lows[s] = Min(bounds->backfill_low[s], published);
	}
	(void) deep_units_merge(&deep, &bounds->backfill_deep);
	deep_units_drop_implied(&deep, lows, GEN_SLOT_COUNT);

	/* odd while written: a back-fill reading them meanwhile reads again (a full barrier each) */
	pg_atomic_fetch_add_u32(&mark_shared->backfill_lifetime, 1);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		pg_atomic_write_u32(&mark_shared->backfill_low[s], lows[s]);
		mark_shared->backfill_start_low[s] = lows[s];
	}
	mark_shared->backfill_deep = deep;
	mark_shared->backfill_start_deep = deep;
	/* (a floor only rises: the later of a lost record's instants bounds both) */
	if (bounds->backfill_floor > (int64) pg_atomic_read_u64(&mark_shared->backfill_floor))
		pg_atomic_write_u64(&mark_shared->backfill_floor, (uint64) bounds->backfill_floor);
	deep_record_begin_lifetime();
	pg_atomic_fetch_add_u32(&mark_shared->backfill_lifetime, 1);
}

void
mark_set_upstream(const IssuedBounds *upstream)
{
	mark_shared->upstream = *upstream;
	pg_atomic_write_u32(&mark_shared->upstream_pending, bounds_exceed_own(upstream) ? 1 : 0);
}

void
mark_read_upstream(IssuedBounds *upstream)
{
	*upstream = mark_shared->upstream;
}

void
mark_upstream_taken_up(void)
{
	pg_write_barrier();
	pg_atomic_write_u32(&mark_shared->upstream_pending, 0);
}

/*
 * For the snowflake generator, before it issues anything: makes sure the
 * state (and the WAL) holds the configured epoch before any snowflake is
 * issued under it, unless epoch.c refuses it.  That costs one save on the
 * first snowflake after a change.
 */
void
mark_save_snowflake_epoch(void)
{
	if (!epoch_needs_saving())
		return;
	flakeid_lock_acquire();
	if (epoch_needs_saving())	/* a replayed state may have changed it */
	{
		OwnBounds	own;

		published_bounds(&own);
		own.snowflake_epoch_ms = flakeid_configured_snowflake_epoch_ms();
		(void) save_locked(&own, ERROR);
		epoch_set_issued_under(own.snowflake_epoch_ms);
	}
	flakeid_lock_release();
}

void
flakeid_lock_acquire(void)
{
	if (LWLockConditionalAcquire(flakeid_lock, LW_EXCLUSIVE))
		return;
	ConditionVariablePrepareToSleep(&mark_shared->lock_released);
	while (!LWLockConditionalAcquire(flakeid_lock, LW_EXCLUSIVE))
		(void) ConditionVariableTimedSleep(&mark_shared->lock_released, 10, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
}

void
flakeid_lock_release(void)
{
	LWLockRelease(flakeid_lock);
	ConditionVariableBroadcast(&mark_shared->lock_released);
}

/*
 * With flakeid_lock held: logs and writes the state with the given marks,
 * back-fill low-waters and snowflake epoch, then publishes the marks and
 * low-waters (marks only move up, low-waters down, while the server runs).
 * When either fails nothing is published: at ERROR it raises, below it
 * reports the failure at `elevel` and returns false.
 */
bool
save_locked(const OwnBounds *own, int elevel)
{
	FlakeidPersisted state;

	if (!mark_state_usable())
		mark_refuse_unusable_state();	/* a damaged, newer or foreign file stays as it is */
	current_state(&state, own);
	wal_record_log(&state);
	/* (an ERROR on the way leaves the runs' save under way: the next save counts neither file, issued_ahead.c) */
	if (!state_save(&state, elevel))
	{
		ahead_end_write(false);
		return false;
	}
	ahead_end_write(true);
	for (int m = 0; m < MARK_COUNT; m++)
		pg_atomic_write_u64(&mark_shared->marks[m].value, (uint64) own->marks[m]);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		pg_atomic_write_u32(&mark_shared->backfill_low[s], own->lows[s]);
	mark_shared->backfill_deep = own->deep;
	pg_atomic_write_u64(&mark_shared->backfill_floor, (uint64) own->floor);
	return true;
}

RenewOutcome
mark_renew_latest_locked(const int64 latest[MARK_COUNT], int64 within, int elevel)
{
	OwnBounds	own;
	int64		now = flakeid_clock_unix_us();
	bool		needed = false;

	published_bounds(&own);
	for (int m = 0; m < MARK_COUNT; m++)
		if (latest[m] > 0 && latest[m] + within >= own.marks[m])
		{
			/*
			 * A unit more than ADVANCE_LEAD_US ahead of the clock and still
			 * before its mark is not renewed for: the mark would go further
			 * than ADVANCE_LEAD_US + MARK_RESERVE_US ahead of this clock, the
			 * bound a start afresh counts on (marks_afresh.c).  The call that
			 * reaches the mark waits for the clock first (mark_ensure_renewed).
			 */
			if (latest[m] < own.marks[m] && latest[m] - now > ADVANCE_LEAD_US)
				continue;
			own.marks[m] = Max(Max(now, latest[m] + 1) + MARK_RESERVE_US, own.marks[m]);
			needed = true;
		}
	if (!needed)
		return RENEW_NOT_NEEDED;
	return save_locked(&own, elevel) ? RENEW_SAVED : RENEW_FAILED;
}

/* the latest unit start to renew one mark for */
static RenewOutcome
renew_one_locked(MarkId mark, int64 unit_start, int elevel)
{
	int64		latest[MARK_COUNT] = {0};

	latest[mark] = unit_start;
	return mark_renew_latest_locked(latest, MARK_RENEW_US, elevel);
}

void
mark_renew_locked(MarkId mark, int64 unit_start)
{
	(void) renew_one_locked(mark, unit_start, ERROR);
}

/*
 * Before a renewal past the mark: a unit that lies more than
 * ADVANCE_LEAD_US ahead of the clock waits until it does not, so that the
 * renewal leaves the mark at most ADVANCE_LEAD_US + MARK_RESERVE_US (62 s)
 * ahead of the clock, as a start afresh assumes (marks_afresh.c).  Such a
 * unit is the first after a start that resumed after a mark saved up to
 * 62 s ahead: after a start afresh, or after restarts in quick succession,
 * each of which resumed after the last one's mark and renewed 2 s past it
 * (test/t/055: restarts less than 2 s apart, each issuing, took the marks
 * past that bound, and a start afresh then repeated IDs, 23505).  A mark
 * lies at most MARK_RESERVE_US past its save's clock and ADVANCE_LEAD_US
 * (a start afresh's: its instant may lie up to a second past the clock,
 * the last checkpoint's time being in whole seconds), and the unit one
 * past it: so the wait is at most LEAD_WAIT_MAX_US with the clock running
 * on.  A unit further ahead (a clock set back since) does not wait:
 * nothing bounds how long it would.  On the latch: a cancel ends it, and
 * nothing is issued.
 */
#define LEAD_WAIT_MAX_US	(MARK_RESERVE_US + 3 * USECS_PER_SEC)

static void
wait_within_lead(int64 unit_start)
{
	for (;;)
	{
		int64		ahead = unit_start - flakeid_clock_unix_us() - ADVANCE_LEAD_US;

		if (ahead <= 0 || ahead > LEAD_WAIT_MAX_US)
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 (long) Min(ahead / 1000 + 1, 100), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * mark_ensure's slow path: the mark is within MARK_RENEW_US of
 * `unit_start`.  The renewer normally keeps it further ahead than that, so
 * this is the fallback when the renewer is late or not running.  A caller
 * still covered by the mark renews only if the lock is free, and a failure
 * then is a WARNING (at most one a second per backend): its ID is covered,
 * so its call goes on.  Only past the mark does a caller wait for a
 * renewal (for the clock, a few seconds at most: wait_within_lead; then on
 * flakeid_lock, which a cancel ends), and a failure to save is
 * then an ERROR (nothing is issued).  Renewing takes flakeid_lock and
 * fsyncs the state file; with flakeid.mark_synchronous it also waits for
 * the synchronous standbys.
 */
void
mark_ensure_renewed(MarkId which, int64 unit_start)
{
	static TimestampTz last_failure = 0;
	int64		mark = mark_read(which);
	RenewOutcome outcome = RENEW_NOT_NEEDED;

	if (unit_start + MARK_RENEW_US < mark)
		return;
	if (unit_start < mark)
	{
		TimestampTz now = GetCurrentTimestamp();

		if (!TimestampDifferenceExceeds(last_failure, now, 1000))
			return;
		if (LWLockConditionalAcquire(flakeid_lock, LW_EXCLUSIVE))
		{
			outcome = renew_one_locked(which, unit_start, WARNING);
			if (outcome == RENEW_FAILED)
				last_failure = now;
			flakeid_lock_release();
		}
	}
	else
	{
		wait_within_lead(unit_start);
		flakeid_lock_acquire();
		outcome = renew_one_locked(which, unit_start, ERROR);
		flakeid_lock_release();
	}
	if (outcome == RENEW_SAVED)
		ereport(DEBUG1,
				(errmsg_internal("a generator call renewed the saved mark%s",
								 unit_start < mark ? "" : ", past it")));
}

/*
 * In the postmaster as it exits, every other process gone: the counters
 * hold every ID ever published, so the state can carry marks just past the
 * latest used units instead of the reserve ahead of the clock (sno's mark
 * of the value not in use keeps its reserve: it bounds that value).  After
 * a primary's clean stop the file is saved, sealed with it, in any case.
 */
void
mark_save_high_water(const int64 latest[MARK_COUNT])
{
	FlakeidPersisted state;
	OwnBounds	own;
	int64	   *marks = own.marks;
	bool		lowered = false;
	int64		latest_mark = 0;

	if (!mark_state_usable())
	{
		state_seal_refused_stop();
		return;
	}
	published_bounds(&own);
	for (int m = 0; m < MARK_COUNT; m++)
		if (latest[m] > 0 && latest[m] + 1 < marks[m])
		{
			marks[m] = latest[m] + 1;
			lowered = true;
		}
	for (int m = 0; m < MARK_COUNT; m++)
		latest_mark = Max(latest_mark, marks[m]);
	current_state(&state, &own);
	/* (sealed after a clean stop even if nothing was lowered: state_seal.c) */
	if (state_save_at_stop(&state, lowered, deep_record_usable(), state_seal_of_file(DEEP_RECORD_FILE)) && lowered)
		ereport(LOG,
				(errmsg("saved the generators' high-water mark %s at shutdown",
						timestamptz_to_str(flakeid_timestamptz_from_unix_us(latest_mark)))));
}
