/*
 * issue.c — the loops that issue IDs
 *
 * Each generator's hot state is one counter word (rules/counter.h) per
 * variant, advanced with compare-and-swap: no heavyweight lock and no
 * LWLock on the path that issues IDs.  The rules themselves (what to issue
 * for a given clock reading) are the pure functions of format/, so the
 * loops here only read the clock, publish decisions and wait.  Every ID is
 * a value the counter word took through a successful compare-and-swap, so
 * no ID repeats, whatever the clocks do.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/wait_event.h"

#include "base/clock.h"
#include "base/stats.h"
#include "durable/issued_ahead.h"
#include "durable/marks.h"
#include "generator/counters.h"
#include "generator/horizon_cells.h"
#include "generator/issue.h"

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
 * was used up; a wait for a unit a horizon closed is neither.
 */
typedef enum WaitCause
{
	WAIT_POOL_USED_UP,
	WAIT_SNO_UNSAFE,			/* sno's unsafe period after a step back */
	WAIT_CLOSED,				/* a horizon closed the unit (horizon.c) */
	WAIT_UNCOUNTED				/* back-fill waiting for sno's coarse clock */
} WaitCause;

static void
wait_for_unit(const GeneratorDef *def, int slot, uint64 unit, bool *waited, WaitCause cause)
{
	int64		remaining = def->format->unit_start(unit) - clock_read(def);

	if (!*waited && (cause == WAIT_POOL_USED_UP || cause == WAIT_SNO_UNSAFE))
		stats_waited(def, slot, cause == WAIT_POOL_USED_UP);
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
	int			slot;
	pg_atomic_uint64 *counter;
	uint64		now;			/* the clock's unit counter_take decides on (slot_clock) */
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
	SlotAccess *access = (SlotAccess *) arg;

	pg_read_barrier();
	access->now = generator_clock_unit(access->def);
	return access->now;
}

/*
 * Before anyone can see the ID: a unit ahead of the clock is recorded for
 * back-fill and saved (issued_ahead.h), and the ID must lie before the saved
 * mark; the mark first, since its renewal, if any, saves the unit recorded
 * too (the review of 4ee81ec: two saves at each mark crossed ahead).  (sno's
 * tick-tock 1 too, though back-fill's IDs are tick-tock 0: a unit its pool
 * used up is refused as one reached ahead either way, while the counter
 * sits in it and after; left out, it was refused as used up, 54000, while
 * the counter sat there, and given after: the review of b4686a9.)
 */
static bool
slot_exchange(void *arg, uint64_t *word, uint64_t next)
{
	SlotAccess *access = (SlotAccess *) arg;
	bool		unsaved = ahead_note(access->slot, access->now, counter_unit(next));

	/* (a renewal's save writes the unit recorded: then the unit costs no save of its own) */
	mark_ensure(mark_of(access->def, next), access->def->format->unit_start(counter_unit(next)));
	if (unsaved)
		mark_save_ahead(access->slot, counter_unit(next));
	return pg_atomic_compare_exchange_u64(access->counter, word, next);
}

/* why a counter at `word` waits for the next unit: a horizon closed it (not counted as a pool used up), or its pool is used up */
static WaitCause
used_up_cause(int slot, uint64 word)
{
	return counters_closed(slot, word) ? WAIT_CLOSED : WAIT_POOL_USED_UP;
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
	SlotAccess	target = {def, slot, slot_word(slot), 0};
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
				wait_for_unit(def, slot, taken.wait_past + 1, &waited, used_up_cause(slot, taken.word));
		}
	}
}

/* sno's floor (counters.h): the highest horizon given or being given */
static inline uint64
sno_floor(void)
{
	return pg_atomic_read_u64(&counter_shared->sno_floor.value);
}

/*
 * sno with the clock behind its last used unit, under flakeid_lock:
 * sno_decide with the timeline, on a word and a clock read again.  A
 * toggle needs no save of its own: the mark of the value it leaves already
 * lies above every ID with that value, and is saved as its bound; the ID
 * it issues is checked against the mark of the value it takes up, as every
 * ID is.  A toggle lowers this transaction's horizon cell, then reads the
 * floor (horizon.c writes the floor, then reads the cells): a toggle below
 * the floor is not made, and the caller counts on instead.  Around its
 * compare-and-swap it lowers every transaction's cell to its unit, before
 * and after, and a horizon's scan of the cells waits until it is done
 * (horizon_toggle_begin, _end).  Returns true with *issued set when an ID
 * was published.
 */
