/*
 * wal_record.h — the WAL record that carries the saved bounds to standbys:
 * its layout, writing it (and waiting for synchronous standbys), reading it
 */
#ifndef FLAKEID_WAL_RECORD_H
#define FLAKEID_WAL_RECORD_H

#include "access/xlogreader.h"

#include "durable/state.h"

/*
 * The custom WAL resource manager that carries the marks to standbys
 * (PostgreSQL 15's RegisterCustomRmgr): an ID from the custom range,
 * recorded in the README.  wal_redo.c registers it.
 */
#define FLAKEID_RMGR_ID		149

#define XLOG_FLAKEID_MARK		PERSISTED_RECORD_MARK	/* 1.1's, read */
#define XLOG_FLAKEID_BOUNDS		PERSISTED_RECORD_BOUNDS	/* 1.2's, read */
#define XLOG_FLAKEID_ISSUED		PERSISTED_RECORD_ISSUED	/* a save's bounds, from 1.3 on */
#define XLOG_FLAKEID_PREPARED	PERSISTED_RECORD_PREPARED	/* a prepared transaction's holding, from 1.3 on */
#define XLOG_FLAKEID_DEEP		PERSISTED_RECORD_DEEP	/* a deep unit of back-fill lowered, from 1.4 on */

/* defines flakeid.mark_synchronous (from _PG_init, while preloading) */
extern void wal_record_init(void);

/*
 * Logs and flushes a save's record (ISSUED: this server's own bounds and
 * the epoch) before it is used (a standby logs nothing); with
 * flakeid.mark_synchronous, waits for the synchronous standbys, and a
 * cancel of that wait raises 57014.
 */
extern void wal_record_log(const FlakeidPersisted *state);

/*
 * Logs and flushes a deep unit of back-fill lowered (DEEP) before it is
 * used, as wal_record_log does (a standby logs nothing; the same wait for
 * synchronous standbys).
 */
extern void wal_record_log_deep(const PersistedDeepUnit *deep_unit);

/*
 * Logs a prepared transaction's holding (PREPARED), before the transaction
 * is prepared: its PREPARE record, which follows, flushes it.
 */
extern void wal_record_log_prepared(const PersistedHolding *holding);

/* one of flakeid's records, decoded (persisted/persisted.h) */
extern PersistedVerdict wal_record_read(XLogReaderState *record, PersistedRecord *decoded);

#endif
