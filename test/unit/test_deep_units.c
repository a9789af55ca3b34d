/*
 * test_deep_units.c — back-fill's record of deep units: it never forgets
 * what a unit went down to, stays bounded, and costs only the units between
 * the ranges it merges
 *
 * Usage: test_deep_units.  Prints TAP.
 */
#include "tap.h"
#include "../../src/rules/deep_units.h"

#define SLOTS		18
#define UNITS		256			/* the universe of the random histories */

/* a deep unit costs itself only: its neighbours and other slots keep their pools */
static void
test_one_unit(void)
{
	DeepUnits	deep;

	deep_units_clear(&deep);
	tap_ok(deep_units_low(&deep, 3, 100) == DEEP_UNITS_NONE, "an empty record holds no unit");
	tap_ok(deep_units_lower(&deep, 3, 100, 100, 0), "a full unit is recorded");
	tap_ok(deep_units_low(&deep, 3, 100) == 0, "with its low-water");
	tap_ok(deep_units_low(&deep, 3, 99) == DEEP_UNITS_NONE && deep_units_low(&deep, 3, 101) == DEEP_UNITS_NONE
		   && deep_units_low(&deep, 4, 100) == DEEP_UNITS_NONE, "and nothing else");
	tap_ok(!deep_units_lower(&deep, 3, 100, 100, 7), "a higher low-water of it changes nothing");
	tap_ok(deep_units_low(&deep, 3, 100) == 0 && deep.count == 1, "the record stays as it was");
	tap_ok(deep_units_lower(&deep, 3, 90, 110, 0) && deep.count == 1,
		   "a range holding it with the same low-water replaces it");
}

/* one range more than the record holds merges the two closest of a slot */
static void
test_bounded(void)
{
	DeepUnits	deep;
	bool		all_kept = true;

	deep_units_clear(&deep);
	for (uint64_t i = 0; i < DEEP_UNITS_MAX; i++)
		deep_units_lower(&deep, 0, i * 1000, i * 1000, (uint32_t) (100 + i));
	tap_ok(deep.count == DEEP_UNITS_MAX, "%d ranges fill the record", DEEP_UNITS_MAX);
	deep_units_lower(&deep, 0, 5010, 5010, 50);
	tap_ok(deep.count == DEEP_UNITS_MAX, "one more keeps it at %d", DEEP_UNITS_MAX);
	tap_ok(deep_units_low(&deep, 0, 5000) == 50 && deep_units_low(&deep, 0, 5010) == 50,
		   "the closest two merged, with the lower low-water");
	tap_ok(deep_units_low(&deep, 0, 5005) == 50, "the units between them share it");
	tap_ok(deep_units_low(&deep, 0, 4999) == DEEP_UNITS_NONE && deep_units_low(&deep, 0, 5011) == DEEP_UNITS_NONE,
		   "the units beside them do not");
	for (uint64_t i = 0; i < DEEP_UNITS_MAX; i++)
		all_kept &= deep_units_low(&deep, 0, i * 1000) <= 100 + i;
	tap_ok(all_kept, "every unit recorded before keeps its low-water or a lower one");
	tap_ok(deep_units_valid(&deep, SLOTS), "and the record is valid");
}

static void
test_valid_and_imply(void)
{
	DeepUnits	deep,
				other;
	uint32_t	wide[SLOTS];

	for (int s = 0; s < SLOTS; s++)
		wide[s] = 1000;
	deep_units_clear(&deep);
	deep_units_lower(&deep, 2, 10, 20, 5);
	tap_ok(deep_units_valid(&deep, SLOTS), "a record of slot 2 is valid with %d slots", SLOTS);
	tap_ok(!deep_units_valid(&deep, 2), "not with 2");
	deep.ranges[0].first = 21;
	tap_ok(!deep_units_valid(&deep, SLOTS), "a range ending before it begins is not valid");
	deep.ranges[0].first = 10;
	deep.count = DEEP_UNITS_MAX + 1;
	tap_ok(!deep_units_valid(&deep, SLOTS), "a count past the record is not valid");
	deep.count = 1;
	deep.reserved = 1;
	tap_ok(!deep_units_valid(&deep, SLOTS), "a reserved word that is not 0 is not valid");
	deep.reserved = 0;

	deep_units_clear(&other);
	deep_units_lower(&other, 2, 12, 15, 6);
	tap_ok(deep_units_imply(&deep, wide, &other), "a range within one with a lower low-water is implied");
	deep_units_lower(&other, 2, 12, 25, 6);
	tap_ok(!deep_units_imply(&deep, wide, &other), "one reaching past it is not");
	wide[2] = 6;
	tap_ok(deep_units_imply(&deep, wide, &other), "a slot-wide low-water at or below it implies it");
	deep_units_drop_implied(&deep, wide, SLOTS);
	tap_ok(deep.count == 1, "a range below the slot-wide low-water stays");
	wide[2] = 5;
	deep_units_drop_implied(&deep, wide, SLOTS);
	tap_ok(deep.count == 0, "one at it is dropped");
}

