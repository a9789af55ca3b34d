/*
 * generator.c — the generators' shared state, its persistence, and their
 * lock-free core
 *
 * One FlakeidShared struct in shared memory holds every stateful
 * generator.  Each generator's hot state is a single counter word
 * (format/counter.h) advanced with compare-and-swap: no heavyweight lock and
 * no LWLock on the path that issues IDs.  The rules themselves (what to
 * issue for a given clock reading) are the pure functions of format/, so the
 * loops here only read the clock, publish decisions and wait.
 *
 * Restarts: every ID issued lies before a time mark that is saved to disk
 * (state.c) ahead of the clock, and renewed before it runs out by whichever
 * backend gets there first, without holding up the others.  At start each
 * generator resumes at the mark, so nothing issued before a stop or a crash
 * can be issued again, whatever the clock then says.
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "flakeid.h"
#include "format/kuid.h"
#include "format/siq.h"
#include "format/snowflake.h"
#include "format/sno.h"

/* how far ahead of the clock the saved mark reaches, and when to renew it */
#define MARK_RESERVE_US		(2 * USECS_PER_SEC)
#define MARK_RENEW_US		(1 * USECS_PER_SEC)
/* per-backend statistics are added to the shared ones this often (and at transaction end) */
#define STATS_BATCH			256

/* keep hot words written by many backends on cache lines of their own */
typedef union PaddedCounter
{
	pg_atomic_uint64 word;
	char		pad[PG_CACHE_LINE_SIZE];
} PaddedCounter;

typedef enum GeneratorId
{
	GEN_SNO,
	GEN_SIQ_FIRST,				/* one per named siq kind */
	GEN_KUID = GEN_SIQ_FIRST + SIQ_NAMED_KINDS, /* shared by kuid and kuid96 */
	GEN_SNOWFLAKE,
	GEN_COUNT
} GeneratorId;

typedef struct GeneratorStats
{
	pg_atomic_uint64 issued;
	pg_atomic_uint64 exhausted_waits;
	pg_atomic_uint64 clock_regressions;
	char		pad[PG_CACHE_LINE_SIZE - 3 * sizeof(pg_atomic_uint64)];
} GeneratorStats;

typedef struct GeneratorShared
{
	PaddedCounter word;			/* the counter word: last unit | flag | sequence */
	PaddedCounter static_calls; /* back-fill draws */
	GeneratorStats stats;
} GeneratorShared;

typedef enum IdentityKind
{
	IDENTITY_SNO_PARTITION,
	IDENTITY_SIQ_SHARD,
	IDENTITY_KUID_NODE,
	IDENTITY_SNOWFLAKE_WORKER,
	IDENTITY_SNOWFLAKE_PROCESS,
	IDENTITY_COUNT
} IdentityKind;

typedef struct FlakeidShared
{
	GeneratorShared gen[GEN_COUNT];
	pg_atomic_uint64 mark_unix_us;	/* the saved mark: every issued ID lies before it */
	/* under `lock`: the state file, sno's timeline and the persisted copy of it */
	SnoTimeline sno_timeline;
	int64		sno_other_bound_unix_us;
	bool		state_damaged;	/* the state file could not be read: refuse to generate */
	pg_atomic_uint64 derived_identity[IDENTITY_COUNT];	/* value + 1; 0 = not derived yet */
} FlakeidShared;

static FlakeidShared *shared = NULL;
/* serialises saving the state and sno's clock regressions; never taken per ID */
static LWLock *lock = NULL;

/*
 * An identity setting: -1 derives the value from the cluster fingerprint
 * (its bits from `shift`, `mask` wide), anything else is used as is.  A
 * named identity (kuid's Erlang node name) is configured as text and used
 * through its fingerprint.
 */
typedef struct IdentityDef
{
	const char *setting;		/* for messages */
	const char *type_name;
	int		   *value;			/* the setting's value, or the name's fingerprint */
	char	  **name;			/* the setting, when it is a name */
	int			shift;
	uint32		mask;
} IdentityDef;

