/*
 * test_ledger.c — the back-fill ledger: one session never gives one unit an
 * offset twice, says FULL only when the unit's own use and the floor fill
 * the pool, and forgets cheaply
 *
 * Usage: test_ledger.  Prints TAP.
 */
#include "tap.h"
#include "../../src/rules/ledger.h"

#define TEST_BLOOM_BITS	(UINT32_C(1) << 23)

static long live_allocations;

static void *
test_alloc(void *arg, size_t size)
{
	void	   *p = malloc(size);

	(void) arg;
	if (p == NULL)
		abort();
	live_allocations++;
	return p;
}

static void
test_release(void *arg, void *p)
{
	(void) arg;
	live_allocations--;
	free(p);
}

/*
 * Takes `times` offsets of each of `count` units first, first + stride, ...
 * of `slot` in a pool of `size`: whether every take succeeded.
 */
static bool
take_units(BackfillLedger *l, unsigned slot, uint64_t first, uint64_t stride, uint64_t count, int times, uint32_t size)
{
	uint32_t	offset;
	LedgerUsage usage;
	bool		all_taken = true;

	for (uint64_t u = 0; u < count; u++)
		for (int i = 0; i < times; i++)
			all_taken &= ledger_take(l, slot, first + u * stride, size, &offset, &usage);
	return all_taken;
}

/* a unit takes 0, 1, ... size - 1 in order, then FULL; its neighbours are untouched */
static void
test_order_and_full(void)
{
	BackfillLedger l;
	uint32_t	offset = 0;
	LedgerUsage usage = {0};
	bool		in_order = true;

	ledger_init(&l, 8, 1u << 20, TEST_BLOOM_BITS, test_alloc, test_release, NULL);
	for (uint32_t i = 0; i < 4096; i++)
		in_order &= ledger_take(&l, 3, 12345, 4096, &offset, &usage) && offset == i;
	tap_ok(in_order, "one unit takes offsets 0..4095 in order");
	tap_ok(!ledger_take(&l, 3, 12345, 4096, &offset, &usage) && usage.own == 4096 && usage.set_aside == 0,
		   "the 4097th take of the unit is FULL, with 4096 of its own and none set aside");
	tap_ok(!ledger_take(&l, 3, 12345, 4096, &offset, &usage), "and stays FULL");
	tap_ok(ledger_take(&l, 3, 12346, 4096, &offset, &usage) && offset == 0, "the next unit starts at 0");
	tap_ok(ledger_take(&l, 4, 12345, 4096, &offset, &usage) && offset == 0, "the same unit in another slot starts at 0");
	ledger_free(&l);
	tap_ok(live_allocations == 0, "ledger_free releases every table");
}

/* two units interleaved, each under the pool: no FULL and no repeat */
static void
test_interleaved(void)
{
	BackfillLedger l;
	uint32_t	offset;
	LedgerUsage usage;
	static bool seen[2][65536];
	bool		fine = true;

	memset(seen, 0, sizeof(seen));
	ledger_init(&l, 8, 1u << 20, TEST_BLOOM_BITS, test_alloc, test_release, NULL);
	for (int i = 0; i < 80000; i++)
	{
		int			which = i % 2;

		if (!ledger_take(&l, 0, 1000 + which, 65536, &offset, &usage) || seen[which][offset])
			fine = false;
		else
			seen[which][offset] = true;
	}
	tap_ok(fine, "80,000 takes alternating between two units: 40,000 distinct offsets each, no FULL");
	ledger_free(&l);
}

/*
 * Random loads through a small ledger that must forget: every offset a
 * (slot, unit) gets is new to it, below the size, and FULL comes only when
 * the unit's own takes plus its slot's floor reach the size.
 */
#define UNIVERSE 2000
#define SMALL_SIZE 256

