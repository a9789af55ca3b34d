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
#include "format/sno.h"

/* keep hot words written by many backends on cache lines of their own */
typedef union PaddedCounter
{
	pg_atomic_uint64 word;
	char		pad[PG_CACHE_LINE_SIZE];
} PaddedCounter;

typedef struct FlakeidShared
{
	PaddedCounter sno_word;
	PaddedCounter sno_static_calls;
	slock_t		sno_timeline_lock;	/* taken only when the clock is behind */
	SnoTimeline sno_timeline;
	pg_atomic_uint32 sno_derived_partition; /* partition + 1; 0 = not derived yet */
} FlakeidShared;

static FlakeidShared *shared = NULL;

/* per-backend cache of the resolved partition; -1 = not resolved */
static int	sno_partition_cached = -1;

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
		pg_atomic_init_u32(&shared->sno_derived_partition, 0);
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
	if (flakeid_sno_partition_setting < 0)
		ereport(LOG,
				(errmsg("flakeid: flakeid.sno_partition is derived from the system identifier and timeline"),
				 errdetail("Servers that mint sno IDs into the same data must each set a distinct flakeid.sno_partition.")));
	else
		ereport(LOG,
				(errmsg("flakeid: sno partition %d (set by flakeid.sno_partition)",
						flakeid_sno_partition_setting)));
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

unsigned
flakeid_sno_partition(void)
{
	uint32		derived;

	if (likely(sno_partition_cached >= 0))
		return (unsigned) sno_partition_cached;
	if (flakeid_sno_partition_setting >= 0)
		return (unsigned) (sno_partition_cached = flakeid_sno_partition_setting);

	require_shared("sno generation");
	derived = pg_atomic_read_u32(&shared->sno_derived_partition);
	if (derived == 0)
	{
		/*
		 * A standby shares the primary's system identifier and timeline, so a
		 * derived partition there would collide with the primary's.
		 */
		if (RecoveryInProgress())
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot generate sno IDs with a derived partition during recovery"),
					 errhint("Set flakeid.sno_partition to a partition no other server uses, or generate IDs on the primary.")));
		derived = (uint32) (derived_identity_seed() & 0xFFFF) + 1;
		if (pg_atomic_exchange_u32(&shared->sno_derived_partition, derived) == 0)
			ereport(LOG,
					(errmsg("flakeid: derived sno partition %u from system identifier " UINT64_FORMAT " and the current timeline",
							derived - 1, GetSystemIdentifier())));
	}
	sno_partition_cached = (int) derived - 1;
	return (unsigned) sno_partition_cached;
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

/* Sleeps until the clock may have passed `unit` (at most 10 ms at a time, interruptible). */
static void
wait_past_unit(uint64 unit, int64 epoch_unix_us, int64 unit_us)
{
	int64		target = epoch_unix_us + (int64) (unit + 1) * unit_us;
	int64		remaining = target - flakeid_clock_unix_us();

	if (remaining > 0)
		pg_usleep(Min(remaining, 10000));
	CHECK_FOR_INTERRUPTS();
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
		wait_past_unit(d.wait_past, SNO_EPOCH_UNIX_US, SNO_UNIT_US);
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
