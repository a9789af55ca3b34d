/*
 * wal_record.c — the saved bounds in the WAL: the record, and the wait for
 * synchronous standbys (replay is wal_redo.c's)
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "replication/syncrep.h"
#include "replication/walsender_private.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "utils/wait_event.h"

#include "base/clock.h"
#include "base/settings.h"
#include "durable/wal_record.h"

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
 * Records (their layouts are the codec's, persisted/persisted.h): MARK is
 * flakeid 1.1's and BOUNDS 1.2's, both still read; 1.3 writes ISSUED, a
 * layout of its own made of named entries, and PREPARED.  A standby must
 * run a flakeid at least as new as its primary's to read records it has
 * never seen (upgrade standbys first, as for PostgreSQL's own minor
 * releases): an older one stops recovery at an info code it does not know,
 * and a newer one's required entry is refused, never guessed at.
 */

/* room for any record of ours: the bounds of every slot, deep ranges, names */
#define RECORD_ROOM		32768	/* an ISSUED record: about 12 kB at most (every slot with 32 runs issued ahead) */

PersistedVerdict
wal_record_read(XLogReaderState *record, PersistedRecord *decoded)
{
	return persisted_record_decode(XLogRecGetInfo(record) & ~XLR_INFO_MASK, (const uint8 *) XLogRecGetData(record),
								   XLogRecGetDataLen(record), decoded);
}

void
wal_record_init(void)
{
	define_bool_setting(SETTING_MARK_SYNCHRONOUS,
						"Makes mark renewals wait until the synchronous standbys have flushed the mark's WAL record.",
						"Then a failover to such a standby never repeats an ID a client received, even when the data replicates asynchronously.",
						&mark_synchronous, false, PGC_SIGHUP, 0);
}

/*
 * Whether synchronous standbys are defined, as the waiters of core read it
 * (SyncRepWaitForLSN): from the state the checkpointer publishes under
 * SyncRepLock once it has processed synchronous_standby_names, so that
 * clearing the setting and reloading releases a wait whose backend never
 * reloads; before the checkpointer's first pass, from this process's
 * setting.  The caller holds SyncRepLock.
 */
static bool
synchronous_standbys_defined(void)
{
	volatile WalSndCtlData *ctl = WalSndCtl;

#ifdef SYNC_STANDBY_DEFINED
	if (ctl->sync_standbys_status & SYNC_STANDBY_INIT)
		return (ctl->sync_standbys_status & SYNC_STANDBY_DEFINED) != 0;
	return SyncRepStandbyNames != NULL && SyncRepStandbyNames[0] != '\0';
#else
	/* minor releases before the 2025 fix: the checkpointer keeps a flag */
	return ctl->sync_standbys_defined;
#endif
}

/*
 * With flakeid.mark_synchronous: waits until the synchronous standbys have
 * flushed `lsn`, whatever this session's synchronous_commit says, or until
 * there are none (synchronous_standby_names cleared and reloaded, the
 * standard way out when a synchronous standby is lost, releases it within
 * a millisecond of the checkpointer's reload).  It watches the flush
 * position the WAL senders publish for synchronous commits, napping 1 ms on
 * the latch in between, rather than queueing as a commit does
 * (SyncRepWaitForLSN): that queue follows the session's synchronous_commit,
 * which may say not to wait at all.  Called with flakeid_lock held; a
 * cancel or terminate still ends the wait, with an ERROR or FATAL, so
 * nothing is published (flakeid_serve_cancel_or_terminate: a wait seen
 * lasting 12 minutes past its 1 s statement_timeout before it served them).
 * A wait on SyncRepLock (shared) and the standbys'
 * replies.
 */
static void
wait_for_synchronous_standbys(XLogRecPtr lsn)
{
	for (;;)
	{
		XLogRecPtr	flushed;
		bool		defined;

		LWLockAcquire(SyncRepLock, LW_SHARED);
		defined = synchronous_standbys_defined();
		flushed = ((volatile WalSndCtlData *) WalSndCtl)->lsn[SYNC_REP_WAIT_FLUSH];
		LWLockRelease(SyncRepLock);
		if (!defined || flushed >= lsn)
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1, WAIT_EVENT_SYNC_REP);
		ResetLatch(MyLatch);
		flakeid_serve_cancel_or_terminate();
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
/* inserts and flushes one record of ours, and waits for the synchronous standbys if asked to */
static void
log_and_flush(uint8 info, const uint8 *record, size_t size)
{
	XLogRecPtr	lsn;

	if (size == 0)
		elog(ERROR, "flakeid's WAL record does not fit in %d bytes", RECORD_ROOM);
	XLogBeginInsert();
	XLogRegisterData((char *) record, (uint32) size);
	lsn = XLogInsert(FLAKEID_RMGR_ID, info);
	XLogFlush(lsn);
	if (mark_synchronous)
		wait_for_synchronous_standbys(lsn);
}

void
wal_record_log(const FlakeidPersisted *state)
{
	static uint8 record[RECORD_ROOM];
	static PersistedBounds own;

#ifdef FLAKEID_NO_MARK_WAL
	return;
#endif
	if (RecoveryInProgress())
		return;
	bounds_to_persisted(&state->own, &own);
	log_and_flush(XLOG_FLAKEID_ISSUED, record,
				  persisted_issued_encode(&own, state->snowflake_epoch_ms, record, sizeof(record)));
}

void
wal_record_log_deep(const PersistedDeepUnit *deep_unit)
{
	uint8		record[128];

#ifdef FLAKEID_NO_MARK_WAL
	return;
#endif
	if (RecoveryInProgress())
		return;
	log_and_flush(XLOG_FLAKEID_DEEP, record, persisted_deep_record_encode(deep_unit, record, sizeof(record)));
}

void
wal_record_log_prepared(const PersistedHolding *holding)
{
	static uint8 record[RECORD_ROOM];
	size_t		size = persisted_prepared_record_encode(holding, record, sizeof(record));

	if (size == 0)
		elog(ERROR, "flakeid's WAL record does not fit in %d bytes", RECORD_ROOM);
	XLogBeginInsert();
	XLogRegisterData((char *) record, (uint32) size);
	(void) XLogInsert(FLAKEID_RMGR_ID, XLOG_FLAKEID_PREPARED);
}
