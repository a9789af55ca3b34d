/*
 * backfill.c — back-fill (*_new_at): IDs for the caller's time, one ledger
 * per server
 *
 * A back-filled ID takes its time from the caller, so only its sequence
 * tells it from the others of its unit.  Where they come from:
 *
 *   - a unit the live generator may still use (at or after its last unit,
 *     or the clock's when it has issued nothing): from the live counter
 *     itself, in exactly that unit (issue_at), so it is a live ID
 *     and no live ID repeats it.  A unit after the clock's is refused: the
 *     live generator will get there, and moving it there would put every
 *     later ID ahead of the clock.
 *   - that unit when a horizon or an advance closed it (issue_close_through:
 *     the live counter will issue nothing more there): from the ledger, as
 *     a past unit, but only above the last sequence the live counter issued
 *     in it, which the closing recorded (counters_closed_live_top).  1.3
 *     took the closed word for a pool used up and refused.
 *   - a unit the live counter reached ahead of the clock, and left (after
 *     an advance, a clock step back, a restart or a promotion: it counts on
 *     and leaves a unit only with its pool used up), in this lifetime or an
 *     earlier one, or on the old primary: refused (issued_ahead.h: the runs are
 *     saved).  1.3 served it as a past unit, from the top of the pool down,
 *     into the live IDs issued there in advance.
 *   - any earlier unit: from the server's ledger, in shared memory, so that
 *     every session and parallel worker draws from the same one: offsets
 *     0, 1, 2, ... of the unit (rules/ledger.h), given as sequences from
 *     the top of the pool down.  Live IDs take sequences from the bottom
 *     up, so the two meet in a past unit only when its live and back-filled
 *     IDs together outnumber its pool (README, "Back-fill").
 *
 * Across restarts: the ledger lives in shared memory, so a restart forgets
 * it.  What it gave is bounded, before any sequence below the bound is
 * given, by saved low-waters (saved and WAL-logged, so that standbys and a
 * promoted one know them): one per counter slot, at or below every
 * back-filled sequence of the slot in any unit, and the deep units
 * (deep_record.h), each at or below every back-filled sequence of its
 * unit.  Each server lifetime draws each unit below the low-waters it
 * started with, so nothing back-filled in an earlier lifetime is given
 * again.  Low-waters move down in steps (draw_from_ledger), so a lifetime
 * costs a few saves.  The slot's low-water may go down by an eighth of the
 * pool left per lifetime; a unit back-filled deeper than
 * that (rows that share a timestamp) gets a deep entry of its own
 * (deep_record.h) and costs only itself, whatever the number of deep units:
 * past flakeid.backfill_deep_units_max of them a new one is refused, never
 * merged.  (1.3 kept 32 deep ranges and merged the closest two past them,
 * costing every unit between: those ranges are still read and honoured.)
 *
 * The ledger is split into partitions by unit, each under an LWLock of its
 * own, held only while an offset is taken (no I/O, no sleep).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "backfill/backfill.h"
#include "backfill/backfill_refusals.h"
#include "base/clock.h"
#include "base/shmem.h"
#include "base/table.h"
#include "durable/deep_record.h"
#include "durable/marks.h"
#include "generator/generator.h"
#include "generator/issue.h"

#define BACKFILL_PARTITIONS			8
#define PARTITION_CELLS				(1u << 12)	/* 96 kB, twice: a rebuild holds two */
#define PARTITION_BLOOM_BITS		(1u << 20)	/* 128 kB */

StaticAssertDecl(GEN_SLOT_COUNT <= LEDGER_MAX_SLOTS, "a ledger slot per generator slot");

typedef struct BackfillPartition
{
	uint32		lifetime;		/* MarkShared.backfill_lifetime its ledger belongs to */
	BackfillLedger ledger;
	LedgerEntry *tables[2];		/* the memory the ledger's allocator hands out */
	bool		table_busy[2];
	uint64	   *bloom;
} BackfillPartition;

static BackfillPartition *partitions = NULL;
static LWLockPadded *partition_locks = NULL;

/* --- the ledgers' memory ------------------------------------------------------ */

static void *
partition_alloc(void *arg, size_t size)
{
	BackfillPartition *part = (BackfillPartition *) arg;

	if (size == PARTITION_BLOOM_BITS / 8)
		return part->bloom;
	Assert(size == sizeof(LedgerEntry) * PARTITION_CELLS);
	for (int i = 0; i < 2; i++)
		if (!part->table_busy[i])
		{
			part->table_busy[i] = true;
			return part->tables[i];
		}
	elog(ERROR, "flakeid back-fill: no free ledger table");	/* a ledger holds two at most */
	return NULL;
}

