/*
 * ledger.c — back-fill offsets, distinct per unit (ledger.h)
 */
#include "ledger.h"

#include <string.h>

static uint64_t
cell_hash(unsigned slot, uint64_t unit)
{
	uint64_t	x = unit ^ ((uint64_t) slot << 58) ^ UINT64_C(0x9e3779b97f4a7c15);

	/* splitmix64's finaliser: consecutive units land far apart */
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* The cell holding (slot, unit), or the empty cell where it would go. */
static LedgerEntry *
find_cell(LedgerEntry *cells, uint32_t capacity, unsigned slot, uint64_t unit)
{
	uint32_t	mask = capacity - 1;
	uint32_t	i = (uint32_t) cell_hash(slot, unit) & mask;

	for (;;)
	{
		LedgerEntry *cell = &cells[i];

		if (cell->slot_plus_one == 0 || (cell->slot_plus_one == slot + 1 && cell->unit == unit))
			return cell;
		i = (i + 1) & mask;
	}
}

/* the filter's three bits of a unit, from the two halves of its hash */
static uint32_t
bloom_bit(uint32_t bloom_bits, uint64_t hash, int i)
{
	return (uint32_t) ((hash >> 32) + (uint64_t) i * (uint32_t) hash) & (bloom_bits - 1);
}

/*
 * Whether (slot, unit) may have been forgotten: all its bits were set.
 * With `set`, it sets them, which records the unit as forgotten.
 */
static bool
bloom_visit(uint64_t *bloom, uint32_t bloom_bits, unsigned slot, uint64_t unit, bool set)
{
	uint64_t	hash = cell_hash(slot, unit);
	bool		all_set = true;

	for (int i = 0; i < 3; i++)
	{
		uint32_t	bit = bloom_bit(bloom_bits, hash, i);
		uint64_t	mask = UINT64_C(1) << (bit % 64);

		all_set &= (bloom[bit / 64] & mask) != 0;
		if (set)
			bloom[bit / 64] |= mask;
	}
	return all_set;
}

static bool
maybe_forgotten(const BackfillLedger *ledger, unsigned slot, uint64_t unit)
{
	return ledger->bloom != NULL && bloom_visit(ledger->bloom, ledger->bloom_bits, slot, unit, false);
}

/* the units a table of `capacity` cells holds before it makes room */
static uint32_t
table_limit(uint32_t capacity)
{
	return capacity / 4 * 3;
}

static bool
kept(const BackfillLedger *ledger, const LedgerEntry *cell, uint32_t spare)
{
	return cell->next > ledger->floor[cell->slot_plus_one - 1] + (uint64_t) spare;
}

/*
 * Moves the entries into a new table of `capacity` cells: all of them with
 * keep_all, else those with more than `spare` offsets above their slot's
 * floor.  A dropped entry raises its slot's floor to its next offset.  It
 * allocates before it changes anything, so an allocator that raises leaves
 * the ledger whole.
 */
static void
rebuild(BackfillLedger *ledger, uint32_t capacity, bool keep_all, uint32_t spare)
{
	LedgerEntry *cells;
	uint32_t	floor[LEDGER_MAX_SLOTS];
	uint32_t	used = 0;

	/* the filter first: an empty one changes nothing if the table's allocation raises */
	if (!keep_all && ledger->bloom == NULL)
	{
		ledger->bloom = ledger->alloc(ledger->alloc_arg, ledger->bloom_bits / 8);
		memset(ledger->bloom, 0, ledger->bloom_bits / 8);
	}
	cells = ledger->alloc(ledger->alloc_arg, sizeof(LedgerEntry) * (size_t) capacity);
	memset(cells, 0, sizeof(LedgerEntry) * (size_t) capacity);
	memcpy(floor, ledger->floor, sizeof(floor));
	for (uint32_t i = 0; i < ledger->capacity; i++)
	{
		const LedgerEntry *cell = &ledger->cells[i];
		unsigned	slot;

		if (cell->slot_plus_one == 0)
			continue;
		slot = cell->slot_plus_one - 1;
		if (keep_all || kept(ledger, cell, spare))
		{
			*find_cell(cells, capacity, slot, cell->unit) = *cell;
			used++;
		}
		else
		{
			if (cell->next > floor[slot])
				floor[slot] = cell->next;
			(void) bloom_visit(ledger->bloom, ledger->bloom_bits, slot, cell->unit, true);
			ledger->forgotten[slot]++;
		}
	}
	memcpy(ledger->floor, floor, sizeof(floor));
	if (ledger->cells)
		ledger->release(ledger->alloc_arg, ledger->cells);
	ledger->cells = cells;
	ledger->capacity = capacity;
	ledger->used = used;
}

/*
 * Room for one more unit: a table twice the size while it may grow, then
 * forgetting the units with the fewest offsets above their slot's floor,
 * the smallest margin `spare` (1, 2, 4, ...) that frees half the table.
 */
static void
make_room(BackfillLedger *ledger)
{
	uint32_t	spare = 1;

	if (ledger->capacity < ledger->max_capacity)
	{
		rebuild(ledger, ledger->capacity * 2, true, 0);
		return;
	}
	for (;; spare *= 2)
	{
		uint32_t	keep = 0;

		for (uint32_t i = 0; i < ledger->capacity; i++)
			if (ledger->cells[i].slot_plus_one != 0 && kept(ledger, &ledger->cells[i], spare))
				keep++;
		/* an offset is below 2^32, so spare 2^31 keeps nothing and ends the loop */
		if (keep <= table_limit(ledger->capacity) / 2 || spare >= UINT32_C(1) << 31)
			break;
	}
	rebuild(ledger, ledger->capacity, false, spare);
}

void
ledger_init(BackfillLedger *ledger, uint32_t min_capacity, uint32_t max_capacity, uint32_t bloom_bits,
			void *(*alloc) (void *arg, size_t size), void (*release) (void *arg, void *ptr), void *alloc_arg)
{
	memset(ledger, 0, sizeof(*ledger));
	ledger->min_capacity = min_capacity;
	ledger->max_capacity = max_capacity;
	ledger->bloom_bits = bloom_bits;
	ledger->alloc = alloc;
	ledger->release = release;
	ledger->alloc_arg = alloc_arg;
}

void
ledger_free(BackfillLedger *ledger)
{
	if (ledger->cells)
		ledger->release(ledger->alloc_arg, ledger->cells);
	if (ledger->bloom)
		ledger->release(ledger->alloc_arg, ledger->bloom);
	ledger->cells = NULL;
	ledger->bloom = NULL;
	ledger->capacity = 0;
	ledger->used = 0;
}

bool
ledger_take(BackfillLedger *ledger, unsigned slot, uint64_t unit, uint32_t size,
			uint32_t *offset, LedgerUsage *usage)
{
	LedgerEntry *cell;

	if (ledger->capacity == 0)
		rebuild(ledger, ledger->min_capacity, true, 0);
	cell = find_cell(ledger->cells, ledger->capacity, slot, unit);
	if (cell->slot_plus_one == 0)
	{
		uint32_t	start;

		if (ledger->used + 1 > table_limit(ledger->capacity))
		{
			make_room(ledger);
			cell = find_cell(ledger->cells, ledger->capacity, slot, unit);
		}
		/* after make_room: it may have forgotten units and raised the floor */
		start = maybe_forgotten(ledger, slot, unit) ? ledger->floor[slot] : 0;
		if (start >= size)
		{
			*usage = (LedgerUsage) {0, start, ledger->forgotten[slot]};
			return false;
		}
		*cell = (LedgerEntry) {unit, slot + 1, start, start, 0};	/* nothing covered */
		ledger->used++;
	}
	else if (cell->next >= size)
	{
		*usage = (LedgerUsage) {cell->next - cell->start, cell->start, ledger->forgotten[slot]};
		return false;
	}
	*offset = cell->next++;
	return true;
}

uint32_t
ledger_covered(const BackfillLedger *ledger, unsigned slot, uint64_t unit)
{
	const LedgerEntry *cell;

	if (ledger->capacity == 0)
		return 0;
	cell = find_cell(ledger->cells, ledger->capacity, slot, unit);
	return cell->slot_plus_one == 0 ? 0 : cell->covered;
}

/* the cell of a unit the ledger holds, NULL for one it does not */
static LedgerEntry *
held_cell(BackfillLedger *ledger, unsigned slot, uint64_t unit)
{
	LedgerEntry *cell;

	if (ledger->capacity == 0)
		return NULL;
	cell = find_cell(ledger->cells, ledger->capacity, slot, unit);
	return cell->slot_plus_one != 0 ? cell : NULL;
}

void
ledger_fill(BackfillLedger *ledger, unsigned slot, uint64_t unit, uint32_t size)
{
	LedgerEntry *cell = held_cell(ledger, slot, unit);

	if (cell != NULL && size > cell->next)
		cell->next = size;
}

void
ledger_cover(BackfillLedger *ledger, unsigned slot, uint64_t unit, uint32_t covered)
{
	LedgerEntry *cell = held_cell(ledger, slot, unit);

	if (cell != NULL && covered > cell->covered)
		cell->covered = covered;
}