/* each identity takes its own bits of the 64-bit cluster fingerprint */
static const IdentityDef identities[IDENTITY_COUNT] = {
	[IDENTITY_SNO_PARTITION] = {"flakeid.sno_partition", "sno", &flakeid_sno_partition_setting, NULL, 0, 0xFFFF},
	[IDENTITY_SIQ_SHARD] = {"flakeid.siq_shard", "siq", &flakeid_siq_shard_setting, NULL, 16, 0xFF},
	[IDENTITY_SNOWFLAKE_WORKER] = {"flakeid.snowflake_worker", "snowflake", &flakeid_snowflake_worker_setting, NULL, 24, 0x1F},
	[IDENTITY_SNOWFLAKE_PROCESS] = {"flakeid.snowflake_process", "snowflake", &flakeid_snowflake_process_setting, NULL, 29, 0x1F},
	[IDENTITY_KUID_NODE] = {"flakeid.kuid_node", "kuid96", &flakeid_kuid_node_fingerprint, &flakeid_kuid_node_setting, 32, 0xFFFFFFFF},
};

/* per-backend cache of resolved identities; -1 = not resolved */
static int64 identity_cached[IDENTITY_COUNT] = {-1, -1, -1, -1, -1};

static void
require_shared(const char *function)
{
	if (shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s needs flakeid's shared generator state, which is not loaded", function),
				 errhint(FLAKEID_PRELOAD_HINT)));
}

/* Logged once at server start, so the log says which identities are derived. */
void
flakeid_log_identities(void)
{
	for (int i = 0; i < IDENTITY_COUNT; i++)
	{
		const IdentityDef *id = &identities[i];

		if (*id->value < 0)
			ereport(LOG,
					(errmsg("flakeid: %s is derived from the system identifier and timeline", id->setting),
					 errdetail("Servers that mint %s IDs into the same data must each set a distinct %s.",
							   id->type_name, id->setting)));
		else if (id->name)
			ereport(LOG, (errmsg("flakeid: %s = '%s' (fingerprint %d)", id->setting, *id->name, *id->value)));
		else
			ereport(LOG, (errmsg("flakeid: %s = %d", id->setting, *id->value)));
	}
	if (!sno_pool_is_valid(flakeid_sno_sequence_min, flakeid_sno_sequence_max))
		ereport(WARNING,
				(errmsg("flakeid: flakeid.sno_sequence_min (%d) and flakeid.sno_sequence_max (%d) do not form a valid pool; sno generation will fail",
						flakeid_sno_sequence_min, flakeid_sno_sequence_max),
				 errhint("Set flakeid.sno_sequence_min <= flakeid.sno_sequence_max with at least %d values between them.",
						 SNO_MIN_POOL)));
}

/*
 * A 64-bit fingerprint of this cluster and timeline (splitmix64 finaliser),
 * from which derived identities take their bits: a promoted standby is on a
 * new timeline and so gets a new identity.
 */
