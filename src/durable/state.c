/*
 * state.c — the file that carries the generators' state across restarts:
 * "flakeid.state" in the data directory, replaced whole and durably
 * (durable_file.h)
 *
 * Its bytes, every version of them, are the codec's (persisted/persisted.h):
 * this module turns them into the bounds by counter slot and back, by the
 * slots' names, so that a generator added later is a name the file did not
 * have (its bounds start empty), not a new format.  A file of an older
 * version is read and then rewritten in the current one (a migration).  A
 * file of a newer version, or one naming a counter slot this flakeid does
 * not have, is refused, naming the versions: its fields may say more than
 * this code understands, and guessing could repeat IDs.
 *
 * A file whose system identifier is not this cluster's was copied from
 * another one: its marks say nothing about this cluster's IDs, so it is
 * refused like a damaged file (unless flakeid.accept_state_from names it:
 * marks_setup.c).  A file of an older release (versions 1 to 3; 1 and 2
 * record no system identifier) is taken up only where this cluster could
 * have written it (old_file_refusal).  A mark no save could have written is
 * damage.
 */
#include "postgres.h"

#include <unistd.h>

#include "access/xlog.h"
#include "utils/timestamp.h"

#include "base/clock.h"
#include "base/table.h"
#include "durable/durable_file.h"
#include "durable/state.h"
#include "durable/state_seal.h"
#include "durable/state_witness.h"

void
bounds_set_empty(IssuedBounds *bounds)
{
	memset(bounds, 0, sizeof(*bounds));
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		bounds->backfill_low[s] = BACKFILL_LOW_NONE;
	deep_units_clear(&bounds->backfill_deep);
}

void
state_set_empty(FlakeidPersisted *state)
{
	memset(state, 0, sizeof(*state));
	state->snowflake_epoch_ms = -1;
	bounds_set_empty(&state->own);
	bounds_set_empty(&state->upstream);
}

void
bounds_to_persisted(const IssuedBounds *bounds, PersistedBounds *persisted)
{
	persisted_bounds_empty(persisted);
	/* (persisted/persisted.h: the latest monotonic mark where 1.4 reads its one, and each beside it) */
	for (int g = 0; g < GEN_COUNT; g++)
		if (!generator_defs[g].ticktock)
		{
			int64		mark = bounds->marks[generator_defs[g].mark];

			persisted->marks[0] = Max(persisted->marks[0], mark);
			(void) persisted_add_generator_mark(persisted, generator_defs[g].name, mark);
		}
	persisted->marks[1] = bounds->marks[MARK_SNO_FLAG0];
	persisted->marks[2] = bounds->marks[MARK_SNO_FLAG1];
	persisted->sno_ticktock = bounds->sno_ticktock & 1;
	persisted->backfill_floor_us = bounds->backfill_floor;
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		if (bounds->backfill_low[s] != BACKFILL_LOW_NONE)
			(void) persisted_add_low(persisted, generator_slot_name(s), bounds->backfill_low[s]);
	for (uint32 i = 0; i < bounds->backfill_deep.count; i++)
	{
		const DeepRange *range = &bounds->backfill_deep.ranges[i];

		(void) persisted_add_deep(persisted, generator_slot_name((int) range->slot), range->first, range->last,
								  range->low);
	}
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		if (bounds->ahead[s].count > 0)
			(void) persisted_add_ahead(persisted, generator_slot_name(s), &bounds->ahead[s]);
}

/* the own mark of the monotonic generator NAME, or -1 for a name this release has none for */
static int
monotonic_mark_named(const char *name)
{
	for (int g = 0; g < GEN_COUNT; g++)
		if (!generator_defs[g].ticktock && strcmp(generator_defs[g].name, name) == 0)
			return generator_defs[g].mark;
	return -1;
}