static void
partition_release(void *arg, void *ptr)
{
	BackfillPartition *part = (BackfillPartition *) arg;

	for (int i = 0; i < 2; i++)
		if (ptr == part->tables[i])
			part->table_busy[i] = false;
}

static void
partition_reset(BackfillPartition *part, uint32 lifetime)
{
	ledger_free(&part->ledger);
	ledger_init(&part->ledger, PARTITION_CELLS, PARTITION_CELLS, PARTITION_BLOOM_BITS,
				partition_alloc, partition_release, part);
	part->lifetime = lifetime;
}

static Size
partition_memory(void)
{
	return MAXALIGN(sizeof(BackfillPartition)) + 2 * MAXALIGN(sizeof(LedgerEntry) * PARTITION_CELLS)
		+ MAXALIGN(PARTITION_BLOOM_BITS / 8);
}

/* the partitions, then their tables and filters */
static void
backfill_shared_init(void *memory)
{
	char	   *next = (char *) memory + MAXALIGN(sizeof(BackfillPartition)) * BACKFILL_PARTITIONS;
	BackfillPartition *parts = (BackfillPartition *) memory;

	for (int p = 0; p < BACKFILL_PARTITIONS; p++)
	{
		BackfillPartition *part = &parts[p];

		for (int i = 0; i < 2; i++)
		{
			part->tables[i] = (LedgerEntry *) next;
			next += MAXALIGN(sizeof(LedgerEntry) * PARTITION_CELLS);
		}
		part->bloom = (uint64 *) next;
		next += MAXALIGN(PARTITION_BLOOM_BITS / 8);
		partition_reset(part, 0);
	}
}

void
backfill_init(void)
{
	ShmemPart	part = {.name = "flakeid back-fill", .size = mul_size(BACKFILL_PARTITIONS, partition_memory()),
		.address = (void **) &partitions, .init = backfill_shared_init,
	.nlocks = BACKFILL_PARTITIONS, .locks = &partition_locks};

	shmem_request_part(&part);
}

/* --- drawing ------------------------------------------------------------------ */

/* the partition of a unit: consecutive units spread over all of them */
static int
partition_of(int slot, uint64 unit)
{
	uint64		x = (unit ^ ((uint64) slot << 56)) * UINT64CONST(0x9e3779b97f4a7c15);

	return (int) (x >> 61) % BACKFILL_PARTITIONS;
}

/*
 * The top of this lifetime's back-fill sequences in (slot, unit): below the
 * slot's low-water, the unit's deep entry and a 1.3 deep range holding it
 * (if any) as the lifetime began with them, within the pool; -1 when nothing is left.  Read between two
 * reads of the lifetime (take_offset).
 */
static int64
lifetime_top(int slot, const CounterPool *pool, uint64 key)
{
	uint32		slot_low = mark_shared->backfill_start_low[slot];	/* read once: Min() reads twice */
	uint32		range = deep_units_low(&mark_shared->backfill_start_deep, (unsigned) slot, key);
	uint32		entry = deep_record_start_low(slot, key);
	int64		low = Min(slot_low, Min(range, entry));
	int64		top = Min((int64) pool->seq_max, low - 1);

	return top >= (int64) pool->seq_min ? top : -1;
}

/*
 * How deep one lifetime may take a slot's low-water, shared by all its
 * units: an eighth of what the slot's pool had left when the lifetime
 * began (at least 2, so that a nearly used pool is still drawn from).  A
 * unit back-filled deeper gets a deep entry of its own, so that it costs
 * only itself (deep_record.h).
 */
static bool
slot_wide_allows(int slot, const CounterPool *pool, int64 low)
{
	int64		slot_low = mark_shared->backfill_start_low[slot];	/* read once: Min() reads twice */
	int64		start_top = Min((int64) pool->seq_max, slot_low - 1);
	int64		budget = (start_top - (int64) pool->seq_min + 1) / 8;

	return start_top + 1 - low <= Max(budget, 2);
}

/*
 * One offset of (slot, unit) from its partition's ledger, to be given as
 * the sequence *top - offset; false with *usage when the unit's pool is
 * used up.  *lifetime is the lifetime it was drawn in, *covered the
 * unit's offsets known to be saved (ledger_covered).
 */
