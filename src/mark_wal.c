/*
 * mark_wal.c — the marks in the WAL: the custom resource manager that
 * carries every save to standbys, and the wait for synchronous ones
 *
 * It uses mark.c's saves and helpers (generator.h, "mark.c's helpers").
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "miscadmin.h"
#include "replication/syncrep.h"
#include "replication/walsender_private.h"
#include "storage/latch.h"
#include "utils/wait_event.h"

#include "generator.h"

static bool mark_synchronous = false;

/* --- the mark in the WAL ------------------------------------------------------- */

/*
 * Every save on a primary is WAL-logged before the new bounds are used, so
 * a standby replays them as its primary's (upstream) bounds: its state file
 * keeps them, and once recovery ends they are taken up, so a promoted
 * standby issues nothing the old primary could have issued, whatever the
 * two clocks say (with the same identities).  Replay raises only these
 * bounds; a generating standby's counters follow its own clock.  A base
 * backup copies flakeid.state; saves after the backup's start are replayed.
 *
 * Records: XLOG_FLAKEID_MARK is flakeid 1.1's (FlakeidState11, unversioned);
 * XLOG_FLAKEID_BOUNDS, from 1.2 on, starts with a version and its length,
 * and a later version only appends fields, which an older reader skips.
 * A standby must run a flakeid at least as new as its primary's to read
 * records it has never seen (upgrade standbys first, as for PostgreSQL's
 * own minor releases).
 */
#define XLOG_FLAKEID_MARK	0x00
#define XLOG_FLAKEID_BOUNDS	0x10

#define MARK_RECORD_VERSION	1

typedef struct MarkRecord
{
	uint32		version;
	uint32		length;			/* of the record, this header included */
	int64		snowflake_epoch_ms;
	IssuedBoundsImage bounds;	/* this server's own */
} MarkRecord;

/* the bounds and epoch of a record; false for a record this code cannot read */
static bool
read_record(XLogReaderState *record, IssuedBounds *bounds, int64 *snowflake_epoch_ms)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	uint32		length = XLogRecGetDataLen(record);

	bounds_set_empty(bounds);
	if (info == XLOG_FLAKEID_MARK && length == sizeof(FlakeidState11))
	{
		FlakeidState11 old;

		memcpy(&old, XLogRecGetData(record), sizeof(old));
		bounds_from_state11(bounds, snowflake_epoch_ms, &old);
		return true;
	}
	if (info == XLOG_FLAKEID_BOUNDS && length >= sizeof(MarkRecord))
	{
		MarkRecord current;

		memcpy(&current, XLogRecGetData(record), sizeof(current));
		if (current.version < 1 || current.length != length)
			return false;
		bounds_from_image(bounds, &current.bounds);
		*snowflake_epoch_ms = current.snowflake_epoch_ms;
		return true;
	}
	return false;
}

/*
 * Raises the replayed bounds to a record's (marks up, low-waters down, the
 * epoch to the earlier one); true when anything changed.  With
 * flakeid_lock held.
 */
static bool
raise_upstream(const IssuedBounds *record, int64 snowflake_epoch_ms)
{
	IssuedBounds *upstream = &flakeid_shared->upstream;
	bool		changed = false;

	for (int m = 0; m < MARK_COUNT; m++)
		if (record->marks[m] > upstream->marks[m])
		{
			upstream->marks[m] = record->marks[m];
			changed = true;
		}
	if (upstream->sno_ticktock != record->sno_ticktock)
	{
		upstream->sno_ticktock = record->sno_ticktock;
		changed = true;
	}
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		if (record->backfill_low[s] < upstream->backfill_low[s])
		{
			upstream->backfill_low[s] = record->backfill_low[s];
			changed = true;
		}

	/*
	 * The epoch kept is the earliest one snowflakes were issued under, here
	 * or upstream: a later one could repeat either's values.  So replay
	 * never makes a generating standby's own, earlier epoch later.
	 */
	if (snowflake_epoch_ms >= 0 &&
		(flakeid_shared->snowflake_epoch_ms < 0 || snowflake_epoch_ms < flakeid_shared->snowflake_epoch_ms))
	{
		flakeid_shared->snowflake_epoch_ms = snowflake_epoch_ms;
		changed = true;
	}
	return changed;
}

/*
 * In the startup process.  The state file is rewritten only when the
 * record changed something, and a failure to save stops recovery (FATAL):
 * a restartpoint could otherwise pass a record whose bounds are then kept
 * nowhere.
 */
