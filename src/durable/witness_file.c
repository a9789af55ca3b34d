/*
 * witness_file.c — the bytes of flakeid.issued: that this cluster has
 * issued IDs, and in which data directory (witness_file.h; what it means
 * and when it is written: state_witness.c)
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
#include <unistd.h>

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "common/controldata_utils.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/fd.h"

#include "durable/durable_file.h"
#include "durable/witness_file.h"

#define WITNESS_TEXT		"flakeid issued IDs in the cluster with system identifier "
#define WITNESS_READY_TEXT	"flakeid runs, and has issued no ID yet, in the cluster with system identifier "
#define WITNESS_PLACE		"place: timeline %u, inode %llu"
#define WITNESS_IDENTITIES	"identities: "
#define WITNESS_UPSTREAM	"promoted from identities: "
#define WITNESS_EARLIER		"promoted earlier from identities: "
#define WITNESS_UNKNOWN		"unknown"

StaticAssertDecl(IDENTITY_COUNT == 5, "the witness's identities line names five");


/* the values after a line's label: five numbers in IdentityKind's order, or "unknown" */
static void
parse_identities(const char *text, const char *label, WitnessIdentities *ids)
{
	const char *line = strstr(text, label);
	long long	v[IDENTITY_COUNT];

	memset(ids, 0, sizeof(*ids));
	if (line == NULL)
		return;
	line += strlen(label);
	ids->present = true;
	/* (values that cannot be read are unknown: every identity set is then taken for the upstream's) */
	ids->known = strncmp(line, WITNESS_UNKNOWN, strlen(WITNESS_UNKNOWN)) != 0 &&
		sscanf(line, "%lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4]) == IDENTITY_COUNT;
	for (int i = 0; ids->known && i < IDENTITY_COUNT; i++)
		ids->values[i] = (int64) v[i];
}

/* a line "LABEL values" or "LABEL unknown" after `text` */
static char *
with_identities(char *text, const char *label, const WitnessIdentities *ids)
{
	if (!ids->known)
		return psprintf("%s%s" WITNESS_UNKNOWN "\n", text, label);
	return psprintf("%s%s" INT64_FORMAT " " INT64_FORMAT " " INT64_FORMAT " " INT64_FORMAT " " INT64_FORMAT "\n",
					text, label, ids->values[0], ids->values[1], ids->values[2], ids->values[3], ids->values[4]);
}

void
witness_read(Witness *w)
{
	char		text[640];
	int			fd;
	ssize_t		size;
	struct stat st;
	const char *place;
	size_t		prefix;

	memset(w, 0, sizeof(*w));
	/*
	 * (without blocking, a regular file only: a FIFO in its place held the
	 * postmaster in open() for good, and no stop ended it (1.5's second
	 * reviewer); anything else there is present but unreadable, the safe
	 * side: durable_file_open_regular)
	 */
	fd = durable_file_open_regular(STATE_WITNESS_FILE, &st);
	/* (1.4's place, while its move has not been made: never read as absent) */
	if (fd < 0 && errno == ENOENT)
		fd = durable_file_open_regular(STATE_WITNESS_FILE_1_4, &st);
	if (fd < 0)
	{
		w->present = errno != ENOENT;
		if (w->present && errno == EINVAL)
			ereport(LOG, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("file \"%s\" is not a regular file", STATE_WITNESS_FILE)));
		else if (w->present)
			ereport(LOG, (errcode_for_file_access(), errmsg("could not open file \"%s\": %m", STATE_WITNESS_FILE)));
		return;
	}
	w->present = true;
	size = read(fd, text, sizeof(text) - 1);
	if (size < 0)
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
	{
		WitnessIdentities own;

		parse_identities(text, "\n" WITNESS_IDENTITIES, &own);
		w->identified = own.present && own.known;
		memcpy(w->identities, own.values, sizeof(w->identities));
	}
	parse_identities(text, "\n" WITNESS_UPSTREAM, &w->upstream.from);
	parse_identities(text, "\n" WITNESS_EARLIER, &w->upstream.earlier);
}

static bool
stat_absent(const char *path)
{
	struct stat st;

	return lstat(path, &st) != 0 && errno == ENOENT;
}

bool
witness_absent(void)
{
	return stat_absent(STATE_WITNESS_FILE) && stat_absent(STATE_WITNESS_FILE_1_4);
}

/* removes 1.4's witness once this one is written (a failure is logged: it is still read only where this one is absent) */
static void
remove_witness_1_4(void)
{
	if (stat_absent(STATE_WITNESS_FILE_1_4))
		return;
	if (unlink(STATE_WITNESS_FILE_1_4) != 0 && errno != ENOENT)
		ereport(LOG, (errcode_for_file_access(), errmsg("could not remove file \"%s\": %m", STATE_WITNESS_FILE_1_4)));
	else
		(void) fsync_fname_ext("global", true, false, LOG);
}

