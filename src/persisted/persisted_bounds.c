/*
 * persisted_bounds.c — the structures the codec's entries fill (persisted.h):
 * emptied, and built one entry at a time, each builder refusing what the
 * encoder could not write (a bad slot name, a second entry for one slot, a
 * full table), so that what is built is what persisted_entries.c encodes
 */
#include "persisted_wire.h"

void
persisted_bounds_empty(PersistedBounds *bounds)
{
	memset(bounds, 0, sizeof(*bounds));
}

void
persisted_state_empty(PersistedState *state)
{
	memset(state, 0, sizeof(*state));
	state->snowflake_epoch_ms = -1;
}

bool
persisted_name_ok(const char *name, size_t length)
{
	if (length == 0 || length >= PERSISTED_NAME_MAX)
		return false;
	for (size_t i = 0; i < length; i++)
		if (name[i] < 0x20 || name[i] > 0x7E)
			return false;
	return true;
}

static bool
copy_name(char *to, const char *name)
{
	size_t		length = 0;

	while (length < PERSISTED_NAME_MAX && name[length] != '\0')
		length++;
	if (!persisted_name_ok(name, length))
		return false;
	memcpy(to, name, length);
	to[length] = '\0';
	return true;
}

bool
persisted_add_low(PersistedBounds *bounds, const char *slot, uint32_t low)
{
	for (uint32_t i = 0; i < bounds->nlows; i++)
		if (strcmp(bounds->lows[i].slot, slot) == 0)
			return false;		/* one per slot */
	if (bounds->nlows >= PERSISTED_SLOTS_MAX || !copy_name(bounds->lows[bounds->nlows].slot, slot))
		return false;
	bounds->lows[bounds->nlows++].low = low;
	return true;
}

bool
persisted_add_deep(PersistedBounds *bounds, const char *slot, uint64_t first, uint64_t last, uint32_t low)
{
	PersistedDeep *deep = &bounds->deep[bounds->ndeep];

	if (bounds->ndeep >= DEEP_UNITS_MAX || first > last || !copy_name(deep->slot, slot))
		return false;
	deep->first = first;
	deep->last = last;
	deep->low = low;
	bounds->ndeep++;
	return true;
}

bool
persisted_add_unit(PersistedHolding *holding, const char *slot, uint64_t unit)
{
	for (uint32_t i = 0; i < holding->nunits; i++)
		if (strcmp(holding->units[i].slot, slot) == 0)
			return false;
	if (holding->nunits >= PERSISTED_SLOTS_MAX || !copy_name(holding->units[holding->nunits].slot, slot))
		return false;
	holding->units[holding->nunits++].unit = unit;
	return true;
}

bool
persisted_generator_marks_possible(const PersistedBounds *bounds)
{
	for (uint32_t i = 0; i < bounds->ngenerator_marks; i++)
		if (bounds->generator_marks[i].mark > bounds->marks[0])
			return false;
	return true;
}

bool
persisted_add_generator_mark(PersistedBounds *bounds, const char *generator, int64_t mark)
{
	for (uint32_t i = 0; i < bounds->ngenerator_marks; i++)
		if (strcmp(bounds->generator_marks[i].generator, generator) == 0)
			return false;		/* one per generator */
	if (bounds->ngenerator_marks >= PERSISTED_GENERATOR_MARKS ||
		!copy_name(bounds->generator_marks[bounds->ngenerator_marks].generator, generator))
		return false;
	bounds->generator_marks[bounds->ngenerator_marks++].mark = mark;
	return true;
}

bool
persisted_add_ahead(PersistedBounds *bounds, const char *slot, const UnitRuns *runs)
{
	PersistedAhead *ahead = &bounds->ahead[bounds->nahead];

	for (uint32_t i = 0; i < bounds->nahead; i++)
		if (strcmp(bounds->ahead[i].slot, slot) == 0)
			return false;		/* one per slot */
	if (bounds->nahead >= PERSISTED_AHEAD_SLOTS || runs->count == 0 || !unit_runs_valid(runs) ||
		!copy_name(ahead->slot, slot))
		return false;
	ahead->runs = *runs;
	ahead->runs.reserved = 0;
	bounds->nahead++;
	return true;
}
