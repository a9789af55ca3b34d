/*
 * generator.c — the table of generators, their shared memory, and the
 * loops that issue IDs
 *
 * Each generator's hot state is one counter word (format/counter.h) per
 * variant, advanced with compare-and-swap: no heavyweight lock and no
 * LWLock on the path that issues IDs.  The rules themselves (what to issue
 * for a given clock reading) are the pure functions of format/, so the
 * loops here only read the clock, publish decisions and wait.  Every ID is
 * a value the counter word took through a successful compare-and-swap, so
 * no ID repeats, whatever the clocks do.
 *
 * Restarts: every issued ID lies before the saved mark (mark.c).  At start
 * each counter resumes in the unit holding the mark with its sequence used
 * up, so nothing issued before a stop or a crash can be issued again.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/shmem.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "generator.h"
#include "format/kuid.h"
#include "format/snowflake.h"

FlakeidShared *flakeid_shared = NULL;
LWLock	   *flakeid_lock = NULL;

/* --- the table of generators ------------------------------------------------ */

static CounterPool
siq_pool(int kind)
{
	return (CounterPool) {0, siq_kind_serial_max(siq_kinds[kind].value)};
}

static const char *
siq_kind_label(int kind)
{
	return siq_kinds[kind].name;
}

static CounterPool
kuid_pool(int variant pg_attribute_unused())
{
	return (CounterPool) {0, KUID_SEQ_MAX};
}

static CounterPool
snowflake_pool(int variant pg_attribute_unused())
{
	return (CounterPool) {0, SNOWFLAKE_MAX_SEQUENCE};
}

static CounterPool
sno_pool(int variant pg_attribute_unused())
{
	return identity_sno_pool();
}

const GeneratorDef generator_defs[GEN_COUNT] = {
	[GEN_SNO] = {
		.name = "sno", .format = &sno_format, .ticktock = true, .coarse_clock = true,
		.variants = 1, .first_slot = 0,
		.nidentities = 1, .identities = {IDENTITY_SNO_PARTITION},
		.pool = sno_pool, .describe_settings = identity_describe_sno_pool,
		.settings = {"flakeid.sno_partition", "flakeid.sno_sequence_min", "flakeid.sno_sequence_max",
		"flakeid.sno_coarse_clock"},
	},
	[GEN_SIQ] = {
		.name = "siq", .format = &siq_format,
		.variants = SIQ_NAMED_KINDS, .first_slot = 1,
		.nidentities = 1, .identities = {IDENTITY_SIQ_SHARD},
		.pool = siq_pool, .variant_name = siq_kind_label, .describe_settings = identity_describe_siq_domain,
		.settings = {"flakeid.siq_shard", "flakeid.siq_domain"},
	},
	/* kuid96 resolves its node itself: kuid IDs carry none */
	[GEN_KUID] = {
		.name = "kuid", .format = &kuid_format,
		.variants = 1, .first_slot = 1 + SIQ_NAMED_KINDS,
		.pool = kuid_pool,
	},
	[GEN_SNOWFLAKE] = {
		.name = "snowflake", .format = &snowflake_format,
		.variants = 1, .first_slot = 2 + SIQ_NAMED_KINDS,
		.nidentities = 2, .identities = {IDENTITY_SNOWFLAKE_WORKER, IDENTITY_SNOWFLAKE_PROCESS},
		.pool = snowflake_pool, .describe_settings = clock_describe_snowflake_epoch,
		.settings = {"flakeid.snowflake_worker", "flakeid.snowflake_process", "flakeid.snowflake_epoch_ms"},
		.check_state = mark_check_snowflake_epoch,
	},
};

StaticAssertDecl(3 + SIQ_NAMED_KINDS == GEN_SLOT_COUNT, "every generator variant has a slot");

bool
flakeid_shared_state_loaded(void)
{
	return flakeid_shared != NULL;
}

void
generator_require_shared(const char *what)
{
	if (unlikely(flakeid_shared == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s needs flakeid's shared state, which is not loaded", what),
				 errhint(FLAKEID_PRELOAD_HINT)));
}

/* --- shared memory ------------------------------------------------------------ */

static Size
shared_size(void)
{
	return MAXALIGN(sizeof(FlakeidShared)) + PG_CACHE_LINE_SIZE;
}

