/*
 * mark.c — the saved marks: instants that every issued ID lies before
 *
 * Every counter has a mark (generator.h, MarkId): one for the generators
 * with the monotonic rule, one per sno tick-tock value.  The marks are saved
 * to disk (state.c) ahead of the clock and renewed before they run out, so
 * that a restart, clean or after a crash, resumes above everything issued
 * before it whatever the clock then says (generator_resume_monotonic,
 * generator_resume_sno).  The state file also keeps sno's tick-tock in use
 * and the snowflake epoch.  Every renewal also goes through the WAL (below),
 * so standbys follow it.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "generator.h"

/* the tick-tock sno's counter word carries now */
static bool
sno_ticktock_in_use(void)
{
	return counter_flag(pg_atomic_read_u64(&flakeid_shared->slots[generator_defs[GEN_SNO].first_slot].word.value));
}

static void
read_marks(int64 marks[MARK_COUNT])
{
	for (int m = 0; m < MARK_COUNT; m++)
		marks[m] = mark_read((MarkId) m);
}

/* the state to save with the given marks and epoch, and sno's tick-tock from shared memory */
static void
current_state(FlakeidPersisted *state, const int64 marks[MARK_COUNT], int64 snowflake_epoch_ms)
{
	bool		flag = sno_ticktock_in_use();

	state_set_empty(state);
	state->mark_unix_us = marks[MARK_MONOTONIC];
	state->sno_ticktock = flag ? 1 : 0;
	state->sno_mark_unix_us = marks[flag ? MARK_SNO_FLAG1 : MARK_SNO_FLAG0];
	state->sno_other_bound_unix_us = marks[flag ? MARK_SNO_FLAG0 : MARK_SNO_FLAG1];
	state->snowflake_epoch_ms = snowflake_epoch_ms;
}

/*
 * Takes up a persisted state (read at start, or replayed from the primary's
 * WAL): the marks, sno's timeline and every counter only ever move up, so
 * taking up an older state changes nothing.  sno resumes with the state's
 * tick-tock; the other value may be taken up again only after its mark
 * (spec §5.1).  At start, or with flakeid_lock held.
 */
static void
adopt_state(const FlakeidPersisted *state)
{
	int64		marks[MARK_COUNT];
	bool		ticktock = (state->sno_ticktock & 1) != 0;
	bool		flag;
	SnoTimeline timeline = flakeid_shared->sno_timeline;

	marks[MARK_MONOTONIC] = state->mark_unix_us;
	marks[ticktock ? MARK_SNO_FLAG1 : MARK_SNO_FLAG0] = state->sno_mark_unix_us;
	marks[ticktock ? MARK_SNO_FLAG0 : MARK_SNO_FLAG1] = state->sno_other_bound_unix_us;
	for (int m = 0; m < MARK_COUNT; m++)
	{
		marks[m] = Max(marks[m], mark_read((MarkId) m));
		pg_atomic_write_u64(&flakeid_shared->marks[m].value, (uint64) marks[m]);
	}
	generator_resume_monotonic(marks[MARK_MONOTONIC]);
	flag = generator_resume_sno(&marks[MARK_SNO_FLAG0], ticktock);

	timeline.wall_safe = Max(timeline.wall_safe, mark_unit(&sno_format, marks[flag ? MARK_SNO_FLAG0 : MARK_SNO_FLAG1]));
	if ((timeline.drifts & 1) != (flag ? 1 : 0))
		timeline.drifts++;
	sno_timeline_publish(&timeline);
	if (state->snowflake_epoch_ms >= 0)
		flakeid_shared->snowflake_epoch_ms = state->snowflake_epoch_ms;
}

/*
 * A snowflake's value is its Unix millisecond less the epoch, so a later
 * epoch than the one snowflakes were issued under gives values those IDs
 * already had; an earlier one only gives larger values.  The state keeps
 * the epoch of the snowflakes issued (-1 until the first is, or when a 1.0
 * file did not say).  At start, or with flakeid_lock held.
 */
