/*
 * state_save.c — flakeid.state written (state.h): the state encoded by the
 * codec, sealed by the stop it is saved at (state_seal.h), written whole
 * and durably, and kept as well in flakeid.state.ahead where its marks lie
 * past the lead; the witness ensured after it.  Reading it is state.c's.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "utils/timestamp.h"

#include "base/clock.h"
#include "durable/durable_file.h"
#include "durable/state.h"
#include "durable/state_seal.h"
#include "durable/state_witness.h"

/*
 * Whether a mark of *state lies further ahead of the clock than a save
 * leaves one (ADVANCE_LEAD_US + MARK_RESERVE_US, 62 s): a start afresh or
 * a takeover resumed past marks ahead of it (a clock set back since they
 * were saved, an excursion of NTP), or back-fill went ahead of it, and the
 * generators went on there, where
 * no renewal waits for the clock (marks.c).  A start afresh counts on that
 * bound to resume past what a lost file covered, from the clock and the
 * last checkpoint's time (marks_afresh.c); such a save is past it, and is
 * kept as well in STATE_AHEAD_FILE, which a start afresh folds in.  (The
 * second more: a start afresh's own save lies up to a second further, its
 * instant the checkpoint's time in whole seconds + 1, which the next one
 * reads again.)
 */
static bool
marks_past_lead(const FlakeidPersisted *state)
{
	const IssuedBounds *sides[] = {&state->own, &state->upstream};
	int64		clock = flakeid_clock_unix_us();

	for (int side = 0; side < 2; side++)
		for (int m = 0; m < MARK_COUNT; m++)
			if (sides[side]->marks[m] > clock + ADVANCE_LEAD_US + MARK_RESERVE_US + USECS_PER_SEC)
				return true;
	return false;
}

/* the state as a file's bytes, sealed by the stop given (0: none), in a buffer of its own */
static const uint8 *
encode(const FlakeidPersisted *state, uint64 stop_checkpoint, uint64 stop_deep_size, size_t *size)
{
	static PersistedState persisted;
	static uint8 file[PERSISTED_FILE_MAX];

	persisted_state_empty(&persisted);
	persisted.has_stop = true;
	persisted.stop_checkpoint = stop_checkpoint;
	persisted.stop_deep_size = stop_deep_size;
	persisted.system_identifier = GetSystemIdentifier();
	persisted.snowflake_epoch_ms = state->snowflake_epoch_ms;
	persisted.deep_record = state->deep_record;
	bounds_to_persisted(&state->own, &persisted.own);
	bounds_to_persisted(&state->upstream, &persisted.upstream);
	*size = persisted_state_encode(&persisted, file, sizeof(file));
	if (*size == 0)
		elog(ERROR, "flakeid's state does not fit in %d bytes", PERSISTED_FILE_MAX);
	return file;
}

/*
 * Writes the state in the current version, durably, before returning, and
 * the witness that this cluster issued IDs.  A save with marks past the
 * lead (marks_past_lead) is written first to STATE_AHEAD_FILE, then to the
 * state file: the marks of a lifetime ahead of the clock stay on disk
 * where no copy of flakeid.state put back over it, and no damage to it,
 * takes them (1.5's fourth reviewer: a second start afresh folded again
 * only the marks the first had folded, resumed where the first had, and
 * issued again every ID of the lifetime between, 2,000 of 2,000
 * snowflakes).  Written first, a failure between the two leaves the marks
 * there ahead of the state file's, never behind.  Each such save replaces
 * the last: marks rise, but for a clean stop's, lowered to the latest IDs
 * issued (resume.c), which still lie past every ID.  It stays once the
 * clock has passed its marks; a start afresh then reads marks behind the
 * clock, which change nothing.  Only saves past the lead at the time they
 * are made are kept there: marks saved while the clock itself ran ahead
 * lie within the lead of that clock, and a clock then set back leaves
 * them to the state file alone.  A failure is reported at
 * `elevel`: with ERROR (the generators) nothing is issued; below it (the
 * postmaster at start) it returns false.
 */
static bool
save(const FlakeidPersisted *state, int elevel, uint64 stop_checkpoint, uint64 stop_deep_size)
{
	size_t		size;
	const uint8 *file = encode(state, stop_checkpoint, stop_deep_size, &size);

	if (marks_past_lead(state) && !durable_file_write(STATE_AHEAD_FILE, file, size, elevel))
		return false;
	return durable_file_write(STATE_FILE, file, size, elevel) && state_witness_ensure(elevel);
}

bool
state_save_copy(const char *path, const FlakeidPersisted *state, int elevel)
{
	size_t		size;
	const uint8 *file = encode(state, 0, 0, &size);

	return durable_file_write(path, file, size, elevel);
}

bool
state_save(const FlakeidPersisted *state, int elevel)
{
	/*
	 * (a save while the server runs: sealed with 0, so that a copy of it is
	 * told from a stop's; one in the postmaster at start: by the stop it
	 * starts from, state_seal_for_save; flakeid.deep named by its literal
	 * here, since deep_record.h leads back to this file)
	 */
	return save(state, elevel, state_seal_for_save(),
				state_seal_for_save() == 0 ? state_seal_carried_deep() : state_seal_of_file("flakeid.deep"));
}

bool
state_save_at_stop(const FlakeidPersisted *state, bool lowered, bool deep_used, uint64 deep_size_now)
{
	uint64		checkpoint;
	uint64		deep_size;

	if (state_seal_at_stop(deep_used, deep_size_now, &checkpoint, &deep_size))
	{
		if (save(state, LOG, checkpoint, deep_size))
			return true;
		state_seal_unsaved_stop(checkpoint);
		return false;
	}
	return lowered && save(state, LOG, 0, state_seal_carried_deep());
}
