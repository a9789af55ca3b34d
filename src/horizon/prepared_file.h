/*
 * prepared_file.h — "flakeid.prepared": the horizon's holdings of prepared
 * transactions, kept across restarts (prepared_file.c: its bytes are the
 * codec's, persisted/persisted.h)
 */
#ifndef FLAKEID_HORIZON_FILE_H
#define FLAKEID_HORIZON_FILE_H

#include "access/transam.h"
#include "access/xlogdefs.h"

#include "base/defs.h"
#include "persisted/persisted.h"

#define PREPARED_FILE		"flakeid.prepared"

/*
 * What a prepared transaction holds: the lowest unit per counter slot
 * (PG_UINT64_MAX: none).  An overflow entry (through after fxid) holds for
 * every transaction from fxid through `through` that the table had no room
 * for: it ends when all of them have.  The file keeps `through` of an
 * overflow as a unit under HOLDING_THROUGH_NAME, a name no counter has.
 */
typedef struct PreparedHolding
{
	FullTransactionId fxid;		/* InvalidFullTransactionId: a free entry */
	FullTransactionId through;	/* fxid, or the last transaction an overflow covers */
	uint64		unit[GEN_SLOT_COUNT];
} PreparedHolding;

#define HOLDING_THROUGH_NAME	"(overflow through xid)"

static inline bool
holding_is_overflow(const PreparedHolding *holding)
{
	return FullTransactionIdPrecedes(holding->fxid, holding->through);
}

/*
 * What a save knew (persisted.h, SAVED): every PREPARED record that begins
 * before `lsn` has its holding in the file, unless its transaction had
 * ended; every ID of a transaction prepared later lies at or after
 * `floor` of its slot (0: nothing known).  Read back, a file that cannot
 * vouch for that knows nothing (`lsn` 0, floors 0): no file; a file of 1.2
 * or 1.3, or one that names no cluster (a copy of an old file restored
 * holds only what it held then); one of another cluster (`foreign`: its
 * holdings name that cluster's transactions, and are not taken); and, at
 * start, one whose position lies on another timeline than the redo point.
 */
typedef struct PreparedSaved
{
	XLogRecPtr	lsn;
	TimeLineID	timeline;		/* lsn's (0: none named) */
	uint64		floor[GEN_SLOT_COUNT];
	bool		foreign;
} PreparedSaved;

/*
 * A holding by slot name, as the file and the WAL record store it, and
 * back; false for a name this flakeid has no slot for.  1.2's file kept
 * 32-bit transaction IDs: they come back with epoch 0, which only their
 * 32 bits are read in (TransactionIdIsInProgress).
 */
extern void holding_to_persisted(const PreparedHolding *holding, PersistedHolding *persisted);
extern bool holding_from_persisted(const PersistedHolding *persisted, PreparedHolding *holding);

/*
 * Writes the holdings and what the save knew durably (durable_file.h);
 * false, with a message at `elevel` (58030), when the file cannot be
 * written.
 */
extern bool prepared_file_write(const PreparedHolding *entries, int count, const PreparedSaved *saved, int elevel);

/*
 * Reads them, calling `take` for each, however many the file holds (it is
 * read at its size), and what its save knew into *saved; no file is none,
 * knowing nothing.  False for a file that cannot be read, is damaged or
 * of a newer flakeid.  Never raises.
 */
extern bool prepared_file_read(void (*take) (void *arg, const PreparedHolding *holding), void *arg,
							   PreparedSaved *saved);

#endif
