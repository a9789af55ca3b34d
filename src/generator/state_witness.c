/*
 * state_witness.c — global/flakeid.issued: that this cluster has issued
 * IDs, and in which data directory (state_witness.h)
 *
 * The file is text, so that an operator who finds it knows what it is:
 *
 *   flakeid issued IDs in the cluster with system identifier N
 *   place: timeline T, inode I
 *
 * Before the first save (from 1.4) the first line reads "flakeid runs, and
 * has issued no ID yet, in the cluster with system identifier N": the
 * renewer writes it when recovery ends (state_witness_settle), so that a
 * copy made before any ID (a golden image) is told apart too; it does not
 * say the cluster issued IDs, and the first save rewrites it.
 *
 * The second line (from 1.4) names the timeline it was written on and the
 * inode of the file itself: the file is written once, through a temporary
 * file renamed over it, and the inode is that temporary file's, taken
 * before its bytes are written.  A data directory copied file by file (cp,
 * rsync, tar, a base backup) holds the same text in a file with another
 * inode; the original keeps its own.
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "common/controldata_utils.h"
#include "miscadmin.h"
#include "storage/fd.h"

#include "generator/durable_file.h"
#include "generator/state_witness.h"

#define WITNESS_TEXT		"flakeid issued IDs in the cluster with system identifier "
#define WITNESS_READY_TEXT	"flakeid runs, and has issued no ID yet, in the cluster with system identifier "
#define WITNESS_PLACE		"place: timeline %u, inode %llu"

/*
 * This process has read or written a witness that is not this cluster's "no
 * ID yet" one (state_witness_ensure then only checks it is still there).
 * Never set for a "no ID yet" witness: ensure must still make that say IDs
 * were issued at this process's next save (1.4's ninth fresh eyes: set
 * where a backend or the postmaster wrote this directory's place into one,
 * the saves after it left "no ID yet" beside issued IDs, and the state file
 * lost later was a first start).
 */
static bool witness_seen = false;

typedef struct Witness
{
	bool		present;		/* the file exists */
	bool		readable;		/* it could be read */
	bool		ours;			/* of flakeid, with this cluster's system identifier */
	bool		foreign;		/* of flakeid, with another cluster's */
	bool		ready;			/* of flakeid, ours, written before any save (WITNESS_READY_TEXT) */
	bool		placed;			/* with a place line */
	TimeLineID	timeline;
	unsigned long long inode;	/* recorded */
	unsigned long long file_inode;	/* the file's own */
} Witness;

static void
read_witness(Witness *w)
{
	char		text[256];
	int			fd;
	ssize_t		size;
	struct stat st;
	const char *place;
	size_t		prefix;

	memset(w, 0, sizeof(*w));
	fd = open(STATE_WITNESS_FILE, O_RDONLY | PG_BINARY, 0);
	if (fd < 0)
	{
		w->present = errno != ENOENT;
		if (w->present)
			ereport(LOG, (errcode_for_file_access(), errmsg("could not open file \"%s\": %m", STATE_WITNESS_FILE)));
		return;
	}
	w->present = true;
	size = read(fd, text, sizeof(text) - 1);
	if (size < 0 || fstat(fd, &st) != 0)
	{
		ereport(LOG, (errcode_for_file_access(), errmsg("could not read file \"%s\": %m", STATE_WITNESS_FILE)));
		close(fd);
		return;
	}
	close(fd);
	w->readable = true;
	w->file_inode = (unsigned long long) st.st_ino;
	text[size] = '\0';
	if (strncmp(text, WITNESS_TEXT, strlen(WITNESS_TEXT)) == 0)
		prefix = strlen(WITNESS_TEXT);
	else if (strncmp(text, WITNESS_READY_TEXT, strlen(WITNESS_READY_TEXT)) == 0)
		prefix = strlen(WITNESS_READY_TEXT);
	else
		return;
	if (strtoull(text + prefix, NULL, 10) != GetSystemIdentifier())
	{
		w->foreign = true;
		return;
	}
	w->ours = true;
	w->ready = prefix == strlen(WITNESS_READY_TEXT);
	place = strstr(text, "\nplace: ");
	w->placed = place != NULL && sscanf(place + 1, WITNESS_PLACE, &w->timeline, &w->inode) == 2;
}

bool
state_witness_says_issued(void)
{
	Witness		w;

	read_witness(&w);
	if (w.foreign)
		ereport(LOG,
				(errmsg("ignoring \"%s\": it was written by another cluster", STATE_WITNESS_FILE)));
	/* (one that cannot be read, or not flakeid's text, counts as saying so) */
	return w.present && !w.foreign && !w.ready;
}

