/*
 * mark.c — the saved marks: instants that every issued ID lies before
 *
 * Every counter has a mark (generator.h, MarkId): one for the generators
 * with the monotonic rule, one per sno tick-tock value.  The marks are saved
 * to disk (state.c) ahead of the clock and renewed before they run out, so
 * that a restart, clean or after a crash, resumes above everything issued
 * before it whatever the clock then says (generator_resume_monotonic,
 * generator_resume_sno).  The state file also keeps sno's tick-tock in use
 * and the snowflake epoch.  Every save also goes through the WAL
 * (mark_wal.c), so standbys follow it; the renewer is mark_renewer.c.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "generator.h"

static char *accept_state_from = NULL;

/* the tick-tock sno's counter word carries now */
static bool
sno_ticktock_in_use(void)
{
	return counter_flag(pg_atomic_read_u64(&flakeid_shared->slots[generator_defs[GEN_SNO].first_slot].word.value));
}

void
read_marks(int64 marks[MARK_COUNT])
{
	for (int m = 0; m < MARK_COUNT; m++)
		marks[m] = mark_read((MarkId) m);
}

void
read_backfill_lows(uint32 lows[GEN_SLOT_COUNT])
{
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		lows[s] = pg_atomic_read_u32(&flakeid_shared->backfill_low[s]);
}

/*
 * The state to save: this server's bounds with the given marks and
 * back-fill low-waters and sno's tick-tock from shared memory, the
 * primary's as replayed, and the epoch.
 */
void
current_state(FlakeidPersisted *state, const int64 marks[MARK_COUNT], const uint32 lows[GEN_SLOT_COUNT],
			  int64 snowflake_epoch_ms)
{
	state_set_empty(state);
	memcpy(state->own.marks, marks, sizeof(state->own.marks));
	state->own.sno_ticktock = sno_ticktock_in_use() ? 1 : 0;
	memcpy(state->own.backfill_low, lows, sizeof(state->own.backfill_low));
	state->upstream = flakeid_shared->upstream;
	state->snowflake_epoch_ms = snowflake_epoch_ms;
}

/* whether `bounds` reaches past what this server's counters and back-fill were resumed at */
bool
bounds_exceed_own(const IssuedBounds *bounds)
{
	for (int m = 0; m < MARK_COUNT; m++)
		if (bounds->marks[m] > mark_read((MarkId) m))
			return true;
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		if (bounds->backfill_low[s] < pg_atomic_read_u32(&flakeid_shared->backfill_low[s]))
			return true;
	return false;
}

/*
 * Resumes after `bounds` (this server's, read at start; or its primary's,
 * taken up once recovery has ended): the marks, sno's timeline and every
 * counter only ever move up, and the back-fill low-waters down, so taking
 * up lower bounds changes nothing.  sno resumes with the bounds'
 * tick-tock; the other value may be taken up again only after its mark
 * (spec §5.1).  Back-fill starts a new ledger below every low-water.  At
 * start, or with flakeid_lock held.
 */
static void
adopt_bounds(const IssuedBounds *bounds)
{
	int64		marks[MARK_COUNT];
	bool		flag;
	SnoTimeline timeline = flakeid_shared->sno_timeline;

	for (int m = 0; m < MARK_COUNT; m++)
	{
		marks[m] = Max(bounds->marks[m], mark_read((MarkId) m));
		pg_atomic_write_u64(&flakeid_shared->marks[m].value, (uint64) marks[m]);
	}
	generator_resume_monotonic(marks[MARK_MONOTONIC]);
	flag = generator_resume_sno(&marks[MARK_SNO_FLAG0], (bounds->sno_ticktock & 1) != 0);

	timeline.wall_safe = Max(timeline.wall_safe, mark_unit(&sno_format, marks[flag ? MARK_SNO_FLAG0 : MARK_SNO_FLAG1]));
	if ((timeline.drifts & 1) != (flag ? 1 : 0))
		timeline.drifts++;
	sno_timeline_publish(&timeline);
	generator_note_resumed();
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		uint32		low = Min(bounds->backfill_low[s], pg_atomic_read_u32(&flakeid_shared->backfill_low[s]));

		pg_atomic_write_u32(&flakeid_shared->backfill_low[s], low);
		flakeid_shared->backfill_start_low[s] = low;
	}
	pg_write_barrier();
	pg_atomic_fetch_add_u32(&flakeid_shared->backfill_lifetime, 1);
}

