/*
 * marks_afresh.c — the ways on from a state file that cannot be used,
 * which an operator chooses at start: flakeid.start_afresh (for the state
 * file and for back-fill's record of deep units) and flakeid.take_over_from
 * (a copy of a data directory taken over from its original).  Called from
 * mark_load_state and resume.c, in the postmaster; never raises.
 */
#include "postgres.h"

#include <unistd.h>

#include "access/xlog.h"
#include "common/controldata_utils.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "base/clock.h"
#include "durable/deep_record.h"
#include "durable/durable_file.h"
#include "durable/marks_setup.h"
#include "durable/state_seal.h"
#include "durable/state_witness.h"

/*
 * flakeid.start_afresh, at start, when the state file cannot be used
 * (damaged, missing beside the witness, newer, another cluster's): the way
 * on that repeats nothing, which an operator chooses.  The file (if any)
 * is set aside as flakeid.state.set-aside-<Unix time>-<pid>, and a new one saved
 * with
 *   - every mark ADVANCE_LEAD_US + MARK_RESERVE_US (62 s) past the latest
 *     instant any lost save could have read its clock at (afresh_instant):
 *     no save leaves a mark further ahead of its clock than that;
 *   - a back-fill floor at the same instant: what back-fill gave before is
 *     unknown (back-filled IDs lie in the past, so no clock test covers
 *     them, and up to the live generator's position, which may lie 60 s
 *     ahead), so back-fill before it is refused until an operator sets
 *     flakeid.accept_backfill_loss (backfill.c).  1.3's hint, "remove the
 *     file once the clock is past every ID", let back-fill repeat.
 * True when the new file was saved (the server then issues); false leaves
 * the refusal, logged.  In the postmaster: never raises.
 */
/*
 * The latest instant a lost save could have read its clock at, as far as
 * this server can tell: the clock, the last checkpoint's time in pg_control
 * (every save before it read a clock at or before it; a clock set back
 * since leaves it ahead), and the marks of the unusable file where it
 * could be read (an old release's file refused for its marks, another
 * cluster's; for a start afresh, the files set aside as older copies too,
 * fold_set_aside_copies), less the 62 s a save leaves them ahead.  Saves after the
 * checkpoint are in the WAL, which crash recovery replays into the
 * primary's bounds and takes up when it ends.  Unix µs.
 */
/* the later of the clock and the last checkpoint's time (+ 1 s: it is in whole seconds), Unix µs */
static int64
clock_or_checkpoint(void)
{
	int64		instant = flakeid_clock_unix_us();
	bool		crc_ok = false;
	ControlFileData *control = get_controlfile(DataDir, &crc_ok);

	if (control != NULL && crc_ok)
		instant = Max(instant, ((int64) control->checkPointCopy.time + 1) * USECS_PER_SEC);
	return instant;
}

/* the latest mark of *read, either side (0 without one) */
static int64
latest_mark(const FlakeidPersisted *read)
{
	const IssuedBounds *sides[] = {&read->own, &read->upstream};
	int64		latest = 0;

	for (int side = 0; side < 2; side++)
		for (int m = 0; m < MARK_COUNT; m++)
			if (sides[side]->marks[m] > 0 && sides[side]->marks[m] < PERSISTED_MARK_MAX)
				latest = Max(latest, sides[side]->marks[m]);
	return latest;
}

static int64
afresh_instant(const FlakeidPersisted *read)
{
	int64		base = clock_or_checkpoint();
	int64		from_marks = latest_mark(read) - (ADVANCE_LEAD_US + MARK_RESERVE_US);

	return Max(base, from_marks);
}

/*
 * What back-fill before the floor a start afresh or a takeover sets needs:
 * the record of back-filled IDs and that of the units the live generators
 * filled ahead of the clock went with the old state (1.4's auditor: the
 * hint named the first only, and back-fill with flakeid.accept_backfill_loss
 * on gave live IDs again in units filled ahead)
 */
#define BACKFILL_LOSS_HINT \
	"Back-fill before that instant needs flakeid.accept_backfill_loss = on, once no ID back-filled before it can meet a new one, and only at times no live ID can meet either (before this cluster's first live ID, or on a server with identities of its own): the record of units filled ahead of the clock is gone too."

