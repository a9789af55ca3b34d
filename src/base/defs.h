/*
 * defs.h — the names every generator module shares: the generators, their
 * counter slots, identities and marks, and the shape of a generator's
 * description (the table itself is table.c's)
 *
 * A header of declarations only, at the bottom of the generator stack
 * (docs/DESIGN.md, "The generator stack"): every module may include it.
 */
#ifndef FLAKEID_GENERATOR_DEFS_H
#define FLAKEID_GENERATOR_DEFS_H

#include "datatype/timestamp.h"
#include "port/atomics.h"

#include "format/format.h"
#include "format/siq.h"
#include "rules/counter.h"

typedef enum GeneratorId
{
	GEN_SNO,
	GEN_SIQ,					/* one counter per named kind (the variant) */
	GEN_KUID,					/* shared by kuid and kuid96 */
	GEN_SNOWFLAKE,
	GEN_COUNT
} GeneratorId;

/*
 * A promoted server's generators that would issue its upstream's IDs
 * (identity_promotion_conflicts): a bit per GeneratorId (GEN_KUID for
 * kuid96, whose node is its identity), and this one for kuid, whose IDs
 * carry none.
 */
#define PROMOTED_PLAIN_KUID		(1u << GEN_COUNT)

/* one counter per generator variant: sno, the 15 siq kinds, kuid, snowflake */
#define GEN_SLOT_COUNT	(3 + SIQ_NAMED_KINDS)

/* What every generator issues: a time unit of its format, a sequence, sno's tick-tock. */
typedef struct GeneratedId
{
	uint64		unit;			/* the format's generator unit (FlakeFormat.units_at) */
	uint32		sequence;
	bool		ticktock;		/* sno only; false for the others */
} GeneratedId;

typedef enum IdentityKind
{
	IDENTITY_SNO_PARTITION,
	IDENTITY_SIQ_SHARD,
	IDENTITY_KUID_NODE,
	IDENTITY_SNOWFLAKE_WORKER,
	IDENTITY_SNOWFLAKE_PROCESS,
	IDENTITY_COUNT
} IdentityKind;

/*
 * The saved marks (marks.c).  Every ID lies before the mark of its counter:
 * one mark per generator with the monotonic rule, and one per sno
 * tick-tock value.  sno IDs never run ahead of the clock, but the monotonic
 * generators count on ahead of a clock that stepped back; with one mark for
 * both, sno would resume after a restart where they were, and wait for the
 * clock to get there.  sno's mark of the value in use is the bound of that
 * value when it toggles, so a toggle needs no save of its own.
 *
 * Up to 1.4 the monotonic generators shared one mark, so that one
 * generator's time ahead (kuid minted a week ahead through a clock
 * excursion) carried every other after a restart: snowflakes dated a week
 * ahead, below no horizon (1.4's second auditor).  Each now resumes after
 * its own; the state file keeps the latest of them where 1.4 reads its one
 * mark (persisted/persisted.h), and a file of 1.4 gives its one to all three.
 */
typedef enum MarkId
{
	MARK_SIQ,					/* siq, every kind */
	MARK_KUID,					/* kuid and kuid96 */
	MARK_SNOWFLAKE,
	MARK_SNO_FLAG0,				/* sno IDs with tick-tock 0 */
	MARK_SNO_FLAG1,				/* sno IDs with tick-tock 1 */
	MARK_COUNT
} MarkId;

/* the marks of the monotonic generators: MARK_SIQ up to this */
#define MARK_MONOTONIC_COUNT	(MARK_SNOWFLAKE + 1)

/* how far ahead of the clock the saved mark reaches, and when to renew it */
#define MARK_RESERVE_US		(2 * USECS_PER_SEC)
#define MARK_RENEW_US		(1 * USECS_PER_SEC)

/*
 * How far ahead of this server's clock an ID given to *_advance_past may
 * lie: the generator then issues up to that far ahead of its clock (the
 * monotonic generators count on; sno counts on until its clock passes, and
 * after a restart waits for it), so the lead is bounded.  A minute covers
 * clocks that disagree by seconds; more is a clock to mend, not an ID to
 * follow.
 */
#define ADVANCE_LEAD_US		(60 * USECS_PER_SEC)

/* hot words written by many backends each live on a cache line of their own */
typedef union PaddedWord
{
	pg_atomic_uint64 value;
	char		pad[PG_CACHE_LINE_SIZE];
} PaddedWord;

/*
 * A shared word that only moves up (atomic_raise_u64) or only down
 * (atomic_lower_u64) under concurrent writers: a compare-and-swap loop, a
 * full barrier when it writes.  Returns the word's value afterwards.
 */
static inline uint64
atomic_raise_u64(pg_atomic_uint64 *word, uint64 value)
{
	uint64		before = pg_atomic_read_u64(word);

	while (before < value)
		if (pg_atomic_compare_exchange_u64(word, &before, value))
			return value;
	return before;
}

static inline uint64
atomic_lower_u64(pg_atomic_uint64 *word, uint64 value)
{
	uint64		before = pg_atomic_read_u64(word);

	while (value < before)
		if (pg_atomic_compare_exchange_u64(word, &before, value))
			return value;
	return before;
}

/* A generator, as table.c describes it: everything the layers above read is data here. */
typedef struct GeneratorDef
{
	const char *name;			/* for the view and messages */
	GeneratorId id;
	const FlakeFormat *format;	/* the units its counter word counts in */
	bool		ticktock;		/* sno's rule (docs/spec/sno.md §5.1), else the monotonic one */
	MarkId		mark;			/* the monotonic rule's: the generator's own mark (sno: both of MARK_SNO_FLAG*) */
	bool		coarse_clock;	/* may read the coarse clock (clock.c) */
	bool		records_epoch;	/* its IDs depend on the snowflake epoch (epoch.c) */
	int			variants;		/* counters it keeps: one per siq kind, else 1 */
	int			first_slot;		/* its first counter slot */
	int			nidentities;
	IdentityKind identities[2]; /* resolved before anything is issued */
	CounterPool (*pool) (int variant);	/* may raise 22023 for a bad pool setting */
	const char *(*variant_name) (int variant);	/* NULL: one variant */
	char	   *(*describe_settings) (void);	/* for the view: settings besides identities, or NULL */
} GeneratorDef;

/* the mark an ID of this generator with this counter word must lie before */
static inline MarkId
mark_of(const GeneratorDef *def, uint64 word)
{
	return !def->ticktock ? def->mark : counter_flag(word) ? MARK_SNO_FLAG1 : MARK_SNO_FLAG0;
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

#endif
