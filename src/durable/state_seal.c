/*
 * state_seal.c — the seal a clean stop puts on flakeid.state (state_seal.h)
 *
 * A start replays the WAL from the last checkpoint's redo point, and with
 * it every save (ISSUED record) and deep unit (DEEP record) after it; what
 * was saved before that point is only in flakeid.state and flakeid.deep.
 * An older copy of them put back (a careless restore, "the file I had")
 * lacks the saves since: the marks behind IDs already issued, back-fill's
 * low-waters above sequences already given, deep units missing.  Its
 * checksum is good and it names this cluster, so nothing else tells it
 * apart (the fault campaign's restore of a copy a few seconds old repeated
 * thousands of IDs).
 *
 * So the postmaster, as it exits after a clean stop, saves the state once
 * more with a seal: the WAL position of the shutdown checkpoint, which
 * pg_control names and no later stop repeats, and a hash of flakeid.deep's
 * bytes (state_seal_of_file).  At the next start, where pg_control says the
 * server stopped cleanly (the start replays nothing before that checkpoint,
 * archive recovery included), a file of 1.4 whose seal is not that
 * checkpoint's (an older copy, or one saved while the server ran) is
 * refused and set aside at once (state.c: a later start, after a crash of
 * this lifetime or an immediate stop, would not know to refuse it, and finds
 * it missing), and a flakeid.deep of other bytes than the seal's refuses
 * back-fill into past units (resume.c).  The way on: the files that stop
 * saved, or a fresh start.  Every save while the server runs writes the
 * seal as 0, so a copy taken then is told apart too.
 *
 * A lifetime that refused generation for its state file (missing, damaged,
 * an older copy) issued nothing, so the very file that stop sealed is still
 * right after it: its clean stop writes the note flakeid.state.passed, "no
 * ID from the stop at A to the stop at B", which the next start honours for
 * a file sealed A, and extends over another such lifetime.  A lifetime
 * whose flakeid.deep could not be used back-filled into no past unit, so its
 * seal keeps the one the loaded seal had.
 *
 * Not covered, and said so in docs/OPERATIONS.md: a start after a crash or
 * an immediate stop of a lifetime that took its file (the saves after the
 * redo point are replayed, those before it are not, and the WAL before it
 * may be gone), a standby started with standby.signal (it replays its
 * primary's saves from its own restartpoint), a file of 1.3 (no seal), a
 * file-level backup restored over the data directory in place (its
 * pg_control comes with it).  Refused though the file is the latest:
 * after pg_resetwal (a checkpoint no save has seen), and after a stop whose
 * save failed or was cut short (the postmaster killed between the shutdown
 * checkpoint and this save): the safe side, and the way on is a fresh start.
 */
#include "postgres.h"

#include <time.h>
#include <unistd.h>

#include "catalog/pg_control.h"
#include "common/controldata_utils.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "storage/fd.h"

#include "durable/durable_file.h"
#include "durable/state_seal.h"

#define PASSED_FILE		"flakeid.state.passed"
#define PASSED_TEXT		"flakeid issued no ID from the clean stop at %X/%X to the clean stop at %X/%X\n"
#define EXPECTED_FILE	"flakeid.state.expected"
#define EXPECTED_TEXT	"flakeid takes only the state file the clean stop at %X/%X sealed\n"
#define UNSAVED_FILE	"flakeid.state.unsaved"
#define UNSAVED_TEXT	"flakeid could not save the state file at the clean stop at %X/%X\n"

/*
 * In the postmaster: the stop whose seal the file must carry at this start
 * (0: none asked), the clean stop the postmaster first started from (kept
 * across the restarts of shared memory after a crash), the loaded file's
 * seal.
 */
