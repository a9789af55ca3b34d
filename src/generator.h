/*
 * generator.h — private to the generator modules
 *
 * The generators are split by responsibility around this header:
 *
 *   generator.c  the table of generators, shared memory, and the loops
 *   identity.c   what makes this server's IDs its own (identity and pool settings)
 *   clock.c      the clocks the generators read, and the snowflake epoch
 *   mark.c       the saved mark: every issued ID lies before it
 *   mark_wal.c   the mark's WAL records (redo, desc) and mark_synchronous's wait
 *   mark_renewer.c the worker that renews the mark, and the save at shutdown
 *   backfill.c   back-fill (*_new_at): one ledger per server, in shared memory
 *   state.c      the file that carries the mark across restarts, with its versions
 *   stats.c      statistics and the flakeid_generators view
 *
 * The type glue (sno.c, siq.c, …) sees only flakeid.h.  Each module defines
 * the settings it reads, from its *_init function called by _PG_init.
 */
#ifndef FLAKEID_GENERATOR_H
#define FLAKEID_GENERATOR_H

#include "postgres.h"

#include "port/atomics.h"
#include "storage/lwlock.h"
#include "utils/guc.h"

#include "flakeid.h"
#include "format/counter.h"
#include "format/format.h"
#include "format/siq.h"
#include "format/sno.h"

/* --- the generators (generator.c) ----------------------------------------- */

typedef struct GeneratorDef
{
	const char *name;			/* for the view and messages */
	const FlakeFormat *format;	/* the units its counter word counts in */
	bool		ticktock;		/* sno's rule (spec §5.1), else the monotonic one */
	bool		coarse_clock;	/* may read the coarse clock (clock.c) */
	int			variants;		/* counters it keeps: one per siq kind, else 1 */
	int			first_slot;		/* its first counter in FlakeidShared.slots */
	int			nidentities;
	IdentityKind identities[2]; /* resolved before anything is issued */
	CounterPool (*pool) (int variant);	/* may raise 22023 for a bad pool setting */
	const char *(*variant_name) (int variant);	/* NULL: one variant */
	char	   *(*describe_settings) (void);	/* for the view: settings besides identities, or NULL */
	const char *settings[5];	/* the settings it reads: refused when configured badly */
	void		(*check_state) (void);	/* may refuse what the saved state rules out, or NULL */
} GeneratorDef;

/*
 * The saved marks (mark.c).  Every ID lies before the mark of its counter:
 * one mark for the generators with the monotonic rule, and one per sno
 * tick-tock value.  sno IDs never run ahead of the clock, but the monotonic
 * generators count on ahead of a clock that stepped back; with one mark for
 * both, sno would resume after a restart where they were, and wait for the
 * clock to get there.  sno's mark of the value in use is the bound of that
 * value when it toggles, so a toggle needs no save of its own.
 */
typedef enum MarkId
{
	MARK_MONOTONIC,				/* siq, kuid, kuid96, snowflake */
	MARK_SNO_FLAG0,				/* sno IDs with tick-tock 0 */
	MARK_SNO_FLAG1,				/* sno IDs with tick-tock 1 */
	MARK_COUNT
} MarkId;

/* one counter per generator variant: sno, the 15 siq kinds, kuid, snowflake */
#define GEN_SLOT_COUNT	(3 + SIQ_NAMED_KINDS)

/* a back-fill low-water that no back-filled sequence has set yet */
#define BACKFILL_LOW_NONE	((uint32) COUNTER_SEQ_MASK + 1)

/*
 * What bounds the IDs one server issued, saved and WAL-logged: the marks,
 * and for back-fill (backfill.c) a low-water per counter slot at or below
 * every sequence back-fill gave there, in any unit.
 */
typedef struct IssuedBounds
{
	int64		marks[MARK_COUNT];	/* Unix µs; 0: none */
	uint32		sno_ticktock;	/* the tick-tock sno's counter carried */
	uint32		backfill_low[GEN_SLOT_COUNT];	/* BACKFILL_LOW_NONE: none yet */
} IssuedBounds;

/*
 * IssuedBounds as the state file (version 3) and the WAL record store them:
 * a fixed number of slots, whatever GEN_SLOT_COUNT becomes.
 */
#define BOUNDS_IMAGE_SLOTS	18

