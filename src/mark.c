/*
 * mark.c — the saved mark: an instant that every issued ID lies before
 *
 * The mark is saved to disk (state.c) ahead of the clock and renewed before
 * it runs out, so that a restart, clean or after a crash, resumes above
 * everything issued before it whatever the clock then says
 * (generator.c restore_counters).  The state file also keeps sno's
 * tick-tock and the bound of the tick-tock it left.
 */
#include "postgres.h"

#include "utils/timestamp.h"

#include "generator.h"

/*
 * At start (postmaster, shared memory being set up): reads the state file
 * into *saved, all zero when there is none or it cannot be used, and
 * publishes the mark and sno's timeline.  A file of an older version is
 * rewritten in the current one; a damaged or newer one makes every
 * generator refuse (mark_ensure) until an operator acts.
 */
void
mark_startup(FlakeidPersisted *saved)
{
	uint32		file_version = 0;
	StateLoad	load = state_load(saved, &file_version);

	flakeid_shared->state_file_version = file_version;
	flakeid_shared->state_refusal = load == STATE_LOAD_DAMAGED ? STATE_DAMAGED
		: load == STATE_LOAD_TOO_NEW ? STATE_TOO_NEW : STATE_USABLE;
	if (flakeid_shared->state_refusal != STATE_USABLE)
		memset(saved, 0, sizeof(*saved));
	if (load == STATE_LOAD_MIGRATED && state_save(saved, LOG))
		ereport(LOG,
				(errmsg("upgraded the generator state file from version %u to version %u",
						file_version, STATE_VERSION)));

	pg_atomic_init_u64(&flakeid_shared->mark_unix_us.value, (uint64) Max(saved->mark_unix_us, 0));
	flakeid_shared->sno_other_bound_unix_us = saved->sno_other_bound_unix_us;
	flakeid_shared->sno_timeline.drifts = saved->sno_ticktock & 1;
	flakeid_shared->sno_timeline.wall_safe = 0;
	if (saved->sno_other_bound_unix_us > 0)
		(void) sno_format.units_at(saved->sno_other_bound_unix_us, &flakeid_shared->sno_timeline.wall_safe);
	if (saved->mark_unix_us > 0)
		ereport(LOG,
				(errmsg("generators resume after the saved mark %s",
						timestamptz_to_str(flakeid_timestamptz_from_unix_us(saved->mark_unix_us)))));
}

/* With flakeid_lock held: writes the state with the given mark, then publishes the mark. */
void
mark_save_locked(int64 mark_unix_us)
{
	FlakeidPersisted state = {0};

	state.mark_unix_us = mark_unix_us;
	state.sno_other_bound_unix_us = flakeid_shared->sno_other_bound_unix_us;
	state.sno_ticktock = counter_flag(pg_atomic_read_u64(&flakeid_shared->slots[generator_defs[GEN_SNO].first_slot].word.value)) ? 1 : 0;
	(void) state_save(&state, ERROR);
	pg_atomic_write_u64(&flakeid_shared->mark_unix_us.value, (uint64) mark_unix_us);
}

/* With flakeid_lock held: moves the mark a reserve ahead of the clock and of `unit_start`. */
void
mark_renew_locked(int64 unit_start)
{
	int64		mark = (int64) pg_atomic_read_u64(&flakeid_shared->mark_unix_us.value);

	if (unit_start + MARK_RENEW_US < mark)
		return;					/* another backend renewed it meanwhile */
	mark_save_locked(Max(Max(flakeid_clock_unix_us(), unit_start + 1) + MARK_RESERVE_US, mark));
}

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
 * `unit_start`.  One backend renews it (the others go on, since they are
 * still covered); only past the mark does a caller wait for the renewal.
 * Renewing takes flakeid_lock and fsyncs the state file; a failure to save
 * is an ERROR (nothing is issued then).  Raises XX001 or 55000 when the
 * state file read at start cannot be used.
 */
void
mark_ensure_renewed(int64 unit_start)
{
	int64		mark = (int64) pg_atomic_read_u64(&flakeid_shared->mark_unix_us.value);

	if (flakeid_shared->state_refusal != STATE_USABLE)
		refuse_unusable_state();
	if (unit_start + MARK_RENEW_US < mark)
		return;
	if (unit_start < mark)
	{
		if (LWLockConditionalAcquire(flakeid_lock, LW_EXCLUSIVE))
		{
			mark_renew_locked(unit_start);
			LWLockRelease(flakeid_lock);
		}
		return;
	}
	LWLockAcquire(flakeid_lock, LW_EXCLUSIVE);
	mark_renew_locked(unit_start);
	LWLockRelease(flakeid_lock);
}