static uint64 started_at_stop = 0;
static uint64 clean_start = 0;	/* pg_control's clean stop at this start (not a refusal's) */
static uint64 first_stop = 0;
static bool first_start_done = false;
static bool taken_once = false;	/* a file was taken in this postmaster's life: IDs may have been issued */
static bool loaded_sealed = false;	/* the loaded file names a seal of flakeid.deep to carry */
static bool deep_refused = false;	/* flakeid.deep was refused at this start */
static uint64 loaded_deep_size = 0;
static bool sealed_stop_taken = false;	/* the file is the one the stop it started from sealed */
static bool stale_unsaved = false;	/* the file was refused, and the stop's own save had failed */

/* pg_control's checkpoint position if it says the server stopped cleanly as a primary, else 0 */
static uint64
clean_stop_checkpoint(void)
{
	bool		crc_ok = false;
	ControlFileData *control = get_controlfile(DataDir, &crc_ok);
	uint64		checkpoint = 0;

	if (control == NULL)
		return 0;
	if (crc_ok && control->state == DB_SHUTDOWNED)
		checkpoint = control->checkPoint;
	pfree(control);
	return checkpoint;
}

/* the stop a refusal expects the file sealed by (EXPECTED_FILE), or false without one */
static bool
read_expected(uint64 *at)
{
	uint8		text[200];
	size_t		size;
	unsigned int hi,
				lo;

	switch (durable_file_read(EXPECTED_FILE, text, sizeof(text) - 1, &size))
	{
		case DURABLE_READ_NONE:
			return false;
		case DURABLE_READ_FAILED:
			size = 0;
			break;
		case DURABLE_READ_OK:
			break;
	}
	text[size] = '\0';
	if (sscanf((char *) text, EXPECTED_TEXT, &hi, &lo) != 2)
	{
		/* (a note that cannot be read refuses every file, rather than none: start afresh) */
		ereport(LOG,
				(errmsg("\"%s\" cannot be read: every generator state file is refused until the generators start afresh", EXPECTED_FILE)));
		*at = UINT64_MAX;
		return true;
	}
	*at = ((uint64) hi << 32) | lo;
	return true;
}

static void
forget(const char *path)
{
	if (unlink(path) != 0 && errno != ENOENT)
		ereport(LOG, (errcode_for_file_access(), errmsg("could not remove file \"%s\": %m", path)));
}

/* the stop whose save failed (UNSAVED_FILE), or 0 without a note that can be read */
static uint64
read_unsaved(void)
{
	uint8		text[200];
	size_t		size;
	unsigned int hi,
				lo;

	if (durable_file_read(UNSAVED_FILE, text, sizeof(text) - 1, &size) != DURABLE_READ_OK)
		return 0;
	text[size] = '\0';
	if (sscanf((char *) text, UNSAVED_TEXT, &hi, &lo) != 2)
		return 0;
	return ((uint64) hi << 32) | lo;
}

void
state_seal_unsaved_stop(uint64 checkpoint)
{
	char	   *text = psprintf(UNSAVED_TEXT, LSN_FORMAT_ARGS(checkpoint));

	/* (where even this cannot be written, the refusal says only that it may have failed) */
	(void) durable_file_write(UNSAVED_FILE, text, strlen(text), LOG);
}

bool
state_seal_stale_unsaved(void)
{
	return stale_unsaved;
}

/* the note's two stops, or false without one */
static bool
read_passed(uint64 *from, uint64 *to)
{
	uint8		text[200];
	size_t		size;
	unsigned int hi1,
				lo1,
				hi2,
				lo2;

	if (durable_file_read(PASSED_FILE, text, sizeof(text) - 1, &size) != DURABLE_READ_OK)
		return false;
	text[size] = '\0';
	if (sscanf((char *) text, PASSED_TEXT, &hi1, &lo1, &hi2, &lo2) != 4)
		return false;
	*from = ((uint64) hi1 << 32) | lo1;
	*to = ((uint64) hi2 << 32) | lo2;
	return true;
}

