/*
 * prepared_saves.c — flakeid.prepared: the table of prepared transactions'
 * holdings saved, and what a save missed held at start
 *
 * A PREPARE stores its holding in the table and logs it in the WAL (the
 * PREPARE record that follows flushes both); it writes no file, so it
 * costs no fsync and waits for nobody's (1.3 saved flakeid.prepared at
 * every PREPARE: two fsyncs, the PREPAREs in a queue).  The file is saved
 * afterwards, whole: by the renewer, within a pass of a change (outside
 * recovery); by the startup process, at most once a second, while it
 * replays PREPARED records; and by the postmaster once the server has
 * stopped cleanly.  Each save records what it knew (PreparedSaved): the
 * WAL position L before which every PREPARED record's holding is in the
 * file, and per slot a floor that every later prepared transaction's IDs
 * lie at or after.
 *
 * At start the file is loaded, then recovery replays the PREPARED records
 * from its redo point R on.  If L >= R, every holding is in the file or
 * replayed.  If L < R, the records in [L, R) are neither: every
 * transaction that could have written one (all before the last
 * checkpoint's next transaction ID) is held at the save's floors, by one
 * overflow entry (prepared_file.h), until they have all ended.  The
 * renewer saves again whenever a checkpoint moved R past the last save's
 * L, so a crash costs that only when it comes within a pass of a
 * checkpoint's start, or of a PREPARE.
 *
 * A file vouches for L and its floors only if it names this cluster and
 * L's timeline is the redo point's (a promoted standby's file copied onto
 * its old primary does not), and a floor only if it is not past the clock;
 * otherwise, and for no file, 1.2's and 1.3's, L and the floors are 0.
 *
 * L is WAL that survives any crash: the position flushed (a standby: the
 * position replayed, which it received and flushed first; a clean stop:
 * the shutdown checkpoint's).  The insert position was not: a crash loses
 * the WAL inserted but not flushed, the next WAL is written over that
 * range, and a file whose L lay above it then took later PREPAREs as
 * saved (the review of issue 59's item 5: a PREPARE after the crash, a
 * checkpoint, a second crash, and its holding was gone).  A smaller L only
 * makes a start hold more.
 *
 * Why the floors hold: they are the horizons given before the save
 * (horizon.c), read before L is.  A transaction whose PREPARED record
 * begins at or after L logged it after they were given, so it commits
 * after; every ID committed after a horizon was given lies at or after
 * it, which is what a horizon promises.
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "catalog/pg_control.h"
#include "common/controldata_utils.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "utils/timestamp.h"

#include "base/clock.h"
#include "base/shmem.h"
#include "base/table.h"
#include "horizon/prepared_internal.h"

/* horizon.c's: per slot, the highest horizon given outside recovery (holdings_init) */
static void (*given_floors) (uint64 *floor) = NULL;

/* the startup process saves at most this often while it replays PREPARED records */
#define REDO_SAVE_INTERVAL_MS	1000

typedef enum SaveOutcome
{
	SAVE_WRITTEN,
	SAVE_BUSY,					/* another save is under way */
	SAVE_FAILED
} SaveOutcome;

/*
 * The floors a save records: the floors of the save read at start (they
 * hold as long as the server runs), raised to the horizons given outside
 * recovery.  A standby's horizons say nothing of its primary's open
 * transactions, so in recovery only the first.
 */
static void
floors_now(uint64 *floor, bool in_recovery)
{
	uint64		given[GEN_SLOT_COUNT];

	memset(given, 0, sizeof(given));
	if (!in_recovery && given_floors != NULL)
		given_floors(given);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		floor[s] = Max(given[s], prepared_holdings->start_floor[s]);
}

/*
 * Saves the table and what the save knows.  The floors are read first,
 * then L, then the table: a PREPARED record that begins before L was
 * stored before L was read (hold_for_prepared stores, then logs; replay
 * stores what it replays), so the table has it.  SAVE_BUSY when a save is
 * under way (that one, or the next, holds the changes); SAVE_FAILED, with
 * a message at `elevel`, when the file cannot be written.  Never called
 * while the file is damaged.
 */
