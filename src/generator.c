/*
 * generator.c — the generators' shared state and their lock-free core
 *
 * One FlakeidShared struct in shared memory holds every stateful
 * generator.  Each generator's hot state is a single counter word
 * (format/counter.h) advanced with compare-and-swap: no heavyweight lock and
 * no LWLock on the path that issues IDs.  The rules themselves (what to
 * issue for a given clock reading) are the pure functions of format/, so the
 * loop here only reads the clock, publishes decisions and waits.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"

#include "flakeid.h"
#include "format/kuid.h"
#include "format/siq.h"
#include "format/snowflake.h"
#include "format/sno.h"

/* keep hot words written by many backends on cache lines of their own */
typedef union PaddedCounter
{
	pg_atomic_uint64 word;
	char		pad[PG_CACHE_LINE_SIZE];
} PaddedCounter;

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
	PaddedCounter sno_word;
	PaddedCounter sno_static_calls;
	slock_t		sno_timeline_lock;	/* taken only when the clock is behind */
	SnoTimeline sno_timeline;
	PaddedCounter siq_words[SIQ_NAMED_KINDS];	/* one counter per kind */
	PaddedCounter siq_static_calls[SIQ_NAMED_KINDS];
	PaddedCounter kuid_word;	/* shared by kuid and kuid96 */
	PaddedCounter kuid_static_calls;
	PaddedCounter snowflake_word;	/* units are Unix milliseconds */
	PaddedCounter snowflake_static_calls;
	pg_atomic_uint64 derived_identity[IDENTITY_COUNT];	/* value + 1; 0 = not derived yet */
} FlakeidShared;

static FlakeidShared *shared = NULL;

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

void
flakeid_shmem_request(void)
{
	RequestAddinShmemSpace(MAXALIGN(sizeof(FlakeidShared)) + PG_CACHE_LINE_SIZE);
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
		pg_atomic_init_u64(&shared->sno_word.word, 0);
		pg_atomic_init_u64(&shared->sno_static_calls.word, 0);
		SpinLockInit(&shared->sno_timeline_lock);
		memset(&shared->sno_timeline, 0, sizeof(shared->sno_timeline));
		for (int i = 0; i < SIQ_NAMED_KINDS; i++)
		{
			pg_atomic_init_u64(&shared->siq_words[i].word, 0);
			pg_atomic_init_u64(&shared->siq_static_calls[i].word, 0);
		}
		pg_atomic_init_u64(&shared->kuid_word.word, 0);
		pg_atomic_init_u64(&shared->kuid_static_calls.word, 0);
		pg_atomic_init_u64(&shared->snowflake_word.word, 0);
		pg_atomic_init_u64(&shared->snowflake_static_calls.word, 0);
		for (int i = 0; i < IDENTITY_COUNT; i++)
			pg_atomic_init_u64(&shared->derived_identity[i], 0);
	}
	LWLockRelease(AddinShmemInitLock);
}

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

static CounterPool
sno_pool(void)
{
	if (!sno_pool_is_valid(flakeid_sno_sequence_min, flakeid_sno_sequence_max))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("flakeid.sno_sequence_min (%d) and flakeid.sno_sequence_max (%d) do not form a valid sequence pool",
						flakeid_sno_sequence_min, flakeid_sno_sequence_max),
				 errhint("Set flakeid.sno_sequence_min <= flakeid.sno_sequence_max with at least %d values between them, and restart the server.",
						 SNO_MIN_POOL)));
	return (CounterPool) {
		(uint32) flakeid_sno_sequence_min, (uint32) flakeid_sno_sequence_max
	};
}

static uint64
sno_clock_units(void)
{
	uint64		units;

	if (!sno_units_from_unix_us(flakeid_clock_unix_us(), &units))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the system clock is outside the time range of type sno")));
	return units;
}