/*
 * Resume after the marks (read at start, or replayed from the primary):
 * each counter whose last used unit is below the one holding its mark moves
 * to that unit with its sequence used up, so its next ID is in a later unit
 * than anything issued before the mark (a clock behind counts on from
 * there, or for sno follows its timeline).  Counters never move down.
 */
void
generator_resume_monotonic(int64 mark_unix_us)
{
	for (int g = 0; g < GEN_COUNT; g++)
	{
		const GeneratorDef *def = &generator_defs[g];
		uint64		unit = mark_unit(def->format, mark_unix_us);

		if (def->ticktock || unit == 0)
			continue;
		for (int v = 0; v < def->variants; v++)
		{
			pg_atomic_uint64 *counter = &flakeid_shared->slots[def->first_slot + v].word.value;
			uint64		word = pg_atomic_read_u64(counter);

			while (counter_unit(word) < unit)
				if (pg_atomic_compare_exchange_u64(counter, &word, counter_word(unit, false, COUNTER_SEQ_MASK)))
					break;
		}
	}
}

bool
generator_resume_sno(const int64 sno_marks[2], bool flag)
{
	const GeneratorDef *def = &generator_defs[GEN_SNO];
	pg_atomic_uint64 *counter = &flakeid_shared->slots[def->first_slot].word.value;
	uint64		word = pg_atomic_read_u64(counter);
	uint64		resume = counter_word(mark_unit(def->format, sno_marks[flag]), flag, COUNTER_SEQ_MASK);

	/*
	 * A counter at or above the mark of its own tick-tock keeps it (the other
	 * value's mark bounds the timeline); a failed exchange returns the word
	 * another backend published, judged the same way.
	 */
	while (counter_unit(word) < mark_unit(def->format, sno_marks[counter_flag(word)]))
		if (pg_atomic_compare_exchange_u64(counter, &word, resume))
			return flag;
	return counter_flag(word);
}

void
generator_note_resumed(void)
{
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		pg_atomic_write_u64(&flakeid_shared->slots[s].resumed_word.value,
							pg_atomic_read_u64(&flakeid_shared->slots[s].word.value));
}