bool
state_witness_allows_first_start(void)
{
	Witness		w;

	read_witness(&w);
	if (w.present && !w.ours)
		ereport(LOG,
				(errmsg("\"%s\" is not this cluster's: a missing state file is not taken for a first start", STATE_WITNESS_FILE)));
	return !w.present || (w.ours && w.ready);
}

static bool
stat_witness_absent(void)
{
	struct stat st;

	return stat(STATE_WITNESS_FILE, &st) != 0 && errno == ENOENT;
}

/* the timeline this server writes on, or replays during recovery */
static TimeLineID
current_timeline(void)
{
	TimeLineID	timeline = 0;

	/* (at start, in the postmaster, before recovery: the timeline of the last checkpoint) */
	if (!IsUnderPostmaster)
	{
		bool		crc_ok = false;
		ControlFileData *control = get_controlfile(DataDir, &crc_ok);

		return control != NULL && crc_ok ? control->checkPointCopy.ThisTimeLineID : 0;
	}
	if (!RecoveryInProgress())
		return GetWALInsertionTimeLine();
	(void) GetXLogReplayRecPtr(&timeline);
	return timeline;
}

/*
 * Writes the witness, with a place on `timeline` (none where !placed):
 * `place` the inode it names, 0 for this data directory's: the temporary
 * file durable_file_write writes through is made first, so that its inode,
 * which the rename keeps, can be written into it.
 */
static bool
write_witness_as(bool issued, bool placed, TimeLineID timeline, unsigned long long place, int elevel)
{
	char	   *temp = psprintf("%s.tmp", STATE_WITNESS_FILE);	/* durable_file_write's */
	int			fd = OpenTransientFile(temp, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	struct stat st;
	char	   *text;

	if (fd < 0 || fstat(fd, &st) != 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not create file \"%s\": %m", temp)));
		if (fd >= 0)
			CloseTransientFile(fd);
		return false;
	}
	CloseTransientFile(fd);
	text = psprintf("%s" UINT64_FORMAT "\n", issued ? WITNESS_TEXT : WITNESS_READY_TEXT, GetSystemIdentifier());
	if (placed)
		text = psprintf("%s" WITNESS_PLACE "\n", text, timeline, place != 0 ? place : (unsigned long long) st.st_ino);
	return durable_file_write(STATE_WITNESS_FILE, text, strlen(text), elevel);
}

/* the witness, placed on the current timeline (`place` as write_witness_as's) */
static bool
write_witness_at(bool issued, unsigned long long place, int elevel)
{
	return write_witness_as(issued, true, current_timeline(), place, elevel);
}

/* the witness, naming this data directory */
static bool
write_witness(bool issued, int elevel)
{
	return write_witness_at(issued, 0, elevel);
}

bool
state_witness_ensure(int elevel)
{
	Witness		w;

	/*
	 * (one stat a save once seen: a witness an operator removed, as a hint
	 * says, is written again at this process's next save; the flag alone
	 * left it unwritten while the renewer and long-lived backends issued,
	 * and a copy made then was not told apart: 1.4's reviewer)
	 */
	if (witness_seen && !stat_witness_absent())
		return true;
	read_witness(&w);
	/* (any file but this cluster's "no ID yet" one is left as it is: another cluster's, an unreadable one) */
	if (w.present && !w.ready)
		return witness_seen = true;

	/*
	 * In the postmaster, at start (a save afresh, a migration, a refused
	 * state file: mark_load_state) or at exit, this cluster's "no ID yet"
	 * one says "issued" from here, and its place stays as it was, for the
	 * renewer's state_witness_settle or a backend's first call to take up:
	 * the timeline it names (before recovery the timeline is pg_control's,
	 * which lags a fast promotion, and a witness placed on it would be
	 * taken up later as an earlier timeline's: a copy's so, as this data
	 * directory's own), the inode of the file written now if it named its
	 * own file (the rename gives another), else the one it named (a
	 * copy's original: the copy is still refused), and none if it named
	 * none.  Left to the renewer, it stayed "no ID yet" where none runs
	 * (max_worker_processes too low), and the IDs below the marks saved at
	 * start are given without another save (1.4's ninth and tenth fresh
	 * eyes).
	 */
	if (w.present && !IsUnderPostmaster)
	{
		if (!write_witness_as(true, w.placed, w.timeline, w.inode != w.file_inode ? w.inode : 0, elevel))
			return false;
		return witness_seen = true;
	}

	/*
	 * A "no ID yet" witness of another data directory on this timeline (a
	 * copy's: a generator without identity saved first) keeps the place it
	 * names, so that the copy is still refused a derived identity.
	 */
	if (!write_witness_at(true, w.ready && w.placed && w.timeline == current_timeline() &&
						  w.inode != w.file_inode ? w.inode : 0, elevel))
		return false;
	return witness_seen = true;
}

