/*
 * test_deep_table.c — back-fill's record of deep units, one entry per unit:
 * a unit's entry costs no other unit, however many there are; the bound
 * refuses a new unit and changes nothing; lifetimes; and random histories
 * checked against a plain list
 *
 * Usage: test_deep_table.  Prints TAP.
 */
#include "tap.h"
#include "../../src/rules/deep_table.h"

#define HISTORY_UNITS	4000
#define HISTORY_MAX		3000

static DeepCell cells[1 << 14];

static void
test_units_alone(void)
{
	DeepTable	table;
	bool		alone = true;

	deep_table_init(&table, cells, 5000);
	tap_ok(table.ncells >= 10000 && table.ncells <= (uint32_t) (sizeof(cells) / sizeof(cells[0])),
		   "a table of 5,000 entries has %u cells", table.ncells);
	for (uint64_t i = 0; i < 5000; i++)
		alone &= deep_table_lower(&table, (uint32_t) (i % 3), 1000 + 2 * i, 0) == DEEP_LOWER_ADDED;
	tap_ok(alone && table.count == 5000, "5,000 deep units each get an entry of their own");
	for (uint64_t i = 0; i < 5000; i++)
		alone &= deep_table_low(&table, (uint32_t) (i % 3), 1000 + 2 * i) == 0 &&
			deep_table_low(&table, (uint32_t) (i % 3), 1001 + 2 * i) == DEEP_UNITS_NONE &&
			deep_table_low(&table, (uint32_t) ((i + 1) % 3), 1000 + 2 * i) == DEEP_UNITS_NONE;
	tap_ok(alone, "and no unit between them, nor of another slot, has one");
	tap_ok(deep_table_lower(&table, 0, 5, 0) == DEEP_LOWER_FULL && table.count == 5000 &&
		   deep_table_low(&table, 0, 5) == DEEP_UNITS_NONE, "one more unit past the bound: FULL, nothing changed");
	tap_ok(deep_table_check(&table, 0, 5, 0) == DEEP_LOWER_FULL, "deep_table_check says so beforehand");
	tap_ok(deep_table_lower(&table, 0, 1000, 0) == DEEP_LOWER_UNCHANGED &&
		   deep_table_lower(&table, 1, 1002, 7) == DEEP_LOWER_UNCHANGED,
		   "a unit recorded at or below: UNCHANGED, also when full");
}

static void
test_lifetimes(void)
{
	DeepTable	table;

	deep_table_init(&table, cells, 4);
	tap_ok(deep_table_lower(&table, 2, 42, 3000) == DEEP_LOWER_ADDED &&
		   deep_table_start_low(&table, 2, 42) == DEEP_UNITS_NONE,
		   "a unit added during a lifetime has no start low-water in it");
	tap_ok(deep_table_lower(&table, 2, 42, 2000) == DEEP_LOWER_LOWERED && deep_table_low(&table, 2, 42) == 2000,
		   "lowered");
	tap_ok(deep_table_lower(&table, 2, 42, 2500) == DEEP_LOWER_UNCHANGED && deep_table_low(&table, 2, 42) == 2000,
		   "never raised");
	deep_table_begin_lifetime(&table);
	tap_ok(deep_table_start_low(&table, 2, 42) == 2000, "a new lifetime starts below it");
	deep_table_lower(&table, 2, 42, 100);
	tap_ok(deep_table_start_low(&table, 2, 42) == 2000 && deep_table_low(&table, 2, 42) == 100,
		   "and keeps its start while the unit goes deeper");
}

/* random histories against a list: the table's low of every unit is the lowest lowered, until full */
static void
test_histories(void)
{
	static uint32_t expect[3][HISTORY_UNITS];
	DeepTable	table;
	uint32_t	distinct = 0;
	bool		same = true,
				listed = true;
	uint32_t	at = 0,
				slot,
				low,
				seen = 0;
	uint64_t	unit;

	tap_random_state = 20260601;
	deep_table_init(&table, cells, HISTORY_MAX);
	for (int s = 0; s < 3; s++)
		for (int u = 0; u < HISTORY_UNITS; u++)
			expect[s][u] = DEEP_UNITS_NONE;
	for (int i = 0; i < 20000; i++)
	{
		uint32_t	s = (uint32_t) (tap_random() % 3);
		uint32_t	u = (uint32_t) (tap_random() % HISTORY_UNITS);
		uint32_t	l = (uint32_t) (tap_random() % 65536);
		DeepLower	outcome = deep_table_lower(&table, s, (uint64_t) u * 7919, l);

		if (expect[s][u] == DEEP_UNITS_NONE)
		{
			same &= outcome == (distinct < HISTORY_MAX ? DEEP_LOWER_ADDED : DEEP_LOWER_FULL);
			if (distinct < HISTORY_MAX)
			{
				expect[s][u] = l;
				distinct++;
			}
		}
		else
		{
			same &= outcome == (l < expect[s][u] ? DEEP_LOWER_LOWERED : DEEP_LOWER_UNCHANGED);
			if (l < expect[s][u])
				expect[s][u] = l;
		}
	}
	for (int s = 0; s < 3; s++)
		for (int u = 0; u < HISTORY_UNITS; u++)
			same &= deep_table_low(&table, (uint32_t) s, (uint64_t) u * 7919) == expect[s][u];
	tap_ok(same && table.count == distinct && distinct == HISTORY_MAX,
		   "20,000 random lowerings of 12,000 units: every unit's low-water is its lowest, %u units, then FULL",
		   distinct);
	while (deep_table_next(&table, &at, &slot, &unit, &low))
	{
		seen++;
		listed &= unit % 7919 == 0 && expect[slot][unit / 7919] == low;
	}
	tap_ok(listed && seen == distinct, "deep_table_next lists every entry once (%u)", seen);
}

int
main(void)
{
	test_units_alone();
	test_lifetimes();
	test_histories();
	return tap_done();
}
