/*
 * deep_units.c — back-fill's record of the units it went deep into
 * (deep_units.h)
 */
#include "deep_units.h"

#include <string.h>

void
deep_units_clear(DeepUnits *deep)
{
	memset(deep, 0, sizeof(*deep));
}

bool
deep_units_valid(const DeepUnits *deep, unsigned nslots)
{
	if (deep->count > DEEP_UNITS_MAX || deep->reserved != 0 || nslots > DEEP_UNITS_MAX)
		return false;
	for (uint32_t i = 0; i < deep->count; i++)
		if (deep->ranges[i].first > deep->ranges[i].last || deep->ranges[i].slot >= nslots)
			return false;
	return true;
}

static bool
holds(const DeepRange *range, unsigned slot, uint64_t first, uint64_t last)
{
	return range->slot == slot && range->first <= first && last <= range->last;
}

uint32_t
deep_units_low(const DeepUnits *deep, unsigned slot, uint64_t unit)
{
	uint32_t	low = DEEP_UNITS_NONE;

	for (uint32_t i = 0; i < deep->count && i < DEEP_UNITS_MAX; i++)
		if (holds(&deep->ranges[i], slot, unit, unit) && deep->ranges[i].low < low)
			low = deep->ranges[i].low;
	return low;
}

/* the units strictly between two ranges; 0 when they touch or overlap */
static uint64_t
gap_between(const DeepRange *a, const DeepRange *b)
{
	if (a->last < b->first)
		return b->first - a->last - 1;
	if (b->last < a->first)
		return a->first - b->last - 1;
	return 0;
}

/*
 * Merges the closest two ranges of one slot among `count`, one more than
 * the record holds: slots are below DEEP_UNITS_MAX, so two of them share
 * one.
 */
static void
merge_closest(DeepRange *ranges, uint32_t count)
{
	uint32_t	keep = 0,
				drop = 0;
	uint64_t	best = UINT64_MAX;
	bool		found = false;

	for (uint32_t i = 0; i < count; i++)
		for (uint32_t j = i + 1; j < count; j++)
			if (ranges[i].slot == ranges[j].slot && (!found || gap_between(&ranges[i], &ranges[j]) < best))
			{
				best = gap_between(&ranges[i], &ranges[j]);
				keep = i;
				drop = j;
				found = true;
			}
	if (ranges[drop].first < ranges[keep].first)
		ranges[keep].first = ranges[drop].first;
	if (ranges[drop].last > ranges[keep].last)
		ranges[keep].last = ranges[drop].last;
	if (ranges[drop].low < ranges[keep].low)
		ranges[keep].low = ranges[drop].low;
	ranges[drop] = ranges[count - 1];
}

bool
deep_units_lower(DeepUnits *deep, unsigned slot, uint64_t first, uint64_t last, uint32_t low)
{
	DeepRange	ranges[DEEP_UNITS_MAX + 1];
	uint32_t	count = 0;

	for (uint32_t i = 0; i < deep->count; i++)
		if (holds(&deep->ranges[i], slot, first, last) && deep->ranges[i].low <= low)
			return false;
	/* the new range implies those it holds with a low at or above its own */
	for (uint32_t i = 0; i < deep->count; i++)
	{
		const DeepRange *range = &deep->ranges[i];

		if (!(range->slot == slot && first <= range->first && range->last <= last && range->low >= low))
			ranges[count++] = *range;
	}
	ranges[count++] = (DeepRange) {first, last, slot, low};
	if (count > DEEP_UNITS_MAX)
		merge_closest(ranges, count--);
	memcpy(deep->ranges, ranges, sizeof(DeepRange) * count);
	memset(&deep->ranges[count], 0, sizeof(DeepRange) * (DEEP_UNITS_MAX - count));
	deep->count = count;
	return true;
}

bool
deep_units_merge(DeepUnits *into, const DeepUnits *from)
{
	bool		changed = false;

	for (uint32_t i = 0; i < from->count && i < DEEP_UNITS_MAX; i++)
		changed |= deep_units_lower(into, from->ranges[i].slot, from->ranges[i].first, from->ranges[i].last,
									from->ranges[i].low);
	return changed;
}

void
deep_units_drop_implied(DeepUnits *deep, const uint32_t *wide, unsigned nslots)
{
	uint32_t	count = 0;

	for (uint32_t i = 0; i < deep->count; i++)
		if (deep->ranges[i].slot >= nslots || deep->ranges[i].low < wide[deep->ranges[i].slot])
			deep->ranges[count++] = deep->ranges[i];
	memset(&deep->ranges[count], 0, sizeof(DeepRange) * (DEEP_UNITS_MAX - count));
	deep->count = count;
}

bool
deep_units_imply(const DeepUnits *deep, const uint32_t *wide, const DeepUnits *other)
{
	for (uint32_t i = 0; i < other->count && i < DEEP_UNITS_MAX; i++)
	{
		const DeepRange *range = &other->ranges[i];
		bool		implied = wide[range->slot] <= range->low;

		for (uint32_t j = 0; j < deep->count && !implied; j++)
			implied = holds(&deep->ranges[j], range->slot, range->first, range->last)
				&& deep->ranges[j].low <= range->low;
		if (!implied)
			return false;
	}
	return true;
}