static bool
take_offset(int slot, const CounterPool *pool, uint64 key, uint32 *lifetime, int64 *top, uint32 *offset,
			uint32 *size, uint32 *covered, LedgerUsage *usage)
{
	int			p = partition_of(slot, key);
	BackfillPartition *part = &partitions[p];
	bool		taken;

	LWLockAcquire(&partition_locks[p].lock, LW_EXCLUSIVE);
	/* the lifetime's low-waters, between two equal, even readings of its number */
	for (;;)
	{
		*lifetime = pg_atomic_read_u32(&mark_shared->backfill_lifetime);
		pg_read_barrier();
		*top = lifetime_top(slot, pool, key);
		pg_read_barrier();
		if (*lifetime % 2 == 0 && pg_atomic_read_u32(&mark_shared->backfill_lifetime) == *lifetime)
			break;
		pg_spin_delay();		/* a new lifetime's bounds are being written: a memcpy */
	}
	if (part->lifetime != *lifetime)
		partition_reset(part, *lifetime);
	*size = *top >= 0 ? (uint32) (*top - pool->seq_min + 1) : 0;
	taken = *size > 0 && ledger_take(&part->ledger, (unsigned) slot, key, *size, offset, usage);
	*covered = taken ? ledger_covered(&part->ledger, (unsigned) slot, key) : 0;
	LWLockRelease(&partition_locks[p].lock);
	return taken;
}

/*
 * Notes in the ledger, if the unit's lifetime is still current, that its
 * offsets below `covered` are saved, and with `filled` that every offset
 * is given: its lower sequences are the live counter's (a unit a horizon
 * closed), and a later draw, once the counter has moved past the unit and
 * it is judged as any past unit, must not reach them.
 */
static void
note_unit(int slot, uint64 key, uint32 lifetime, uint32 covered, bool filled, uint32 size)
{
	int			p = partition_of(slot, key);
	BackfillPartition *part = &partitions[p];

	LWLockAcquire(&partition_locks[p].lock, LW_EXCLUSIVE);
	if (part->lifetime == lifetime)
	{
		ledger_cover(&part->ledger, (unsigned) slot, key, covered);
		if (filled)
			ledger_fill(&part->ledger, (unsigned) slot, key, size);
	}
	LWLockRelease(&partition_locks[p].lock);
}

/*
 * The next ledger sequence of (slot, unit), after saving a lower low-water
 * when it reaches below the saved ones: the slot's, twice the depth used so
 * far, while the lifetime's budget for it allows (slot_wide_allows), else
 * the unit's own deep entry, a quarter deeper than it went (what a deep
 * unit sets aside is lost to it alone, so it grows in smaller steps, for a
 * few more saves).  A new lifetime (a
 * primary's bounds taken up, under flakeid_lock as the save is) may begin
 * at any point after the draw; its ledger starts again from its own top,
 * which may lie at or above a sequence drawn in the old one (the saved
 * low-waters cover both).  So whichever way the sequence is returned, it
 * was drawn in the lifetime still current, or it is dropped and drawn
 * again.  A sequence at or below `live_top` (the live counter's last in a
 * unit a horizon closed, else below the pool) is refused, not given.
 */
static uint32
draw_from_ledger(const GeneratorDef *def, int variant, const CounterPool *pool, uint64 key, TimestampTz ts,
				 int64 live_top)
{
	int			slot = def->first_slot + variant;

	deep_record_require();		/* without its record of deep units, a past unit could repeat an ID */
	for (;;)
	{
		LedgerUsage usage = {0};
		uint32		lifetime,
					offset = 0,
					size,
					covered,
					sequence;
		int64		top;

		if (!take_offset(slot, pool, key, &lifetime, &top, &offset, &size, &covered, &usage))
		{
			/* (a closed unit once filled: its live IDs are the reason still) */
			if (live_top >= (int64) pool->seq_min)
				backfill_refuse_shared_with_live(def, variant, ts, pool, live_top);
			backfill_refuse_used_up(def, variant, ts, pool->seq_max - pool->seq_min + 1, size, &usage);
		}
		sequence = (uint32) (top - offset);
		/* at or below the closed unit's live IDs: the pool is shared, and used up */
		if ((int64) sequence <= live_top)
		{
			note_unit(slot, key, lifetime, 0, true, size);
			backfill_refuse_shared_with_live(def, variant, ts, pool, live_top);
		}
		debug_pause(DEBUG_PAUSE_BACKFILL_DRAWN);
		if (sequence < mark_backfill_low(slot) && offset >= covered)
		{
			int64		used = (int64) offset + 1;
			int64		twice = Max((int64) pool->seq_min, top + 1 - 2 * used);
			int64		quarter_more = Max((int64) pool->seq_min, (int64) sequence - Max(used / 4, 1));
			bool		slot_wide = slot_wide_allows(slot, pool, twice);
			uint32		saved = mark_cover_backfill(slot, key, sequence, (uint32) (slot_wide ? twice : quarter_more),
												   slot_wide);

			note_unit(slot, key, lifetime, (uint32) (top + 1 - saved), false, 0);
		}
		pg_read_barrier();
		if (pg_atomic_read_u32(&mark_shared->backfill_lifetime) == lifetime)
			return sequence;
	}
}