static void
mark_redo(XLogReaderState *record)
{
	IssuedBounds bounds;
	int64		snowflake_epoch_ms;

	if (!read_record(record, &bounds, &snowflake_epoch_ms))
		elog(PANIC, "flakeid_redo: unknown record (info 0x%02X, %u bytes)",
			 XLogRecGetInfo(record) & ~XLR_INFO_MASK, XLogRecGetDataLen(record));
	if (flakeid_shared == NULL)
		elog(PANIC, "flakeid_redo: flakeid's shared memory is not set up");
	LWLockAcquire(flakeid_lock, LW_EXCLUSIVE);
	if (raise_upstream(&bounds, snowflake_epoch_ms))
	{
		check_snowflake_epoch();
		if (bounds_exceed_own(&flakeid_shared->upstream))
			pg_atomic_write_u32(&flakeid_shared->upstream_pending, 1);
		/* a damaged, newer or foreign file read at start waits for an operator, as on a primary */
		if (flakeid_shared->state_refusal == STATE_USABLE)
		{
			FlakeidPersisted state;
			int64		marks[MARK_COUNT];
			uint32		lows[GEN_SLOT_COUNT];

			read_marks(marks);
			read_backfill_lows(lows);
			current_state(&state, marks, lows, flakeid_shared->snowflake_epoch_ms);
			(void) state_save(&state, FATAL);
		}
	}
	LWLockRelease(flakeid_lock);
}

/* for pg_waldump and wal inspection functions, in core's "key: value, ..." style */
static void
mark_desc(StringInfo buf, XLogReaderState *record)
{
	IssuedBounds bounds;
	int64		snowflake_epoch_ms;
	int			lows = 0;

	if (!read_record(record, &bounds, &snowflake_epoch_ms))
		return;
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		lows += bounds.backfill_low[s] != BACKFILL_LOW_NONE;
	appendStringInfo(buf, "mark: " INT64_FORMAT ", sno mark 0: " INT64_FORMAT ", sno mark 1: " INT64_FORMAT ", sno tick-tock: %u, snowflake epoch: " INT64_FORMAT ", back-fill low-waters: %d",
					 bounds.marks[MARK_MONOTONIC], bounds.marks[MARK_SNO_FLAG0], bounds.marks[MARK_SNO_FLAG1],
					 bounds.sno_ticktock, snowflake_epoch_ms, lows);
}

static const char *
mark_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_FLAKEID_MARK:
			return "MARK";
		case XLOG_FLAKEID_BOUNDS:
			return "BOUNDS";
	}
	return NULL;
}

static RmgrData mark_rmgr = {
	.rm_name = "flakeid",
	.rm_redo = mark_redo,
	.rm_desc = mark_desc,
	.rm_identify = mark_identify,
};

/* from _PG_init, while preloading: the resource manager and flakeid.mark_synchronous */
void
mark_wal_init(void)
{
	RegisterCustomRmgr(FLAKEID_RMGR_ID, &mark_rmgr);
	define_bool_setting("flakeid.mark_synchronous",
						"Makes mark renewals wait until the synchronous standbys have flushed the mark's WAL record.",
						"Then a failover to such a standby never repeats an ID a client received, even when the data replicates asynchronously.",
						&mark_synchronous, false, PGC_SIGHUP, 0);
}

/*
 * With flakeid.mark_synchronous: waits until the synchronous standbys have
 * flushed `lsn`, whatever this session's synchronous_commit says.  Without
 * synchronous standbys (synchronous_standby_names empty) there is nothing
 * to wait for.  It watches the flush position the WAL senders publish for
 * synchronous commits, napping 1 ms on the latch in between, rather than
 * queueing as a commit does (SyncRepWaitForLSN): that queue follows the
 * session's synchronous_commit, which may say not to wait at all.  A cancel
 * or terminate ends the wait with an ERROR, so nothing is published.  A
 * wait on SyncRepLock (shared) and the standbys' replies.
 */
static void
wait_for_synchronous_standbys(XLogRecPtr lsn)
{
	if (SyncRepStandbyNames == NULL || SyncRepStandbyNames[0] == '\0')
		return;
	for (;;)
	{
		XLogRecPtr	flushed;

		LWLockAcquire(SyncRepLock, LW_SHARED);
		flushed = ((volatile WalSndCtlData *) WalSndCtl)->lsn[SYNC_REP_WAIT_FLUSH];
		LWLockRelease(SyncRepLock);
		if (flushed >= lsn)
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1, WAIT_EVENT_SYNC_REP);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Logs and flushes the state before it is used; a standby has no WAL to
 * write (its own saves reach no cascading standby: README).  May wait for
 * the synchronous standbys (flakeid.mark_synchronous).  FLAKEID_NO_MARK_WAL
 * builds without the record, only for bench/wal_cost (its cost) and the
 * failover test's negative control.
 */
void
mark_wal_log(const FlakeidPersisted *state)
{
	MarkRecord	record;
	XLogRecPtr	lsn;

#ifdef FLAKEID_NO_MARK_WAL
	return;
#endif
	if (RecoveryInProgress())
		return;
	memset(&record, 0, sizeof(record));
	record.version = MARK_RECORD_VERSION;
	record.length = sizeof(record);
	record.snowflake_epoch_ms = state->snowflake_epoch_ms;
	bounds_to_image(&record.bounds, &state->own);
	XLogBeginInsert();
	XLogRegisterData((char *) &record, sizeof(record));
	lsn = XLogInsert(FLAKEID_RMGR_ID, XLOG_FLAKEID_BOUNDS);
	XLogFlush(lsn);
	if (mark_synchronous)
		wait_for_synchronous_standbys(lsn);
}