void
flakeid_lock_acquire(void)
{
	while (!LWLockConditionalAcquire(flakeid_lock, LW_EXCLUSIVE))
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

void
generator_latest_unit_starts(int64 latest[MARK_COUNT])
{
	for (int m = 0; m < MARK_COUNT; m++)
		latest[m] = 0;
	for (int g = 0; g < GEN_COUNT; g++)
	{
		const GeneratorDef *def = &generator_defs[g];

		for (int v = 0; v < def->variants; v++)
		{
			uint64		word = pg_atomic_read_u64(&flakeid_shared->slots[def->first_slot + v].word.value);
			MarkId		mark = mark_of(def, word);

			/* a counter that issued nothing since it was resumed needs no renewal */
			if (word != 0 && word != pg_atomic_read_u64(&flakeid_shared->slots[def->first_slot + v].resumed_word.value))
				latest[mark] = Max(latest[mark], def->format->unit_start(counter_unit(word)));
		}
	}
}

static void
shmem_startup(void)
{
	bool		found;
	char	   *raw;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	raw = ShmemInitStruct("flakeid", shared_size(), &found);
	flakeid_shared = (FlakeidShared *) TYPEALIGN(PG_CACHE_LINE_SIZE, raw);
	if (!found)
	{
		memset(flakeid_shared, 0, sizeof(*flakeid_shared));
		for (int s = 0; s < GEN_SLOT_COUNT; s++)
		{
			GeneratorSlot *slot = &flakeid_shared->slots[s];

			pg_atomic_init_u64(&slot->word.value, 0);
			pg_atomic_init_u64(&slot->resumed_word.value, 0);
			pg_atomic_init_u64(&slot->stats.issued, 0);
			pg_atomic_init_u64(&slot->stats.exhausted_waits, 0);
			pg_atomic_init_u64(&slot->stats.pool_exhaustions, 0);
			pg_atomic_init_u64(&slot->stats.exhaustions_reported, 0);
			pg_atomic_init_u64(&slot->stats.exhaustion_logged_at, 0);
			pg_atomic_init_u64(&slot->stats.clock_regressions, 0);
		}
		for (int i = 0; i < IDENTITY_COUNT; i++)
			pg_atomic_init_u64(&flakeid_shared->derived_identity[i], 0);
		pg_atomic_init_u64(&flakeid_shared->sno_wall_safe.value, 0);
		mark_startup();
		mark_save_high_water_at_exit();
	}
	flakeid_lock = &(GetNamedLWLockTranche("flakeid"))->lock;
	LWLockRelease(AddinShmemInitLock);
}

#if PG_VERSION_NUM >= 150000
static shmem_request_hook_type prev_shmem_request_hook = NULL;
#endif
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
request_shmem(void)
{
#if PG_VERSION_NUM >= 150000
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
#endif
	RequestAddinShmemSpace(shared_size());
	RequestNamedLWLockTranche("flakeid", 1);
}

static void
startup_shmem(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	shmem_startup();
}

/* From _PG_init while preloading: the settings of every module, and the shared state. */
void
flakeid_generators_init(void)
{
	identity_init();
	clock_init();
	mark_init();
	mark_wal_init();
	mark_renewer_register();
#if PG_VERSION_NUM >= 150000
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = request_shmem;
#else
	request_shmem();
#endif
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = startup_shmem;
	identity_log_settings();
}

/* --- the loops ------------------------------------------------------------------ */

static uint64
generator_clock_unit(const GeneratorDef *def)
{
	uint64		unit;

	if (!def->format->units_at(clock_read(def), &unit))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the system clock is outside the time range of the %s generator", def->name)));
	return unit;
}

/*
 * The wait event a waiting generator shows in pg_stat_activity: its own
 * name, FlakeidUnitWait, from PostgreSQL 17 on (registered at first use), and
 * the generic Extension before.
 */
static uint32
unit_wait_event(void)
{
#if PG_VERSION_NUM >= 170000
	static uint32 event = 0;

	if (event == 0)
		event = WaitEventExtensionNew("FlakeidUnitWait");
	return event;
#else
	return PG_WAIT_EXTENSION;
#endif
}

/*
 * Waits towards the start of `unit` (at most 10 ms at a time); the caller
 * re-reads the clock.  On the process latch, so that the wait shows its wait
 * event, a cancel or terminate ends it at once, and the backend exits if
 * the postmaster dies.  A wait shorter than the latch's millisecond
 * resolution sleeps instead, under the same wait event.  The first wait of
 * a call is counted for flakeid_generators, and for the log when the pool
 * was used up (not sno's unsafe period).
 */
static void
wait_for_unit(const GeneratorDef *def, int slot, uint64 unit, bool *waited, bool pool_used_up)
{
	int64		remaining = def->format->unit_start(unit) - clock_read(def);

	if (!*waited)
		stats_waited(def, slot, pool_used_up);
	*waited = true;
	if (remaining >= 1000)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 (long) Min(remaining / 1000, 10), unit_wait_event());
		ResetLatch(MyLatch);
	}
	else if (remaining > 0)
	{
		pgstat_report_wait_start(unit_wait_event());
		pg_usleep(remaining);
		pgstat_report_wait_end();
	}
	CHECK_FOR_INTERRUPTS();
}

/* a counter word in shared memory, as counter_take reaches it */
typedef struct SlotAccess
{
	const GeneratorDef *def;
	pg_atomic_uint64 *counter;
} SlotAccess;

static uint64_t
slot_load(void *arg)
{
	return pg_atomic_read_u64(((SlotAccess *) arg)->counter);
}

/* after the word (counter_take): the barrier keeps the clock read after it */
static uint64_t
slot_clock(void *arg)
{
	pg_read_barrier();
	return generator_clock_unit(((SlotAccess *) arg)->def);
}

/* the ID must lie before the saved mark before anyone can see it */
static bool
slot_exchange(void *arg, uint64_t *word, uint64_t next)
{
	SlotAccess *access = (SlotAccess *) arg;

	mark_ensure(mark_of(access->def, next), access->def->format->unit_start(counter_unit(next)));
	return pg_atomic_compare_exchange_u64(access->counter, word, next);
}

static void
refuse_end_of_range(const GeneratorDef *def)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("the %s generator has used up the last time unit it can issue in", def->name)));
}

