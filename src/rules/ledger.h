/*
 * ledger.h — a record of the offsets given to back-filled IDs
 *
 * A back-filled ID (`*_new_at`) takes its time from the caller, so many of
 * them can share one unit, and nothing but the sequence tells them apart.
 * The ledger makes the offsets it gives one (generator slot, unit)
 * distinct (the server keeps one per partition of its units, in shared
 * memory): each unit counts its own offsets 0, 1, 2, ... into the pool,
 * and once every offset is taken the ledger says FULL instead of wrapping.
 *
 * A bulk load can touch millions of units, so the ledger is bounded.  When
 * it reaches its largest table it forgets the units that took the fewest
 * offsets, raises the slot's floor past every offset they took, and adds
 * them to a Bloom filter.  A unit the table does not hold starts at 0 when
 * the filter says it was never forgotten (a filter has no false negatives),
 * and at the floor otherwise.  So a forgotten unit never gets an offset it
 * had; a new unit loses the floor's offsets only when the filter mistakes it
 * for a forgotten one, which grows likely only after millions of units.
 *
 * Pure C, no PostgreSQL headers; memory comes from the caller's allocator,
 * which gets the caller's argument (in shared memory: two tables and a
 * filter set aside per ledger, since a rebuild holds the old table and the
 * new one at once).
 */
#ifndef FLAKEID_FORMAT_LEDGER_H
#define FLAKEID_FORMAT_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LEDGER_MAX_SLOTS	32

typedef struct LedgerEntry
{
	uint64_t	unit;
	uint32_t	slot_plus_one;	/* 0: an empty cell */
	uint32_t	start;			/* the slot's floor when the unit was first seen */
	uint32_t	next;			/* the next offset to give */
	uint32_t	covered;		/* offsets below it need no save (ledger_cover) */
} LedgerEntry;

typedef struct BackfillLedger
{
	LedgerEntry *cells;			/* open addressing, linear probing */
	uint32_t	capacity;		/* a power of two; 0 before the first take */
	uint32_t	used;
	uint32_t	min_capacity;
	uint32_t	max_capacity;
	uint32_t	floor[LEDGER_MAX_SLOTS];
	uint64_t	forgotten[LEDGER_MAX_SLOTS];	/* units forgotten so far, per slot */
	uint64_t   *bloom;			/* bloom_bits bits of forgotten units; NULL: none yet */
	uint32_t	bloom_bits;		/* a power of two, at least 64 */
	void	   *(*alloc) (void *arg, size_t size);	/* may not return NULL (it raises instead) */
	void		(*release) (void *arg, void *ptr);
	void	   *alloc_arg;
} BackfillLedger;

/* What a FULL unit had: offsets it took itself, and offsets below its start. */
typedef struct LedgerUsage
{
	uint32_t	own;
	uint32_t	set_aside;
	uint64_t	forgotten;		/* units of the slot the ledger has forgotten */
} LedgerUsage;

extern void ledger_init(BackfillLedger *ledger, uint32_t min_capacity, uint32_t max_capacity, uint32_t bloom_bits,
						void *(*alloc) (void *arg, size_t size), void (*release) (void *arg, void *ptr),
						void *alloc_arg);
extern void ledger_free(BackfillLedger *ledger);

/*
 * The next offset (0 <= offset < size) of `unit` in `slot`.  Returns false,
 * with *usage filled and nothing changed, when the unit has used every
 * offset below size.  A unit's size must not change while the ledger
 * lives; units may have sizes of their own.
 */
extern bool ledger_take(BackfillLedger *ledger, unsigned slot, uint64_t unit, uint32_t size,
						uint32_t *offset, LedgerUsage *usage);

/*
 * Marks every offset of a unit the ledger holds as given (its next offset
 * raised to `size`), so that later takes of it are refused: for a unit
 * whose lower sequences turn out to be someone else's (back-fill into a
 * unit a horizon closed, the live IDs below).  A unit the ledger does not
 * hold is left alone.
 */
extern void ledger_fill(BackfillLedger *ledger, unsigned slot, uint64_t unit, uint32_t size);

/*
 * A note the caller keeps per unit: the offsets below `covered` need
 * nothing more (back-fill: their sequences are saved as given).  A unit the
 * ledger forgets, or has not seen, has 0; the note only grows.
 */
extern uint32_t ledger_covered(const BackfillLedger *ledger, unsigned slot, uint64_t unit);
extern void ledger_cover(BackfillLedger *ledger, unsigned slot, uint64_t unit, uint32_t covered);

#endif
