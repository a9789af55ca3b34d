/*
 * horizon_file.h — "flakeid.prepared": the horizon's holdings of prepared
 * transactions, kept across restarts (horizon_file.c: its bytes are the
 * codec's, format/persisted.h)
 */
#ifndef FLAKEID_HORIZON_FILE_H
#define FLAKEID_HORIZON_FILE_H

#include "postgres.h"

#include "access/transam.h"

#include "format/persisted.h"
#include "generator/defs.h"

#define PREPARED_FILE		"flakeid.prepared"

/* what a prepared transaction holds: the lowest unit per counter slot (PG_UINT64_MAX: none) */
typedef struct PreparedHolding
{
	FullTransactionId fxid;		/* InvalidFullTransactionId: a free entry */
	uint64		unit[GEN_SLOT_COUNT];
} PreparedHolding;

/*
 * A holding by slot name, as the file and the WAL record store it, and
 * back; false for a name this flakeid has no slot for.  1.2's file kept
 * 32-bit transaction IDs: they come back with epoch 0, which only their
 * 32 bits are read in (TransactionIdIsInProgress).
 */
extern void holding_to_persisted(const PreparedHolding *holding, PersistedHolding *persisted);
extern bool holding_from_persisted(const PersistedHolding *persisted, PreparedHolding *holding);

/*
 * Writes the holdings durably (durable_file.h); a failure is an ERROR
 * (58030), so that PREPARE TRANSACTION fails before the transaction is
 * prepared.
 */
extern void prepared_file_write(const PreparedHolding *entries, int count);

/*
 * Reads them into `entries` (room for `max`); no file is none.  False for a
 * file that cannot be read, is damaged or of a newer flakeid, or holds more
 * than `max`.  Never raises.
 */
extern bool prepared_file_read(PreparedHolding *entries, int max, int *count);

#endif
