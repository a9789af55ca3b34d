/*
 * sno.h — the sno format (docs/spec/sno.md): layout, time, generator rules
 *
 * Pure C, no PostgreSQL headers.
 */
#ifndef FLAKEID_FORMAT_SNO_H
#define FLAKEID_FORMAT_SNO_H

#include <stdbool.h>
#include <stdint.h>

#include "codec.h"
#include "rules/counter.h"

#define SNO_SIZE			10
#define SNO_TEXT_LEN		16
#define SNO_EPOCH_UNIX_US	INT64_C(1262304000000000)	/* 2010-01-01T00:00:00Z */
#define SNO_UNIT_US			4000	/* 4 ms */
#define SNO_UNIT_LIMIT		(UINT64_C(1) << 39)	/* units are 39 bits */
#define SNO_MAX_META		255
#define SNO_MAX_PARTITION	65535
#define SNO_MAX_SEQUENCE	65535
#define SNO_MIN_POOL		4	/* the README, "Settings": at least 4 values (upstream's off-by-two not copied) */

extern const FlakeTextLayout sno_text;

typedef struct SnoFields
{
	uint64_t	units;			/* 4 ms units since the sno epoch, < 2^39 */
	unsigned	ticktock;		/* 0 or 1 */
	unsigned	meta;			/* 0..255 */
	unsigned	partition;		/* 0..65535 */
	unsigned	sequence;		/* 0..65535 */
} SnoFields;

extern void sno_pack(const SnoFields *fields, uint8_t *out);
extern void sno_unpack(const uint8_t *in, SnoFields *fields);

/* Floors a Unix-epoch microsecond instant to its unit; false outside the range (spec §2). */
extern bool sno_units_from_unix_us(int64_t unix_us, uint64_t *units);
/* The start of the unit, in Unix-epoch microseconds. */
extern int64_t sno_unix_us_from_units(uint64_t units);

/* True when [seq_min, seq_max] is a pool the README's "Settings" accepts. */
extern bool sno_pool_is_valid(int seq_min, int seq_max);

/*
 * Generator (spec §5).  The hot state is a counter word (counter.h) whose flag
 * is the tick-tock bit; the timeline (wallSafe, drift count) is touched only
 * when the clock is behind the last used unit, so it lives beside the word,
 * under a lock the fast path never takes.
 */
typedef struct SnoTimeline
{
	uint64_t	wall_safe;		/* highest unit used by the timeline we left */
	uint64_t	drifts;			/* toggles so far; its parity is the word's tick-tock (the server asserts it) */
} SnoTimeline;

typedef struct SnoDecision
{
	uint64_t	next_word;		/* on COUNTER_ISSUE */
	SnoTimeline next_timeline;	/* on COUNTER_ISSUE, when a timeline was given (unchanged unless it toggled) */
	uint64_t	wait_past;		/* on COUNTER_WAIT: retry once the clock unit exceeds this */
} SnoDecision;

/*
 * With the clock behind the word and inside the unsafe period (at or before
 * wall_safe): the unit the clock must pass before deciding again.  That is
 * the end of the period, or the unit before the word's, where the same
 * tick-tock simply goes on, whichever comes first (upstream's poll loop
 * ends there too).  After a restart the word sits at sno's own mark, often
 * the sooner.
 */
static inline uint64_t
sno_unsafe_wait_past(uint64_t wall_safe, uint64_t word)
{
	uint64_t	before_word = counter_unit(word) - 1;	/* behind: the word's unit is above 0 */

	return wall_safe < before_word ? wall_safe : before_word;
}

/*
 * One attempt at New() with clock reading `now` (in units).  With timeline
 * NULL (the lock-free fast path) a clock behind the word yields
 * COUNTER_BEHIND; the caller then takes the lock and decides again with the
 * timeline.  Never issues a (unit, tick-tock, sequence) twice: spec §5.1
 * without the duplicate races of §5.4.
 */
extern CounterOutcome sno_decide(uint64_t word, uint64_t now, const CounterPool *pool,
								 const SnoTimeline *timeline, SnoDecision *decision);

/* NewWithTime's static sequence (spec §5.2): the n-th call (from 0) gets this. */
static inline unsigned
sno_static_sequence(uint64_t n, const CounterPool *pool)
{
	return pool->seq_min + (unsigned) (n % (pool->seq_max - pool->seq_min + 1));
}

#endif