static bool save_locked(const int64 marks[MARK_COUNT], int64 snowflake_epoch_ms, int elevel);
static void refuse_unusable_state(void);

static void
check_snowflake_epoch(void)
{
	int64		issued_under = flakeid_shared->snowflake_epoch_ms;

	flakeid_shared->snowflake_epoch_refused =
		issued_under >= 0 && flakeid_configured_snowflake_epoch_ms() > issued_under;
}

/*
 * At start (postmaster, shared memory being set up): reads the state file
 * and takes it up (an empty state when there is none or it cannot be
 * used).  A file of an older version is rewritten in the current
 * one; a damaged or newer one makes every generator refuse (mark_ensure)
 * until an operator acts.  Never raises.
 */
void
mark_startup(void)
{
	FlakeidPersisted saved;
	uint32		file_version = 0;
	StateLoad	load = state_load(&saved, &file_version);

	flakeid_shared->state_file_version = file_version;
	flakeid_shared->state_refusal = load == STATE_LOAD_DAMAGED ? STATE_DAMAGED
		: load == STATE_LOAD_TOO_NEW ? STATE_TOO_NEW : STATE_USABLE;
	if (flakeid_shared->state_refusal != STATE_USABLE)
		state_set_empty(&saved);
	for (int m = 0; m < MARK_COUNT; m++)
		pg_atomic_init_u64(&flakeid_shared->marks[m].value, 0);
	flakeid_shared->snowflake_epoch_ms = -1;
	adopt_state(&saved);
	check_snowflake_epoch();
	if (load == STATE_LOAD_MIGRATED)
	{
		if (state_save(&saved, LOG))
			ereport(LOG,
					(errmsg("upgraded the generator state file from version %u to version %u",
							file_version, STATE_VERSION)));
	}
	if (saved.mark_unix_us > 0 || saved.sno_mark_unix_us > 0)
	{
		/* timestamptz_to_str returns a static buffer: one call per message part */
		char		monotonic[MAXDATELEN + 1];

		strlcpy(monotonic, timestamptz_to_str(flakeid_timestamptz_from_unix_us(saved.mark_unix_us)), sizeof(monotonic));

		ereport(LOG,
				(errmsg("generators resume after the saved mark %s; sno after %s with tick-tock %u",
						monotonic, timestamptz_to_str(flakeid_timestamptz_from_unix_us(saved.sno_mark_unix_us)),
						saved.sno_ticktock & 1)));
	}
	if (flakeid_shared->snowflake_epoch_refused)
		ereport(WARNING,
				(errmsg("flakeid.snowflake_epoch_ms was moved from " INT64_FORMAT " to " INT64_FORMAT " after snowflakes were issued; snowflake generation will be refused",
						flakeid_shared->snowflake_epoch_ms, flakeid_configured_snowflake_epoch_ms())));
}

/*
 * For the snowflake generator, before it issues anything: refuses when the
 * state file read at start cannot be used (before anything could write over
 * it) or when the configured epoch could repeat issued values, and
 * otherwise makes sure the state (and the WAL) holds the epoch in use
 * before any snowflake is issued under it.  That costs one save on the
 * first snowflake after a change.
 */
void
mark_check_snowflake_epoch(void)
{
	int64		configured = flakeid_configured_snowflake_epoch_ms();

	if (flakeid_shared->state_refusal != STATE_USABLE)
		refuse_unusable_state();
	if (!flakeid_shared->snowflake_epoch_refused && flakeid_shared->snowflake_epoch_ms != configured)
	{
		LWLockAcquire(flakeid_lock, LW_EXCLUSIVE);
		check_snowflake_epoch();	/* a replayed state may have changed it */
		if (!flakeid_shared->snowflake_epoch_refused && flakeid_shared->snowflake_epoch_ms != configured)
		{
			int64		marks[MARK_COUNT];

			read_marks(marks);
			(void) save_locked(marks, configured, ERROR);
			flakeid_shared->snowflake_epoch_ms = configured;
		}
		LWLockRelease(flakeid_lock);
	}
	if (flakeid_shared->snowflake_epoch_refused)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("flakeid.snowflake_epoch_ms is later than the epoch of the snowflakes already issued"),
				 errdetail("Snowflakes were issued with epoch " INT64_FORMAT " ms; with epoch " INT64_FORMAT " ms new values could repeat them.",
						   flakeid_shared->snowflake_epoch_ms, flakeid_configured_snowflake_epoch_ms()),
				 errhint("Set flakeid.snowflake_epoch_ms back to " INT64_FORMAT " (or earlier) and restart the server.",
						 flakeid_shared->snowflake_epoch_ms)));
}