const char *
bounds_from_persisted(const PersistedBounds *persisted, IssuedBounds *bounds)
{
	bounds_set_empty(bounds);
	/* a monotonic generator the file names no mark of (1.4's, or a record of 1.4) takes the one they shared */
	for (int m = 0; m < MARK_MONOTONIC_COUNT; m++)
		bounds->marks[m] = persisted->marks[0];
	bounds->marks[MARK_SNO_FLAG0] = persisted->marks[1];
	bounds->marks[MARK_SNO_FLAG1] = persisted->marks[2];
	/*
	 * The entry is not required: one naming a generator this release has
	 * no monotonic mark for (a later release's) is left out, as 1.4 leaves
	 * them all out; refused, its reason was "written by a newer version" of
	 * a file whose version this release reads (1.5's auditor).  Its mark
	 * is not lost at the next save, which writes the latest of this
	 * release's monotonic marks where MARKS[0] was: each of them is raised
	 * to it, as 1.4 resumes them all after MARKS[0] (1.5's reviewer: else a
	 * round trip through this release lowered MARKS[0] below the mark of a
	 * later release's generator, which falls back to it there).
	 */
	for (uint32 i = 0; i < persisted->ngenerator_marks; i++)
	{
		const PersistedGeneratorMark *own = &persisted->generator_marks[i];
		int			mark = monotonic_mark_named(own->generator);

		if (mark >= 0)
			bounds->marks[mark] = own->mark;
	}
	for (uint32 i = 0; i < persisted->ngenerator_marks; i++)
		if (monotonic_mark_named(persisted->generator_marks[i].generator) < 0)
			for (int m = 0; m < MARK_MONOTONIC_COUNT; m++)
				bounds->marks[m] = Max(bounds->marks[m], persisted->generator_marks[i].mark);
	bounds->sno_ticktock = persisted->sno_ticktock & 1;
	bounds->backfill_floor = persisted->backfill_floor_us;
	for (uint32 i = 0; i < persisted->nlows; i++)
	{
		int			slot = generator_slot_by_name(persisted->lows[i].slot);

		if (slot < 0)
			return persisted->lows[i].slot;
		bounds->backfill_low[slot] = persisted->lows[i].low;
	}
	for (uint32 i = 0; i < persisted->ndeep; i++)
	{
		const PersistedDeep *deep = &persisted->deep[i];
		int			slot = generator_slot_by_name(deep->slot);

		if (slot < 0)
			return deep->slot;
		(void) deep_units_lower(&bounds->backfill_deep, (unsigned) slot, deep->first, deep->last, deep->low);
	}
	for (uint32 i = 0; i < persisted->nahead; i++)
	{
		int			slot = generator_slot_by_name(persisted->ahead[i].slot);

		if (slot < 0)
			return persisted->ahead[i].slot;
		bounds->ahead[slot] = persisted->ahead[i].runs;
	}
	return NULL;
}

static StateLoad
refuse_damaged(const char *detail)
{
	ereport(LOG,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("the generator state file \"%s\" is damaged", STATE_FILE),
			 errdetail_internal("%s", detail)));
	return STATE_LOAD_DAMAGED;
}

static StateLoad
refuse_too_new(uint32 version, const char *unknown_slot)
{
	ereport(LOG,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("the generator state file \"%s\" was written by a newer version of flakeid", STATE_FILE),
			 unknown_slot ?
			 errdetail("The file names the counter \"%s\", which this version of flakeid does not have. Generation is refused.",
					   unknown_slot) :
			 errdetail("The file has state version %u; this version of flakeid reads versions 1 to %u. Generation is refused.",
					   version, STATE_VERSION)));
	return STATE_LOAD_TOO_NEW;
}

/*
 * A file of version 1, 2 or 3 (1.0, 1.1, 1.2) is taken up only where this
 * cluster could have written it (versions 1 and 2 name no cluster; version
 * 3 names one, but a stale copy of this cluster's own is still this
 * cluster's):
 *
 *   - this cluster's witness (state_witness.h) is absent: from 1.3 on the
 *     first save writes it and every save a version 4 file, so an older file
 *     of this cluster's beside it is a stale or copied one (a file naming
 *     another cluster, which flakeid.accept_state_from may take, is not
 *     judged by it);
 *   - no mark lies further ahead of the clock than a save leaves one: at
 *     most MARK_RESERVE_US past the later of the clock and the latest ID,
 *     which stays within ADVANCE_LEAD_US of the clock.
 *
 * Otherwise the file is refused as damaged: a mark far ahead would make
 * every generator issue there (a crafted mark in 2080 did).  A clock set
 * back by more than that lead since an old release's save is refused too,
 * the safe way.  Returns the refusal's detail, or NULL to take the file up.
 */
/* whether the last state_load refused an older release's file for a mark ahead of the clock */
static bool old_marks_ahead = false;

/* whether the last state_load refused a file it could not open or read (logged there) */
static bool unreadable = false;

bool
state_load_refused_unreadable(void)
{
	return unreadable;
}

bool
state_load_refused_old_marks_ahead(void)
{
	return old_marks_ahead;
}