/*
 * Sets the unusable state file aside as `aside`, for an inquiry.  One that
 * can be read is copied there (durably) and left in place, so that the
 * save afresh replaces it in one rename: a save that fails, or a crash
 * before it, leaves the refused file where the next start refuses it
 * again, and reads its marks again.  (1.4's reviewer: moved first, a save
 * that then failed left no state file; the next start took the refusing
 * lifetime's witness, "no ID yet", for a first start and resumed at the
 * clock, below the marks.)  One that cannot be read (a directory, no
 * permission), whose marks nobody knows, is moved.  False, logged, when
 * neither could be done.
 */
static bool
set_state_aside(const char *aside)
{
	struct stat st;
	size_t		size = 0;
	uint8	   *bytes;
	bool		copied;

	if (lstat("flakeid.state", &st) != 0)
		return true;
	bytes = durable_file_read_all("flakeid.state", 16 * 1024 * 1024, &size);
	if (bytes != NULL)
	{
		copied = durable_file_write(aside, bytes, size, LOG);
		pfree(bytes);
		return copied;
	}

	/*
	 * Moved: first the witness says this cluster issued IDs (where it is
	 * absent, or ours saying "no ID yet"), so that a save that then fails
	 * leaves a missing file, refused as such, never a first start at the
	 * clock.  A plain rename and the directory fsynced: durable_rename opens
	 * the file itself for its fsync, which a directory or a file without
	 * permission refuses, and start afresh then never acted (1.4's auditor).
	 */
	if (!state_witness_mark_issued(LOG))
		return false;
	if (rename("flakeid.state", aside) != 0)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not rename file \"%s\" to \"%s\": %m", "flakeid.state", aside)));
		return false;
	}
	return fsync_fname_ext(".", true, false, LOG) == 0;
}

/*
 * Folds into *saved the marks of every state file of this cluster that a
 * refusal set aside as an older copy (state_seal_set_aside:
 * flakeid.state.older-copy-<time>-<pid>, in the data directory): the
 * number of such files it read.  A file refused as "not the one the last
 * clean stop saved" is moved at that start, before any start afresh; it
 * may be this server's latest save (the stop's own save failed, or was cut
 * short), with marks past the clock + 62 s afresh would otherwise take.
 * Left out, the start afresh that the refusal's hint asks for resumed below
 * IDs issued ahead of the clock (1.5's auditor: 124,238 of 301,000
 * snowflakes minted an hour ahead, issued again once the clock got there).
 * A true older copy's marks lie below the latest, and change nothing.
 * -1, logged, when one cannot be read: the start afresh is refused
 * (never a resume that might lie below its marks).  The files an earlier
 * start afresh set aside (flakeid.state.set-aside-*) are folded in too,
 * those it could read: put back over the file that start saved, an older
 * copy left their marks the only ones of IDs issued ahead (1.5's third
 * auditor: 3,365 snowflakes issued again).  So is the last save ahead of
 * its clock (STATE_AHEAD_FILE, state.c), which holds the marks of a
 * lifetime that resumed ahead and went on there; one that cannot be read
 * refuses the start afresh, like an older copy.
 */