static uint64
derived_identity_seed(void)
{
	uint64		x;
	TimeLineID	tli;

#if PG_VERSION_NUM >= 150000
	tli = GetWALInsertionTimeLine();
#else
	tli = ThisTimeLineID;
#endif
	x = GetSystemIdentifier() ^ ((uint64) tli * UINT64CONST(0x9E3779B97F4A7C15));
	x = (x ^ (x >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64CONST(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

static uint32
identity_resolve(IdentityKind kind)
{
	const IdentityDef *id = &identities[kind];
	uint64		derived;

	if (likely(identity_cached[kind] >= 0))
		return (uint32) identity_cached[kind];
	if (*id->value >= 0)
		return (uint32) (identity_cached[kind] = *id->value);

	require_shared(psprintf("%s generation", id->type_name));
	derived = pg_atomic_read_u64(&shared->derived_identity[kind]);
	if (derived == 0)
	{
		/*
		 * A standby shares the primary's system identifier and timeline, so a
		 * derived identity there would collide with the primary's.
		 */
		if (RecoveryInProgress())
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot generate %s IDs with a derived %s during recovery",
							id->type_name, id->setting),
					 errhint("Set %s to a value no other server uses, or generate IDs on the primary.",
							 id->setting)));
		derived = ((derived_identity_seed() >> id->shift) & id->mask) + 1;
		if (pg_atomic_exchange_u64(&shared->derived_identity[kind], derived) == 0)
			ereport(LOG,
					(errmsg("flakeid: derived %s = " UINT64_FORMAT " from system identifier " UINT64_FORMAT " and the current timeline",
							id->setting, derived - 1, GetSystemIdentifier())));
	}
	identity_cached[kind] = (int64) derived - 1;
	return (uint32) identity_cached[kind];
}

unsigned
flakeid_sno_partition(void)
{
	return identity_resolve(IDENTITY_SNO_PARTITION);
}

unsigned
flakeid_siq_shard(void)
{
	return identity_resolve(IDENTITY_SIQ_SHARD);
}

uint32
flakeid_kuid_node(void)
{
	return identity_resolve(IDENTITY_KUID_NODE);
}

unsigned
flakeid_snowflake_worker(void)
{
	return identity_resolve(IDENTITY_SNOWFLAKE_WORKER);
}

unsigned
flakeid_snowflake_process(void)
{
	return identity_resolve(IDENTITY_SNOWFLAKE_PROCESS);
}

/* --- generators: units and time ------------------------------------------------
 * Each generator counts in its format's own unit.  units_at() floors an
 * instant to its unit (false outside the generator's range), unit_start()
 * is the first instant of a unit, both in Unix microseconds.
 */

/* siq's units are ticks (1/65536 s) since 2020, so that they fit the counter word's 47 bits until 2088 */
#define SIQ_COUNTER_BASE_T56	(UINT64CONST(1577836800) << 16)

static bool
siq_units_at(int64 unix_us, uint64 *unit)
{
	uint64		t56;

	if (!siq_t56_from_unix_us(unix_us, &t56) || t56 < SIQ_COUNTER_BASE_T56 ||
		t56 - SIQ_COUNTER_BASE_T56 > COUNTER_MAX_UNIT)
		return false;
	*unit = t56 - SIQ_COUNTER_BASE_T56;
	return true;
}

static int64
siq_unit_start(uint64 unit)
{
	/* rounded up: an instant from here on floors into this tick */
	return siq_unix_us_ceil_from_t56(SIQ_COUNTER_BASE_T56 + unit);
}

static bool
kuid_units_at(int64 unix_us, uint64 *unit)
{
	KuidFields	fields;

	if (!kuid_fields_from_unix_us(unix_us, &fields))
		return false;
	*unit = kuid_unit_from_fields(&fields);
	return *unit <= COUNTER_MAX_UNIT;
}

static int64
kuid_unit_start(uint64 unit)
{
	KuidFields	fields;

	kuid_fields_from_unit(unit, &fields);
	return kuid_unix_us_from_fields(&fields);
}

/* snowflake units are Unix milliseconds, independent of the epoch setting */
static bool
snowflake_units_at(int64 unix_us, uint64 *unit)
{
	if (unix_us < 0)
		return false;
	*unit = (uint64) (unix_us / 1000);
	return true;
}

static int64
snowflake_unit_start(uint64 unit)
{
	return (int64) unit * 1000;
}

/* the clock must lie in the configured epoch's range, so that nothing outside it is issued */
static void
snowflake_check_clock(uint64 unit)
{
	int64		epoch_ms = flakeid_snowflake_epoch_ms;

	if ((int64) unit < epoch_ms || unit - epoch_ms >= SNOWFLAKE_MS_LIMIT)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the system clock is outside the time range of snowflakes with epoch " INT64_FORMAT " ms", epoch_ms)));
}

/*
 * sno's unit is 4 ms.  Where the coarse clock ticks at least that often
 * (flakeid.sno_coarse_clock, on by default) sno reads it, for a quarter of
 * the cost of a precise read, which was the largest part of sno_new's; an
 * ID's time then trails the precise clock by the tick and the kernel's
 * update delay (2-7 ms on the benchmark machine).  Every sno decision reads
 * this one clock: a precise reading followed by a coarse one could look like
 * a clock regression, which is also why the setting needs a restart.
 */
static bool
sno_clock_is_coarse(void)
{
	static int	coarse = -1;

	if (unlikely(coarse < 0))
	{
		int64		resolution = flakeid_coarse_clock_resolution_us();

		coarse = flakeid_sno_coarse_clock && resolution > 0 && resolution <= SNO_UNIT_US;
	}
	return coarse;
}

static int64
sno_clock_unix_us(void)
{
	return sno_clock_is_coarse() ? flakeid_coarse_clock_unix_us() : flakeid_clock_unix_us();
}

/* for flakeid_generators */
static char *
generator_clock(GeneratorId gen)
{
	if (gen == GEN_SNO && sno_clock_is_coarse())
		return psprintf("coarse (" INT64_FORMAT " us)", flakeid_coarse_clock_resolution_us());
	return pstrdup("precise");
}

typedef struct GeneratorDef
{
	const char *type_name;		/* for messages */
	int64		(*clock) (void);	/* Unix microseconds */
	bool		(*units_at) (int64 unix_us, uint64 *unit);
	int64		(*unit_start) (uint64 unit);
	void		(*check_clock) (uint64 unit);	/* optional: a narrower range for clock readings */
} GeneratorDef;

static const GeneratorDef *
generator_def(GeneratorId gen)
{
	static const GeneratorDef sno = {"sno", sno_clock_unix_us, sno_units_from_unix_us, sno_unix_us_from_units, NULL};
	static const GeneratorDef siq = {"siq", flakeid_clock_unix_us, siq_units_at, siq_unit_start, NULL};
	static const GeneratorDef kuid = {"kuid", flakeid_clock_unix_us, kuid_units_at, kuid_unit_start, NULL};
	static const GeneratorDef snowflake = {"snowflake", flakeid_clock_unix_us, snowflake_units_at, snowflake_unit_start,
	snowflake_check_clock};

	if (gen == GEN_SNO)
		return &sno;
	if (gen == GEN_KUID)
		return &kuid;
	if (gen == GEN_SNOWFLAKE)
		return &snowflake;
	return &siq;
}

static uint64
clock_units(GeneratorId gen)
{
	const GeneratorDef *def = generator_def(gen);
	uint64		unit;

	if (!def->units_at(def->clock(), &unit))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the system clock is outside the time range of the %s generator", def->type_name)));
	if (def->check_clock)
		def->check_clock(unit);
	return unit;
}

/* --- shared memory ---------------------------------------------------------- */

void
flakeid_shmem_request(void)
{
	RequestAddinShmemSpace(MAXALIGN(sizeof(FlakeidShared)) + PG_CACHE_LINE_SIZE);
	RequestNamedLWLockTranche("flakeid", 1);
}

/*
 * Resume from the saved state: each generator's last used unit becomes the
 * one holding the mark, with its sequence used up, so the next ID is in a
 * later unit than anything issued before (a clock behind counts on from
 * there, or for sno follows its timeline).
 */
static void
restore_state(const FlakeidPersisted *saved)
{
	pg_atomic_write_u64(&shared->mark_unix_us, (uint64) saved->mark_unix_us);
	shared->sno_other_bound_unix_us = saved->sno_other_bound_unix_us;
	shared->sno_timeline.drifts = saved->sno_ticktock & 1;
	shared->sno_timeline.wall_safe = 0;
	if (saved->sno_other_bound_unix_us > 0)
		(void) sno_units_from_unix_us(saved->sno_other_bound_unix_us, &shared->sno_timeline.wall_safe);
	if (saved->mark_unix_us <= 0)
		return;
	for (int g = 0; g < GEN_COUNT; g++)
	{
		uint64		unit;

		if (generator_def(g)->units_at(saved->mark_unix_us, &unit))
			pg_atomic_write_u64(&shared->gen[g].word.word,
								counter_word(unit, g == GEN_SNO && (saved->sno_ticktock & 1), COUNTER_SEQ_MASK));
	}
}

void
flakeid_shmem_startup(void)
{
	bool		found;
	char	   *raw;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	raw = ShmemInitStruct("flakeid", MAXALIGN(sizeof(FlakeidShared)) + PG_CACHE_LINE_SIZE, &found);
	shared = (FlakeidShared *) TYPEALIGN(PG_CACHE_LINE_SIZE, raw);
	if (!found)
	{
		FlakeidPersisted saved;

		memset(shared, 0, sizeof(*shared));
		for (int g = 0; g < GEN_COUNT; g++)
		{
			pg_atomic_init_u64(&shared->gen[g].word.word, 0);
			pg_atomic_init_u64(&shared->gen[g].static_calls.word, 0);
			pg_atomic_init_u64(&shared->gen[g].stats.issued, 0);
			pg_atomic_init_u64(&shared->gen[g].stats.exhausted_waits, 0);
			pg_atomic_init_u64(&shared->gen[g].stats.clock_regressions, 0);
		}
		pg_atomic_init_u64(&shared->mark_unix_us, 0);
		for (int i = 0; i < IDENTITY_COUNT; i++)
			pg_atomic_init_u64(&shared->derived_identity[i], 0);
		shared->state_damaged = !flakeid_state_load(&saved);
		restore_state(&saved);
		if (saved.mark_unix_us > 0)
			ereport(LOG,
					(errmsg("flakeid: generators resume after the saved mark %s",
							timestamptz_to_str(flakeid_timestamptz_from_unix_us(saved.mark_unix_us)))));
	}
	lock = &(GetNamedLWLockTranche("flakeid"))->lock;
	LWLockRelease(AddinShmemInitLock);
}

/* --- the saved mark --------------------------------------------------------- */

/* With `lock` held: writes the state with the given mark, then publishes the mark. */
static void
save_state_locked(int64 mark_unix_us)
{
	FlakeidPersisted state = {0};

	state.mark_unix_us = mark_unix_us;
	state.sno_other_bound_unix_us = shared->sno_other_bound_unix_us;
	state.sno_ticktock = counter_flag(pg_atomic_read_u64(&shared->gen[GEN_SNO].word.word)) ? 1 : 0;
	flakeid_state_save(&state);
	pg_atomic_write_u64(&shared->mark_unix_us, (uint64) mark_unix_us);
}

/* With `lock` held: moves the mark a reserve ahead of the clock and of `unit_start`. */
static void
renew_mark_locked(int64 unit_start)
{
	int64		mark = (int64) pg_atomic_read_u64(&shared->mark_unix_us);

	if (unit_start + MARK_RENEW_US < mark)
		return;					/* another backend renewed it meanwhile */
	save_state_locked(Max(Max(flakeid_clock_unix_us(), unit_start + 1) + MARK_RESERVE_US, mark));
}

/*
 * Called before publishing an ID whose unit starts at `unit_start`: the ID
 * must lie before the saved mark.  Normally one atomic read.  When the mark
 * is within MARK_RENEW_US, one backend renews it (the others go on, since
 * they are still covered); only past the mark does a caller wait for the
 * renewal.
 */
static void
ensure_mark(int64 unit_start)
{
	int64		mark = (int64) pg_atomic_read_u64(&shared->mark_unix_us);

	if (likely(unit_start + MARK_RENEW_US < mark))
		return;
	if (shared->state_damaged)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's generator state file is damaged, so generation is refused"),
				 errhint("Remove \"flakeid.state\" from the data directory once the clock is past every ID issued, and restart the server.")));
	if (unit_start < mark)
	{
		if (LWLockConditionalAcquire(lock, LW_EXCLUSIVE))
		{
			renew_mark_locked(unit_start);
			LWLockRelease(lock);
		}
		return;
	}
	LWLockAcquire(lock, LW_EXCLUSIVE);
	renew_mark_locked(unit_start);
	LWLockRelease(lock);
}