void
state_seal_start(void)
{
	struct stat st;

	loaded_sealed = false;
	deep_refused = false;
	loaded_deep_size = 0;
	sealed_stop_taken = false;
	stale_unsaved = false;
	/*
	 * (a start after a clean stop replays nothing before its checkpoint, archive recovery included;
	 * a standby replays its primary's saves from its own restartpoint: not covered)
	 */
	started_at_stop = clean_start = stat("standby.signal", &st) == 0 ? 0 : clean_stop_checkpoint();
	/*
	 * (after a crash or an immediate stop of a lifetime that refused a file:
	 * what that refusal expects, so that a file put back meanwhile, or left,
	 * is not taken unchecked)
	 */
	if (started_at_stop == 0 && stat("standby.signal", &st) != 0)
		(void) read_expected(&started_at_stop);
	/* (the expected stop too: no ID was issued since it, the lifetimes between refused) */
	if (!first_start_done)
	{
		first_stop = started_at_stop;
		first_start_done = true;
	}
}

uint64
state_seal_for_save(void)
{
	/*
	 * A save in the postmaster is made at start, before anything is issued
	 * (the exit's is sealed apart): sealed by the stop it starts from, so
	 * that a start that then fails does not leave a file the next start
	 * refuses.  A save while the server runs: 0.
	 */
	return IsUnderPostmaster || !IsPostmasterEnvironment ? 0 : clean_start;	/* (single-user mode issues) */
}

void
state_seal_refuse(void)
{
	char	   *text;

	if (started_at_stop == 0)
		return;
	text = psprintf(EXPECTED_TEXT, LSN_FORMAT_ARGS(started_at_stop));
	(void) durable_file_write(EXPECTED_FILE, text, strlen(text), LOG);
}

void
state_seal_usable(void)
{
	taken_once = true;
	/* (whatever let the file be taken, a refusal's note is spent: a save while running seals 0) */
	forget(EXPECTED_FILE);
	forget(UNSAVED_FILE);
}

void
state_seal_deep_refused(void)
{
	deep_refused = true;
}

uint64
state_seal_carried_deep(void)
{
	/* (a running save while flakeid.deep is refused names the seal the very file must have) */
	return deep_refused && loaded_sealed ? loaded_deep_size : 0;
}

void
state_seal_forget(void)
{
	forget(EXPECTED_FILE);
}

uint64
state_seal_of_bytes(const uint8 *bytes, size_t size)
{
	/*
	 * Not a CRC: flakeid.deep is a header and entries that each end with
	 * their own CRC-32C, and a CRC over whole codewords does not depend on
	 * their contents (every file of that many entries would seal alike).
	 */
	return hash_bytes_extended(bytes, (int) size, (uint64) size);
}

uint64
state_seal_of_file(const char *path)
{
	size_t		size = 0;
	uint8	   *bytes = durable_file_read_all(path, STATE_SEAL_READ_MAX, &size);
	uint64		seal;

	if (bytes == NULL)
		return errno == ENOENT ? 0 : UINT64_MAX;	/* (unreadable: a seal no file has) */
	seal = state_seal_of_bytes(bytes, size);
	pfree(bytes);
	return seal;
}

const char *
state_seal_set_aside(const char *path, const char *why, bool expect)
{
	char	   *aside = psprintf("%s.older-copy-" INT64_FORMAT "-%d", path, (int64) time(NULL), (int) getpid());
	bool		set_aside = durable_rename(path, aside, LOG) == 0;

	if (expect)
		state_seal_refuse();
	return psprintf("%s It is set aside as \"%s\".", why, set_aside ? aside : "(it could not be renamed)");
}

bool
state_seal_at_stop(bool deep_used, uint64 deep_size_now, uint64 *checkpoint, uint64 *deep_size)
{
	struct stat st;

	/* (a cluster that never issued has no file, and a stop writes none) */
	if (stat("flakeid.state", &st) != 0 || (*checkpoint = clean_stop_checkpoint()) == 0)
		return false;
	/* (flakeid.deep unused in this lifetime: as the loaded seal had it) */
	*deep_size = deep_used || !loaded_sealed ? deep_size_now : loaded_deep_size;
	/* (the notes are of a file sealed before: this one is sealed now; a failed save is refused anyway) */
	forget(PASSED_FILE);
	forget(EXPECTED_FILE);
	forget(UNSAVED_FILE);
	return true;
}

