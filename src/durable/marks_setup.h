/*
 * marks_setup.h — the marks' shared memory and flakeid_lock, and the state
 * file as it is read at start (marks_setup.c); the rest of the marks is
 * marks.h's
 */
#ifndef FLAKEID_MARKS_SETUP_H
#define FLAKEID_MARKS_SETUP_H

#include "storage/condition_variable.h"
#include "storage/lwlock.h"

#include "durable/state.h"

/* why the saved state refuses generation */
typedef enum StateRefusal
{
	STATE_USABLE,
	STATE_DAMAGED,				/* unreadable, or a bad checksum */
	STATE_TOO_NEW,				/* written by a later flakeid than this one */
	STATE_FOREIGN,				/* written by another cluster (system identifier) */
	STATE_MISSING,				/* gone, although the cluster issued IDs */
	STATE_STALE,				/* not the file the last clean stop saved (state_seal.h) */
	STATE_REPLAY_LOST			/* usable, but a standby replayed bounds while it was not (REPLAY_LOST_FILE) */
} StateRefusal;

/*
 * The note that this data directory, as a standby, replayed its primary's
 * bounds while its state file was refused (marks_replay.c): they were
 * kept nowhere, and a restartpoint passed them.  A file mended afterwards
 * lacks them; the note refuses it until a start afresh takes it away.
 */
#define REPLAY_LOST_FILE	"flakeid.state.replay-lost"

/* flakeid.accept_backfill_loss: back-fill before the floor is let through (backfill.c) */
extern bool accept_backfill_loss;

/* at start, after deep_record_load: flakeid.take_over_from (a copy takes over from its original) */
extern void mark_take_over_copy(FlakeidPersisted *saved);

/* the settings marks_afresh.c acts on (defined in marks_setup.c's mark_init) */
extern bool flakeid_start_afresh;
extern char *flakeid_take_over_from;

/*
 * marks_afresh.c, at start between mark_load_state and mark_set_up_shared:
 * with flakeid.start_afresh, sets an unusable state file aside and saves a
 * new one whose marks and back-fill floor lie 62 s past the latest instant
 * a lost save could have read; where it cannot, the refusal stays, logged.
 * In the postmaster; never raises.
 */
extern void mark_start_afresh_if_asked(FlakeidPersisted *saved);

typedef struct MarkShared
{
	PaddedWord	marks[MARK_COUNT];	/* the saved marks (Unix µs), read before every ID */
	uint32		sno_ticktock;	/* under flakeid_lock: the tick-tock sno's counter carries */
	/*
	 * under flakeid_lock: what the primary issued, replayed from the WAL, and
	 * taken up (resume.c) once recovery has ended
	 */
	IssuedBounds upstream;
	pg_atomic_uint32 upstream_pending;	/* upstream holds something not taken up yet */
	/* the published back-fill low-water of each slot (IssuedBounds.backfill_low) */
	pg_atomic_uint32 backfill_low[GEN_SLOT_COUNT];
	/* under flakeid_lock: the published deep units (IssuedBounds.backfill_deep) */
	DeepUnits	backfill_deep;
	/* the published back-fill floor (IssuedBounds.backfill_floor): written under flakeid_lock */
	pg_atomic_uint64 backfill_floor;
	/*
	 * Back-fill's lifetimes (backfill.c): each start and each taking up of
	 * a primary's bounds begins one, below the low-waters and deep units as
	 * they were then.  The lifetime's number is odd while they are being
	 * written (a sequence lock: readers read it before and after them).
	 */
	uint32		backfill_start_low[GEN_SLOT_COUNT];
	DeepUnits	backfill_start_deep;
	pg_atomic_uint32 backfill_lifetime;
	/* broadcast at every release of flakeid_lock (flakeid_lock_release) */
	ConditionVariable lock_released;
	/* set once at start */
	StateRefusal state_refusal;
	uint32		state_file_version; /* of the file read at start; 0: none */
	uint64		state_system_identifier;	/* of the file read at start; 0: none, or not recorded */
	bool		afresh_failed;	/* flakeid.start_afresh was on for a refused state, and could not act */
	bool		stale_unsaved;	/* STATE_STALE, and the last clean stop's save had failed (state_seal.h) */
	bool		replay_lost_noted;	/* REPLAY_LOST_FILE is written */
	bool		state_unreadable;	/* STATE_DAMAGED: the file could not be opened or read */
	bool		archive_recovery;	/* started with standby.signal, recovery.signal or a backup_label */
	bool		old_marks_ahead;	/* state_load_refused_old_marks_ahead() at start */
	bool		old_version_on_disk;	/* an older release's file taken up, whose upgrade at start failed */
	/*
	 * flakeid.take_over_from named this copy, and took nothing over yet: its
	 * generators were issuing ahead of the clock until this instant (unix
	 * µs; marks_afresh.c's original_within_lead); 0: no such wait
	 */
	int64		take_over_waits_until;
} MarkShared;