/* --- statistics --------------------------------------------------------------
 * Counted per backend and added to shared memory in batches, so the per-ID
 * cost is a local increment; exhausted-pool waits are rare and go straight
 * to shared memory.
 */
static uint64 pending_issued[GEN_COUNT];
static uint64 pending_regressions[GEN_COUNT];
static int	pending_total = 0;
static bool xact_callback_registered = false;

static void
stats_flush(void)
{
	if (pending_total == 0 || shared == NULL)
		return;
	for (int g = 0; g < GEN_COUNT; g++)
	{
		if (pending_issued[g])
			pg_atomic_fetch_add_u64(&shared->gen[g].stats.issued, pending_issued[g]);
		if (pending_regressions[g])
			pg_atomic_fetch_add_u64(&shared->gen[g].stats.clock_regressions, pending_regressions[g]);
		pending_issued[g] = pending_regressions[g] = 0;
	}
	pending_total = 0;
}

static void
stats_at_xact_end(XactEvent event pg_attribute_unused(), void *arg pg_attribute_unused())
{
	stats_flush();
}

static inline void
stats_issued(GeneratorId gen, bool clock_behind)
{
	pending_issued[gen]++;
	if (clock_behind)
		pending_regressions[gen]++;
	if (unlikely(!xact_callback_registered))
	{
		RegisterXactCallback(stats_at_xact_end, NULL);
		xact_callback_registered = true;
	}
	if (unlikely(++pending_total >= STATS_BATCH))
		stats_flush();
}