static int
fold_set_aside_copies(FlakeidPersisted *saved)
{
	static const char prefix[] = "flakeid.state.older-copy-";
	static const char set_aside[] = "flakeid.state.set-aside-";
	DIR		   *dir = AllocateDir(".");
	struct dirent *de;
	int			read = 0;
	bool		unread = false;
	bool		inquiry;
	bool		ahead;

	/*
	 * (readdir itself, not ReadDirExtended: a listing that fails partway
	 * must be told from its end, and refuse like one that cannot start;
	 * taken as complete, the copies after the failure went unread (1.5's
	 * second reviewer))
	 */
	while (dir != NULL)
	{
		errno = 0;
		if ((de = readdir(dir)) == NULL)
		{
			if (errno != 0)
			{
				ereport(LOG,
						(errcode_for_file_access(),
						 errmsg("flakeid cannot start afresh: could not list the data directory for state files set aside as older copies: %m")));
				unread = true;
			}
			break;
		}
		/*
		 * (an earlier start afresh's inquiry copy, set-aside-*: its marks may
		 * be the only ones left of IDs issued ahead, once an older copy was
		 * put back over the file that start saved; one that cannot be read
		 * was moved aside unread by that start, and its marks were unknown
		 * then as now: left out, as that start left them)
		 */
		inquiry = strncmp(de->d_name, set_aside, sizeof(set_aside) - 1) == 0;
		ahead = strcmp(de->d_name, STATE_AHEAD_FILE) == 0 || strcmp(de->d_name, REPLAY_LOST_FILE) == 0;
		if (!inquiry && !ahead && strncmp(de->d_name, prefix, sizeof(prefix) - 1) != 0)
			continue;
		if (state_fold_marks_of(de->d_name, saved, mark_accepted_foreign_system()))
			read++;
		else if (!inquiry)
		{
			/* (its marks, if it had any, are not known: the resume could lie below them) */
			ereport(LOG,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("flakeid cannot start afresh: the marks of \"%s\", %s, cannot be read", de->d_name,
							ahead ? "the marks this cluster last saved ahead of its clock or replayed while its state file could not be used" : "a state file set aside as an older copy"),
					 errdetail("It cannot be read, is not a regular file, is another cluster's, or is not what a save of a state version this release reads writes (the lines above may say which); a start afresh that left it out could resume below the IDs its marks covered."),
					 ahead ?
					 errhint("Make it readable by the server, and restart the server; one that a later release of flakeid wrote may be removed once the clock has passed every ID that release issued.") :
					 errhint("Make it readable by the server, or remove it if it is no state of this cluster, and restart the server.")));
			unread = true;
		}
	}
	/* (a data directory that cannot be listed: the copies, if any, unread) */
	if (dir == NULL)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("flakeid cannot start afresh: could not open the data directory to list state files set aside as older copies: %m")));
		return -1;
	}
	FreeDir(dir);
	return unread ? -1 : read;
}

static bool
start_state_afresh(FlakeidPersisted *saved)
{
	int			copies = fold_set_aside_copies(saved);
	int64		now = afresh_instant(saved);
	/* (known where the refused file was read for its marks: an old release's, another cluster's; else -1) */
	int64		epoch = saved->snowflake_epoch_ms;
	char	   *aside = psprintf("flakeid.state.set-aside-" INT64_FORMAT "-%d", flakeid_clock_unix_us() / USECS_PER_SEC, (int) getpid());
	char		resume[MAXDATELEN + 1];

	if (copies < 0 || !set_state_aside(aside))
		return false;
	state_set_empty(saved);
	saved->system_identifier = GetSystemIdentifier();

	/*
	 * The snowflake epoch of the IDs the file covers goes on: dropped, a
	 * later epoch was taken, and its snowflakes equalled those issued that
	 * much earlier under the old one (1.4's reviewer).
	 */
	saved->snowflake_epoch_ms = epoch;
	for (int m = 0; m < MARK_COUNT; m++)
		saved->own.marks[m] = now + ADVANCE_LEAD_US + MARK_RESERVE_US;
	saved->own.backfill_floor = now + ADVANCE_LEAD_US + MARK_RESERVE_US;
	if (!state_save(saved, LOG))
		return false;
	state_seal_forget();		/* (a refusal of an older copy ends here) */
	/* timestamptz_to_str returns a static buffer: one call per message part */
	strlcpy(resume, timestamptz_to_str(flakeid_timestamptz_from_unix_us(saved->own.marks[0])), sizeof(resume));
	ereport(LOG,
			(errmsg("flakeid started its generators afresh, as flakeid.start_afresh says: they resume after %s, and back-fill before it is refused",
					resume),
			 errdetail("The unusable state file was set aside as \"%s\" (if there was one). They resume after the marks of the %d state files of this cluster set aside or saved ahead of the clock (\"flakeid.state.older-copy-*\", \"flakeid.state.set-aside-*\", \"%s\", \"%s\") too.", aside, copies, STATE_AHEAD_FILE, REPLAY_LOST_FILE),
			 errhint("Set flakeid.start_afresh = off again. " BACKFILL_LOSS_HINT)));
	return true;
}

