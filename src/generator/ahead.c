/*
 * ahead.c — the units each live counter reached ahead of the clock
 * (ahead.h): runs of units per counter slot, in shared memory, under a
 * spinlock per slot held for a few comparisons and copies (no I/O, no
 * allocation, no error).
 */
#include "postgres.h"

#include "storage/spin.h"

#include "generator/ahead.h"
#include "generator/shmem.h"

AheadSlot  *ahead_slots = NULL;

static void
ahead_shared_init(void *part)
{
	AheadSlot  *slots = (AheadSlot *) part;

	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		pg_atomic_init_u64(&slots[s].last_low, 0);
		pg_atomic_init_u64(&slots[s].last_high, 0);
		SpinLockInit(&slots[s].mutex);
		slots[s].count = 0;
	}
}

void
ahead_init(void)
{
	shmem_request_part(&(ShmemPart) {.name = "flakeid ahead", .size = sizeof(AheadSlot) * GEN_SLOT_COUNT,
	.address = (void **) &ahead_slots, .init = ahead_shared_init});
}

/*
 * Adds low..high to the ascending runs of `s`, joining every run it
 * overlaps or touches; past AHEAD_RUNS, joins the two neighbours with the
 * fewest units between them (the units between are refused too from then
 * on: over-refusing is safe, forgetting a run is not).
 */
static void
insert_run(AheadSlot *s, uint64 low, uint64 high)
{
	AheadRun	merged[AHEAD_RUNS + 1];
	int			n = 0;
	bool		placed = false;

	for (int i = 0; i < s->count; i++)
	{
		AheadRun	r = s->runs[i];

		if (r.high < low && low - r.high > 1)
			merged[n++] = r;	/* wholly below, not touching */
		else if (r.low > high && r.low - high > 1)
		{
			if (!placed)
				merged[n++] = (AheadRun) {low, high};
			placed = true;
			merged[n++] = r;	/* wholly above, not touching */
		}
		else
		{
			low = Min(low, r.low);	/* overlapping or touching: one run */
			high = Max(high, r.high);
		}
	}
	if (!placed)
		merged[n++] = (AheadRun) {low, high};
	if (n > AHEAD_RUNS)
	{
		int			closest = 0;

		for (int i = 1; i + 1 < n; i++)
			if (merged[i + 1].low - merged[i].high < merged[closest + 1].low - merged[closest].high)
				closest = i;
		merged[closest].high = merged[closest + 1].high;
		memmove(&merged[closest + 1], &merged[closest + 2], sizeof(AheadRun) * (n - closest - 2));
		n--;
	}
	memcpy(s->runs, merged, sizeof(AheadRun) * n);
	s->count = n;
}

void
ahead_record(int slot, uint64 low, uint64 high)
{
	AheadSlot  *s = &ahead_slots[slot];

	Assert(slot >= 0 && slot < GEN_SLOT_COUNT && low <= high);
	SpinLockAcquire(&s->mutex);
	insert_run(s, low, high);
	/* the low end first: ahead_note reads the high end first (ahead.h) */
	pg_atomic_write_u64(&s->last_low, s->runs[s->count - 1].low);
	pg_write_barrier();
	pg_atomic_write_u64(&s->last_high, s->runs[s->count - 1].high);
	SpinLockRelease(&s->mutex);
}

bool
ahead_find(int slot, uint64 unit, AheadRun *run)
{
	AheadSlot  *s = &ahead_slots[slot];
	bool		found = false;

	SpinLockAcquire(&s->mutex);
	for (int i = 0; i < s->count && !found; i++)
		if (s->runs[i].low <= unit && unit <= s->runs[i].high)
		{
			*run = s->runs[i];
			found = true;
		}
	SpinLockRelease(&s->mutex);
	return found;
}