/* --- the generation loops ------------------------------------------------------ */

/*
 * Sleeps towards the start of `unit` (at most 10 ms at a time,
 * interruptible); the caller re-reads the clock.  The first wait of a call
 * is counted for flakeid_generators.
 */
static void
wait_for_unit(GeneratorId gen, uint64 unit, bool *waited)
{
	const GeneratorDef *def = generator_def(gen);
	int64		remaining = def->unit_start(unit) - def->clock();

	if (!*waited)
		pg_atomic_fetch_add_u64(&shared->gen[gen].stats.exhausted_waits, 1);
	*waited = true;
	if (remaining > 0)
		pg_usleep(Min(remaining, 10000));
	CHECK_FOR_INTERRUPTS();
}

/*
 * The lock-free loop of every generator but sno: read the clock, decide with
 * counter_advance_monotonic, publish with compare-and-swap; wait only when a
 * unit's pool is used up while the clock is in that unit.
 */
static uint64
counter_next(GeneratorId gen, const CounterPool *pool)
{
	const GeneratorDef *def = generator_def(gen);
	pg_atomic_uint64 *counter = &shared->gen[gen].word.word;
	bool		waited = false;

	for (;;)
	{
		uint64		now = clock_units(gen);
		uint64		word = pg_atomic_read_u64(counter);
		uint64		next_word = 0,
					wait_past = 0;

		if (counter_advance_monotonic(word, now, pool, &next_word, &wait_past) == COUNTER_ISSUE)
		{
			ensure_mark(def->unit_start(counter_unit(next_word)));
			if (pg_atomic_compare_exchange_u64(counter, &word, next_word))
			{
				stats_issued(gen, now < counter_unit(word));
				return next_word;
			}
			continue;
		}
		wait_for_unit(gen, wait_past + 1, &waited);
	}
}