/*
 * The monotonic rule of every generator but sno: counter_take with
 * counter_advance_monotonic; waits only when a unit's pool is used up while
 * the clock is in that unit.
 */
static uint64
monotonic_next(const GeneratorDef *def, int slot, const CounterPool *pool)
{
	SlotAccess	target = {def, &flakeid_shared->slots[slot].word.value};
	CounterAccess access = {slot_load, slot_clock, slot_exchange, &target};
	bool		waited = false;

	for (;;)
	{
		CounterTaken taken = {0};

		switch (counter_take(&access, counter_advance_monotonic, pool, &taken))
		{
			case COUNTER_ISSUE:
				stats_issued(slot, taken.now < counter_unit(taken.word));
				return taken.next_word;
			case COUNTER_END:
				refuse_end_of_range(def);
				break;
			default:
				wait_for_unit(def, slot, taken.wait_past + 1, &waited, true);
		}
	}
}

/*
 * sno with the clock behind its last used unit, under flakeid_lock:
 * sno_decide with the timeline, on a word and a clock read again.  A
 * toggle needs no save of its own: the mark of the value it leaves already
 * lies above every ID with that value, and is saved as its bound; the ID
 * it issues is checked against the mark of the value it takes up, as every
 * ID is.  Returns true with *issued set when an ID was published.
 */
static bool
sno_regression_locked(const GeneratorDef *def, int slot, const CounterPool *pool,
					  SnoDecision *d, CounterOutcome *outcome, uint64 *issued, bool *behind)
{
	pg_atomic_uint64 *counter = &flakeid_shared->slots[slot].word.value;
	uint64		word = pg_atomic_read_u64(counter);
	uint64		now;

	/* the word first, then the clock: only a clock read after the word proves a regression */
	pg_read_barrier();
	if (!def->format->units_at(clock_read(def), &now))
		return false;
	*behind = now < counter_unit(word);
	*outcome = sno_decide(word, now, pool, &flakeid_shared->sno_timeline, d);
	if (*outcome != COUNTER_ISSUE)
		return false;
	mark_renew_locked(mark_of(def, d->next_word), def->format->unit_start(counter_unit(d->next_word)));
	Assert(((d->next_timeline.drifts & 1) != 0) == counter_flag(d->next_word));
	if (!pg_atomic_compare_exchange_u64(counter, &word, d->next_word))
		return false;
	sno_timeline_publish(&d->next_timeline);
	*issued = d->next_word;
	return true;
}

/*
 * The tick-tock rule of sno (spec §5.1): counter_take with counter_advance
 * (sno's rule without a timeline) until the clock is behind.  Then, while
 * the clock is inside the unsafe period (at or before the timeline's
 * wall_safe, published for reading without the lock), it waits without
 * taking the lock; past it, the lock decides and may toggle.
 */
static uint64
ticktock_next(const GeneratorDef *def, int slot, const CounterPool *pool)
{
	SlotAccess	target = {def, &flakeid_shared->slots[slot].word.value};
	CounterAccess access = {slot_load, slot_clock, slot_exchange, &target};
	bool		waited = false;

	for (;;)
	{
		CounterTaken taken = {0};
		SnoDecision d = {0};
		CounterOutcome outcome = counter_take(&access, counter_advance, pool, &taken);
		uint64		issued = 0,
					unsafe_until;
		bool		done,
					behind = false;

		if (likely(outcome == COUNTER_ISSUE))
		{
			stats_issued(slot, false);
			return taken.next_word;
		}
		if (outcome == COUNTER_WAIT)
		{
			wait_for_unit(def, slot, taken.wait_past + 1, &waited, true);
			continue;
		}
		Assert(outcome == COUNTER_BEHIND);

		/*
		 * Inside the unsafe period only if the word is still the one found
		 * behind: the lock holder publishes the word before the bound, so a
		 * bound read first and a word read after it that has not moved mean
		 * that the wait is real, not a toggle this caller has not seen yet.
		 */
		unsafe_until = pg_atomic_read_u64(&flakeid_shared->sno_wall_safe.value);
		pg_read_barrier();
		if (taken.now <= unsafe_until)
		{
			if (pg_atomic_read_u64(target.counter) == taken.word)
				wait_for_unit(def, slot, sno_unsafe_wait_past(unsafe_until, taken.word) + 1, &waited, false);
			continue;
		}
		LWLockAcquire(flakeid_lock, LW_EXCLUSIVE);
		done = sno_regression_locked(def, slot, pool, &d, &outcome, &issued, &behind);
		LWLockRelease(flakeid_lock);
		if (done)
		{
			/* a regression only if the clock read under the lock, after the word, was behind */
			stats_issued(slot, behind);
			return issued;
		}
		if (outcome == COUNTER_WAIT)	/* the clock behind: sno's timeline decides */
			wait_for_unit(def, slot, d.wait_past + 1, &waited, false);
	}
}