static const char *
old_file_refusal(const FlakeidPersisted *state, uint32 version, bool foreign)
{
	const int64 lead = ADVANCE_LEAD_US + MARK_RESERVE_US;
	const IssuedBounds *sides[] = {&state->own, &state->upstream};
	int64		clock;

	if (version >= STATE_VERSION)
		return NULL;
	/* (this cluster's witness says nothing of a file of another one: flakeid.accept_state_from's) */
	if (!foreign && state_witness_says_issued())
		return psprintf("It has state version %u, but \"%s\" says this cluster has written version %u since.",
						version, STATE_WITNESS_FILE, STATE_VERSION);
	clock = flakeid_clock_unix_us();
	for (int side = 0; side < 2; side++)
		for (int m = 0; m < MARK_COUNT; m++)
			if (sides[side]->marks[m] > clock + lead)
				return (old_marks_ahead = true), psprintf("It has state version %u, and its mark %s lies more than %d s ahead of this server's clock, further than any save leaves one; a start afresh resumes after it.",
								version, timestamptz_to_str(flakeid_timestamptz_from_unix_us(sides[side]->marks[m])),
								(int) (lead / USECS_PER_SEC));
	return NULL;
}

/*
 * Folds the marks of the state file at PATH (relative to the data
 * directory) into *into, the later of each, and its snowflake epoch where
 * *into knows none: for start afresh, whose resume point must lie past the
 * marks of a file a refusal set aside (marks_afresh.c).  Only a file of
 * this cluster, or of the cluster `accepted` names (flakeid.accept_state_from:
 * pg_upgrade's new cluster takes the old one's files, 0 none), that this
 * release reads whole counts; false for any other, which is left out.
 * Never raises.
 */
bool
state_fold_marks_of(const char *path, FlakeidPersisted *into, uint64 accepted)
{
	static uint8 file[PERSISTED_FILE_MAX];
	static PersistedState persisted;
	FlakeidPersisted read;
	IssuedBounds *sides[] = {&into->own, &into->upstream};
	const IssuedBounds *read_sides[] = {&read.own, &read.upstream};
	uint32		version;
	size_t		size;

	PersistedVerdict verdict;

	if (durable_file_read(path, file, sizeof(file), &size) != DURABLE_READ_OK)
		return false;
	verdict = persisted_state_decode(file, size, GetSystemIdentifier(), &persisted, &version);
	/*
	 * (the old cluster's flakeid.state.replay-lost and .ahead, copied beside
	 * its flakeid.state by pg_upgrade's steps: left out, the new cluster's
	 * start afresh failed on them; not copied, it took up a file lacking
	 * what they held and issued its old primary's kuids again, 1,496 of
	 * 3,000: 1.5's seventh auditor)
	 */
	if (verdict == PERSISTED_FOREIGN && accepted != 0)
		verdict = persisted_state_decode(file, size, accepted, &persisted, &version);
	if (verdict != PERSISTED_OK)
		return false;
	/*
	 * (the marks are read before any counter slot: a later release's file,
	 * naming a slot this one lacks, gives its marks all the same)
	 */
	(void) bounds_from_persisted(&persisted.own, &read.own);
	(void) bounds_from_persisted(&persisted.upstream, &read.upstream);
	for (int side = 0; side < 2; side++)
		for (int m = 0; m < MARK_COUNT; m++)
			sides[side]->marks[m] = Max(sides[side]->marks[m], read_sides[side]->marks[m]);
	/* (the earliest epoch snowflakes were issued under, as the field says: never the first file listed) */
	if (persisted.snowflake_epoch_ms >= 0 &&
		(into->snowflake_epoch_ms < 0 || persisted.snowflake_epoch_ms < into->snowflake_epoch_ms))
		into->snowflake_epoch_ms = persisted.snowflake_epoch_ms;
	return true;
}

/*
 * Reads the file at server start into *state (all zero, the epoch -1,
 * unless loaded) and sets *file_version (0 without a file).  Logs why a
 * file cannot be used.  A refused file whose marks could be read (another
 * cluster's, an old release's refused by old_file_refusal, one not the
 * last clean stop's) is left loaded for start afresh; the caller must not
 * issue from a refused state.  Never
 * raises an error: it runs in the postmaster.
 */
