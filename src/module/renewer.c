/*
 * renewer.c — the background worker that renews the marks
 */
#include "postgres.h"

#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "durable/state_witness.h"
#include "generator/counters.h"
#include "generator/resume.h"
#include "horizon/prepared_holdings.h"
#include "module/module.h"

/* --- the renewer ------------------------------------------------------------ */

/*
 * A background worker ("flakeid mark renewer") keeps the mark more than
 * MARK_RENEW_US ahead of the latest ID, so that no generator call pays for
 * the fsyncs of a renewal: it renews once the mark is within
 * RENEWER_AHEAD_US of the latest unit any generator issued in (every half
 * second or so while IDs are minted) and never while nothing was issued
 * since the counters were resumed.  A horizon's or an advance's closing of
 * a counter is not an issue (counters_latest_unit_starts), so an idle
 * server, polled for horizons or not, writes nothing for it.  It runs once
 * recovery has ended, and takes up the replayed bounds then
 * (resume_take_up_upstream).  If it is not running, generator calls renew
 * as before.  A failure to save is a WARNING, and it tries again after a
 * second, then two, four, ... up to a minute, while the callers renew
 * themselves (and fail with the error) meanwhile.
 *
 * It also saves flakeid.prepared when prepared transactions' holdings
 * changed, or a checkpoint began, since its last save
 * (prepared_holdings.h); a failure is a WARNING, tried again on the same
 * back-off, and costs only precision (the next start holds the horizon
 * lower).
 */
#define RENEWER_AHEAD_US	(3 * USECS_PER_SEC / 2)
#define RENEWER_NAP_MS		100
#define RENEWER_BACKOFF_MIN_MS	1000
#define RENEWER_BACKOFF_MAX_MS	60000

StaticAssertDecl(MARK_RENEW_US < RENEWER_AHEAD_US && RENEWER_AHEAD_US < MARK_RESERVE_US,
				 "the renewer renews before the callers would, and moves the mark when it does");

PGDLLEXPORT void flakeid_mark_renewer_main(Datum arg);

/*
 * One pass: a reload if one is pending, the prepared holdings saved if due,
 * the replayed bounds taken up, and a renewal if one is due.  Returns how long to nap, `*backoff` kept
 * across passes.  May block on flakeid_lock and the save's fsyncs (and,
 * with flakeid.mark_synchronous, the synchronous standbys).  The caller
 * runs it in a memory context it resets after each pass.
 */
static long
next_backoff(long backoff, bool failed)
{
	return failed ? Min(Max(backoff * 2, RENEWER_BACKOFF_MIN_MS), RENEWER_BACKOFF_MAX_MS) : 0;
}

/* the prepared holdings' save, on its own back-off: no try before `*retry_at` (wall time: a pass may nap longer) */
static void
save_prepared(long *backoff, TimestampTz *retry_at)
{
	TimestampTz now = GetCurrentTimestamp();

	if (now < *retry_at && *retry_at - now <= (TimestampTz) *backoff * 1000)
		return;					/* (a clock set back since does not hold it off longer) */
	*backoff = next_backoff(*backoff, !holdings_save_if_due());
	*retry_at = TimestampTzPlusMilliseconds(now, *backoff);
}

static long
renewer_pass(long *backoff)
{
	static long prepared_backoff = 0;
	static TimestampTz prepared_retry_at = 0;
	int64		latest[MARK_COUNT];
	bool		due = false;
	RenewOutcome outcome;

	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
	save_prepared(&prepared_backoff, &prepared_retry_at);
	if (mark_state_usable())
		resume_take_up_upstream();
	counters_latest_unit_starts(latest, false);
	for (int m = 0; m < MARK_COUNT; m++)
		due |= latest[m] > 0 && latest[m] + RENEWER_AHEAD_US >= mark_read((MarkId) m);
	if (!mark_state_usable() || !due)
		return RENEWER_NAP_MS;
	flakeid_lock_acquire();
	outcome = mark_renew_latest_locked(latest, RENEWER_AHEAD_US, WARNING);
	flakeid_lock_release();
	*backoff = next_backoff(*backoff, outcome == RENEW_FAILED);
	return Max(RENEWER_NAP_MS, *backoff);
}

/*
 * The worker's loop.  What a pass allocates (a save's path strings, a
 * reload's) lives in a context reset after it: the loop runs for the
 * server's life, and 1.3 leaked about 150 bytes a save into
 * TopMemoryContext (issue 59).
 */
void
flakeid_mark_renewer_main(Datum arg pg_attribute_unused())
{
	long		backoff = 0;
	MemoryContext pass_context;

	pqsignal(SIGTERM, die);
	/* the clock it reads takes settings (flakeid.debug_clock_offset_ms) as every backend does */
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	/* no database: as the logical replication launcher, so that pg_stat_activity shows it */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pass_context = AllocSetContextCreate(TopMemoryContext, "flakeid mark renewer pass", ALLOCSET_DEFAULT_SIZES);

	/*
	 * Recovery has ended (the worker starts then): the witness names this
	 * data directory and timeline from now on, before any ID (a copy made
	 * later is told apart: state_witness.h).
	 */
	flakeid_lock_acquire();
	state_witness_settle(mark_state_file_says_issued());
	flakeid_lock_release();
	for (;;)
	{
		MemoryContext outer;
		long		nap;

		CHECK_FOR_INTERRUPTS();
		outer = MemoryContextSwitchTo(pass_context);
		nap = renewer_pass(&backoff);
		MemoryContextSwitchTo(outer);
		MemoryContextReset(pass_context);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, nap, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/* From _PG_init, while preloading; the postmaster starts it again a second after it exits. */
void
renewer_register(void)
{
	BackgroundWorker worker;

#ifdef FLAKEID_NO_MARK_RENEWER
	return;						/* bench/latency's baseline: the calls renew */
#endif
	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "flakeid");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "flakeid_mark_renewer_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "flakeid mark renewer");
	snprintf(worker.bgw_type, BGW_MAXLEN, "flakeid mark renewer");
	RegisterBackgroundWorker(&worker);
}
