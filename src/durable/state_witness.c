/*
 * state_witness.c — what flakeid.issued says, and when it is written
 * (state_witness.h): at start, at the first save, at a takeover and when a
 * promotion places it; its bytes are witness_file.c's.
 */
#include "postgres.h"

#include <sys/stat.h>

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"

#include "base/table.h"
#include "durable/state_witness.h"
#include "durable/witness_file.h"

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

bool
state_witness_says_issued(void)
{
	Witness		w;

	witness_read(&w);
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

	witness_read(&w);
	if (w.present && !w.ours)
		ereport(LOG,
				(errmsg("\"%s\" is not this cluster's: a missing state file is not taken for a first start", STATE_WITNESS_FILE)));
	return !w.present || (w.ours && w.ready);
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
	if (witness_seen && !witness_absent())
		return true;
	witness_read(&w);
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
		if (!witness_write_as(true, w.placed, w.timeline, w.inode != w.file_inode ? w.inode : 0, &w, &w.upstream, elevel))
			return false;
		return witness_seen = true;
	}

	if (!witness_rewrite_issued(&w, elevel))
		return false;
	return witness_seen = true;
}

bool
state_witness_copy_of(unsigned long long *recorded, unsigned long long *found)
{
	Witness		w;

	witness_read(&w);
	*recorded = w.inode;
	*found = w.file_inode;
	return w.ours && w.placed && w.inode != w.file_inode;
}

bool
state_witness_holds_upstream(void)
{
	Witness		w;

	witness_read(&w);
	return w.ours && (w.upstream.from.present || w.upstream.earlier.present);
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
	witness_read(&w);
	if (!witness_write(true, &w, &w.upstream, elevel))
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
		(void) witness_write(!w->ready, w, &up, LOG);
	return record_conflicts(&up);
}

WitnessPlace
state_witness_place(unsigned long long *recorded, unsigned long long *found, uint32 *conflicts, int elevel)
{
	Witness		w;
	TimeLineID	timeline = witness_timeline();
	WitnessUpstream upstream = {0};
	uint32		kept = 0;

	*conflicts = 0;
	witness_read(&w);
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
	if (!witness_write(!w.ready, &w, &upstream, elevel))
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

	if (witness_absent())
	{
		(void) witness_write(issued, NULL, NULL, WARNING);
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

	witness_read(&w);
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
	return witness_rewrite_issued(&w, elevel);
}