/* --- the mark in the WAL ------------------------------------------------------- */

/*
 * Every renewal is WAL-logged before the new mark is published, so a
 * standby replays it: its state file and counters follow the primary's,
 * and once promoted it issues nothing the old primary could have issued,
 * whatever the two clocks say (with the same identities).  A base backup
 * copies flakeid.state; renewals after the backup's start are replayed.
 */
#define XLOG_FLAKEID_MARK	0x00

static void
mark_redo(XLogReaderState *record)
{
	FlakeidPersisted state;
	int64		marks[MARK_COUNT];

	if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) != XLOG_FLAKEID_MARK ||
		XLogRecGetDataLen(record) != sizeof(state))
		elog(PANIC, "flakeid_redo: unknown record");
	memcpy(&state, XLogRecGetData(record), sizeof(state));
	if (flakeid_shared == NULL)
		return;
	LWLockAcquire(flakeid_lock, LW_EXCLUSIVE);
	adopt_state(&state);
	check_snowflake_epoch();
	read_marks(marks);
	current_state(&state, marks, flakeid_shared->snowflake_epoch_ms);
	/* a damaged or newer file read at start waits for an operator, as on a primary */
	if (flakeid_shared->state_refusal == STATE_USABLE)
		(void) state_save(&state, ERROR);
	LWLockRelease(flakeid_lock);
}

static void
mark_desc(StringInfo buf, XLogReaderState *record)
{
	FlakeidPersisted state;

	if (XLogRecGetDataLen(record) != sizeof(state))
		return;
	memcpy(&state, XLogRecGetData(record), sizeof(state));
	appendStringInfo(buf, "mark " INT64_FORMAT " us; sno tick-tock %u, its mark " INT64_FORMAT " us, other bound " INT64_FORMAT " us; snowflake epoch " INT64_FORMAT " ms",
					 state.mark_unix_us, state.sno_ticktock, state.sno_mark_unix_us, state.sno_other_bound_unix_us,
					 state.snowflake_epoch_ms);
}

static const char *
mark_identify(uint8 info)
{
	return (info & ~XLR_INFO_MASK) == XLOG_FLAKEID_MARK ? "MARK" : NULL;
}

static RmgrData mark_rmgr = {
	.rm_name = "flakeid",
	.rm_redo = mark_redo,
	.rm_desc = mark_desc,
	.rm_identify = mark_identify,
};

/* from _PG_init, while preloading */
void
mark_init(void)
{
	RegisterCustomRmgr(FLAKEID_RMGR_ID, &mark_rmgr);
}

/*
 * Logs and flushes the state before it is published; a standby has no WAL
 * to write.  FLAKEID_NO_MARK_WAL builds without the record, only for
 * bench/wal_cost (its cost) and the failover test's negative control.
 */
static void
log_state(FlakeidPersisted *state)
{
	XLogRecPtr	lsn;

#ifdef FLAKEID_NO_MARK_WAL
	return;
#endif
	if (RecoveryInProgress())
		return;
	XLogBeginInsert();
	XLogRegisterData((char *) state, sizeof(*state));
	lsn = XLogInsert(FLAKEID_RMGR_ID, XLOG_FLAKEID_MARK);
	XLogFlush(lsn);
}

/*
 * With flakeid_lock held: logs and writes the state with the given marks
 * and snowflake epoch, then publishes the marks (which only move up while
 * the server runs).  When either fails nothing is published: at ERROR it
 * raises, below it reports the failure at `elevel` and returns false.
 */