typedef struct IssuedBoundsImage
{
	int64		marks[MARK_COUNT];
	uint32		sno_ticktock;
	uint32		backfill_low[BOUNDS_IMAGE_SLOTS];
	uint32		padding;
} IssuedBoundsImage;

StaticAssertDecl(GEN_SLOT_COUNT == BOUNDS_IMAGE_SLOTS, "the stored bounds hold one low-water per counter slot");
StaticAssertDecl(MARK_COUNT == 3, "the stored bounds hold three marks");

/* --- generator.c -------------------------------------------------------------- */
/*
 * The pool of a generator variant, after everything that may refuse it (a
 * refused setting, recovery, identities, the saved state), and after taking
 * up a primary's bounds once recovery has ended.
 */
extern CounterPool generator_prepare(const GeneratorDef *def, int variant);

/*
 * Back-fill of a unit the live generator may still use: the live counter
 * issues in exactly `unit` (the clock read as that unit), so the ID is a
 * live one.  Returns COUNTER_ISSUE with *word, COUNTER_WAIT when the unit's
 * pool is used up, COUNTER_BEHIND when the counter has passed the unit.
 */
extern CounterOutcome generator_draw_at(const GeneratorDef *def, int slot, const CounterPool *pool,
										uint64 unit, uint64 *word);

/* the lowest unit the live counter of `slot` may still issue in: its last unit, or the clock's */
extern uint64 generator_live_floor(const GeneratorDef *def, int slot);

/* at start and when bounds are taken up: every counter as it is now issued nothing since */
extern void generator_note_resumed(void);

/* raises every monotonic counter below the unit holding `mark_unix_us` to it, its pool used up */
extern void generator_resume_monotonic(int64 mark_unix_us);

/*
 * Unless sno's counter already lies in the unit of its tick-tock's mark or
 * later, moves it to the unit of the mark of `flag` (its pool used up).
 * Returns the tick-tock the counter carries afterwards.
 */
extern bool generator_resume_sno(const int64 sno_marks[2], bool flag);

/*
 * The latest start of a unit (Unix µs) the counters of each mark used, 0
 * where none was: for sno, its counter under the mark of its tick-tock.
 */
extern void generator_latest_unit_starts(int64 latest[MARK_COUNT]);

extern const GeneratorDef generator_defs[GEN_COUNT];

/* --- shared memory (generator.c) ------------------------------------------ */

/* hot words written by many backends each live on a cache line of their own */
typedef union PaddedCounter
{
	pg_atomic_uint64 value;
	char		pad[PG_CACHE_LINE_SIZE];
} PaddedCounter;

typedef struct GeneratorStats
{
	pg_atomic_uint64 issued;
	pg_atomic_uint64 exhausted_waits;
	pg_atomic_uint64 clock_regressions;
	/* the log's report of used-up pools (stats_waited) */
	pg_atomic_uint64 pool_exhaustions;	/* calls that waited because the unit's pool was used up */
	pg_atomic_uint64 exhaustions_reported;	/* pool_exhaustions at the last LOG line */
	pg_atomic_uint64 exhaustion_logged_at;	/* Unix µs of the last LOG line; 0: none yet */
	char		pad[PG_CACHE_LINE_SIZE - 6 * sizeof(pg_atomic_uint64)];
} GeneratorStats;

typedef struct GeneratorSlot
{
	PaddedCounter word;			/* the counter word: last unit | flag | sequence */
	/*
	 * The word the counter was resumed at (start, promotion; under
	 * flakeid_lock): while it holds it, the counter has issued nothing since,
	 * and the renewer leaves its mark alone.
	 */
	PaddedCounter resumed_word;
	GeneratorStats stats;
} GeneratorSlot;

/* why the saved state refuses generation (mark.c) */
typedef enum StateRefusal
{
	STATE_USABLE,
	STATE_DAMAGED,				/* unreadable, or a bad checksum */
	STATE_TOO_NEW,				/* written by a later flakeid than this one */
	STATE_FOREIGN				/* written by another cluster (system identifier) */
} StateRefusal;