/*
 * flakeid.start_afresh, at start, when back-fill's record of deep units
 * (deep_record.h) cannot be used but the state file can: back-fill before
 * now is refused (the floor, saved first), then the record starts empty.
 * Live IDs are not concerned.  In the postmaster: never raises.
 */
void
mark_backfill_afresh(FlakeidPersisted *saved)
{
	/* (back-fill may lie up to the live generator's position: the marks) */
	int64		now = flakeid_clock_unix_us();

	if (!flakeid_start_afresh || mark_shared->state_refusal != STATE_USABLE || deep_record_usable())
		return;
	/* (the primary's marks too: a standby's pending bounds, which promotion takes up) */
	for (int m = 0; m < MARK_COUNT; m++)
	{
		if (saved->own.marks[m] < PERSISTED_MARK_MAX)
			now = Max(now, saved->own.marks[m]);
		if (saved->upstream.marks[m] < PERSISTED_MARK_MAX)
			now = Max(now, saved->upstream.marks[m]);
	}
	saved->own.backfill_floor = Max(saved->own.backfill_floor, now);
	/* the floor first; then the new record, which the state names (mark_name_deep_record) */
	if (!state_save(saved, LOG) || !deep_record_start_afresh())
		return;
	state_seal_forget();		/* (a refusal of an older flakeid.deep ends here) */
	ereport(LOG,
			(errmsg("back-fill before %s is refused: its record of deep units was lost",
					timestamptz_to_str(flakeid_timestamptz_from_unix_us(now))),
			 errhint("Set flakeid.start_afresh = off again. Back-fill before that instant needs flakeid.accept_backfill_loss = on, once no ID back-filled before it can meet a new one.")));
}

/*
 * Whether a takeover can bound what the original issued after the copy
 * was made by the clock: false, logged, where the copy's generators were
 * issuing ahead of the clock (its marks, or those of its last save ahead,
 * STATE_AHEAD_FILE, lie further ahead than a save leaves one, or the
 * latter past the clock at all).  The original went on there, where no
 * renewal waits for the clock (marks.c), past any mark the copy holds:
 * 1.5's fifth reviewer saw a takeover resume at the copy's marks and
 * issue again all 2,000 snowflakes the original had minted since.  Once
 * the clock has passed those marks, the takeover resumes 62 s past the
 * clock, past them: that covers what the original issued after the copy
 * up to 62 s of units past them.  It does not cover more: ahead of the
 * clock, the original's units move on by what it issues, not by the clock
 * (at full capacity one unit per unit of time, the time it ran after the
 * copy; 254 million snowflakes make 62 s), and nothing in the copy says
 * how long that was (1.5's sixth reviewer): the hint asks the operator to
 * wait that time too.  An ahead file that cannot be read refuses too: its
 * marks are unknown.
 */
static bool
original_within_lead(const FlakeidPersisted *saved)
{
	FlakeidPersisted ahead;
	int64		base = clock_or_checkpoint();
	int64		latest = latest_mark(saved);
	int64		wait_until;
	struct stat st;
	char		until[MAXDATELEN + 1];

	state_set_empty(&ahead);
	if (lstat(STATE_AHEAD_FILE, &st) == 0 && !state_fold_marks_of(STATE_AHEAD_FILE, &ahead, mark_accepted_foreign_system()))
	{
		ereport(LOG,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid.take_over_from = '%s' took nothing over: the marks of \"%s\", the state this copy last saved ahead of its clock, cannot be read",
						flakeid_take_over_from, STATE_AHEAD_FILE),
				 errhint("Make it readable by the server and restart the server.")));
		return false;
	}
	wait_until = latest_mark(&ahead);
	wait_until = Max(wait_until, latest - (ADVANCE_LEAD_US + MARK_RESERVE_US + USECS_PER_SEC));
	if (base >= wait_until)
		return true;
	/* (for the refusal a client meets meanwhile: generator.c's refuse_in_copy) */
	mark_shared->take_over_waits_until = wait_until;
	strlcpy(until, timestamptz_to_str(flakeid_timestamptz_from_unix_us(wait_until)), sizeof(until));
	ereport(LOG,
			(errmsg("flakeid.take_over_from = '%s' took nothing over: this copy's generators were issuing ahead of the clock, until %s",
					flakeid_take_over_from, until),
			 errdetail("Its marks lie further ahead of the clock than a save leaves one (a start afresh that resumed past marks ahead, an excursion of the clock): there its original issued past them after the copy was made, where nothing waits for the clock, and a copy resumed after them would issue those IDs again."),
			 errhint("Leave the setting, and restart the server once the clock has passed %s and, after it, as long again as the original ran after the copy was made (its IDs went on past these marks as fast as it issued them); until then the copy is refused as one.", until)));
	return false;
}

