/*
 * deep_table.c — back-fill's record of deep units, one entry per unit
 * (deep_table.h)
 */
#include "deep_table.h"

#include <stdbool.h>
#include <string.h>

uint32_t
deep_table_cells(uint32_t max)
{
	uint32_t	cells = 16;

	while (cells < 2 * (uint64_t) max)
		cells *= 2;
	return cells;
}

void
deep_table_init(DeepTable *table, DeepCell *cells, uint32_t max)
{
	table->max = max;
	table->count = 0;
	table->ncells = deep_table_cells(max);
	table->reserved = 0;
	table->cells = cells;
	memset(cells, 0, sizeof(DeepCell) * table->ncells);
}

/* the first cell to probe for (slot, unit): consecutive units spread over the table */
static uint32_t
home_of(const DeepTable *table, uint32_t slot, uint64_t unit)
{
	uint64_t	x = (unit ^ ((uint64_t) slot << 56)) * UINT64_C(0x9E3779B97F4A7C15);

	return (uint32_t) (x >> 32) & (table->ncells - 1);
}

/* the unit's cell, or the empty cell where it would go (the table is never full: ncells >= 2 max) */
static DeepCell *
find(const DeepTable *table, uint32_t slot, uint64_t unit)
{
	uint32_t	at = home_of(table, slot, unit);

	for (;;)
	{
		DeepCell   *cell = &table->cells[at];

		if (cell->slot == 0 || (cell->slot == slot + 1 && cell->unit == unit))
			return cell;
		at = (at + 1) & (table->ncells - 1);
	}
}

uint32_t
deep_table_low(const DeepTable *table, uint32_t slot, uint64_t unit)
{
	const DeepCell *cell = find(table, slot, unit);

	return cell->slot != 0 ? cell->low : DEEP_UNITS_NONE;
}

uint32_t
deep_table_start_low(const DeepTable *table, uint32_t slot, uint64_t unit)
{
	const DeepCell *cell = find(table, slot, unit);

	return cell->slot != 0 ? cell->start_low : DEEP_UNITS_NONE;
}

DeepLower
deep_table_check(const DeepTable *table, uint32_t slot, uint64_t unit, uint32_t low)
{
	const DeepCell *cell = find(table, slot, unit);

	if (cell->slot != 0)
		return cell->low <= low ? DEEP_LOWER_UNCHANGED : DEEP_LOWER_LOWERED;
	return table->count >= table->max ? DEEP_LOWER_FULL : DEEP_LOWER_ADDED;
}

DeepLower
deep_table_lower(DeepTable *table, uint32_t slot, uint64_t unit, uint32_t low)
{
	DeepCell   *cell = find(table, slot, unit);
	DeepLower	outcome = deep_table_check(table, slot, unit, low);

	if (outcome == DEEP_LOWER_LOWERED)
		cell->low = low;
	else if (outcome == DEEP_LOWER_ADDED)
	{
		*cell = (DeepCell) {unit, slot + 1, low, DEEP_UNITS_NONE, 0};
		table->count++;
	}
	return outcome;
}

void
deep_table_begin_lifetime(DeepTable *table)
{
	for (uint32_t i = 0; i < table->ncells; i++)
		if (table->cells[i].slot != 0)
			table->cells[i].start_low = table->cells[i].low;
}

bool
deep_table_next(const DeepTable *table, uint32_t *at, uint32_t *slot, uint64_t *unit, uint32_t *low)
{
	for (; *at < table->ncells; (*at)++)
	{
		const DeepCell *cell = &table->cells[*at];

		if (cell->slot != 0)
		{
			*slot = cell->slot - 1;
			*unit = cell->unit;
			*low = cell->low;
			(*at)++;
			return true;
		}
	}
	return false;
}