typedef struct FlakeidShared
{
	GeneratorSlot slots[GEN_SLOT_COUNT];
	PaddedCounter marks[MARK_COUNT];	/* the saved marks (Unix µs): every ID lies before its own */
	PaddedCounter sno_wall_safe;	/* sno_timeline.wall_safe, for waiters without the lock */
	/* under flakeid_lock: sno's timeline */
	SnoTimeline sno_timeline;
	int64		snowflake_epoch_ms; /* of the snowflakes issued (saved with the mark) */
	bool		snowflake_epoch_refused;	/* the configured epoch is later */
	/*
	 * under flakeid_lock: what the primary issued, replayed from the WAL, and
	 * taken up (generator_take_up_upstream) once recovery has ended
	 */
	IssuedBounds upstream;
	pg_atomic_uint32 upstream_pending;	/* upstream holds something the counters have not taken up */
	/* the published back-fill low-water of each slot (IssuedBounds.backfill_low) */
	pg_atomic_uint32 backfill_low[GEN_SLOT_COUNT];
	/*
	 * Back-fill's lifetimes (backfill.c): each start and each taking up of
	 * a primary's bounds begins one, below the low-waters as they were then
	 */
	uint32		backfill_start_low[GEN_SLOT_COUNT];
	pg_atomic_uint32 backfill_lifetime;
	/* set once at start */
	StateRefusal state_refusal;
	uint32		state_file_version; /* of the file read at start; 0: none */
	uint64		state_system_identifier;	/* of the file read at start; 0: none, or not recorded */
	pg_atomic_uint64 derived_identity[IDENTITY_COUNT];	/* value + 1; 0 = not derived yet */
} FlakeidShared;

extern FlakeidShared *flakeid_shared;

/* every hot word, the mark included, alone on its cache line (the struct is aligned to one) */
StaticAssertDecl(sizeof(GeneratorSlot) % PG_CACHE_LINE_SIZE == 0, "counter slots fill whole cache lines");
StaticAssertDecl(offsetof(FlakeidShared, marks) % PG_CACHE_LINE_SIZE == 0, "the marks start a cache line");

/*
 * With flakeid_lock held (or at start): sets sno's timeline, and publishes
 * its unsafe-period bound for waiters that do not take the lock.
 */
static inline void
sno_timeline_publish(const SnoTimeline *timeline)
{
	flakeid_shared->sno_timeline = *timeline;
	pg_atomic_write_u64(&flakeid_shared->sno_wall_safe.value, timeline->wall_safe);
}

/*
 * Serialises saving the state and sno's clock regressions.  Never taken per
 * ID: only by the backend that renews the mark, and by sno when its clock is
 * behind.
 */
extern LWLock *flakeid_lock;

/*
 * Takes flakeid_lock exclusively, in a loop of conditional tries and 1 ms
 * naps on the latch, so that a cancel or terminate ends the wait while the
 * holder is stuck in an fsync or a synchronous standby's wait.
 */
extern void flakeid_lock_acquire(void);

/* raises 55000 with the preload hint when the shared state is missing; `what` names the caller */
extern void generator_require_shared(const char *what);

/* --- settings.c -------------------------------------------------------------- */
/* DefineCustom*Variable, remembering a configured value that was refused */
extern void define_int_setting(const char *name, const char *description, const char *hint,
							   int *value, int boot, int min, int max, GucContext context, int flags,
							   GucIntCheckHook check);
extern void define_bool_setting(const char *name, const char *description, const char *hint,
								bool *value, bool boot, GucContext context, int flags);
extern void define_string_setting(const char *name, const char *description, const char *hint,
								  char **value, const char *boot, GucContext context, int flags,
								  GucStringCheckHook check, GucStringAssignHook assign);
/* "flakeid.x = 'value' refused" when the configured value was refused, else NULL (palloc'd) */
extern char *settings_describe_rejected(const char *name);
/* raises 22023, naming the setting and its configured value, if that value was refused */
extern void settings_refuse_rejected(const char *name, const char *generator);

/* --- identity.c -------------------------------------------------------------- */
/* flakeid.generate_on_standby */
extern bool identity_generate_on_standby(void);
/* defines the identity and pool settings (from _PG_init, while preloading) */
extern void identity_init(void);
/* logs at start which identities are set and which derived; WARNING for a bad sno pool */
extern void identity_log_settings(void);
/* the view's text of an identity; never resolves a derived one */
extern char *identity_describe(IdentityKind kind);
/* flakeid.sno_sequence_min..max; raises 22023 naming both when they are not a pool */
extern CounterPool identity_sno_pool(void);
extern char *identity_describe_sno_pool(void);
extern char *identity_describe_siq_domain(void);

