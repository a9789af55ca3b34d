/*
 * resume.c — where the marks meet the counters
 *
 * The marks (marks.c) never move a counter: at start they hand the saved
 * bounds here, and after replay they keep the primary's bounds until
 * recovery has ended; this module resumes the counters after them.  It
 * also saves the high-water mark at a clean stop.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/ipc.h"

#include "base/epoch.h"
#include "base/shmem.h"
#include "durable/deep_record.h"
#include "durable/issued_ahead.h"
#include "durable/state_seal.h"
#include "generator/counters.h"
#include "generator/resume.h"

/*
 * Resumes after `bounds` (this server's, read at start: `own_file`; or its
 * primary's, taken up once recovery has ended): the marks, sno's timeline
 * and every counter only ever move up, the back-fill low-waters down, and
 * the runs of units issued ahead of the clock only grow (issued_ahead.h: this
 * server's file holds its own already; the primary's are saved with the
 * next save), so taking up lower bounds changes nothing.  sno resumes with the bounds'
 * tick-tock.  Back-fill starts a new lifetime below every low-water.  At
 * start, or with flakeid_lock held.
 */
static void
resume_after(const IssuedBounds *bounds, bool own_file)
{
	int64		marks[MARK_COUNT];

	/* (before the counters move: back-fill that sees them moved sees the runs) */
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		ahead_take_up(s, &bounds->ahead[s], own_file);
	pg_memory_barrier();
	mark_raise(bounds, marks);
	mark_set_sno_ticktock(counters_resume(marks, (bounds->sno_ticktock & 1) != 0));
	mark_begin_backfill_lifetime(bounds);
}

/*
 * Until recovery ends, a generating standby issues after its own bounds
 * only: its identities are its own, and its IDs stay near its own clock.
 * Writes nothing: the state file already holds the replayed bounds, so a
 * restart before the next renewal takes them up again.
 */
void
resume_take_up_upstream_pending(void)
{
	if (RecoveryInProgress())
		return;
	flakeid_lock_acquire();
	if (mark_upstream_pending())
	{
		IssuedBounds upstream;

		mark_read_upstream(&upstream);
		resume_after(&upstream, false);
		mark_upstream_taken_up();
	}
	flakeid_lock_release();
}

/*
 * In the postmaster as it exits, every other process gone: the counters
 * hold every ID ever published, so the saved marks can come down to just
 * past the latest used units.  A server restarted at once then resumes
 * where it stopped; with the reserve, each restart that minted would move
 * the IDs (and the mark) 2 s further ahead of the clock.  A crash skips
 * this and resumes after the saved mark.  Never raises.
 */
static void
save_high_water_at_exit(int code, Datum arg pg_attribute_unused())
{
	int64		latest[MARK_COUNT];

	/* a clean exit only: after a crash, shared memory is not trusted */
	if (code != 0 || IsUnderPostmaster)
		return;
	counters_latest_unit_starts(latest, true);
	mark_save_high_water(latest);
}

/*
 * In the postmaster, once every part of shared memory is set up (again
 * after a crash): the state file's own bounds resume the counters; its
 * primary's bounds wait until recovery has ended.  shmem_exit forgets the
 * exit callback before shared memory is set up again after a crash, and
 * children forget it as they start.  Never raises.
 */
static void
resume_at_start(void)
{
	FlakeidPersisted saved;
	uint64		sealed_deep;

	mark_load_state(&saved);
	mark_start_afresh_if_asked(&saved);
	mark_set_up_shared(&saved);
	/* (an older copy of flakeid.deep beside the state the last clean stop sealed: state_seal.h) */
	deep_record_load(saved.deep_record, state_seal_deep_size(&sealed_deep) ? &sealed_deep : NULL);
	mark_backfill_afresh(&saved);
	if (!deep_record_usable())
		state_seal_deep_refused();
	mark_take_over_copy(&saved);
	mark_name_deep_record(&saved);
	epoch_set_issued_under(saved.snowflake_epoch_ms);
	resume_after(&saved.own, true);
	mark_set_upstream(&saved.upstream);
	epoch_warn_if_refused();
	if (!IsUnderPostmaster)
		on_shmem_exit(save_high_water_at_exit, (Datum) 0);
}

void
resume_init(void)
{
	shmem_at_startup(resume_at_start);
}