static bool
sno_regression_locked(const GeneratorDef *def, int slot, const CounterPool *pool,
					  SnoDecision *d, CounterOutcome *outcome, uint64 *issued, bool *behind)
{
	pg_atomic_uint64 *counter = slot_word(slot);
	uint64		word = pg_atomic_read_u64(counter);
	uint64		now;
	bool		toggles,
				swapped,
				unsaved;

	/* the word first, then the clock: only a clock read after the word proves a regression */
	pg_read_barrier();
	if (!def->format->units_at(clock_read(def), &now))
		return false;
	*behind = now < counter_unit(word);
	*outcome = sno_decide(word, now, pool, &counter_shared->sno_timeline, d);
	if (*outcome != COUNTER_ISSUE)
		return false;
	toggles = counter_flag(d->next_word) != counter_flag(word);
	if (toggles)
	{
		horizon_lower_own_for_toggle(slot, counter_unit(d->next_word));
		if (counter_unit(d->next_word) < sno_floor())
		{
			*outcome = COUNTER_BEHIND;	/* below a horizon: count on */
			return false;
		}
	}
	unsaved = ahead_note(slot, now, counter_unit(d->next_word));
	mark_renew_locked(mark_of(def, d->next_word), def->format->unit_start(counter_unit(d->next_word)));
	if (unsaved)
		mark_save_ahead_locked(slot, counter_unit(d->next_word));
	Assert(((d->next_timeline.drifts & 1) != 0) == counter_flag(d->next_word));
	if (toggles)
		horizon_toggle_begin(slot, counter_unit(d->next_word));
	swapped = pg_atomic_compare_exchange_u64(counter, &word, d->next_word);
	if (toggles)
	{
		if (swapped)
			debug_pause(DEBUG_PAUSE_TOGGLE_SWAPPED);
		horizon_toggle_end(slot, counter_unit(d->next_word), swapped);
	}
	if (!swapped)
		return false;
	sno_timeline_publish(&d->next_timeline);
	mark_set_sno_ticktock(counter_flag(d->next_word));
	*issued = d->next_word;
	return true;
}

/*
 * sno with the clock behind its last used unit and behind a horizon given:
 * counts on from that unit as the other generators do (their rule,
 * counter_advance_monotonic), with the same tick-tock, so nothing lands
 * below the horizon and nothing waits.  Lock-free: the word only moves up.
 * False once the clock has reached the floor (the tick-tock rule decides
 * again), or at the last unit.
 */
static bool
sno_count_on(SlotAccess *target, const CounterPool *pool, uint64 *issued)
{
	uint64		word = slot_load(target);

	for (;;)
	{
		uint64		now = slot_clock(target),
					next,
					wait_past;

		if (now >= sno_floor() ||
			counter_advance_monotonic(word, now, pool, &next, &wait_past) != COUNTER_ISSUE)
			return false;
		if (slot_exchange(target, &word, next))
		{
			*issued = next;
			return true;
		}
	}
}

/*
 * The tick-tock rule of sno (docs/spec/sno.md §5.1): counter_take with counter_advance
 * (sno's rule without a timeline) until the clock is behind.  Then, if a
 * horizon was given after the clock's unit, it counts on (sno_count_on).
 * Else, while the clock is inside the unsafe period (at or before the
 * timeline's wall_safe, published for reading without the lock), it waits
 * without taking the lock; past it, the lock decides and may toggle.
 */