/* --- clock.c ----------------------------------------------------------------- */
/* defines the clock settings and the snowflake epoch (from _PG_init, while preloading) */
extern void clock_init(void);
/*
 * Unix microseconds from the clock a generator reads: the coarse clock
 * where the generator and flakeid.sno_coarse_clock allow it and it ticks at
 * least once a unit, else the precise one; never blocks.
 */
extern int64 clock_read(const GeneratorDef *def);
extern char *clock_describe(const GeneratorDef *def);
extern char *clock_describe_snowflake_epoch(void);

/* --- mark.c ------------------------------------------------------------------ */

/* how far ahead of the clock the saved mark reaches, and when to renew it */
#define MARK_RESERVE_US		(2 * USECS_PER_SEC)
#define MARK_RENEW_US		(1 * USECS_PER_SEC)

typedef struct FlakeidPersisted FlakeidPersisted;

/*
 * The custom WAL resource manager that carries the mark to standbys (PostgreSQL
 * 15's RegisterCustomRmgr): an ID from the custom range, recorded in the README.
 */
#define FLAKEID_RMGR_ID		149

/* defines flakeid.accept_state_from (from _PG_init, while preloading) */
extern void mark_init(void);
/* registers the WAL resource manager, defines flakeid.mark_synchronous (mark_wal.c) */
extern void mark_wal_init(void);
/*
 * Logs and flushes a save's record before it is used (a standby logs
 * nothing); with flakeid.mark_synchronous, waits for the synchronous
 * standbys, and a cancel of that wait raises (mark_wal.c)
 */
extern void mark_wal_log(const FlakeidPersisted *state);

/* mark.c's helpers for mark_wal.c and mark_renewer.c (flakeid_lock held, or at start or exit) */
typedef enum RenewOutcome
{
	RENEW_NOT_NEEDED,			/* another backend, or the renewer, renewed it meanwhile */
	RENEW_SAVED,
	RENEW_FAILED				/* only below ERROR: at ERROR a failure raises */
} RenewOutcome;
extern void read_marks(int64 marks[MARK_COUNT]);
extern void read_backfill_lows(uint32 lows[GEN_SLOT_COUNT]);
extern void current_state(FlakeidPersisted *state, const int64 marks[MARK_COUNT], const uint32 lows[GEN_SLOT_COUNT],
						  int64 snowflake_epoch_ms);
extern bool bounds_exceed_own(const IssuedBounds *bounds);
extern void check_snowflake_epoch(void);
extern RenewOutcome renew_locked(const int64 latest[MARK_COUNT], int64 within, int elevel);
/* at start, in the postmaster: reads the state file, publishes the mark (never raises) */
extern void mark_startup(void);
/* raises 55000 when the configured snowflake epoch could repeat issued values */
extern void mark_check_snowflake_epoch(void);
extern void mark_ensure_renewed(MarkId mark, int64 unit_start);
/*
 * With flakeid_lock held: unless `mark` is more than MARK_RENEW_US ahead of
 * `unit_start`, saves the state with that mark renewed (fsync, durable
 * rename) and then publishes it.  A failure to save is an ERROR and
 * publishes nothing.
 */
extern void mark_renew_locked(MarkId mark, int64 unit_start);
/* once recovery has ended: takes up the primary's replayed bounds (may take flakeid_lock) */
extern void mark_take_up_upstream(void);
/* saves (and WAL-logs) the back-fill low-water of `slot` lowered to `low`, then publishes it; raises on failure */
extern void mark_lower_backfill_low(int slot, uint32 low);
/* raises the error for a state file refused at start (XX001, or 55000 for a newer one) */
extern void mark_refuse_unusable_state(void);
/* registers the "flakeid mark renewer" background worker (from _PG_init, while preloading) */
extern void mark_renewer_register(void);
/* in the postmaster once shared memory is set up: at a clean exit, save the high-water mark */
extern void mark_save_high_water_at_exit(void);

/* the mark an ID of this generator with this counter word must lie before */
static inline MarkId
mark_of(const GeneratorDef *def, uint64 word)
{
	return !def->ticktock ? MARK_MONOTONIC : counter_flag(word) ? MARK_SNO_FLAG1 : MARK_SNO_FLAG0;
}