void
state_seal_refused_stop(void)
{
	uint64		from;
	uint64		to;
	uint64		stopped_at;
	char	   *text;

	/*
	 * (from the clean stop the postmaster first started from, if no start in
	 * its life took a file: a lifetime that took one and was refused only
	 * after a crash may have issued IDs)
	 */
	if (taken_once || first_stop == 0 || (stopped_at = clean_stop_checkpoint()) == 0 || stopped_at == first_stop)
		return;
	/* (over another such lifetime, the note goes on from where it began) */
	if (!read_passed(&from, &to) || to != first_stop)
		from = first_stop;
	text = psprintf(PASSED_TEXT, LSN_FORMAT_ARGS(from), LSN_FORMAT_ARGS(stopped_at));
	(void) durable_file_write(PASSED_FILE, text, strlen(text), LOG);
}

const char *
state_seal_stale(bool has_stop, uint64 checkpoint, uint64 deep_size)
{
	uint64		from;
	uint64		to;

	loaded_sealed = has_stop && (checkpoint != 0 || deep_size != 0);
	loaded_deep_size = deep_size;
	if (!has_stop || started_at_stop == 0)
		return NULL;
	if (started_at_stop == UINT64_MAX)
		return psprintf("\"%s\", which a refusal of an older copy left, cannot be read, so no file's seal can be checked against it.", EXPECTED_FILE);
	/*
	 * (the stop's own save failed, and said so in a note: the refusal says
	 * that, not "an older copy or"; 1.4's second auditor, whose stop could
	 * not write its temporary file, was told only that it might be either.
	 * The file is still refused: nothing tells it from a copy restored over
	 * it since)
	 */
	if (checkpoint == 0 && read_unsaved() == started_at_stop)
	{
		stale_unsaved = true;
		return psprintf("The server stopped cleanly at the checkpoint at %X/%X, and its save of the file at that stop failed (the server log of that stop says why; \"%s\" notes it): the file was saved before that stop, while the server ran, and carries no seal of it.",
						LSN_FORMAT_ARGS(started_at_stop), UNSAVED_FILE);
	}
	if (checkpoint == 0)
		return psprintf("The server stopped cleanly at the checkpoint at %X/%X, and the file was saved while a server ran, before that stop: an older copy, or the save at that stop failed or was cut short (the postmaster killed after its shutdown checkpoint).",
						LSN_FORMAT_ARGS(started_at_stop));
	if (checkpoint != started_at_stop && !(read_passed(&from, &to) && from == checkpoint && to == started_at_stop))
		return psprintf("The server stopped cleanly at the checkpoint at %X/%X, and the file was saved at another clean stop, at %X/%X: an older copy.",
						LSN_FORMAT_ARGS(started_at_stop), LSN_FORMAT_ARGS(checkpoint));
	sealed_stop_taken = true;
	forget(EXPECTED_FILE);		/* (taken: from here on, as any file taken at start) */
	return NULL;
}

void
state_seal_foreign(bool has_stop, uint64 checkpoint, uint64 deep_size)
{
	/*
	 * Another cluster's file, taken up as flakeid.accept_state_from says
	 * (pg_upgrade's step 3), sealed at that cluster's clean stop: its
	 * flakeid.deep is the very file that goes with it, and an older copy
	 * is told by the bytes as at any sealed start.  A lifetime that could
	 * not use one (the empty record a new cluster's first start made, or
	 * none copied yet) carries this seal at its stop, as any does: sealed
	 * with the bytes of the file it refused, the copy the refusal's hint
	 * asks for was refused at the next start (1.4's audit, 067).
	 */
	loaded_sealed = has_stop && checkpoint != 0;
	loaded_deep_size = loaded_sealed ? deep_size : 0;
	sealed_stop_taken = loaded_sealed;
}

bool
state_seal_deep_size(uint64 *size)
{
	*size = loaded_deep_size;
	return sealed_stop_taken;
}