static bool
save_locked(const int64 marks[MARK_COUNT], int64 snowflake_epoch_ms, int elevel)
{
	FlakeidPersisted state;

	if (flakeid_shared->state_refusal != STATE_USABLE)
		refuse_unusable_state();	/* a damaged or newer file stays as it is */
	current_state(&state, marks, snowflake_epoch_ms);
	log_state(&state);
	if (!state_save(&state, elevel))
		return false;
	for (int m = 0; m < MARK_COUNT; m++)
		pg_atomic_write_u64(&flakeid_shared->marks[m].value, (uint64) marks[m]);
	return true;
}

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
static RenewOutcome
renew_locked(const int64 latest[MARK_COUNT], int64 within, int elevel)
{
	int64		marks[MARK_COUNT];
	int64		now = flakeid_clock_unix_us();
	bool		needed = false;

	read_marks(marks);
	for (int m = 0; m < MARK_COUNT; m++)
		if (latest[m] > 0 && latest[m] + within >= marks[m])
		{
			marks[m] = Max(Max(now, latest[m] + 1) + MARK_RESERVE_US, marks[m]);
			needed = true;
		}
	if (!needed)
		return RENEW_NOT_NEEDED;
	return save_locked(marks, flakeid_shared->snowflake_epoch_ms, elevel) ? RENEW_SAVED : RENEW_FAILED;
}

/* the latest unit start to renew one mark for */
static RenewOutcome
renew_one_locked(MarkId mark, int64 unit_start, int elevel)
{
	int64		latest[MARK_COUNT] = {0};

	latest[mark] = unit_start;
	return renew_locked(latest, MARK_RENEW_US, elevel);
}

void
mark_renew_locked(MarkId mark, int64 unit_start)
{
	(void) renew_one_locked(mark, unit_start, ERROR);
}

/* Raises the error for a state file that was refused at start. */
static void
refuse_unusable_state(void)
{
	if (flakeid_shared->state_refusal == STATE_TOO_NEW)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("flakeid's generator state file was written by a newer version of flakeid"),
				 errdetail("The file \"flakeid.state\" has state version %u; this version of flakeid reads versions 1 to %u.",
						   flakeid_shared->state_file_version, STATE_VERSION),
				 errhint("Install the flakeid release that wrote the file, or remove the file once the clock is past every ID issued and restart the server.")));
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("flakeid's generator state file is damaged, so generation is refused"),
			 errhint("Remove \"flakeid.state\" from the data directory once the clock is past every ID issued, and restart the server.")));
}

/*
 * mark_ensure's slow path: the mark is within MARK_RENEW_US of
 * `unit_start`.  The renewer normally keeps it further ahead than that, so
 * this is the fallback when the renewer is late or not running.  A caller
 * still covered by the mark renews only if the lock is free, and a failure
 * then is a WARNING (at most one a second per backend): its ID is covered,
 * so its call goes on.  Only past the mark does a caller wait for a
 * renewal, and a failure to save is then an ERROR (nothing is issued).
 * Renewing takes flakeid_lock and fsyncs the state file.  Raises XX001 or
 * 55000 when the state file read at start cannot be used.
 */
void
mark_ensure_renewed(MarkId which, int64 unit_start)
{
	static TimestampTz last_failure = 0;
	int64		mark = mark_read(which);
	RenewOutcome outcome = RENEW_NOT_NEEDED;

	if (flakeid_shared->state_refusal != STATE_USABLE)
		refuse_unusable_state();
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
			LWLockRelease(flakeid_lock);
		}
	}
	else
	{
		LWLockAcquire(flakeid_lock, LW_EXCLUSIVE);
		outcome = renew_one_locked(which, unit_start, ERROR);
		LWLockRelease(flakeid_lock);
	}
	if (outcome == RENEW_SAVED)
		ereport(DEBUG1,
				(errmsg_internal("a generator call renewed the saved mark%s",
								 unit_start < mark ? "" : ", past it")));
}

/* --- the renewer ------------------------------------------------------------ */

