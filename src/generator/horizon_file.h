/*
 * horizon_file.h — "flakeid.prepared": the horizon's holdings of prepared
 * transactions, kept across restarts (horizon_file.c: plain file I/O)
 */
#ifndef FLAKEID_HORIZON_FILE_H
#define FLAKEID_HORIZON_FILE_H

#include "postgres.h"

#include "generator/defs.h"

#define PREPARED_FILE		"flakeid.prepared"

/* what a prepared transaction holds: the lowest unit per counter slot */
typedef struct PreparedHolding
{
	TransactionId xid;			/* InvalidTransactionId: a free entry */
	uint64		unit[GEN_SLOT_COUNT];
} PreparedHolding;

/*
 * Writes the holdings (temporary file, fsync, durable rename); a failure is
 * an ERROR, so that PREPARE TRANSACTION fails before the transaction is
 * prepared.
 */
extern void prepared_file_write(const PreparedHolding *entries, int count);

/*
 * Reads them into `entries` (room for `max`); no file is none.  False for a
 * file that cannot be read, is damaged, or holds more than `max`.  Never
 * raises.
 */
extern bool prepared_file_read(PreparedHolding *entries, int max, int *count);

#endif