static unsigned
static_draw(GeneratorId gen, uint64 modulus)
{
	return (unsigned) (pg_atomic_fetch_add_u64(&shared->gen[gen].static_calls.word, 1) % modulus);
}

/* --- sno ------------------------------------------------------------------- */

/* the pool settings are fixed at server start: checked once per backend */
static CounterPool
sno_pool(void)
{
	static bool checked = false;

	if (unlikely(!checked))
	{
		if (!sno_pool_is_valid(flakeid_sno_sequence_min, flakeid_sno_sequence_max))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("flakeid.sno_sequence_min (%d) and flakeid.sno_sequence_max (%d) do not form a valid sequence pool",
							flakeid_sno_sequence_min, flakeid_sno_sequence_max),
					 errhint("Set flakeid.sno_sequence_min <= flakeid.sno_sequence_max with at least %d values between them, and restart the server.",
							 SNO_MIN_POOL)));
		checked = true;
	}
	return (CounterPool) {
		(uint32) flakeid_sno_sequence_min, (uint32) flakeid_sno_sequence_max
	};
}

/*
 * A clock behind sno's last used unit, under `lock`: sno_decide with the
 * timeline.  A tick-tock toggle is saved before it is published, with the
 * bound of the value it leaves set to the mark (above everything issued),
 * so a restart can never take up that value below anything it issued.
 * Returns true with *issued set when an ID was published.
 */
static bool
sno_regression_locked(const CounterPool *pool, SnoDecision *d, CounterOutcome *outcome, uint64 *issued)
{
	uint64		word = pg_atomic_read_u64(&shared->gen[GEN_SNO].word.word);
	uint64		now;

	/* the word first, then the clock: only a clock read after the word proves a regression */
	if (!sno_units_from_unix_us(sno_clock_unix_us(), &now))
		return false;
	*outcome = sno_decide(word, now, pool, &shared->sno_timeline, d);
	if (*outcome != COUNTER_ISSUE)
		return false;
	renew_mark_locked(sno_unix_us_from_units(counter_unit(d->next_word)));
	if (counter_flag(d->next_word) != counter_flag(word))
	{
		shared->sno_other_bound_unix_us = (int64) pg_atomic_read_u64(&shared->mark_unix_us);
		save_state_locked(shared->sno_other_bound_unix_us);
	}
	if (!pg_atomic_compare_exchange_u64(&shared->gen[GEN_SNO].word.word, &word, d->next_word))
		return false;
	/* the saved toggle is correct now; if the exchange had failed it would only be conservative */
	shared->sno_timeline = d->next_timeline;
	*issued = d->next_word;
	return true;
}

