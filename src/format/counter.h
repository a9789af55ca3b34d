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
	COUNTER_BEHIND				/* the clock is behind the last used unit */
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
 * The rule of every generator but sno (API.md "Generators"): a clock behind
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
	else
		*next_word = counter_word(unit + 1, counter_flag(word), pool->seq_min);
	return COUNTER_ISSUE;
}

#endif