/*
 * flakeid.take_over_from, at start: a copy of a data directory that
 * replaces its original for good, and may be older than it (a restore of a
 * file-level backup), takes over.  The original may have issued after the
 * copy was made: its live IDs up to 62 s past its clock, its back-fill as
 * far.  So, as a start afresh does, every mark and the back-fill floor go
 * 62 s past the latest instant a save could have read (afresh_instant),
 * saved before the witness is rewritten for this data directory; not
 * where the copy was issuing ahead of the clock (original_within_lead).  Only
 * where the witness records the first inode the setting names and its file
 * is the second: one data directory, not a sibling copy of the same
 * original (another restore of the same backup) nor a later copy of this
 * one, which are refused as any copy is, the setting left on or not.  In
 * the postmaster: never raises.
 */
void
mark_take_over_copy(FlakeidPersisted *saved)
{
	unsigned long long recorded = 0,
				found = 0,
				named_recorded = 0,
				named_found = 0;
	int64		instant;

	if (flakeid_take_over_from == NULL || flakeid_take_over_from[0] == '\0')
		return;
	(void) sscanf(flakeid_take_over_from, "%llu:%llu", &named_recorded, &named_found);
	if (mark_shared->state_refusal != STATE_USABLE || !state_witness_copy_of(&recorded, &found) ||
		recorded != named_recorded || found != named_found)
	{
		ereport(LOG,
				(errmsg("flakeid.take_over_from = '%s' took nothing over", flakeid_take_over_from),
				 errdetail("Only the copy of a data directory whose witness \"%s\" records the first inode, in a file whose own is the second, is taken over, with a usable state file.",
						   STATE_WITNESS_FILE)));
		return;
	}
	if (!original_within_lead(saved))
		return;
	instant = afresh_instant(saved) + ADVANCE_LEAD_US + MARK_RESERVE_US;
	for (int m = 0; m < MARK_COUNT; m++)
		saved->own.marks[m] = Max(saved->own.marks[m], instant);
	saved->own.backfill_floor = Max(saved->own.backfill_floor, instant);
	if (!state_save(saved, LOG) || !state_witness_take_over(LOG))
		return;
	ereport(LOG,
			(errmsg("flakeid took this copy of a data directory over as its own, as flakeid.take_over_from says: the generators resume after %s, and back-fill before it is refused",
					timestamptz_to_str(flakeid_timestamptz_from_unix_us(instant))),
			 errhint("Set flakeid.take_over_from = '' again. " BACKFILL_LOSS_HINT)));
}

/*
 * flakeid.start_afresh, at start (after mark_load_state, before
 * mark_set_up_shared): a refused state file is set aside and a new one
 * saved (start_state_afresh), and flakeid.state.replay-lost, whose marks it
 * folded in, removed; where that cannot be done the refusal stays, and
 * afresh_failed says why for the generators' error.  In the postmaster;
 * never raises.
 */
void
mark_start_afresh_if_asked(FlakeidPersisted *saved)
{
	mark_shared->afresh_failed = false;
	if (mark_shared->state_refusal != STATE_USABLE && flakeid_start_afresh)
	{
		if (start_state_afresh(saved) &&
			(!mark_shared->replay_lost_noted || durable_unlink(REPLAY_LOST_FILE, LOG) == 0))
		{
			mark_shared->state_refusal = STATE_USABLE;
			mark_shared->replay_lost_noted = false;
		}
		else
			mark_shared->afresh_failed = true;
	}
}