extern MarkShared *mark_shared;

/* defines flakeid.accept_state_from, asks for the shared part and flakeid_lock (from _PG_init) */
extern void mark_init(void);

/*
 * Serialises saving the state and sno's clock regressions.  Never taken per
 * ID: only by the backend that renews the mark, and by sno when its clock is
 * behind.
 */
extern LWLockPadded *mark_locks;
#define flakeid_lock (&mark_locks[0].lock)

/*
 * At start (postmaster, shared memory being set up): reads the state file
 * into *saved and decides whether it can be used (state_refusal); a
 * refused file's marks stay in *saved for a start afresh.  Never raises.
 */
extern void mark_load_state(FlakeidPersisted *saved);

/*
 * At start, after mark_start_afresh_if_asked: the marks, bounds and
 * back-fill's shared state set up from *saved (emptied where the file stays
 * refused), an older version's file rewritten, the witness ensured.
 */
extern void mark_set_up_shared(FlakeidPersisted *saved);

/* at start, after deep_record_load: flakeid.start_afresh for back-fill's record of deep units */
extern void mark_backfill_afresh(FlakeidPersisted *saved);

/* at start, after mark_backfill_afresh: the state file names the record of deep units in use */
extern void mark_name_deep_record(FlakeidPersisted *saved);

static inline bool
mark_state_usable(void)
{
	return mark_shared->state_refusal == STATE_USABLE;
}

/*
 * Whether a flakeid.state found beside no witness means this cluster issued
 * IDs (state_witness_settle): a usable one, and a refused one too (damaged,
 * unreadable, an older copy, a newer or another cluster's file: "no ID
 * yet" beside it made its later loss, the file removed by hand, a first
 * start at the clock: 1.4's last fresh eyes) but for an older release's
 * refused for a mark ahead of a clock that was behind.  That one is taken
 * up once the clock has caught up, which "issued" beside it would forbid
 * (old_file_refusal reads such a witness as a newer save since).  By the
 * reason, not the version: a damaged file whose header says 1 to 3 is
 * "issued" too (round 7: 260 IDs twice).
 */
static inline bool
mark_state_file_says_issued(void)
{
	/*
	 * (nor beside an older release's file taken up, whose upgrade to this
	 * version failed: "issued" beside it refused it as an older copy at
	 * the next start, a false reason; the first save of this version, at
	 * the first ID, writes "issued" after the file: 1.4's eleventh fresh
	 * eyes)
	 */
	return (mark_shared->state_refusal == STATE_USABLE || !mark_shared->old_marks_ahead) &&
		!mark_shared->old_version_on_disk;
}

/* the instant a takeover named by flakeid.take_over_from waits for (unix µs), 0 where none waits */
static inline int64
mark_take_over_waits_until(void)
{
	return mark_shared->take_over_waits_until;
}

/* the accepted value of flakeid.accept_state_from: a system identifier, or 0 */
extern uint64 mark_accepted_foreign_system(void);

/* raises the error for a state file refused at start (XX001, or 55000 for a newer one) */
extern void mark_refuse_unusable_state(void);

#endif