/* Sleeps towards `target_unix_us` (at most 10 ms at a time, interruptible); the caller re-reads the clock. */
static void
wait_until(int64 target_unix_us)
{
	int64		remaining = target_unix_us - flakeid_clock_unix_us();

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
counter_next(pg_atomic_uint64 *counter, const CounterPool *pool,
			 uint64 (*clock_units) (void), int64 (*unit_end_unix_us) (uint64 unit))
{
	for (;;)
	{
		uint64		now = clock_units();
		uint64		word = pg_atomic_read_u64(counter);
		uint64		next_word = 0,
					wait_past = 0;

		if (counter_advance_monotonic(word, now, pool, &next_word, &wait_past) == COUNTER_ISSUE)
		{
			if (pg_atomic_compare_exchange_u64(counter, &word, next_word))
				return next_word;
			continue;
		}
		wait_until(unit_end_unix_us(wait_past));
	}
}

/* The n-th back-fill draw of a shared counter, reduced to a pool of `modulus` values. */
static unsigned
static_draw(PaddedCounter *calls, uint64 modulus)
{
	return (unsigned) (pg_atomic_fetch_add_u64(&calls->word, 1) % modulus);
}

uint64
flakeid_sno_next_word(void)
{
	CounterPool pool;

	require_shared("sno_new()");
	pool = sno_pool();
	(void) flakeid_sno_partition();	/* refuses on a standby before anything is issued */

	for (;;)
	{
		uint64		now = sno_clock_units();
		uint64		word = pg_atomic_read_u64(&shared->sno_word.word);
		SnoDecision d;
		CounterOutcome outcome = sno_decide(word, now, &pool, NULL, &d);

		if (likely(outcome == COUNTER_ISSUE))
		{
			if (pg_atomic_compare_exchange_u64(&shared->sno_word.word, &word, d.next_word))
				return d.next_word;
			continue;			/* another backend moved the word: decide again */
		}
		if (outcome == COUNTER_BEHIND)
		{
			bool		issued = false;

			/*
			 * `now` was read before the word, so another backend may simply
			 * have moved the word to a later unit in between.  Only a clock
			 * read after the word proves a regression: read both again, in
			 * that order, under the lock (the clock read cannot throw).
			 */
			SpinLockAcquire(&shared->sno_timeline_lock);
			word = pg_atomic_read_u64(&shared->sno_word.word);
			if (sno_units_from_unix_us(flakeid_clock_unix_us(), &now))
			{
				outcome = sno_decide(word, now, &pool, &shared->sno_timeline, &d);
				if (outcome == COUNTER_ISSUE &&
					pg_atomic_compare_exchange_u64(&shared->sno_word.word, &word, d.next_word))
				{
					shared->sno_timeline = d.next_timeline;
					issued = true;
				}
			}
			SpinLockRelease(&shared->sno_timeline_lock);
			if (issued)
				return d.next_word;
			if (outcome != COUNTER_WAIT)
				continue;
		}
		wait_until(sno_unix_us_from_units(d.wait_past + 1));
	}
}

unsigned
flakeid_sno_next_static_sequence(void)
{
	CounterPool pool;

	require_shared("sno_new_at()");
	pool = sno_pool();
	return sno_static_sequence(pg_atomic_fetch_add_u64(&shared->sno_static_calls.word, 1), &pool);
}

/* --- siq ------------------------------------------------------------------
 * Counter units are ticks (1/65536 s) since 2020-01-01, so that they fit the
 * counter word's 47 bits until 2088.
 */
#define SIQ_COUNTER_BASE_T56	(UINT64CONST(1577836800) << 16)

static uint64
siq_clock_units(void)
{
	uint64		t56;

	if (!siq_t56_from_unix_us(flakeid_clock_unix_us(), &t56) || t56 < SIQ_COUNTER_BASE_T56 ||
		t56 - SIQ_COUNTER_BASE_T56 > COUNTER_MAX_UNIT)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the system clock is outside the time range of the siq generator")));
	return t56 - SIQ_COUNTER_BASE_T56;
}

static int64
siq_unit_end_unix_us(uint64 unit)
{
	return siq_unix_us_ceil_from_t56(SIQ_COUNTER_BASE_T56 + unit + 1);
}

uint64
flakeid_siq_next(int kind, unsigned *serial)
{
	CounterPool pool = {0, siq_kind_serial_max(siq_kinds[kind].value)};
	uint64		word;

	require_shared("siq_new()");
	(void) flakeid_siq_shard(); /* refuses on a standby before anything is issued */
	word = counter_next(&shared->siq_words[kind].word, &pool, siq_clock_units, siq_unit_end_unix_us);
	*serial = counter_seq(word);
	return SIQ_COUNTER_BASE_T56 + counter_unit(word);
}

unsigned
flakeid_siq_next_static_serial(int kind)
{
	require_shared("siq_new_at()");
	return static_draw(&shared->siq_static_calls[kind], siq_kind_serial_max(siq_kinds[kind].value) + 1);
}

/* --- kuid and kuid96 --------------------------------------------------------
 * One counter for both types, so that kuid96(kuid_new()) never equals a
 * kuid96_new().  Units count ticks linearly (format/kuid.h).
 */
static uint64
kuid_clock_units(void)
{
	KuidFields	fields;

	if (!kuid_fields_from_unix_us(flakeid_clock_unix_us(), &fields) ||
		kuid_unit_from_fields(&fields) > COUNTER_MAX_UNIT)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the system clock is outside the time range of the kuid generator")));
	return kuid_unit_from_fields(&fields);
}

static int64
kuid_unit_end_unix_us(uint64 unit)
{
	KuidFields	fields;

	kuid_fields_from_unit(unit + 1, &fields);
	return kuid_unix_us_from_fields(&fields);
}

uint64
flakeid_kuid_next(unsigned *seq)
{
	CounterPool pool = {0, KUID_SEQ_MAX};
	uint64		word;

	require_shared("kuid_new()");
	word = counter_next(&shared->kuid_word.word, &pool, kuid_clock_units, kuid_unit_end_unix_us);
	*seq = counter_seq(word);
	return counter_unit(word);
}

unsigned
flakeid_kuid_next_static_seq(void)
{
	require_shared("kuid_new_at()");
	return static_draw(&shared->kuid_static_calls, KUID_SEQ_MAX + 1);
}

/* --- snowflake ----------------------------------------------------------------
 * Units are Unix milliseconds, independent of the epoch setting; the epoch
 * is applied to what is issued.
 */
static uint64
snowflake_clock_units(void)
{
	return (uint64) (flakeid_clock_unix_us() / 1000);
}

static int64
snowflake_unit_end_unix_us(uint64 unit)
{
	return (int64) (unit + 1) * 1000;
}

uint64
flakeid_snowflake_next(unsigned *sequence)
{
	CounterPool pool = {0, SNOWFLAKE_MAX_SEQUENCE};
	int64		epoch_ms = flakeid_snowflake_epoch_ms;
	uint64		word,
				unit;

	require_shared("snowflake_new()");
	/* refuse on a standby, and before the epoch or past its range, before anything is issued */
	(void) flakeid_snowflake_worker();
	(void) flakeid_snowflake_process();
	unit = snowflake_clock_units();
	if ((int64) unit < epoch_ms || unit - epoch_ms >= SNOWFLAKE_MS_LIMIT)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the system clock is outside the time range of snowflakes with epoch " INT64_FORMAT " ms", epoch_ms)));
	word = counter_next(&shared->snowflake_word.word, &pool, snowflake_clock_units, snowflake_unit_end_unix_us);
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
	return static_draw(&shared->snowflake_static_calls, SNOWFLAKE_MAX_SEQUENCE + 1);
}
