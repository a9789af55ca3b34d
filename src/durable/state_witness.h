/*
 * state_witness.h — a second record, apart from flakeid.state, that this
 * cluster has issued IDs
 *
 * flakeid.state is written on every save; without it a start is a first
 * start.  A file that vanished (deleted, or a symbolic link to a file that
 * is gone) would then read as a first start, and with the clock behind the
 * lost mark the generators would repeat IDs.  So the first save also writes
 * flakeid.issued, beside it in the data directory, which base backups
 * carry: a start that finds no state file but the
 * witness refuses to generate (XX001) until an operator restores the file,
 * or removes the witness too once the clock is past every ID issued.
 *
 * The witness also names the data directory it was written in (its own
 * inode) and the timeline: a copy of the data directory started as a
 * second server on the same timeline shares the system identifier, and so
 * every derived identity, with its original; it is told apart by the
 * witness's inode (state_witness_place).
 */
#ifndef FLAKEID_STATE_WITNESS_H
#define FLAKEID_STATE_WITNESS_H

#include "base/defs.h"

/*
 * At the top of the data directory, beside flakeid.state.  1.3 and 1.4 kept
 * it in global/, where pg_basebackup and pg_checksums take every file for a
 * relation's segment: with data checksums (18's default) a base backup of
 * 15 and every pg_checksums run failed on it (1.4's audit).  Nothing
 * flakeid writes may sit under global/, base/ or a tablespace.
 */
#define STATE_WITNESS_FILE	"flakeid.issued"
#define STATE_WITNESS_FILE_1_4	"global/flakeid.issued"

/*
 * At start, in the postmaster, before the state is loaded: a witness of 1.3
 * or 1.4 under global/ is moved to STATE_WITNESS_FILE by a rename (which
 * keeps the inode its place names), where there is none; beside one there,
 * it is removed; its leftover temporary file too.  Logged.  Never raises:
 * while a move fails the old one is still read where the new one is absent
 * (read_witness), and removed after the next write of the new one.
 */
extern void state_witness_move_from_global(void);

/*
 * At start, in the postmaster, when flakeid.state is missing: whether this
 * cluster's witness says it issued IDs (one of another cluster's, by its
 * system identifier, does not; one that cannot be read does, and is
 * logged).  Never raises.
 */
extern bool state_witness_says_issued(void);

/*
 * At start, in the postmaster, when flakeid.state is missing: whether that
 * may be a first start, which resumes at the clock.  Only without a
 * witness, or with this cluster's saying no ID was issued yet: one of
 * another cluster's, or one that cannot be read, may stand where this
 * cluster's was (1.4's auditor: another cluster's witness beside a state
 * file lost to a failed start afresh made a first start below issued IDs).
 * Never raises.
 */
extern bool state_witness_allows_first_start(void);

/*
 * Before the state file is moved aside, and in state_witness_settle beside
 * a state file: makes this cluster's witness say IDs were issued (written where there is none or this cluster's says "no
 * ID yet"), so that the next start refuses the missing file rather than
 * take it for a first start.  False, reported at `elevel`, when the write
 * fails or the witness is present but not this cluster's readable text
 * (it is left as it is: it refuses a copy); the caller then keeps the
 * state file in place.
 */
extern bool state_witness_mark_issued(int elevel);

/*
 * After a save: writes the witness durably, saying IDs were issued, unless
 * this process has seen one that says so (or one that is not this
 * cluster's, left as it is) and it is still there (one stat a save
 * afterwards).  A "no ID yet" one is rewritten, never taken as seen.  A
 * failure is reported at `elevel`, as state_save's are, and returns false.
 */
extern bool state_witness_ensure(int elevel);

/* identities as a witness records them (identity_effective's, in IdentityKind's order) */
typedef struct WitnessIdentities
{
	bool		present;
	bool		known;			/* the values were recorded (a witness of 1.4 names none) */
	int64		values[IDENTITY_COUNT];
} WitnessIdentities;

/* a promoted server's record of the identities its upstream generated with (state_witness_place) */
typedef struct WitnessUpstream
{
	WitnessIdentities from;		/* the server it was promoted from, until
								 * flakeid.promotion_keeps_identities */
	WitnessIdentities earlier;	/* the record that server still carried (a
								 * promoted clone's), which the setting here
								 * does not end */
} WitnessUpstream;

typedef enum WitnessPlace
{
	WITNESS_PLACE_NONE,			/* no witness (nothing issued yet, or removed) */
	WITNESS_PLACE_OURS,			/* written in this data directory, or made its own just now */
	WITNESS_PLACE_COPY,			/* written on this timeline in another data directory */
	WITNESS_PLACE_UNKNOWN		/* present, but not this cluster's readable text: no place to compare */
} WitnessPlace;

/*
 * Whether this data directory is the one the witness was written in (a
 * derived identity is refused in a copy: identity.c).  A witness of 1.3,
 * which records no place, or one written on an earlier timeline (a promoted
 * standby, a restore that ended on a timeline of its own) is rewritten for
 * this data directory, and is its own.  One that is present but cannot be
 * read as this cluster's (unreadable, empty, not flakeid's text, another
 * cluster's) is UNKNOWN, never NONE: read as absent, a copy made of it was
 * never told apart (1.4's auditor: an emptied witness, a cp -a copy, 18,185
 * IDs issued by both).  *recorded and *found are the inodes, for a message.  With flakeid_lock held (the rewrite); a rewrite
 * that fails is reported at `elevel` (NONE below ERROR).
 *
 * *conflicts (OURS only; else 0): the generators, a bit per GeneratorId,
 * that a promoted server must not run yet: taken up from an earlier
 * timeline (a promotion, a restore), its witness records the identities
 * its upstream generated with, and those whose every identity is set here
 * to the same value (and kuid, which has none) would issue the upstream's
 * IDs if it still runs.  The record stays, across restarts, until this
 * server's identities are set apart or flakeid.promotion_keeps_identities
 * is on (identity_promotion_conflicts).
 */
extern WitnessPlace state_witness_place(unsigned long long *recorded, unsigned long long *found, uint32 *conflicts, int elevel);

/*
 * In the renewer, once recovery has ended, with flakeid_lock held: writes
 * a witness that says no ID was issued yet where there is none, and takes
 * up one of an earlier timeline or of 1.3 as this data directory's
 * (state_witness_place), so that a copy made after it (of a server that
 * has issued nothing, of a promoted standby before its first ID) is told
 * apart.  `file_says_issued`: a state file beside it means IDs were
 * issued (mark_state_file_says_issued), usable or refused: a "no ID yet"
 * witness is then made to say so (state_witness_mark_issued).  A write
 * that fails is a WARNING (the renewer goes on).
 */
extern void state_witness_settle(bool file_says_issued);

/* whether the witness of this cluster records another data directory (*recorded: its inode; *found: the file's) */
extern bool state_witness_copy_of(unsigned long long *recorded, unsigned long long *found);
/* whether the witness of this cluster holds a promoted server's record of its upstream (promoted from, or earlier from) */
extern bool state_witness_holds_upstream(void);

/*
 * Once a copy's state is saved for its take-over (flakeid.take_over_from):
 * writes the witness again for this data directory, saying IDs were issued
 * (at start, or with flakeid_lock held); false at `elevel`.
 */
extern bool state_witness_take_over(int elevel);

#endif
