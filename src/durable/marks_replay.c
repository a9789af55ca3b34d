/*
 * marks_replay.c — the saved marks on a standby: the primary's bounds
 * replayed from its WAL records (wal_record.c), raised into the standby's
 * shared state and saved with its own, so that a promotion resumes above
 * everything the primary issued (marks.c, resume.c)
 */
#include "postgres.h"

#include <sys/stat.h>

#include "datatype/timestamp.h"

#include "base/epoch.h"
#include "base/table.h"
#include "durable/deep_record.h"
#include "durable/issued_ahead.h"
#include "durable/marks_internal.h"

/*
 * With flakeid_lock held: raises the replayed bounds to a record's (marks
 * up, low-waters down); true when anything changed.
 */
static bool
raise_upstream(const IssuedBounds *record)
{
	IssuedBounds *upstream = &mark_shared->upstream;
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
	if (record->backfill_floor > upstream->backfill_floor)
	{
		upstream->backfill_floor = record->backfill_floor;
		changed = true;
	}
	/*
	 * Each record carries every run its writer holds (issued_ahead.h: they only
	 * grow, but for a run saved open to a mark and closed by a later save),
	 * so the latest replaces the earlier: a union kept each run's open end
	 * for good, refused on a promoted standby (the round-2 review of
	 * 4ee81ec).  An older record replayed again after a restart of the
	 * standby is replaced in turn by the later ones before recovery ends.
	 */
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		if (memcmp(&upstream->ahead[s], &record->ahead[s], sizeof(UnitRuns)) != 0)
		{
			upstream->ahead[s] = record->ahead[s];
			changed = true;
		}
	changed |= deep_units_merge(&upstream->backfill_deep, &record->backfill_deep);
	deep_units_drop_implied(&upstream->backfill_deep, upstream->backfill_low, GEN_SLOT_COUNT);
	return changed;
}

/*
 * With flakeid_lock held, in redo, the state file refused, on a standby or
 * in archive recovery: the bounds just replayed would be kept nowhere, and
 * a restartpoint may pass their record.  An operator who mended the file
 * then (the refusal's hint, before 1.5's fifth auditor) had a usable file
 * without them: once promoted, the server issued its old primary's kuids
 * again (24 of 600, its clock 10 s behind; all 600 after an excursion).
 * So they are saved to REPLAY_LOST_FILE, in the state file's format, with
 * the marks it held before (the replay since this start may lie below
 * them): its presence refuses the state file at every start until a start
 * afresh, which folds its marks in (a text note that kept none sent that
 * start afresh below a primary that had issued ahead of the clock: 1.5's
 * sixth reviewer).  Rewritten only when a record raised something, as the
 * state file is; FATAL when it cannot be (recovery stops before the
 * restartpoint, as for a save that fails).
 */
static void
save_replay_lost_locked(void)
{
	FlakeidPersisted state;
	OwnBounds	own;
	struct stat st;

	/*
	 * (crash recovery replays a primary's own records, which its saves
	 * wrote to the file as well: a file mended after it lacks nothing)
	 */
	if (!mark_shared->archive_recovery)
		return;
	published_bounds(&own);
	current_state(&state, &own);
	if (lstat(REPLAY_LOST_FILE, &st) == 0 && !state_fold_marks_of(REPLAY_LOST_FILE, &state, mark_accepted_foreign_system()))
		ereport(FATAL,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not read the marks of \"%s\", the bounds this server replayed while its state file could not be used", REPLAY_LOST_FILE),
				 errhint("Make it readable by the server, or make this standby again with pg_basebackup.")));
	(void) state_save_copy(REPLAY_LOST_FILE, &state, FATAL);
	/* (the runs current_state counted as under way: not in flakeid.state, so never taken for saved) */
	ahead_end_write(false);
	mark_shared->replay_lost_noted = true;
}

/*
 * With flakeid_lock held, in redo: saves the state with the replayed
 * bounds; FATAL when it cannot.  A damaged, newer or foreign file read at
 * start waits for an operator, as on a primary: it is left as it is.
 */
static void
save_replayed_locked(void)
{
	FlakeidPersisted state;
	OwnBounds	own;

	if (!mark_state_usable())
	{
		save_replay_lost_locked();
		return;
	}
	published_bounds(&own);
	current_state(&state, &own);
	ahead_end_write(state_save(&state, FATAL));
}

/*
 * The state file is rewritten only when the record changed something, and
 * a failure to save stops recovery (FATAL): a restartpoint could otherwise
 * pass a record whose bounds are then kept nowhere.
 */
void
mark_replay(const IssuedBounds *bounds, int64 snowflake_epoch_ms)
{
	bool		changed;

	if (mark_shared == NULL)
		elog(PANIC, "flakeid_redo: flakeid's shared memory is not set up");
	LWLockAcquire(flakeid_lock, LW_EXCLUSIVE);
	changed = raise_upstream(bounds);
	changed |= epoch_take_earlier(snowflake_epoch_ms);
	if (changed)
	{
		if (bounds_exceed_own(&mark_shared->upstream))
			pg_atomic_write_u32(&mark_shared->upstream_pending, 1);
		save_replayed_locked();
	}
	flakeid_lock_release();
}

void
mark_replay_deep(int slot, uint64 unit, uint32 low)
{
	IssuedBounds *upstream = &mark_shared->upstream;

	if (mark_shared == NULL)
		elog(PANIC, "flakeid_redo: flakeid's shared memory is not set up");
	LWLockAcquire(flakeid_lock, LW_EXCLUSIVE);
	switch (deep_record_replay(slot, unit, low))
	{
		case DEEP_LOWER_UNCHANGED:
			break;
		case DEEP_LOWER_LOST:
			ereport(WARNING,
					(errmsg("flakeid_redo: back-fill's record of deep units \"%s\" could not be read at start (or rewritten), so the deep %s unit replayed is kept nowhere: back-fill into past units stays refused until the record is started afresh",
							DEEP_RECORD_FILE, generator_slot_name(slot)),
					 errhint("Set flakeid.start_afresh = on and restart the server once recovery has ended (docs/OPERATIONS.md, \"Starting afresh\").")));
			save_replayed_locked();
			break;
		case DEEP_LOWER_ADDED:
		case DEEP_LOWER_LOWERED:
			/* a new lifetime takes it up once recovery has ended */
			pg_atomic_write_u32(&mark_shared->upstream_pending, 1);
			break;
		case DEEP_LOWER_FULL:
			if (low >= upstream->backfill_low[slot])
				break;
			ereport(WARNING,
					(errmsg("flakeid_redo: back-fill's record of deep units cannot take the primary's deep %s unit, so the primary's low-water of every %s unit is taken down to it",
							generator_slot_name(slot), generator_slot_name(slot)),
					 errhint("Set flakeid.backfill_deep_units_max on a standby at least as high as on its primary, and keep \"%s\" readable.",
							 DEEP_RECORD_FILE)));
			upstream->backfill_low[slot] = low;
			pg_atomic_write_u32(&mark_shared->upstream_pending, 1);
			save_replayed_locked();
			break;
	}
	flakeid_lock_release();
}
