/*
 * deep_units.h — back-fill's record of the units it went deep into
 *
 * Back-filled sequences are counted down from the top of each unit's pool
 * (backfill.c).  Across restarts a low-water per counter slot bounds them
 * in every unit, so a server lifetime that back-fills d IDs into its
 * deepest unit costs every unit of the slot about 2d sequences.  To keep
 * one deep unit (a full unit of rows that share a timestamp) from costing
 * every unit its whole pool, a lifetime may lower that slot-wide low-water
 * only a little; a unit that goes deeper is recorded here, on its own, with
 * the lowest sequence given in it, and costs only itself.
 *
 * The record is bounded: DEEP_UNITS_MAX ranges of units in all.  One more
 * merges the two ranges of one slot that lie closest together, which then
 * share the lower of their low-waters: the units between them lose that
 * much of their pools, a range bounded by the deep units themselves, never
 * every unit.
 *
 * Pure C, no PostgreSQL headers: the generators keep it in shared memory,
 * the state file and the WAL record carry it.
 */
#ifndef FLAKEID_FORMAT_DEEP_UNITS_H
#define FLAKEID_FORMAT_DEEP_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#define DEEP_UNITS_MAX		32
#define DEEP_UNITS_NONE		UINT32_MAX	/* deep_units_low: no range holds the unit */

/* every back-filled sequence of `slot` in units first..last is at or above `low` */
typedef struct DeepRange
{
	uint64_t	first;
	uint64_t	last;
	uint32_t	slot;
	uint32_t	low;
} DeepRange;

typedef struct DeepUnits
{
	uint32_t	count;
	uint32_t	reserved;		/* 0 */
	DeepRange	ranges[DEEP_UNITS_MAX];
} DeepUnits;

extern void deep_units_clear(DeepUnits *deep);

/* whether a record read from disk or the WAL is one: its count, ranges, and slots below nslots */
extern bool deep_units_valid(const DeepUnits *deep, unsigned nslots);

/* the lowest low-water of the ranges holding (slot, unit); DEEP_UNITS_NONE when none does */
extern uint32_t deep_units_low(const DeepUnits *deep, unsigned slot, uint64_t unit);

/*
 * Records that the units first..last of `slot` go down to `low`: afterwards
 * deep_units_low of each is at or below it, and no unit's is higher than it
 * was.  True when anything changed.  Slots are below DEEP_UNITS_MAX (a
 * record read in is checked by deep_units_valid), so one range more than
 * the record holds always has a range of its slot to merge with.
 */
extern bool deep_units_lower(DeepUnits *deep, unsigned slot, uint64_t first, uint64_t last, uint32_t low);

/* every range of `from` into `into`, as deep_units_lower; true when `into` changed */
extern bool deep_units_merge(DeepUnits *into, const DeepUnits *from);

/*
 * Drops the ranges that a slot-wide low-water already implies (their low at
 * or above wide[slot]); wide has nslots entries.
 */
extern void deep_units_drop_implied(DeepUnits *deep, const uint32_t *wide, unsigned nslots);

/*
 * Whether every range of `other` is implied by `deep` with the slot-wide
 * low-waters `wide`: a range of the same slot holding all its units with a
 * low at or below its low, or a wide low-water at or below it.
 */
extern bool deep_units_imply(const DeepUnits *deep, const uint32_t *wide, const DeepUnits *other);

#endif