/* the unit of `format` holding a mark; 0 for no mark, or one before the format's range */
static inline uint64
mark_unit(const FlakeFormat *format, int64 mark_unix_us)
{
	uint64		unit = 0;

	if (mark_unix_us <= 0 || !format->units_at(mark_unix_us, &unit))
		return 0;
	return unit;
}

static inline int64
mark_read(MarkId mark)
{
	return (int64) pg_atomic_read_u64(&flakeid_shared->marks[mark].value);
}

/*
 * Called before publishing an ID whose unit starts at `unit_start`: the ID
 * must lie before its saved mark.  Normally one atomic read, inline; when
 * the mark is within MARK_RENEW_US, mark_ensure_renewed (which may take
 * flakeid_lock, fsync, and raise).
 */
static inline void
mark_ensure(MarkId mark, int64 unit_start)
{
	if (likely(unit_start + MARK_RENEW_US < mark_read(mark)))
		return;
	mark_ensure_renewed(mark, unit_start);
}

/* --- state.c ----------------------------------------------------------------- */

/* what the file holds, in the current version's terms */
struct FlakeidPersisted
{
	uint64		system_identifier;	/* of the cluster that wrote it; 0: not recorded (versions 1, 2) */
	int64		snowflake_epoch_ms; /* the earliest epoch snowflakes were issued under here or
									 * upstream; -1: none, or not known (version 1) */
	IssuedBounds own;			/* what this server issued */
	IssuedBounds upstream;		/* what its primary issued, replayed from the WAL */
};

#define STATE_VERSION	3

typedef enum StateLoad
{
	STATE_LOAD_NONE,			/* no file: a first start */
	STATE_LOAD_CURRENT,
	STATE_LOAD_MIGRATED,		/* an older version's file, read and rewritten as current */
	STATE_LOAD_DAMAGED,
	STATE_LOAD_TOO_NEW,
	STATE_LOAD_FOREIGN			/* another cluster's: its system identifier is not this one's */
} StateLoad;

/*
 * The state of a server that has issued nothing: no marks, no back-fill
 * low-water, the snowflake epoch unknown (-1).
 */
extern void state_set_empty(FlakeidPersisted *state);
extern void bounds_set_empty(IssuedBounds *bounds);
extern void bounds_to_image(IssuedBoundsImage *image, const IssuedBounds *bounds);
extern void bounds_from_image(IssuedBounds *bounds, const IssuedBoundsImage *image);
/* flakeid 1.1's state: the body of state file version 2, and its WAL record */
typedef struct FlakeidState11
{
	int64		mark_unix_us;	/* of the monotonic generators */
	int64		sno_mark_unix_us;	/* of sno's tick-tock in use */
	int64		sno_other_bound_unix_us;	/* of the other tick-tock */
	int64		snowflake_epoch_ms;
	uint32		sno_ticktock;
	uint32		padding;
} FlakeidState11;

extern void bounds_from_state11(IssuedBounds *bounds, int64 *snowflake_epoch_ms, const FlakeidState11 *state);
extern StateLoad state_load(FlakeidPersisted *state, uint32 *file_version);
extern bool state_save(const FlakeidPersisted *state, int elevel);

/* --- stats.c ----------------------------------------------------------------- */

/* per-backend counts not yet added to shared memory (stats.c owns them) */
typedef struct StatsPending
{
	uint64		issued[GEN_SLOT_COUNT];
	uint64		regressions[GEN_SLOT_COUNT];
	int			total;
	bool		flush_at_xact_end;	/* the transaction callback is registered */
} StatsPending;

extern StatsPending stats_pending;
extern void stats_batch_full(void);
/*
 * Counts a call that waited (exhausted_waits).  A wait because the unit's
 * pool was used up is also told to the server log, at most one line a
 * minute per generator variant, with the count since the line before.
 */
extern void stats_waited(const GeneratorDef *def, int slot, bool pool_used_up);

/* "sno", "siq user": a generator variant as flakeid_generators names it (palloc'd) */
extern char *generator_variant_label(const GeneratorDef *def, int variant);

/* the per-ID count: local increments; shared memory every STATS_BATCH IDs and at transaction end */
#define STATS_BATCH			256
static inline void
stats_issued(int slot, bool clock_behind)
{
	stats_pending.issued[slot]++;
	if (clock_behind)
		stats_pending.regressions[slot]++;
	if (unlikely(++stats_pending.total >= STATS_BATCH || !stats_pending.flush_at_xact_end))
		stats_batch_full();
}

#endif