static SaveOutcome
save_table(int elevel)
{
	PreparedHolding *entries;
	PreparedSaved saved;
	int			count = 0;
	uint64		covered;
	bool		written;

	if (!LWLockConditionalAcquire(FILE_LOCK, LW_EXCLUSIVE))
		return SAVE_BUSY;
	floors_now(saved.floor, RecoveryInProgress());
	pg_memory_barrier();
	saved.lsn = RecoveryInProgress() ? GetXLogReplayRecPtr(&saved.timeline) : GetFlushRecPtr(&saved.timeline);
	entries = palloc(sizeof(PreparedHolding) * holding_capacity());
	LWLockAcquire(TABLE_LOCK, LW_SHARED);
	covered = pg_atomic_read_u64(&prepared_holdings->changed);
	for (int i = 0; i < prepared_holdings->nprepared; i++)
		if (FullTransactionIdIsValid(prepared_holdings->prepared[i].fxid))
			entries[count++] = prepared_holdings->prepared[i];
	LWLockRelease(TABLE_LOCK);
	debug_pause(DEBUG_PAUSE_PREPARED_SAVING);
	written = prepared_file_write(entries, count, &saved, elevel);
	if (written)
	{
		pg_atomic_write_u64(&prepared_holdings->saved, covered);
		pg_atomic_write_u64(&prepared_holdings->saved_lsn, saved.lsn);
	}
	LWLockRelease(FILE_LOCK);
	pfree(entries);
	return written ? SAVE_WRITTEN : SAVE_FAILED;
}

/* whether the table changed since the last save, or a checkpoint (restartpoint) began after it */
static bool
save_due(void)
{
	return !prepared_holdings->damaged &&
		(pg_atomic_read_u64(&prepared_holdings->saved) != pg_atomic_read_u64(&prepared_holdings->changed) ||
		 pg_atomic_read_u64(&prepared_holdings->saved_lsn) < GetRedoRecPtr());
}

bool
holdings_save_if_due(void)
{
	return !save_due() || save_table(WARNING) != SAVE_FAILED;
}

/*
 * The startup process, at each record of flakeid's it replays (a standby
 * has no renewer): a save if one is due, at most once a second, so that a
 * restart finds most holdings in the file.  A clock set back since the
 * last save does not hold the next one off.
 */
void
holdings_save_in_redo(void)
{
	static TimestampTz last_redo_save = 0;
	TimestampTz now = GetCurrentTimestamp();

	if ((now >= last_redo_save && !TimestampDifferenceExceeds(last_redo_save, now, REDO_SAVE_INTERVAL_MS)) ||
		!save_due())
		return;
	last_redo_save = now;
	(void) save_table(WARNING);
}

static void
take_at_start(void *arg pg_attribute_unused(), const PreparedHolding *holding)
{
	(void) store_holding(holding);
}

/*
 * Where recovery's replay starts: a backup's start (backup_label, which
 * pg_basebackup and pg_rewind leave), else the last checkpoint's or
 * restartpoint's redo point.  Also that checkpoint's next transaction ID
 * and timeline.
 * False when pg_control cannot be read (the server will not start).
 */
static bool
redo_point(XLogRecPtr *redo, FullTransactionId *next, TimeLineID *timeline)
{
	bool		crc_ok = false;
	ControlFileData *control = get_controlfile(DataDir, &crc_ok);
	FILE	   *label;

	if (control == NULL || !crc_ok)
	{
		if (control != NULL)
			pfree(control);
		return false;
	}
	*redo = control->checkPointCopy.redo;
	*next = control->checkPointCopy.nextXid;
	*timeline = control->checkPointCopy.ThisTimeLineID;
	label = AllocateFile(BACKUP_LABEL_FILE, "r");
	if (label != NULL)
	{
		uint32		hi,
					lo;

		if (fscanf(label, "START WAL LOCATION: %X/%X", &hi, &lo) == 2)
			*redo = Min(*redo, ((uint64) hi << 32) | lo);
		FreeFile(label);
	}
	pfree(control);
	return true;
}

/*
 * At start, when the file's last save knew less than recovery will replay
 * (L < R, or L on another timeline than the redo point's: then the save's
 * position and floors are set to nothing): every transaction that could have logged a PREPARED record
 * before R has an ID below the checkpoint's next one, and one overflow
 * entry holds them all at the save's floors until each has ended.
 */
static void
hold_what_the_save_missed(PreparedSaved *saved)
{
	XLogRecPtr	redo = PG_UINT64_MAX;
	FullTransactionId next = InvalidFullTransactionId;
	TimeLineID	timeline = 0;
	PreparedHolding missed;

	if (!redo_point(&redo, &next, &timeline))
		next = FullTransactionIdFromU64(PG_UINT64_MAX);
	/* (a position on another timeline, say a promoted standby's file copied onto its old primary, means nothing here) */
	if (saved->lsn != 0 && saved->timeline != timeline)
	{
		ereport(LOG,
				(errmsg("flakeid's file \"%s\" was saved on timeline %u, and this server starts on timeline %u: what that save knew is not taken",
						PREPARED_FILE, saved->timeline, timeline)));
		saved->lsn = 0;
		memset(saved->floor, 0, sizeof(saved->floor));
	}
	if (saved->lsn >= redo ||
		!FullTransactionIdFollows(next, FullTransactionIdFromEpochAndXid(0, FirstNormalTransactionId)))
		return;
	missed.fxid = FullTransactionIdFromEpochAndXid(0, FirstNormalTransactionId);
	missed.through = FullTransactionIdFromU64(U64FromFullTransactionId(next) - 1);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		missed.unit[s] = saved->floor[s];
	(void) store_holding(&missed);
	ereport(LOG,
			(errmsg("flakeid's file \"%s\" was last saved at %X/%X, before the redo point %X/%X",
					PREPARED_FILE, LSN_FORMAT_ARGS(saved->lsn), LSN_FORMAT_ARGS(redo)),
			 errdetail("Prepared transactions before transaction %llu hold the horizon at the horizons given before that save, until each has ended.",
					   (unsigned long long) U64FromFullTransactionId(next))));
}