/*
 * A background worker ("flakeid mark renewer") keeps the mark more than
 * MARK_RENEW_US ahead of the latest ID, so that no generator call pays for
 * the fsyncs of a renewal: it renews once the mark is within
 * RENEWER_AHEAD_US of the latest unit any generator used (every half second
 * or so while IDs are minted) and never while nothing is minted, so an idle
 * server writes no WAL for it.  It runs on a primary only (standbys follow
 * the WAL); if it is not running, generator calls renew as before.
 */
#define RENEWER_AHEAD_US	(3 * USECS_PER_SEC / 2)
#define RENEWER_NAP_MS		100

StaticAssertDecl(MARK_RENEW_US < RENEWER_AHEAD_US && RENEWER_AHEAD_US < MARK_RESERVE_US,
				 "the renewer renews before the callers would, and moves the mark when it does");

PGDLLEXPORT void flakeid_mark_renewer_main(Datum arg);

void
flakeid_mark_renewer_main(Datum arg pg_attribute_unused())
{
	pqsignal(SIGTERM, die);
	/* the clock it reads takes settings (flakeid.debug_clock_offset_ms) as every backend does */
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	/* no database: as the logical replication launcher, so that pg_stat_activity shows it */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	for (;;)
	{
		int64		latest[MARK_COUNT];
		bool		due = false;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		generator_latest_unit_starts(latest);
		for (int m = 0; m < MARK_COUNT; m++)
			due |= latest[m] > 0 && latest[m] + RENEWER_AHEAD_US >= mark_read((MarkId) m);
		if (flakeid_shared->state_refusal == STATE_USABLE && due)
		{
			LWLockAcquire(flakeid_lock, LW_EXCLUSIVE);
			(void) renew_locked(latest, RENEWER_AHEAD_US, ERROR);
			LWLockRelease(flakeid_lock);
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 RENEWER_NAP_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/*
 * From _PG_init, while preloading.  A failure to save makes the worker exit
 * with an ERROR in the log; the postmaster starts it again after a second,
 * and until then generator calls renew themselves.
 */
void
mark_renewer_register(void)
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

/* --- the high-water mark at shutdown -------------------------------------------- */

/*
 * In the postmaster as it exits, every other process gone: the counters
 * hold every ID ever published, so the state can carry marks just past the
 * latest used units instead of the reserve ahead of the clock.  A server
 * restarted at once then resumes where it stopped; with the reserve, each
 * restart that minted would move the IDs (and the mark) 2 s further ahead
 * of the clock.  A crash skips this and resumes after the saved mark, as
 * before.  Never raises: the saved mark, larger, stays if this fails.
 */
static void
save_high_water_at_exit(int code, Datum arg pg_attribute_unused())
{
	FlakeidPersisted state;
	int64		latest[MARK_COUNT];
	int64		marks[MARK_COUNT];
	bool		lowered = false;

	/* a clean exit only: after a crash, shared memory is not trusted */
	if (code != 0 || IsUnderPostmaster || flakeid_shared->state_refusal != STATE_USABLE)
		return;
	generator_latest_unit_starts(latest);
	read_marks(marks);
	/* sno's mark of the value not in use keeps its reserve: it bounds that value */
	for (int m = 0; m < MARK_COUNT; m++)
		if (latest[m] > 0 && latest[m] + 1 < marks[m])
		{
			marks[m] = latest[m] + 1;
			lowered = true;
		}
	if (!lowered)
		return;
	current_state(&state, marks, flakeid_shared->snowflake_epoch_ms);
	if (state_save(&state, LOG))
		ereport(LOG,
				(errmsg("saved the generators' high-water mark %s at shutdown",
						timestamptz_to_str(flakeid_timestamptz_from_unix_us(Max(state.mark_unix_us, state.sno_mark_unix_us))))));
}

/*
 * In the postmaster, each time shared memory is set up (shmem_exit runs
 * and forgets the callbacks before shared memory is set up again after a
 * crash; children forget them as they start).
 */
void
mark_save_high_water_at_exit(void)
{
	if (!IsUnderPostmaster)
		on_shmem_exit(save_high_water_at_exit, (Datum) 0);
}