/*
 * A unit the live counter may still use (at or after its last unit, not
 * after the clock's): true with *sequence and *flag when the live counter
 * issued the ID, false with *live_top when the ledger is to give it: the
 * counter passed the unit meanwhile (seq_min - 1), or a horizon closed it
 * (the last sequence the live counter issued there).
 */
static bool
from_live_counter(const GeneratorDef *def, int variant, const CounterPool *pool, uint64 live_unit,
				  TimestampTz ts, uint32 *sequence, bool *flag, int64 *live_top)
{
	int			slot = def->first_slot + variant;
	uint64		word = 0;
	AheadRun	run;

	*live_top = (int64) pool->seq_min - 1;
	/* a unit past the clock is refused, or is a past unit to a counter that passed it */
	if (backfill_past_the_clock(def, slot, live_unit, ts))
		return false;
	switch (issue_at(def, slot, pool, live_unit, &word))
	{
		case COUNTER_ISSUE:
			*sequence = counter_seq(word);
			*flag = counter_flag(word);
			return true;
		case COUNTER_WAIT:
			/* closed by a horizon or an advance: the live counter issues nothing more there */
			if (counters_await_closed(slot, word))
			{
				bool		known;

				debug_pause(DEBUG_PAUSE_BACKFILL_CLOSED);
				if (def->ticktock)
					flakeid_lock_acquire();	/* sno's timeline (may wait, cancellably, behind a save) */
				known = counters_closed_live_top(slot, word, pool, live_top);
				if (def->ticktock)
					flakeid_lock_release();
				if (known)
					return false;
			}
			/*
			 * The counter left the unit meanwhile (a live ID in a later unit,
			 * a later closing): a past unit now, as in the default case
			 * below, not a pool used up (the review of 1ac02dc: a closing
			 * still under way, then a live ID, gave 54000).
			 */
			else if (counter_unit(pg_atomic_read_u64(&counter_shared->slots[slot].word.value)) > live_unit)
				return false;
			/* a pool the live counter used up ahead of the clock: the same refusal as once it left */
			if (ahead_find(slot, live_unit, &run))
				backfill_refuse_ahead(def, ts, &run);
			backfill_refuse_used_up(def, variant, ts, pool->seq_max - pool->seq_min + 1, pool->seq_max - pool->seq_min + 1, NULL);
			break;
		default:
			/* the live counter passed the unit meanwhile: a past unit now */
			break;
	}
	return false;
}

GeneratedId
flakeid_generate_backfill(GeneratorId gen, int variant, uint64 key, uint64 live_unit, TimestampTz ts)
{
	const GeneratorDef *def = &generator_defs[gen];
	int			slot = def->first_slot + variant;
	CounterPool pool;
	int64		live_top;
	AheadRun	run;

	Assert(variant >= 0 && variant < def->variants);
	pool = generator_prepare(def, variant);	/* with the generators' shared state, the ledger's */
	generator_refuse_in_copy(def);
	backfill_refuse_below_floor(def, live_unit, ts);
	live_top = (int64) pool.seq_min - 1;
	if (live_unit >= counters_live_floor(def, slot))
	{
		uint32		sequence = 0;
		bool		flag = false;

		if (from_live_counter(def, variant, &pool, live_unit, ts, &sequence, &flag, &live_top))
			return (GeneratedId) {key, sequence, flag};
	}

	/*
	 * A unit the live counter passed ahead of the clock may hold a live ID
	 * at every sequence (issued_ahead.h): refused.  The counter word that showed it
	 * past the unit was read before this, and the unit was recorded before
	 * any ID there was published.
	 */
	pg_read_barrier();
	if (ahead_find(slot, live_unit, &run))
		backfill_refuse_ahead(def, ts, &run);
	return (GeneratedId) {key, draw_from_ledger(def, variant, &pool, key, ts, live_top), false};
}