/*
 * Once recovery has ended (promotion, or the end of crash recovery), the
 * primary's bounds replayed from the WAL are taken up, so that nothing its
 * old primary could have issued is issued here, with the same identities.
 * Until then a generating standby issues after its own bounds only: its
 * identities are its own, and its IDs stay near its own clock.  Writes
 * nothing: the state file already holds the replayed bounds, so a restart
 * before the next renewal takes them up again.  Cheap when there is
 * nothing to take up (one atomic read).
 */
void
mark_take_up_upstream(void)
{
	if (likely(pg_atomic_read_u32(&flakeid_shared->upstream_pending) == 0) || RecoveryInProgress())
		return;
	flakeid_lock_acquire();
	if (pg_atomic_read_u32(&flakeid_shared->upstream_pending) != 0)
	{
		IssuedBounds upstream = flakeid_shared->upstream;

		adopt_bounds(&upstream);
		pg_write_barrier();
		pg_atomic_write_u32(&flakeid_shared->upstream_pending, 0);
	}
	LWLockRelease(flakeid_lock);
}

/*
 * A snowflake's value is its Unix millisecond less the epoch, so a later
 * epoch than the one snowflakes were issued under gives values those IDs
 * already had; an earlier one only gives larger values.  The state keeps
 * the epoch of the snowflakes issued (-1 until the first is, or when a 1.0
 * file did not say).  At start, or with flakeid_lock held.
 */
static bool save_locked(const int64 marks[MARK_COUNT], const uint32 lows[GEN_SLOT_COUNT], int64 snowflake_epoch_ms,
						int elevel);

void
check_snowflake_epoch(void)
{
	int64		issued_under = flakeid_shared->snowflake_epoch_ms;

	flakeid_shared->snowflake_epoch_refused =
		issued_under >= 0 && flakeid_configured_snowflake_epoch_ms() > issued_under;
}

/* the accepted value of flakeid.accept_state_from: a system identifier, or 0 */
static uint64
accepted_foreign_system(void)
{
	uint64		system = 0;

	if (accept_state_from == NULL || *accept_state_from == '\0')
		return 0;
	(void) sscanf(accept_state_from, UINT64_FORMAT, &system);
	return system;
}

/*
 * At start (postmaster, shared memory being set up): reads the state file
 * and takes up this server's own bounds (none when there is no file or it
 * cannot be used).  The primary's bounds it holds wait until recovery has
 * ended (mark_take_up_upstream).  A file of an older version, or one an
 * operator accepted from another cluster (flakeid.accept_state_from), is
 * rewritten in the current version for this cluster; a damaged, newer or
 * foreign one makes every generator refuse until an operator acts.  Never
 * raises.
 */
