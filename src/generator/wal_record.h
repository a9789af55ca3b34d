/*
 * wal_record.h — the WAL record that carries the saved bounds to standbys:
 * its layout, writing it (and waiting for synchronous standbys), reading it
 */
#ifndef FLAKEID_WAL_RECORD_H
#define FLAKEID_WAL_RECORD_H

#include "postgres.h"

#include "access/xlogreader.h"

#include "generator/state.h"

/*
 * The custom WAL resource manager that carries the marks to standbys
 * (PostgreSQL 15's RegisterCustomRmgr): an ID from the custom range,
 * recorded in the README.  mark_redo.c registers it.
 */
#define FLAKEID_RMGR_ID		149

#define XLOG_FLAKEID_MARK	0x00	/* flakeid 1.1's: FlakeidState11, unversioned */
#define XLOG_FLAKEID_BOUNDS	0x10	/* from 1.2 on: versioned (wal_record.c) */

/* defines flakeid.mark_synchronous (from _PG_init, while preloading) */
extern void wal_record_init(void);

/*
 * Logs and flushes a save's record before it is used (a standby logs
 * nothing); with flakeid.mark_synchronous, waits for the synchronous
 * standbys, and a cancel of that wait raises 57014.
 */
extern void wal_record_log(const FlakeidPersisted *state);

/* the bounds and epoch of a record; false for a record this code cannot read */
extern bool wal_record_read(XLogReaderState *record, IssuedBounds *bounds, int64 *snowflake_epoch_ms);

#endif