StateLoad
state_load(FlakeidPersisted *state, uint32 *file_version)
{
	static uint8 file[PERSISTED_FILE_MAX];
	static PersistedState persisted;
	PersistedVerdict verdict;
	size_t		size;
	const char *unknown;
	const char *unknown_upstream;
	const char *detail;

	state_set_empty(state);
	*file_version = 0;
	old_marks_ahead = false;
	unreadable = false;
	state_seal_start();
	switch (durable_file_read(STATE_FILE, file, sizeof(file), &size))
	{
		case DURABLE_READ_NONE:
			return state_witness_allows_first_start() ? STATE_LOAD_NONE : STATE_LOAD_MISSING;
		case DURABLE_READ_FAILED:
			{
				struct stat st;

				/*
				 * (a regular file the server may not read or write: its
				 * owner or mode, which given back loses nothing; not a
				 * directory or FIFO in its place, a file too large, an I/O
				 * error, whose content is gone or unknown: 1.5's sixth
				 * reviewer)
				 */
				unreadable = lstat(STATE_FILE, &st) == 0 && S_ISREG(st.st_mode) &&
					access(STATE_FILE, R_OK | W_OK) != 0;
			}
			return STATE_LOAD_DAMAGED;
		case DURABLE_READ_OK:
			break;
	}
	verdict = persisted_state_decode(file, size, GetSystemIdentifier(), &persisted, file_version);
	if (verdict == PERSISTED_TOO_NEW)
		return refuse_too_new(*file_version, NULL);
	if (verdict == PERSISTED_DAMAGED)
		return refuse_damaged(*file_version == 0 ?
							  "It does not begin with the state file's magic number and a version." :
							  psprintf("Its length, checksum, entries or marks are not what a save of state version %u writes.",
									   *file_version));
	state->system_identifier = persisted.system_identifier;
	state->snowflake_epoch_ms = persisted.snowflake_epoch_ms;
	state->deep_record = persisted.deep_record;
	/*
	 * A later release's file naming a counter slot this one lacks is
	 * refused, but its marks (read before any slot: bounds_from_persisted)
	 * stay in *state, both sides, as an old release's do below: a later
	 * release writes such entries exactly when a counter ran ahead of the
	 * clock, and the start afresh the refusal's hint asks for must resume
	 * after them.  Emptied here, it resumed at the clock + 62 s, below IDs
	 * minted an hour ahead (1.5's second reviewer).  The caller empties a
	 * refused state unless start afresh reads it.
	 */
	unknown = bounds_from_persisted(&persisted.own, &state->own);
	unknown_upstream = bounds_from_persisted(&persisted.upstream, &state->upstream);
	if (unknown == NULL)
		unknown = unknown_upstream;
	if (unknown != NULL)
		return refuse_too_new(*file_version, unknown);
	/*
	 * An old release's file refused here keeps its marks in *state, as
	 * another cluster's does: start afresh must resume after them
	 * (afresh_instant), and one refused for a mark ahead of the clock is
	 * exactly one whose marks lie past the clock + 62 s that afresh would
	 * otherwise take.  Emptied here, it resumed below them and repeated
	 * every ID minted there (1.4's auditor: 6,545 snowflakes).  The caller
	 * empties a refused state unless start afresh reads it.
	 */
	if ((detail = old_file_refusal(state, *file_version, verdict == PERSISTED_FOREIGN)) != NULL)
		return refuse_damaged(detail);
	if (verdict != PERSISTED_FOREIGN &&
		(detail = state_seal_stale(persisted.has_stop, persisted.stop_checkpoint, persisted.stop_deep_size)) != NULL)
	{
		/*
		 * Set aside at once (not in ereport's arguments: those are not
		 * evaluated when LOG goes nowhere): missing, it stays refused, for
		 * the witness says IDs were issued first.  (Absent, the renewer
		 * wrote "no ID yet" beside the refused state, and the next start
		 * took the moved file for a first start at the clock: 1.4's last
		 * reviewer, 161,873 snowflakes issued twice.)  Where that cannot be
		 * written, the file stays in place, refused.
		 */
		if (state_witness_mark_issued(LOG))
			detail = state_seal_set_aside(STATE_FILE, detail, true);
		else
			state_seal_refuse();
		/*
		 * Its marks stay loaded for a start afresh at this start, and at
		 * a later one where it could not be moved (read-only: durable_rename
		 * opens it for writing), which refuses it here again: emptied, a
		 * start afresh beside a file left in place resumed at the clock +
		 * 62 s, below its marks (1.5's auditor: 161 snowflakes again).  A
		 * moved one's marks are read from its new name
		 * (marks_afresh.c).  The caller empties a refused state.
		 */
		ereport(LOG,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the generator state file \"%s\" is not the one the last clean stop saved", STATE_FILE),
				 errdetail_internal("%s Generation is refused.", detail)));
		return STATE_LOAD_STALE;
	}
	if (verdict == PERSISTED_FOREIGN)
	{
		state_seal_foreign(persisted.has_stop, persisted.stop_checkpoint, persisted.stop_deep_size);
		ereport(LOG,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the generator state file \"%s\" belongs to another cluster", STATE_FILE),
				 errdetail("It was written by the cluster with system identifier " UINT64_FORMAT "; this cluster's is " UINT64_FORMAT ". Generation is refused.",
						   state->system_identifier, GetSystemIdentifier())));
		return STATE_LOAD_FOREIGN;
	}
	return *file_version == STATE_VERSION ? STATE_LOAD_CURRENT : STATE_LOAD_MIGRATED;
}