void
mark_startup(void)
{
	FlakeidPersisted saved;
	uint32		file_version = 0;
	StateLoad	load = state_load(&saved, &file_version);

	flakeid_shared->state_file_version = file_version;
	flakeid_shared->state_system_identifier = saved.system_identifier;
	if (load == STATE_LOAD_FOREIGN && saved.system_identifier == accepted_foreign_system())
	{
		ereport(LOG,
				(errmsg("taking up the generator state file of the cluster with system identifier " UINT64_FORMAT ", as flakeid.accept_state_from says",
						saved.system_identifier)));
		load = STATE_LOAD_MIGRATED;
	}
	flakeid_shared->state_refusal = load == STATE_LOAD_DAMAGED ? STATE_DAMAGED
		: load == STATE_LOAD_TOO_NEW ? STATE_TOO_NEW
		: load == STATE_LOAD_FOREIGN ? STATE_FOREIGN : STATE_USABLE;
	if (flakeid_shared->state_refusal != STATE_USABLE)
		state_set_empty(&saved);
	for (int m = 0; m < MARK_COUNT; m++)
		pg_atomic_init_u64(&flakeid_shared->marks[m].value, 0);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		pg_atomic_init_u32(&flakeid_shared->backfill_low[s], BACKFILL_LOW_NONE);
	pg_atomic_init_u32(&flakeid_shared->backfill_lifetime, 0);
	pg_atomic_init_u32(&flakeid_shared->upstream_pending, 0);
	flakeid_shared->snowflake_epoch_ms = saved.snowflake_epoch_ms;
	adopt_bounds(&saved.own);
	flakeid_shared->upstream = saved.upstream;
	pg_atomic_write_u32(&flakeid_shared->upstream_pending, bounds_exceed_own(&saved.upstream) ? 1 : 0);
	check_snowflake_epoch();
	if (load == STATE_LOAD_MIGRATED)
	{
		if (state_save(&saved, LOG) && file_version < STATE_VERSION)
			ereport(LOG,
					(errmsg("upgraded the generator state file from version %u to version %u",
							file_version, STATE_VERSION)));
	}
	if (saved.own.marks[MARK_MONOTONIC] > 0 || saved.own.marks[MARK_SNO_FLAG0] > 0 || saved.own.marks[MARK_SNO_FLAG1] > 0)
	{
		/* timestamptz_to_str returns a static buffer: one call per message part */
		char		monotonic[MAXDATELEN + 1];
		bool		flag = saved.own.sno_ticktock != 0;

		strlcpy(monotonic, timestamptz_to_str(flakeid_timestamptz_from_unix_us(saved.own.marks[MARK_MONOTONIC])),
				sizeof(monotonic));
		ereport(LOG,
				(errmsg("generators resume after the saved mark %s; sno after %s with tick-tock %u",
						monotonic,
						timestamptz_to_str(flakeid_timestamptz_from_unix_us(saved.own.marks[flag ? MARK_SNO_FLAG1 : MARK_SNO_FLAG0])),
						flag ? 1 : 0)));
	}
	if (flakeid_shared->snowflake_epoch_refused)
		ereport(WARNING,
				(errmsg("flakeid.snowflake_epoch_ms was moved from " INT64_FORMAT " to " INT64_FORMAT " after snowflakes were issued; snowflake generation will be refused",
						flakeid_shared->snowflake_epoch_ms, flakeid_configured_snowflake_epoch_ms())));
}

/*
 * For the snowflake generator, before it issues anything: refuses when the
 * configured epoch could repeat issued values, and
 * otherwise makes sure the state (and the WAL) holds the epoch in use
 * before any snowflake is issued under it.  That costs one save on the
 * first snowflake after a change.
 */
