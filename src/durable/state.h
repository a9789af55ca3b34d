/*
 * state.h — what bounds the IDs a server issued, and the file that keeps
 * it across restarts (state.c: plain file I/O, nothing in shared memory)
 */
#ifndef FLAKEID_STATE_H
#define FLAKEID_STATE_H

#include "base/defs.h"
#include "persisted/persisted.h"

/* a back-fill low-water that no back-filled sequence has set yet */
#define BACKFILL_LOW_NONE	((uint32) COUNTER_SEQ_MASK + 1)

/*
 * What bounds the IDs one server issued, saved and WAL-logged: the marks,
 * and for back-fill (backfill.c) a low-water per counter slot at or below
 * every sequence back-fill gave there, in any unit, and the units it went
 * deeper into, each with its own (rules/deep_units.h).
 */
typedef struct IssuedBounds
{
	int64		marks[MARK_COUNT];	/* Unix µs; 0: none */
	uint32		sno_ticktock;	/* the tick-tock sno's counter carried */
	uint32		backfill_low[GEN_SLOT_COUNT];	/* BACKFILL_LOW_NONE: none yet */
	DeepUnits	backfill_deep;	/* empty: none (and in files and records before 1.3) */
	int64		backfill_floor; /* Unix µs: back-fill before it is refused (flakeid.start_afresh); 0: none */
	/*
	 * per counter slot, the units its live counter issued in ahead of the
	 * clock (durable/issued_ahead.h), where back-fill is refused; a run still
	 * open when saved reaches the mark's unit (empty: none, and in files and
	 * records before 1.4)
	 */
	UnitRuns	ahead[GEN_SLOT_COUNT];
} IssuedBounds;

StaticAssertDecl(GEN_SLOT_COUNT <= DEEP_UNITS_MAX, "one deep range more than the record holds shares a slot");
StaticAssertDecl(GEN_SLOT_COUNT <= PERSISTED_AHEAD_SLOTS, "every slot's runs fit the codec's bounds");

/* what the file holds, in the current version's terms */
typedef struct FlakeidPersisted
{
	uint64		system_identifier;	/* of the cluster that wrote it; 0: not recorded (versions 1, 2) */
	int64		snowflake_epoch_ms; /* the earliest epoch snowflakes were issued under here or
									 * upstream; -1: none, or not known (version 1) */
	IssuedBounds own;			/* what this server issued */
	IssuedBounds upstream;		/* what its primary issued, replayed from the WAL */
	uint32		deep_record;	/* the version of flakeid.deep that goes with it (deep_record.h); 0: none */
} FlakeidPersisted;

#define STATE_VERSION	PERSISTED_STATE_VERSION

/* the state file, in the data directory: read by state.c, written by state_save.c */
#define STATE_FILE		"flakeid.state"

/*
 * The last save whose marks lay more than 62 s ahead of its clock, in the
 * data directory beside flakeid.state (state_save.c's save): what a start
 * afresh cannot tell from the clock, folded in by it (marks_afresh.c)
 */
#define STATE_AHEAD_FILE	"flakeid.state.ahead"

typedef enum StateLoad
{
	STATE_LOAD_NONE,			/* no file: a first start */
	STATE_LOAD_CURRENT,
	STATE_LOAD_MIGRATED,		/* an older version's file, read and rewritten as current */
	STATE_LOAD_DAMAGED,
	STATE_LOAD_TOO_NEW,			/* a later version, or naming a counter slot this flakeid lacks */
	STATE_LOAD_FOREIGN,			/* another cluster's: its system identifier is not this one's */
	STATE_LOAD_MISSING,			/* no file, but the cluster's witness says it issued IDs (state_witness.h) */
	STATE_LOAD_STALE			/* not the file the last clean stop saved: an older copy (state_seal.h) */
} StateLoad;

/*
 * The state of a server that has issued nothing: no marks, no back-fill
 * low-water, the snowflake epoch unknown (-1).
 */
extern void state_set_empty(FlakeidPersisted *state);
extern void bounds_set_empty(IssuedBounds *bounds);

/*
 * The bounds by slot name, as the codec (persisted/persisted.h) stores them,
 * and back: a name this flakeid has no slot for is returned (the caller
 * refuses the whole), else NULL.
 */
extern void bounds_to_persisted(const IssuedBounds *bounds, PersistedBounds *persisted);
extern const char *bounds_from_persisted(const PersistedBounds *persisted, IssuedBounds *bounds);

/*
 * Folds the marks (the later of each) and the snowflake epoch (where none is
 * known) of this cluster's state file at PATH into *into: false, and
 * nothing folded, for a file of another cluster or one this release cannot
 * read whole.  Never raises.
 */
extern bool state_fold_marks_of(const char *path, FlakeidPersisted *into, uint64 accepted);

/* reads the file; *file_version is 0 when there is none.  Never raises. */
extern StateLoad state_load(FlakeidPersisted *state, uint32 *file_version);

/*
 * Whether that load refused an older release's file, read whole, for a
 * mark more than 62 s ahead of the clock (a clock that was behind: the file
 * is taken up once it has caught up), the one refusal beside which the
 * witness must not say IDs were issued (mark_state_file_says_issued).
 */
extern bool state_load_refused_old_marks_ahead(void);
/* whether the last state_load refused a file it could not open or read: permissions, not a regular file */
extern bool state_load_refused_unreadable(void);

/*
 * Writes the file (fsync, rename, fsync of the directory).  A failure is
 * reported at `elevel` as 58030 naming the file; below ERROR it returns
 * false.
 */
extern bool state_save(const FlakeidPersisted *state, int elevel);

/*
 * The state written as a state file at PATH (in the data directory),
 * durably, sealed by no stop, with no witness and no ahead copy: a record
 * of marks for a start afresh to fold in (REPLAY_LOST_FILE), never the
 * state file itself.  A failure is reported at `elevel`.
 */
extern bool state_save_copy(const char *path, const FlakeidPersisted *state, int elevel);

/*
 * In the postmaster as it exits: after a primary's clean stop, saves the
 * file sealed with that stop (state_seal.h: `deep_used` and `deep_size_now`
 * are flakeid.deep's), whether or not `lowered`; otherwise saves it only if
 * `lowered`.  True when it saved.  Never raises.
 */
extern bool state_save_at_stop(const FlakeidPersisted *state, bool lowered, bool deep_used, uint64 deep_size_now);

#endif