/*
 * In the postmaster, once the server has stopped: if it stopped cleanly
 * (the shutdown checkpoint or restartpoint is in pg_control), no process
 * is left to change the table, and it holds every PREPARED record before
 * that redo point, where the next start replays from: saved with L there.
 * After any other stop (immediate, a crash), nothing is written: the
 * table may be half-changed, and the next start judges the file as the
 * last save left it.
 */
static void
holdings_at_stop(int code pg_attribute_unused(), Datum arg pg_attribute_unused())
{
	bool		crc_ok = false;
	ControlFileData *control;
	PreparedHolding *entries;
	PreparedSaved saved;
	int			count = 0;

	if (prepared_holdings == NULL || prepared_holdings->damaged || IsUnderPostmaster)
		return;
	control = get_controlfile(DataDir, &crc_ok);
	if (control == NULL)
		return;
	if (!crc_ok || (control->state != DB_SHUTDOWNED && control->state != DB_SHUTDOWNED_IN_RECOVERY))
	{
		pfree(control);
		return;
	}
	saved.lsn = control->checkPointCopy.redo;
	saved.timeline = control->checkPointCopy.ThisTimeLineID;
	floors_now(saved.floor, control->state == DB_SHUTDOWNED_IN_RECOVERY);
	pfree(control);
	entries = palloc(sizeof(PreparedHolding) * holding_capacity());
	for (int i = 0; i < prepared_holdings->nprepared; i++)
		if (FullTransactionIdIsValid(prepared_holdings->prepared[i].fxid))
			entries[count++] = prepared_holdings->prepared[i];
	(void) prepared_file_write(entries, count, &saved, LOG);
	pfree(entries);
}

/*
 * A floor is a horizon given before the save, so never past the clock's
 * unit then; one past the clock's unit now no save wrote (or the clock was
 * set back since): it would hold nothing, and is taken as 0 (all).
 */
static void
floors_possible(uint64 *floor)
{
	for (int g = 0; g < GEN_COUNT; g++)
	{
		const GeneratorDef *def = &generator_defs[g];
		uint64		clock = 0;

		if (!def->format->units_at(clock_read(def), &clock))
			clock = 0;
		for (int v = 0; v < def->variants; v++)
			if (floor[def->first_slot + v] > clock)
			{
				ereport(LOG,
						(errmsg("flakeid's file \"%s\" holds a floor for %s past the clock: it is not taken",
								PREPARED_FILE, generator_slot_name(def->first_slot + v))));
				floor[def->first_slot + v] = 0;
			}
	}
}

/*
 * At start, in the postmaster, before recovery: every holding of the file
 * joins the table, however many (those beyond its room are merged into the
 * overflow entry), and what its last save missed is held (above).  The
 * commit log cannot be asked here: which ended is decided by recovery's
 * replay and, after it, by holdings_lowest.
 */
static void
holdings_at_start(void)
{
	PreparedSaved saved;

	prepared_holdings->nprepared = 0;
	prepared_holdings->damaged = !prepared_file_read(take_at_start, NULL, &saved);
	if (!prepared_holdings->damaged)
	{
		if (saved.foreign)
			prepared_holdings->nprepared = 0;	/* (another cluster's transactions) */
		floors_possible(saved.floor);
		hold_what_the_save_missed(&saved);
		memcpy(prepared_holdings->start_floor, saved.floor, sizeof(prepared_holdings->start_floor));
	}
	pg_atomic_write_u64(&prepared_holdings->saved, pg_atomic_read_u64(&prepared_holdings->changed));
	pg_atomic_write_u64(&prepared_holdings->saved_lsn, saved.lsn);
	if (!IsUnderPostmaster)
		on_shmem_exit(holdings_at_stop, 0);
}

void
holdings_saves_init(void (*floors) (uint64 *floor))
{
	given_floors = floors;
	shmem_at_startup(holdings_at_start);
}
