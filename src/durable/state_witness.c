/*
 * state_witness.c — flakeid.issued: that this cluster has issued
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
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/fd.h"

#include "base/identity.h"
#include "base/table.h"
#include "durable/durable_file.h"
#include "durable/state_witness.h"

#define WITNESS_TEXT		"flakeid issued IDs in the cluster with system identifier "
#define WITNESS_READY_TEXT	"flakeid runs, and has issued no ID yet, in the cluster with system identifier "
#define WITNESS_PLACE		"place: timeline %u, inode %llu"
#define WITNESS_IDENTITIES	"identities: "
#define WITNESS_UPSTREAM	"promoted from identities: "
#define WITNESS_EARLIER		"promoted earlier from identities: "
#define WITNESS_UNKNOWN		"unknown"

StaticAssertDecl(IDENTITY_COUNT == 5, "the witness's identities line names five");

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
	bool		identified;		/* with an identities line (from 1.5) */
	int64		identities[IDENTITY_COUNT]; /* identity_effective() of its writer, outside recovery */
	WitnessUpstream upstream;	/* a promoted server's record of its upstream's, until resolved */
} Witness;

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

static void
read_witness(Witness *w)
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
stat_absent(const char *path)
{
	struct stat st;

	return lstat(path, &st) != 0 && errno == ENOENT;
}