/*
 * What may refuse a generator variant: a setting whose configured value was
 * refused, recovery (unless flakeid.generate_on_standby), its identities,
 * the saved state.  All of these are fixed while a backend lives, except
 * recovery ending, so once a variant is prepared a backend keeps its pool.
 * Every call first takes up a primary's replayed bounds once recovery has
 * ended (one atomic read when there are none).
 */
CounterPool
generator_prepare(const GeneratorDef *def, int variant)
{
	static CounterPool pools[GEN_SLOT_COUNT];
	static bool prepared[GEN_SLOT_COUNT];
	int			slot = def->first_slot + variant;

	generator_require_shared(def->name);
	mark_take_up_upstream();
	if (likely(prepared[slot]))
		return pools[slot];
	if (flakeid_shared->state_refusal != STATE_USABLE)
		mark_refuse_unusable_state();
	for (int i = 0; i < (int) lengthof(def->settings) && def->settings[i]; i++)
		settings_refuse_rejected(def->settings[i], def->name);
	if (RecoveryInProgress() && !identity_generate_on_standby())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot generate IDs during recovery"),
				 errdetail("A standby would issue the IDs its primary issues."),
				 errhint("Generate IDs on the primary, or give this standby identities no other server uses and set flakeid.generate_on_standby = on.")));
	for (int i = 0; i < def->nidentities; i++)
		(void) flakeid_identity(def->identities[i]);
	if (def->check_state)
		def->check_state();
	pools[slot] = def->pool(variant);
	prepared[slot] = true;
	return pools[slot];
}

GeneratedId
flakeid_generate(GeneratorId gen, int variant)
{
	const GeneratorDef *def = &generator_defs[gen];
	int			slot = def->first_slot + variant;
	CounterPool pool;
	uint64		word;

	Assert(variant >= 0 && variant < def->variants);
	pool = generator_prepare(def, variant);
	word = def->ticktock ? ticktock_next(def, slot, &pool) : monotonic_next(def, slot, &pool);
	return (GeneratedId) {counter_unit(word), counter_seq(word), counter_flag(word)};
}

/* counter_take's access to a slot, with the clock fixed at one unit (generator_draw_at) */
typedef struct FixedClockAccess
{
	SlotAccess	slot;
	uint64		unit;
} FixedClockAccess;

static uint64_t
fixed_load(void *arg)
{
	return slot_load(&((FixedClockAccess *) arg)->slot);
}

static uint64_t
fixed_unit(void *arg)
{
	return ((FixedClockAccess *) arg)->unit;
}

static bool
fixed_exchange(void *arg, uint64_t *word, uint64_t next)
{
	return slot_exchange(&((FixedClockAccess *) arg)->slot, word, next);
}

CounterOutcome
generator_draw_at(const GeneratorDef *def, int slot, const CounterPool *pool, uint64 unit, uint64 *word)
{
	FixedClockAccess target = {{def, &flakeid_shared->slots[slot].word.value}, unit};
	CounterAccess access = {fixed_load, fixed_unit, fixed_exchange, &target};
	CounterTaken taken = {0};

	/* counter_advance, the rule without a timeline: it issues in `unit` or not at all */
	CounterOutcome outcome = counter_take(&access, counter_advance, pool, &taken);

	/* (not counted in flakeid_generators.issued, which counts *_new calls) */
	if (outcome == COUNTER_ISSUE)
		*word = taken.next_word;
	return outcome;
}

uint64
generator_live_floor(const GeneratorDef *def, int slot)
{
	uint64		word = pg_atomic_read_u64(&flakeid_shared->slots[slot].word.value);

	pg_read_barrier();
	return word != 0 ? counter_unit(word) : generator_clock_unit(def);
}