static uint64
ticktock_next(const GeneratorDef *def, int slot, const CounterPool *pool)
{
	SlotAccess	target = {def, slot, slot_word(slot), 0};
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
			wait_for_unit(def, slot, taken.wait_past + 1, &waited, used_up_cause(slot, taken.word));
			continue;
		}
		Assert(outcome == COUNTER_BEHIND);
		if (taken.now < sno_floor())
		{
			if (sno_count_on(&target, pool, &issued))
			{
				stats_issued(slot, true);
				return issued;
			}
			if (counter_unit(pg_atomic_read_u64(target.counter)) >= COUNTER_MAX_UNIT)
				refuse_end_of_range(def);
			continue;
		}

		/*
		 * Inside the unsafe period only if the word is still the one found
		 * behind: the lock holder publishes the word before the bound, so a
		 * bound read first and a word read after it that has not moved mean
		 * that the wait is real, not a toggle this caller has not seen yet.
		 */
		unsafe_until = pg_atomic_read_u64(&counter_shared->sno_wall_safe.value);
		pg_read_barrier();
		if (taken.now <= unsafe_until)
		{
			if (pg_atomic_read_u64(target.counter) == taken.word)
				wait_for_unit(def, slot, sno_unsafe_wait_past(unsafe_until, taken.word) + 1, &waited, WAIT_SNO_UNSAFE);
			continue;
		}
		flakeid_lock_acquire();
		done = sno_regression_locked(def, slot, pool, &d, &outcome, &issued, &behind);
		flakeid_lock_release();
		if (done)
		{
			/* a regression only if the clock read under the lock, after the word, was behind */
			stats_issued(slot, behind);
			return issued;
		}
		if (outcome == COUNTER_WAIT)	/* the clock behind: sno's timeline decides */
			wait_for_unit(def, slot, d.wait_past + 1, &waited, WAIT_SNO_UNSAFE);
	}
}

uint64
issue_next(const GeneratorDef *def, int slot, const CounterPool *pool)
{
	return def->ticktock ? ticktock_next(def, slot, pool) : monotonic_next(def, slot, pool);
}

/* counter_take's access to a slot, with the clock fixed at one unit (issue_at) */
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
issue_at(const GeneratorDef *def, int slot, const CounterPool *pool, uint64 unit, uint64 *word)
{
	FixedClockAccess target = {{def, slot, slot_word(slot), unit}, unit};	/* never ahead */
	CounterAccess access = {fixed_load, fixed_unit, fixed_exchange, &target};
	CounterTaken taken = {0};
	CounterOutcome outcome;

	while (generator_clock_unit(def) < unit)
	{
		bool		waited = false;

		wait_for_unit(def, slot, unit, &waited, WAIT_UNCOUNTED);
	}
	/* counter_advance, the rule without a timeline: it issues in `unit` or not at all */
	outcome = counter_take(&access, counter_advance, pool, &taken);

	/* (not counted in flakeid_generators.issued, which counts *_new calls) */
	*word = outcome == COUNTER_ISSUE ? taken.next_word : taken.word;
	return outcome;
}

uint64
issue_close_through(const GeneratorDef *def, int slot, uint64 unit)
{
	pg_atomic_uint64 *counter = slot_word(slot);
	pg_atomic_uint64 *closings = &counter_shared->slots[slot].closings.value;
	uint64		word = pg_atomic_read_u64(counter);

	for (;;)
	{
		uint64		closed = counter_word(unit, counter_flag(word), COUNTER_SEQ_MASK);
		bool		swapped;

		if (counter_unit(word) > unit || word == closed)
			return counter_unit(word);

		/*
		 * The last ID issued in `unit`, if the word is there, for a back-fill
		 * into the closed unit (counters_closed_live_top); a word with its
		 * sequence used up lies in an earlier unit here, and is not recorded,
		 * so that a closing through a later unit that has not yet swapped
		 * never reads as the unit's pool used up.
		 */
		if (counter_seq(word) != COUNTER_SEQ_MASK)
			(void) atomic_raise_u64(&counter_shared->slots[slot].closed_replaced.value, word);
		/* slot_exchange's order: the mark first (it may ERROR), then, counted as under way, the swap */
		mark_ensure(mark_of(def, closed), def->format->unit_start(counter_unit(closed)));
		(void) pg_atomic_fetch_add_u64(closings, 1);
		swapped = pg_atomic_compare_exchange_u64(counter, &word, closed);
		if (swapped)
		{
			debug_pause(DEBUG_PAUSE_CLOSING_SWAPPED);
			(void) atomic_raise_u64(&counter_shared->slots[slot].closed_word.value, closed);
		}
		(void) pg_atomic_fetch_sub_u64(closings, 1);
		if (swapped)
			return unit;
	}
}