void
state_witness_move_from_global(void)
{
	char	   *old_temp = psprintf("%s.tmp", STATE_WITNESS_FILE_1_4);

	if (!stat_absent(old_temp) && unlink(old_temp) != 0 && errno != ENOENT)
		ereport(LOG, (errcode_for_file_access(), errmsg("could not remove file \"%s\": %m", old_temp)));
	if (stat_absent(STATE_WITNESS_FILE_1_4))
		return;
	if (!stat_absent(STATE_WITNESS_FILE))
	{
		/* (this release's, written after a move that could not remove the old one) */
		remove_witness_1_4();
		return;
	}
	/* a rename, not a copy: the place it records is its own inode (a copy would be taken for a copied data directory) */
	if (rename(STATE_WITNESS_FILE_1_4, STATE_WITNESS_FILE) != 0)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not move \"%s\" to \"%s\": %m", STATE_WITNESS_FILE_1_4, STATE_WITNESS_FILE),
				 errdetail("It is read where it is until it is moved; pg_basebackup and pg_checksums fail on a cluster with data checksums while it is there.")));
		return;
	}
	(void) fsync_fname_ext(".", true, false, LOG);
	(void) fsync_fname_ext("global", true, false, LOG);
	ereport(LOG,
			(errmsg("moved \"%s\" to \"%s\"", STATE_WITNESS_FILE_1_4, STATE_WITNESS_FILE),
			 errdetail("flakeid 1.5 keeps it at the top of the data directory: under global/, PostgreSQL's tools take it for a relation file.")));
}

/* the timeline this server writes on, or replays during recovery */
TimeLineID
witness_timeline(void)
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
bool
witness_write_as(bool issued, bool placed, TimeLineID timeline, unsigned long long place,
				 const Witness *prior, const WitnessUpstream *upstream, int elevel)
{
	char	   *temp = psprintf("%s.tmp", STATE_WITNESS_FILE);	/* durable_file_write's */
	int			fd;
	struct stat st;
	char	   *text;

	/* (made anew, as durable_file_write makes it: a leftover read-only one failed every write) */
	if (!durable_file_remove_temp(STATE_WITNESS_FILE, elevel))
		return false;
	fd = OpenTransientFile(temp, O_WRONLY | O_CREAT | O_EXCL | PG_BINARY);
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

	/*
	 * The identities this server generates with, written where a base
	 * backup will carry them to a standby, whose promotion compares its own
	 * with them (state_witness_place).  Only outside recovery, where they
	 * are the identities of the server that issues: a standby's (at start
	 * in the postmaster, or while it replays) would be taken for its
	 * upstream's.  There the line is kept as it was.
	 */
	{
		WitnessIdentities own = {.present = true, .known = true};

		if (IsUnderPostmaster && !RecoveryInProgress())
			identity_effective(own.values);
		else if (prior != NULL && prior->identified)
			memcpy(own.values, prior->identities, sizeof(own.values));
		else
			own.present = false;
		if (own.present)
			text = with_identities(text, WITNESS_IDENTITIES, &own);
	}
	if (upstream != NULL && upstream->from.present)
		text = with_identities(text, WITNESS_UPSTREAM, &upstream->from);
	if (upstream != NULL && upstream->earlier.present)
		text = with_identities(text, WITNESS_EARLIER, &upstream->earlier);
	if (!durable_file_write_through_temp(STATE_WITNESS_FILE, text, strlen(text), elevel))
		return false;
	remove_witness_1_4();
	return true;
}

/* the witness, naming this data directory */
bool
witness_write(bool issued, const Witness *prior, const WitnessUpstream *upstream, int elevel)
{
	return witness_write_as(issued, true, witness_timeline(), 0, prior, upstream, elevel);
}

/*
 * The witness `w` rewritten to say IDs were issued.  One placed on an
 * earlier timeline keeps that place (its timeline, and the inode it names
 * unless it named its own file): only state_witness_place takes it up,
 * which sees a promotion in it.  Re-placed here, by a backend's first
 * save after a promotion (snowflake_new's epoch, an advance, a floor), a
 * clone of a primary that had issued nothing yet was never refused (1.5's
 * reviewer: 355,025 snowflakes issued by both).  A "no ID yet" one of
 * another data directory on this timeline (a copy's: a generator without
 * identity saved first) keeps the place it names, so that the copy is still
 * refused.
 */
bool
witness_rewrite_issued(const Witness *w, int elevel)
{
	TimeLineID	timeline = witness_timeline();

	if (w->present && w->placed && w->timeline != timeline)
		return witness_write_as(true, true, w->timeline, w->inode != w->file_inode ? w->inode : 0, w, &w->upstream, elevel);
	return witness_write_as(true, true, witness_timeline(), w->ready && w->placed && w->timeline == timeline &&
							w->inode != w->file_inode ? w->inode : 0, w, &w->upstream, elevel);
}