uint64
flakeid_sno_next_word(void)
{
	CounterPool pool;
	bool		waited = false;

	require_shared("sno_new()");
	pool = sno_pool();
	(void) flakeid_sno_partition();	/* refuses on a standby before anything is issued */

	for (;;)
	{
		uint64		now = clock_units(GEN_SNO);
		uint64		word = pg_atomic_read_u64(&shared->gen[GEN_SNO].word.word);
		SnoDecision d;
		CounterOutcome outcome = sno_decide(word, now, &pool, NULL, &d);

		if (likely(outcome == COUNTER_ISSUE))
		{
			ensure_mark(sno_unix_us_from_units(counter_unit(d.next_word)));
			if (pg_atomic_compare_exchange_u64(&shared->gen[GEN_SNO].word.word, &word, d.next_word))
			{
				stats_issued(GEN_SNO, false);
				return d.next_word;
			}
			continue;			/* another backend moved the word: decide again */
		}
		if (outcome == COUNTER_BEHIND)
		{
			uint64		issued = 0;
			bool		done;

			LWLockAcquire(lock, LW_EXCLUSIVE);
			done = sno_regression_locked(&pool, &d, &outcome, &issued);
			LWLockRelease(lock);
			if (done)
			{
				stats_issued(GEN_SNO, true);
				return issued;
			}
			if (outcome != COUNTER_WAIT)
				continue;
		}
		wait_for_unit(GEN_SNO, d.wait_past + 1, &waited);
	}
}

unsigned
flakeid_sno_next_static_sequence(void)
{
	CounterPool pool;

	require_shared("sno_new_at()");
	pool = sno_pool();
	return sno_static_sequence(pg_atomic_fetch_add_u64(&shared->gen[GEN_SNO].static_calls.word, 1), &pool);
}

/* --- siq, kuid, snowflake ------------------------------------------------------ */

uint64
flakeid_siq_next(int kind, unsigned *serial)
{
	CounterPool pool = {0, siq_kind_serial_max(siq_kinds[kind].value)};
	uint64		word;

	require_shared("siq_new()");
	(void) flakeid_siq_shard(); /* refuses on a standby before anything is issued */
	word = counter_next(GEN_SIQ_FIRST + kind, &pool);
	*serial = counter_seq(word);
	return SIQ_COUNTER_BASE_T56 + counter_unit(word);
}

unsigned
flakeid_siq_next_static_serial(int kind)
{
	require_shared("siq_new_at()");
	return static_draw(GEN_SIQ_FIRST + kind, siq_kind_serial_max(siq_kinds[kind].value) + 1);
}

/* kuid and kuid96 share one counter, so that kuid96(kuid_new()) never equals a kuid96_new() */
uint64
flakeid_kuid_next(unsigned *seq)
{
	CounterPool pool = {0, KUID_SEQ_MAX};
	uint64		word;

	require_shared("kuid_new()");
	word = counter_next(GEN_KUID, &pool);
	*seq = counter_seq(word);
	return counter_unit(word);
}

unsigned
flakeid_kuid_next_static_seq(void)
{
	require_shared("kuid_new_at()");
	return static_draw(GEN_KUID, KUID_SEQ_MAX + 1);
}

uint64
flakeid_snowflake_next(unsigned *sequence)
{
	CounterPool pool = {0, SNOWFLAKE_MAX_SEQUENCE};
	int64		epoch_ms = flakeid_snowflake_epoch_ms;
	uint64		word,
				unit;

	require_shared("snowflake_new()");
	/* refuse on a standby before anything is issued (the clock's range is checked by clock_units) */
	(void) flakeid_snowflake_worker();
	(void) flakeid_snowflake_process();
	word = counter_next(GEN_SNOWFLAKE, &pool);
	unit = counter_unit(word);
	/* a clock behind the last used millisecond counts on from it, which may pass the limit */
	if (unit - epoch_ms >= SNOWFLAKE_MS_LIMIT)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("snowflake generation reached the end of the time range of epoch " INT64_FORMAT " ms", epoch_ms)));
	*sequence = counter_seq(word);
	return unit - epoch_ms;
}