static void
test_random_loads(void)
{
	static bool used[2][UNIVERSE][SMALL_SIZE];
	static uint32_t count[2][UNIVERSE];
	long		takes = 0,
				fulls = 0,
				repeats = 0,
				bad_fulls = 0;

	tap_random_state = 20261123;
	for (int round = 0; round < 40; round++)
	{
		BackfillLedger l;
		int			hot = (int) (tap_random() % UNIVERSE);

		memset(used, 0, sizeof(used));
		memset(count, 0, sizeof(count));
		ledger_init(&l, 4, 64, TEST_BLOOM_BITS, test_alloc, test_release, NULL);
		for (int i = 0; i < 6000; i++)
		{
			unsigned	slot = (unsigned) (tap_random() % 2);
			uint64_t	r = tap_random() % 100;
			/* a mix: one hot unit, a handful of warm ones, and a wide spread */
			int			unit = r < 30 ? hot : r < 60 ? (int) (tap_random() % 8) : (int) (tap_random() % UNIVERSE);
			uint32_t	offset;
			LedgerUsage usage;

			if (ledger_take(&l, slot, (uint64_t) unit, SMALL_SIZE, &offset, &usage))
			{
				takes++;
				if (offset >= SMALL_SIZE || used[slot][unit][offset])
					repeats++;
				else
					used[slot][unit][offset] = true;
				count[slot][unit]++;
			}
			else
			{
				fulls++;
				if (count[slot][unit] + l.floor[slot] < SMALL_SIZE)
					bad_fulls++;
			}
		}
		ledger_free(&l);
	}
	tap_ok(repeats == 0, "40 random loads through a ledger of at most 64 cells: %ld takes, no offset given twice to a unit", takes);
	tap_ok(fulls > 0 && bad_fulls == 0,
		   "%ld FULLs, each when the unit's own takes plus the floor filled the pool", fulls);
	tap_ok(live_allocations == 0, "every table released");
}

/* a spread of single takes raises the floor by about one per forgetting round */
static void
test_floor_creep(void)
{
	BackfillLedger l;
	const uint32_t max_capacity = 1024;
	const uint64_t units = 1000000;

	ledger_init(&l, 16, max_capacity, TEST_BLOOM_BITS, test_alloc, test_release, NULL);
	tap_ok(take_units(&l, 0, 0, 7919, units, 1, 4096), "1,000,000 units with one take each: all taken");
	tap_diag("floor %u after %llu forgotten units", l.floor[0], (unsigned long long) l.forgotten[0]);
	/* each round frees at least 3/8 of the table, and raises the floor by at most one */
	tap_ok(l.floor[0] * (uint64_t) (max_capacity / 8 * 3) <= units + max_capacity,
		   "the floor rose by at most one per %u new units", max_capacity / 8 * 3);
	tap_ok(l.forgotten[0] > 0 && l.capacity == max_capacity, "the ledger forgot units at its largest table");
	ledger_free(&l);
}

/* a unit that took many offsets outlives the forgetting of small ones, and goes on where it was */
static void
test_heavy_unit_kept(void)
{
	BackfillLedger l;
	uint32_t	offset = 0;
	LedgerUsage usage;
	bool		ok;

	ledger_init(&l, 16, 1024, TEST_BLOOM_BITS, test_alloc, test_release, NULL);
	ok = take_units(&l, 1, 42, 1, 1, 10000, 65536);
	ok &= take_units(&l, 1, 100, 1, 100000, 1, 65536);
	ok &= ledger_take(&l, 1, 42, 65536, &offset, &usage);
	tap_ok(ok && offset == 10000, "after 100,000 other units the heavy unit goes on at offset 10000 (got %u)", offset);
	tap_ok(l.floor[1] < 1000, "and the floor stayed low (%u)", l.floor[1]);
	ledger_free(&l);
}