void
mark_check_snowflake_epoch(void)
{
	int64		configured = flakeid_configured_snowflake_epoch_ms();

	if (!flakeid_shared->snowflake_epoch_refused && flakeid_shared->snowflake_epoch_ms != configured)
	{
		flakeid_lock_acquire();
		check_snowflake_epoch();	/* a replayed state may have changed it */
		if (!flakeid_shared->snowflake_epoch_refused && flakeid_shared->snowflake_epoch_ms != configured)
		{
			int64		marks[MARK_COUNT];
			uint32		lows[GEN_SLOT_COUNT];

			read_marks(marks);
			read_backfill_lows(lows);
			(void) save_locked(marks, lows, configured, ERROR);
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

/* from _PG_init, while preloading */
void
mark_init(void)
{
	define_string_setting("flakeid.accept_state_from",
						  "Takes up a generator state file written by the cluster with this system identifier.",
						  "For a state file copied on purpose from the cluster this one replaces (pg_upgrade).",
						  &accept_state_from, "", PGC_POSTMASTER, 0, NULL, NULL);
}

/*
 * With flakeid_lock held: logs and writes the state with the given marks,
 * back-fill low-waters and snowflake epoch, then publishes the marks and
 * low-waters (marks only move up, low-waters down, while the server runs).
 * When either fails nothing is published: at ERROR it raises, below it
 * reports the failure at `elevel` and returns false.
 */
static bool
save_locked(const int64 marks[MARK_COUNT], const uint32 lows[GEN_SLOT_COUNT], int64 snowflake_epoch_ms, int elevel)
{
	FlakeidPersisted state;

	if (flakeid_shared->state_refusal != STATE_USABLE)
		mark_refuse_unusable_state();	/* a damaged, newer or foreign file stays as it is */
	current_state(&state, marks, lows, snowflake_epoch_ms);
	mark_wal_log(&state);
	if (!state_save(&state, elevel))
		return false;
	for (int m = 0; m < MARK_COUNT; m++)
		pg_atomic_write_u64(&flakeid_shared->marks[m].value, (uint64) marks[m]);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		pg_atomic_write_u32(&flakeid_shared->backfill_low[s], lows[s]);
	return true;
}

/*
 * With flakeid_lock held: every mark that is not more than `within` ahead
 * of the latest unit start given for it (0: none) moves a reserve ahead of
 * the clock and of that unit, in one save.
 */
RenewOutcome
renew_locked(const int64 latest[MARK_COUNT], int64 within, int elevel)
{
	int64		marks[MARK_COUNT];
	uint32		lows[GEN_SLOT_COUNT];
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
	read_backfill_lows(lows);
	return save_locked(marks, lows, flakeid_shared->snowflake_epoch_ms, elevel) ? RENEW_SAVED : RENEW_FAILED;
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

void
mark_lower_backfill_low(int slot, uint32 low)
{
	flakeid_lock_acquire();
	if (low < pg_atomic_read_u32(&flakeid_shared->backfill_low[slot]))
	{
		int64		marks[MARK_COUNT];
		uint32		lows[GEN_SLOT_COUNT];

		read_marks(marks);
		read_backfill_lows(lows);
		lows[slot] = low;
		(void) save_locked(marks, lows, flakeid_shared->snowflake_epoch_ms, ERROR);
	}
	LWLockRelease(flakeid_lock);
}

void
mark_refuse_unusable_state(void)
{
	if (flakeid_shared->state_refusal == STATE_TOO_NEW)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("flakeid's generator state file was written by a newer version of flakeid"),
				 errdetail("The file \"flakeid.state\" has state version %u; this version of flakeid reads versions 1 to %u.",
						   flakeid_shared->state_file_version, STATE_VERSION),
				 errhint("Install the flakeid release that wrote the file, or remove the file once the clock is past every ID issued and restart the server.")));
	if (flakeid_shared->state_refusal == STATE_FOREIGN)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's generator state file belongs to another cluster, so generation is refused"),
				 errdetail("The file \"flakeid.state\" was written by the cluster with system identifier " UINT64_FORMAT "; this cluster's is " UINT64_FORMAT ".",
						   flakeid_shared->state_system_identifier, GetSystemIdentifier()),
				 errhint("If the file was copied on purpose from the cluster this one replaces (pg_upgrade), set flakeid.accept_state_from = '" UINT64_FORMAT "' and restart the server; otherwise remove \"flakeid.state\" once the clock is past every ID this cluster issued, and restart the server.",
						 flakeid_shared->state_system_identifier)));
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
 * renewal (on flakeid_lock, which a cancel ends), and a failure to save is
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
			LWLockRelease(flakeid_lock);
		}
	}
	else
	{
		flakeid_lock_acquire();
		outcome = renew_one_locked(which, unit_start, ERROR);
		LWLockRelease(flakeid_lock);
	}
	if (outcome == RENEW_SAVED)
		ereport(DEBUG1,
				(errmsg_internal("a generator call renewed the saved mark%s",
								 unit_start < mark ? "" : ", past it")));
}

