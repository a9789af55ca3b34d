/*
 * counter.h — the generic generator state word and its common transitions
 *
 * Every stateful generator keeps its hot state in one 64-bit word so that a
 * backend can advance it with a single compare-and-swap:
 *
 *     unit (47 bits) | flag (1 bit) | sequence (16 bits)
 *
 * `unit` is the last time unit an ID was issued in (the format's own unit:
 * 4 ms for sno, 1 ms for snowflake, ...), `sequence` the last sequence value
 * issued in it, and `flag` a per-format bit carried along unchanged (sno's
 * tick-tock).  The functions here are pure: clock in, decision out.  The
 * caller publishes the decision with compare-and-swap (server) or by plain
 * assignment (unit tests), so the rules are tested without a server.
 */
#ifndef FLAKEID_COUNTER_H
#define FLAKEID_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

#define COUNTER_SEQ_BITS	16
#define COUNTER_SEQ_MASK	((UINT64_C(1) << COUNTER_SEQ_BITS) - 1)
#define COUNTER_FLAG_BIT	(UINT64_C(1) << COUNTER_SEQ_BITS)
#define COUNTER_UNIT_SHIFT	(COUNTER_SEQ_BITS + 1)
#define COUNTER_MAX_UNIT	((UINT64_C(1) << (64 - COUNTER_UNIT_SHIFT)) - 1)

typedef enum CounterOutcome
{
	COUNTER_ISSUE,				/* publish next_word; the ID is (unit, flag, seq) of it */
	COUNTER_WAIT,				/* nothing to issue until the clock passes wait_past */
	COUNTER_BEHIND,				/* the clock is behind the last used unit */
	COUNTER_END					/* the last unit the word can hold is used up */
} CounterOutcome;

typedef struct CounterPool
{
	uint32_t	seq_min;		/* inclusive */
	uint32_t	seq_max;		/* inclusive, < 2^COUNTER_SEQ_BITS */
} CounterPool;

static inline uint64_t
counter_word(uint64_t unit, bool flag, uint32_t seq)
{
	return (unit << COUNTER_UNIT_SHIFT) | (flag ? COUNTER_FLAG_BIT : 0) | seq;
}

static inline uint64_t
counter_unit(uint64_t word)
{
	return word >> COUNTER_UNIT_SHIFT;
}

static inline bool
counter_flag(uint64_t word)
{
	return (word & COUNTER_FLAG_BIT) != 0;
}

static inline uint32_t
counter_seq(uint64_t word)
{
	return (uint32_t) (word & COUNTER_SEQ_MASK);
}

/*
 * The clock-forward and same-unit cases shared by every generator: the first
 * ID of a new unit takes the pool minimum, the next ones count up, and an
 * exhausted pool waits for the next unit instead of wrapping.
 */
static inline CounterOutcome
counter_advance(uint64_t word, uint64_t now, const CounterPool *pool,
				uint64_t *next_word, uint64_t *wait_past)
{
	uint64_t	unit = counter_unit(word);

	if (now > unit)
	{
		*next_word = counter_word(now, counter_flag(word), pool->seq_min);
		return COUNTER_ISSUE;
	}
	if (now < unit)
		return COUNTER_BEHIND;
	if (counter_seq(word) >= pool->seq_max)
	{
		*wait_past = unit;
		return COUNTER_WAIT;
	}
	*next_word = word + 1;
	return COUNTER_ISSUE;
}

/*
 * The rule of every generator but sno (README, "How the generators behave"): a clock behind
 * the last used unit counts on from that unit, and when its pool is used up
 * moves to the following unit rather than waiting for the clock to come
 * back, so a step back never stalls generation.  IDs stay unique and keep
 * their order; their time runs ahead of the clock until it catches up.
 */
static inline CounterOutcome
counter_advance_monotonic(uint64_t word, uint64_t now, const CounterPool *pool,
						  uint64_t *next_word, uint64_t *wait_past)
{
	uint64_t	unit = counter_unit(word);

	if (now >= unit)
		return counter_advance(word, now, pool, next_word, wait_past);
	if (counter_seq(word) < pool->seq_max)
		*next_word = word + 1;
	else if (unit < COUNTER_MAX_UNIT)
		*next_word = counter_word(unit + 1, counter_flag(word), pool->seq_min);
	else
		return COUNTER_END;		/* unit + 1 would wrap to unit 0 */
	return COUNTER_ISSUE;
}

/*
 * How a generator loop reaches its counter word and its clock: shared
 * memory, compare-and-swap and the system clock in the server; scripts in
 * the unit tests.
 */
typedef struct CounterAccess
{
	uint64_t	(*load) (void *arg);	/* the word as published now */
	uint64_t	(*clock) (void *arg);	/* the clock in the format's units */
	/* publishes `next` if the word is still *word; else false, with *word set to the word now */
	bool		(*exchange) (void *arg, uint64_t *word, uint64_t next);
	void	   *arg;
} CounterAccess;

typedef CounterOutcome (*CounterRule) (uint64_t word, uint64_t now, const CounterPool *pool,
									   uint64_t *next_word, uint64_t *wait_past);

/* what counter_take saw: the word it decided on and the clock read after it */
typedef struct CounterTaken
{
	uint64_t	word;
	uint64_t	now;
	uint64_t	next_word;		/* ISSUE: the word published */
	uint64_t	wait_past;		/* WAIT: the unit the clock must pass */
} CounterTaken;

/*
 * The lock-free loop of every generator: the word, then the clock, decide,
 * publish by exchange; a lost exchange decides again with the word it
 * returned and a fresh clock.  Returns ISSUE with the ID published, or the
 * rule's WAIT, BEHIND or END with nothing published.
 *
 * The clock is read after the word, every time (the server's clock
 * callback puts a read barrier before it): only then does a clock behind
 * the word prove a regression.  Read the other way round, a word another
 * backend moved after the clock read makes the clock look behind (a false
 * regression at every unit boundary), and across a real step back a
 * caller can publish the old clock's unit with the tick-tock another
 * backend just toggled, so that every later caller waits out the step.
 */
static inline CounterOutcome
counter_take(const CounterAccess *access, CounterRule rule, const CounterPool *pool,
			 CounterTaken *taken)
{
	taken->word = access->load(access->arg);
	for (;;)
	{
		CounterOutcome outcome;

		taken->now = access->clock(access->arg);
		outcome = rule(taken->word, taken->now, pool, &taken->next_word, &taken->wait_past);
		if (outcome != COUNTER_ISSUE)
			return outcome;
		if (access->exchange(access->arg, &taken->word, taken->next_word))
			return COUNTER_ISSUE;
	}
}

#endif
