/*
 * deep_table.h — back-fill's record of deep units, one entry per unit
 *
 * A unit back-filled deeper than its slot's low-water allows (backfill.c)
 * gets an entry of its own here: the lowest sequence ever given in it.  An
 * entry holds exactly one (slot, unit), so a deep unit costs that unit and
 * no other, however many there are: the record never merges units (1.3's
 * fixed record of 32 ranges did, deep_units.h, which is still read).  It is
 * bounded by `max` entries, fixed when the table is set up
 * (flakeid.backfill_deep_units_max): past it a new unit is refused, never
 * merged.  An entry is never removed.
 *
 * Each entry also keeps the low-water it had when the current back-fill
 * lifetime began (start_low), which the ledger counts down from; an entry
 * added during the lifetime has none (DEEP_UNITS_NONE) until the next.
 *
 * An open-addressing table in memory the caller gives (shared memory in
 * the server), at most half full.  Pure C, no PostgreSQL headers, no
 * locking: the caller serialises writers and readers.
 */
#ifndef FLAKEID_FORMAT_DEEP_TABLE_H
#define FLAKEID_FORMAT_DEEP_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "deep_units.h"

#define DEEP_TABLE_MAX		(UINT32_C(1) << 24)	/* the largest bound a table takes */

typedef struct DeepCell
{
	uint64_t	unit;
	uint32_t	slot;			/* the counter slot + 1; 0: an empty cell */
	uint32_t	low;			/* every back-filled sequence of the unit is at or above it */
	uint32_t	start_low;		/* low as the lifetime began; DEEP_UNITS_NONE: added since */
	uint32_t	reserved;
} DeepCell;

typedef struct DeepTable
{
	uint32_t	max;			/* the bound on entries */
	uint32_t	count;
	uint32_t	ncells;			/* a power of two, at least twice max */
	uint32_t	reserved;
	DeepCell   *cells;
} DeepTable;

typedef enum DeepLower
{
	DEEP_LOWER_UNCHANGED,		/* the unit's entry is at or below it already */
	DEEP_LOWER_LOWERED,			/* the unit's entry was lowered */
	DEEP_LOWER_ADDED,			/* a new entry */
	DEEP_LOWER_FULL,			/* a new unit, and the table holds max entries: nothing changed */
	DEEP_LOWER_LOST				/* (deep_record_replay) the record is refused: it is named lost */
} DeepLower;

/* the cells a table of `max` entries needs (max from 1 to DEEP_TABLE_MAX) */
extern uint32_t deep_table_cells(uint32_t max);

/* sets up an empty table in `cells` (deep_table_cells(max) of them) */
extern void deep_table_init(DeepTable *table, DeepCell *cells, uint32_t max);

/* the unit's low-water, or DEEP_UNITS_NONE when it has no entry */
extern uint32_t deep_table_low(const DeepTable *table, uint32_t slot, uint64_t unit);

/* the unit's low-water as the lifetime began, or DEEP_UNITS_NONE */
extern uint32_t deep_table_start_low(const DeepTable *table, uint32_t slot, uint64_t unit);

/* whether lowering (slot, unit) to `low` would change the table, and how (nothing is changed) */
extern DeepLower deep_table_check(const DeepTable *table, uint32_t slot, uint64_t unit, uint32_t low);

/* lowers (slot, unit) to `low`, adding its entry if it has none and max allows */
extern DeepLower deep_table_lower(DeepTable *table, uint32_t slot, uint64_t unit, uint32_t low);

/* a new lifetime: every entry's start_low becomes its low */
extern void deep_table_begin_lifetime(DeepTable *table);

/*
 * The entries in cell order: *at is where to go on (0 to begin); false at
 * the end.
 */
extern bool deep_table_next(const DeepTable *table, uint32_t *at, uint32_t *slot, uint64_t *unit, uint32_t *low);

#endif