unsigned
flakeid_snowflake_next_static_sequence(void)
{
	require_shared("snowflake_new_at()");
	return static_draw(GEN_SNOWFLAKE, SNOWFLAKE_MAX_SEQUENCE + 1);
}

/* --- observability: the flakeid_generators view ---------------------------------- */

/* "partition 4660", "partition 123 (derived)" or "partition derived, not yet resolved" */
static char *
identity_text(IdentityKind kind, const char *label)
{
	const IdentityDef *id = &identities[kind];
	uint64		derived;

	if (*id->value >= 0)
		return id->name ? psprintf("%s '%s' (fingerprint %d)", label, *id->name, *id->value)
			: psprintf("%s %d", label, *id->value);
	derived = pg_atomic_read_u64(&shared->derived_identity[kind]);
	if (derived == 0)
		return psprintf("%s derived, not yet resolved", label);
	return psprintf("%s " UINT64_FORMAT " (derived)", label, derived - 1);
}

static char *
generator_identity(GeneratorId gen)
{
	if (gen == GEN_SNO)
		return psprintf("%s, sequences %d..%d", identity_text(IDENTITY_SNO_PARTITION, "partition"),
						flakeid_sno_sequence_min, flakeid_sno_sequence_max);
	if (gen == GEN_KUID)
		return identity_text(IDENTITY_KUID_NODE, "node");
	if (gen == GEN_SNOWFLAKE)
		return psprintf("%s, %s, epoch " INT64_FORMAT " ms", identity_text(IDENTITY_SNOWFLAKE_WORKER, "worker"),
						identity_text(IDENTITY_SNOWFLAKE_PROCESS, "process"), flakeid_snowflake_epoch_ms);
	return psprintf("%s, domain '%s'", identity_text(IDENTITY_SIQ_SHARD, "shard"),
					flakeid_siq_domain_setting ? flakeid_siq_domain_setting : "");
}

/* A tuplestore for the result rows, as InitMaterializedSRF (PostgreSQL 15+) sets up. */
static void
materialize_result(FunctionCallInfo fcinfo)
{
#if PG_VERSION_NUM >= 150000
	InitMaterializedSRF(fcinfo, 0);
#else
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext old;
	TupleDesc	desc;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) || !(rsinfo->allowedModes & SFRM_Materialize))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function called in context that cannot accept a set")));
	old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = tuplestore_begin_heap(true, false, work_mem);
	rsinfo->setDesc = CreateTupleDescCopy(desc);
	MemoryContextSwitchTo(old);
#endif
}

PG_FUNCTION_INFO_V1(flakeid_generators);
Datum
flakeid_generators(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	require_shared("flakeid_generators()");
	stats_flush();				/* this backend's own IDs count at once */
	materialize_result(fcinfo);
	for (int g = 0; g < GEN_COUNT; g++)
	{
		GeneratorShared *gs = &shared->gen[g];
		uint64		word = pg_atomic_read_u64(&gs->word.word);
		Datum		values[8];
		bool		nulls[8] = {false};

		values[0] = CStringGetTextDatum(g >= GEN_SIQ_FIRST && g < GEN_KUID
										? psprintf("siq %s", siq_kinds[g - GEN_SIQ_FIRST].name)
										: generator_def(g)->type_name);
		values[1] = CStringGetTextDatum(generator_identity(g));
		values[2] = Int64GetDatum((int64) pg_atomic_read_u64(&gs->stats.issued));
		values[3] = Int64GetDatum((int64) pg_atomic_read_u64(&gs->stats.exhausted_waits));
		values[4] = Int64GetDatum((int64) pg_atomic_read_u64(&gs->stats.clock_regressions));
		values[5] = Int32GetDatum(counter_flag(word) ? 1 : 0);
		nulls[5] = g != GEN_SNO;
		/* the start of the last used unit; nothing before the first ID or saved mark */
		values[6] = TimestampTzGetDatum(flakeid_timestamptz_from_unix_us(generator_def(g)->unit_start(counter_unit(word))));
		nulls[6] = word == 0;
		values[7] = CStringGetTextDatum(generator_clock(g));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