static bool
stat_witness_absent(void)
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
write_witness_as(bool issued, bool placed, TimeLineID timeline, unsigned long long place,
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

/* the witness, placed on the current timeline (`place`, `prior` and `upstream` as write_witness_as's) */
static bool
write_witness_at(bool issued, unsigned long long place, const Witness *prior, const WitnessUpstream *upstream, int elevel)
{
	return write_witness_as(issued, true, current_timeline(), place, prior, upstream, elevel);
}

/* the witness, naming this data directory */
static bool
write_witness(bool issued, const Witness *prior, const WitnessUpstream *upstream, int elevel)
{
	return write_witness_at(issued, 0, prior, upstream, elevel);
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
static bool
rewrite_issued(const Witness *w, int elevel)
{
	TimeLineID	timeline = current_timeline();

	if (w->present && w->placed && w->timeline != timeline)
		return write_witness_as(true, true, w->timeline, w->inode != w->file_inode ? w->inode : 0, w, &w->upstream, elevel);
	return write_witness_at(true, w->ready && w->placed && w->timeline == timeline &&
							w->inode != w->file_inode ? w->inode : 0, w, &w->upstream, elevel);
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
		if (!write_witness_as(true, w.placed, w.timeline, w.inode != w.file_inode ? w.inode : 0, &w, &w.upstream, elevel))
			return false;
		return witness_seen = true;
	}

	if (!rewrite_issued(&w, elevel))
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
	Witness		w;

	/*
	 * A promoted server's record of its upstream stays: the copy replaces
	 * its own original for good, not that server's upstream, which may
	 * still run (1.5's reviewer: a copy of a refused clone taken over
	 * issued its upstream's IDs).
	 */
	read_witness(&w);
	if (!write_witness(true, &w, &w.upstream, elevel))
		return false;
	witness_seen = true;
	return true;
}

/* the identities of the generators in `conflicts` (a bit per GeneratorId), for a message */
static char *
generator_names(uint32 conflicts)
{
	StringInfoData names;

	initStringInfo(&names);
	for (int g = 0; g < GEN_COUNT; g++)
		if (conflicts & (1u << g))
			appendStringInfo(&names, "%s%s", names.len > 0 ? ", " : "", g == GEN_KUID ? "kuid96" : generator_defs[g].name);
	if (conflicts & PROMOTED_PLAIN_KUID)
		appendStringInfo(&names, "%skuid", names.len > 0 ? ", " : "");
	return names.data;
}

/* whether the identities line is this server's, as it generates now */
static bool
identities_current(const Witness *w)
{
	int64		now[IDENTITY_COUNT];

	identity_effective(now);
	return w->identified && memcmp(now, w->identities, sizeof(now)) == 0;
}

/* the generators a record refuses (identity_promotion_conflicts of each of its parts) */
static uint32
record_conflicts(const WitnessUpstream *up)
{
	uint32		conflicts = 0;

	if (up->from.present)
		conflicts |= identity_promotion_conflicts(up->from.values, up->from.known);
	if (up->earlier.present)
		conflicts |= identity_promotion_conflicts(up->earlier.values, up->earlier.known);
	return conflicts;
}

/*
 * This data directory's own witness, with a promotion's record of its
 * upstream: the generators still refused (record_conflicts).  With
 * flakeid.promotion_keeps_identities on, the part of the record naming the
 * server it was promoted from is dropped (a record that server carried
 * stays: the setting says nothing of its upstream).  A witness whose
 * identities line is not this server's as it generates now (none before
 * 1.5; changed at a restart) is written again, so that a base backup
 * carries the present ones.  With flakeid_lock held; a rewrite that fails
 * is logged and made at the next look (the record stays until then: the
 * safe side).
 */
static uint32
own_witness_conflicts(const Witness *w)
{
	WitnessUpstream up = w->upstream;
	bool		resolved = false;

	if (up.from.present && identity_promotion_keeps())
	{
		ereport(LOG,
				(errmsg("flakeid generates %s IDs on this promoted server with the identities of the server it was promoted from, as flakeid.promotion_keeps_identities says",
						generator_names(identity_promotion_conflicts(up.from.values, up.from.known))),
				 errdetail("That server is taken to be gone for good: if it still runs, or runs again, both issue the same IDs.")));
		up.from.present = false;
		resolved = true;
	}
	if (IsUnderPostmaster && !RecoveryInProgress() && (resolved || !identities_current(w)))
		(void) write_witness(!w->ready, w, &up, LOG);
	return record_conflicts(&up);
}

WitnessPlace
state_witness_place(unsigned long long *recorded, unsigned long long *found, uint32 *conflicts, int elevel)
{
	Witness		w;
	TimeLineID	timeline = current_timeline();
	WitnessUpstream upstream = {0};
	uint32		kept = 0;

	*conflicts = 0;
	read_witness(&w);
	*recorded = w.inode;
	*found = w.file_inode;
	if (!w.present)
		return WITNESS_PLACE_NONE;
	if (!w.ours)
		return WITNESS_PLACE_UNKNOWN;
	if (w.placed && w.timeline == timeline && w.inode == w.file_inode)
	{
		*conflicts = own_witness_conflicts(&w);
		return WITNESS_PLACE_OURS;
	}
	if (w.placed && w.timeline == timeline)
		return WITNESS_PLACE_COPY;

	/*
	 * Written on an earlier timeline: this server was promoted from a
	 * standby (or a restore ended on a timeline of its own), and the
	 * witness came with its base backup, with the identities its upstream
	 * generated with.  Identities set in the configuration came with the
	 * same base backup, a derived one may equal the upstream's by chance,
	 * and kuid carries none: beside its upstream, if that still runs (a clone, a
	 * restore, a drill), this server would issue the upstream's IDs from
	 * the marks both share (1.4's auditor: 86,346 of 100,000 sno and
	 * snowflakes).  Nothing here tells that from a failover, so the
	 * upstream's identities are recorded, and the generators whose
	 * identities all equal them are refused (generator.c) until this server's are set
	 * apart or flakeid.promotion_keeps_identities says the upstream is
	 * gone for good (set beforehand on failover targets, so that they
	 * generate at once).  A witness of 1.4 names no identities: every
	 * identity set here is then taken for the upstream's.  One of 1.3
	 * names no place, and is no promotion's: taken up as before.
	 */
	if (w.placed)
	{
		upstream.from.present = true;
		upstream.from.known = w.identified;
		memcpy(upstream.from.values, w.identities, sizeof(upstream.from.values));
		kept = identity_promotion_conflicts(upstream.from.values, upstream.from.known);

		/*
		 * A record the server it was promoted from still carried (a clone
		 * promoted, then a standby of it promoted) goes on: the setting
		 * here speaks of that server only, not of its upstream, which may
		 * still run (1.5's reviewer: 23,625 snowflakes issued by both).
		 * Two records become one that knows no values: every identity set
		 * here is taken for theirs.
		 */
		if (w.upstream.from.present && w.upstream.earlier.present)
			upstream.earlier = (WitnessIdentities) {.present = true, .known = false};
		else if (w.upstream.from.present)
			upstream.earlier = w.upstream.from;
		else
			upstream.earlier = w.upstream.earlier;
		if (identity_promotion_keeps())
			upstream.from.present = false;
		*conflicts = record_conflicts(&upstream);
	}
	if (!write_witness(!w.ready, &w, &upstream, elevel))
	{
		*conflicts = 0;
		return WITNESS_PLACE_NONE;	/* (below ERROR: taken up at the next look) */
	}
	ereport(LOG,
			(errmsg("flakeid recorded this data directory in \"%s\" (timeline %u)", STATE_WITNESS_FILE, timeline),
			 w.placed ? errdetail("It was recorded on timeline %u before.", w.timeline) :
			 errdetail("It was written by an earlier release of flakeid, which did not record it.")));
	if (w.placed && identity_promotion_keeps())
		ereport(WARNING,
				(errmsg("this promoted server generates %s IDs with the identities of the server it was promoted from, as flakeid.promotion_keeps_identities says",
						generator_names(kept)),
				 errdetail("If that server still runs, or runs again, both issue the same IDs.")));
	if (w.placed && *conflicts != 0)
		ereport(WARNING,
				(errmsg("this promoted server refuses to generate %s IDs: their identities are those of the server it was promoted from",
						generator_names(*conflicts)),
				 errdetail("%s", upstream.from.known || !upstream.from.present ? "Its identities came with the base backup's configuration, or are those its upstream's own upstream generated with; kuid IDs carry none." :
						   "That server's flakeid did not record its identities: every identity set here is taken for its own; kuid IDs carry none."),
				 errhint("If that server is gone for good (a failover), set flakeid.promotion_keeps_identities = on and reload, then reset it once this server generates (a base backup of it would carry it). If it still runs or may run again, set this server's identities apart and restart it (docs/OPERATIONS.md, \"A promoted standby\").")));
	witness_seen = !w.ready;
	return WITNESS_PLACE_OURS;
}

void
state_witness_settle(bool file_says_issued)
{
	unsigned long long recorded,
				found;
	uint32		conflicts;
	struct stat st;

	/*
	 * A state file beside it: IDs were issued, and a state lost later must
	 * be told from a first start; a refused one too, but for an older
	 * release's (mark_state_file_says_issued says which).
	 */
	bool		issued = file_says_issued && stat("flakeid.state", &st) == 0;

	if (stat_witness_absent())
	{
		(void) write_witness(issued, NULL, NULL, WARNING);
		return;
	}
	/*
	 * (a "no ID yet" one beside such a state becomes "issued": a save at
	 * start leaves it to this.  Written here, not left to ensure's look:
	 * the renewer may never save again in this lifetime.)
	 */
	if (state_witness_place(&recorded, &found, &conflicts, WARNING) == WITNESS_PLACE_OURS && issued)
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
	/* (as state_witness_ensure: an earlier timeline's, or a copy's original's, keeps its place) */
	return rewrite_issued(&w, elevel);
}