static uint64_t rng_state;

static uint64_t
next_random(void)
{
	/* xorshift64*: seeded, so a failure is replayed by its seed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

/*
 * Random histories against a model that remembers every unit's low-water:
 * the record never says more of a unit than the model (never forgets a
 * low), never raises a unit, and stays within its bound; merging two
 * records keeps both.
 */
static void
test_random_histories(uint64_t seed, int histories, int steps)
{
	static uint32_t model[SLOTS][UNITS];
	static uint32_t seen[SLOTS][UNITS];
	long		forgotten = 0,
				raised = 0,
				over = 0,
				merge_lost = 0,
				merged_units = 0;

	rng_state = seed;
	for (int h = 0; h < histories; h++)
	{
		DeepUnits	deep,
					copy;
		unsigned	slots = 1 + (unsigned) (next_random() % 4);

		deep_units_clear(&deep);
		for (unsigned s = 0; s < SLOTS; s++)
			for (unsigned u = 0; u < UNITS; u++)
				model[s][u] = seen[s][u] = DEEP_UNITS_NONE;
		for (int step = 0; step < steps; step++)
		{
			unsigned	slot = (unsigned) (next_random() % slots);
			uint64_t	first = next_random() % UNITS;
			uint64_t	last = first + (next_random() % 4 == 0 ? next_random() % 8 : 0);
			uint32_t	low = (uint32_t) (next_random() % 4096);

			if (last >= UNITS)
				last = UNITS - 1;
			deep_units_lower(&deep, slot, first, last, low);
			for (uint64_t u = first; u <= last; u++)
				if (low < model[slot][u])
					model[slot][u] = low;
			over += deep.count > DEEP_UNITS_MAX || !deep_units_valid(&deep, SLOTS);
			if (step % 10 != 9)
				continue;		/* every unit checked each 10 steps: cheap enough under valgrind */
			for (unsigned s = 0; s < slots; s++)
				for (unsigned u = 0; u < UNITS; u++)
				{
					uint32_t	now = deep_units_low(&deep, s, u);

					forgotten += now > model[s][u];
					raised += now > seen[s][u];
					seen[s][u] = now;
				}
		}
		/* a second record merged into a copy: the copy keeps both */
		copy = deep;
		{
			DeepUnits	second;

			deep_units_clear(&second);
			for (int i = 0; i < DEEP_UNITS_MAX; i++)
				deep_units_lower(&second, (unsigned) (next_random() % slots), next_random() % UNITS,
								 next_random() % UNITS | UNITS, (uint32_t) (next_random() % 4096));
			deep_units_merge(&copy, &second);
			for (unsigned s = 0; s < slots; s++)
				for (unsigned u = 0; u < 2 * UNITS; u++)
				{
					uint32_t	a = deep_units_low(&deep, s, u),
								b = deep_units_low(&second, s, u),
								m = deep_units_low(&copy, s, u);

					merge_lost += m > a || m > b;
					merged_units += m != DEEP_UNITS_NONE;
				}
		}
	}
	tap_ok(forgotten == 0, "%d random histories of %d steps (seed %llu): no unit's low-water forgotten (%ld)",
		   histories, steps, (unsigned long long) seed, forgotten);
	tap_ok(raised == 0, "no unit's low-water raised by a later step (%ld)", raised);
	tap_ok(over == 0, "the record stays valid and within %d ranges (%ld)", DEEP_UNITS_MAX, over);
	tap_ok(merge_lost == 0 && merged_units > 0, "a merge keeps both records' low-waters (%ld lost over %ld units)",
		   merge_lost, merged_units);
}

int
main(void)
{
	const char *seed_text = getenv("FLAKEID_SEED");
	uint64_t	seed = seed_text ? strtoull(seed_text, NULL, 10) : 20261125;

	test_one_unit();
	test_bounded();
	test_valid_and_imply();
	test_random_histories(seed, 100, 300);
	return tap_done();
}