/* a forgotten unit comes back above every offset it took, and a full one says how much was set aside */
static void
test_forgotten_unit(void)
{
	BackfillLedger l;
	uint32_t	offset = 0;
	LedgerUsage usage;
	bool		taken;

	ledger_init(&l, 4, 8, TEST_BLOOM_BITS, test_alloc, test_release, NULL);
	taken = take_units(&l, 2, 0, 1, 100, 3, 4);
	tap_ok(taken && l.forgotten[2] > 0, "100 units take 3 offsets each of a size-4 pool through an 8-cell ledger (%llu forgotten)",
		   (unsigned long long) l.forgotten[2]);
	tap_ok(ledger_take(&l, 2, 0, 4, &offset, &usage) && offset == 3, "forgotten unit 0 comes back at offset 3");
	tap_ok(!ledger_take(&l, 2, 0, 4, &offset, &usage) && usage.own == 1 && usage.set_aside == 3 && usage.forgotten > 0,
		   "and is FULL after one more: 1 of its own, 3 set aside");
	ledger_free(&l);
}

/* units never seen start at 0 even after a million were forgotten */
static void
test_new_units_after_forgetting(void)
{
	BackfillLedger l;
	uint32_t	offset;
	LedgerUsage usage;
	int			at_zero = 0;

	ledger_init(&l, 16, 1024, TEST_BLOOM_BITS, test_alloc, test_release, NULL);
	(void) take_units(&l, 0, 0, 1, 1000000, 1, 4096);
	for (uint64_t u = 5000000; u < 5010000; u++)
		if (ledger_take(&l, 0, u, 4096, &offset, &usage) && offset == 0)
			at_zero++;
	/* the filter (8 Mbit, 3 bits a unit) mistakes about 3 % of new units for forgotten ones here */
	tap_ok(at_zero >= 9500, "after 1,000,000 forgotten units, %d of 10,000 new units start at offset 0", at_zero);
	ledger_free(&l);
}

/* units of their own sizes, and the note of what is covered: per unit, growing, gone when forgotten */
static void
test_sizes_and_cover(void)
{
	BackfillLedger l;
	uint32_t	offset = 0;
	LedgerUsage usage = {0};
	int			taken_small = 0;

	ledger_init(&l, 8, 8, TEST_BLOOM_BITS, test_alloc, test_release, NULL);
	tap_ok(ledger_covered(&l, 0, 7) == 0, "an empty ledger covers nothing");
	while (ledger_take(&l, 0, 7, 3, &offset, &usage))
		taken_small++;
	tap_ok(taken_small == 3 && ledger_take(&l, 0, 8, 4096, &offset, &usage) && offset == 0,
		   "a unit of size 3 is FULL after 3, its neighbour of size 4096 starts at 0");
	ledger_cover(&l, 0, 8, 5);
	ledger_cover(&l, 0, 8, 2);
	tap_ok(ledger_covered(&l, 0, 8) == 5 && ledger_covered(&l, 0, 7) == 0 && ledger_covered(&l, 1, 8) == 0,
		   "a unit's note grows only, and is its own");
	ledger_cover(&l, 0, 9, 5);
	tap_ok(ledger_covered(&l, 0, 9) == 0, "a unit not taken from is not noted");
	(void) take_units(&l, 0, 1000, 1, 64, 2, 4096);
	tap_ok(ledger_covered(&l, 0, 8) == 0, "once forgotten, a unit's note is gone");
	ledger_free(&l);

	ledger_init(&l, 8, 8, TEST_BLOOM_BITS, test_alloc, test_release, NULL);
	tap_ok(ledger_take(&l, 0, 20, 4096, &offset, &usage) && offset == 0, "a unit's first offset is 0");
	ledger_fill(&l, 0, 20, 4096);
	tap_ok(!ledger_take(&l, 0, 20, 4096, &offset, &usage) && usage.own == 4096,
		   "once filled, it gives no more offsets, and says every one was taken");
	ledger_fill(&l, 0, 21, 4096);
	tap_ok(ledger_take(&l, 0, 21, 4096, &offset, &usage) && offset == 0, "a unit not held is not filled");
	ledger_free(&l);
}

int
main(void)
{
	test_order_and_full();
	test_interleaved();
	test_random_loads();
	test_floor_creep();
	test_heavy_unit_kept();
	test_forgotten_unit();
	test_new_units_after_forgetting();
	test_sizes_and_cover();
	return tap_done();
}