bool
state_witness_copy_of(unsigned long long *recorded, unsigned long long *found)
{
	Witness		w;

	read_witness(&w);
	*recorded = w.inode;
	*found = w.file_inode;
	return w.ours && w.placed && w.inode != w.file_inode;
}

bool
state_witness_take_over(int elevel)
{
	/*
	 * "issued", whatever the copy's said: the state just saved resumes 62 s
	 * ahead, and the IDs below its marks are given without another save.
	 * Written "no ID yet" (a golden image's), it stayed so beside them, and
	 * the state file lost later was a first start at the clock, below them
	 * (1.4's ninth fresh eyes: 3 of 5 sno IDs again).
	 */
	if (!write_witness(true, elevel))
		return false;
	witness_seen = true;
	return true;
}

WitnessPlace
state_witness_place(unsigned long long *recorded, unsigned long long *found, int elevel)
{
	Witness		w;
	TimeLineID	timeline = current_timeline();

	read_witness(&w);
	*recorded = w.inode;
	*found = w.file_inode;
	if (!w.present)
		return WITNESS_PLACE_NONE;
	if (!w.ours)
		return WITNESS_PLACE_UNKNOWN;
	if (w.placed && w.timeline == timeline && w.inode == w.file_inode)
		return WITNESS_PLACE_OURS;
	if (w.placed && w.timeline == timeline)
		return WITNESS_PLACE_COPY;
	/* written by 1.3 (no place), or on an earlier timeline: this history's own from now on */
	if (!write_witness(!w.ready, elevel))
		return WITNESS_PLACE_NONE;	/* (below ERROR: taken up at the next look) */
	ereport(LOG,
			(errmsg("flakeid recorded this data directory in \"%s\" (timeline %u)", STATE_WITNESS_FILE, timeline),
			 w.placed ? errdetail("It was recorded on timeline %u before.", w.timeline) :
			 errdetail("It was written by an earlier release of flakeid, which did not record it.")));
	witness_seen = !w.ready;
	return WITNESS_PLACE_OURS;
}

void
state_witness_settle(bool file_says_issued)
{
	unsigned long long recorded,
				found;

	struct stat st;

	/*
	 * A state file beside it: IDs were issued, and a state lost later must
	 * be told from a first start; a refused one too, but for an older
	 * release's (mark_state_file_says_issued says which).
	 */
	bool		issued = file_says_issued && stat("flakeid.state", &st) == 0;

	if (stat_witness_absent())
	{
		(void) write_witness(issued, WARNING);
		return;
	}
	/*
	 * (a "no ID yet" one beside such a state becomes "issued": a save at
	 * start leaves it to this.  Written here, not left to ensure's look:
	 * the renewer may never save again in this lifetime.)
	 */
	if (state_witness_place(&recorded, &found, WARNING) == WITNESS_PLACE_OURS && issued)
		(void) state_witness_mark_issued(WARNING);
}

bool
state_witness_mark_issued(int elevel)
{
	Witness		w;

	read_witness(&w);
	if (w.present && w.ours && !w.ready)
		return true;

	/*
	 * One that is not this cluster's readable text cannot say it, and must
	 * not be replaced (it refuses a copy): the caller keeps the state file
	 * in place.  Moved aside beside it, an operator who then removed it, as
	 * its own refusal says, made the next start a first start at the clock
	 * (1.4's last fresh eyes).
	 */
	if (w.present && !w.ours)
	{
		ereport(elevel,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("\"flakeid.state\" is left in place: \"%s\" cannot be read as this cluster's", STATE_WITNESS_FILE),
				 errdetail("Without the state file, only a witness saying this cluster issued IDs keeps a start from being taken for a first start; this one cannot say it."),
				 errhint("Check that this data directory is not a copy of another that still runs, then remove %s once and restart the server.",
						 STATE_WITNESS_FILE)));
		return false;
	}
	/* (as state_witness_ensure: a "no ID yet" one of a copy's original keeps its place) */
	return write_witness_at(true, w.ready && w.placed && w.timeline == current_timeline() &&
							w.inode != w.file_inode ? w.inode : 0, elevel);
}
