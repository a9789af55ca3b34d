/*
 * mark_redo.c — the resource manager of flakeid's WAL records: replay on
 * standbys and in crash recovery, and their text for pg_waldump and
 * pg_walinspect
 *
 * Replay hands a record's bounds to the marks (mark_replay), which raise
 * only the primary's bounds and save them; the counters take them up once
 * recovery has ended (resume.c).
 */
#include "postgres.h"

#include "access/xlog_internal.h"
#include "access/xlogreader.h"

#include "generator/mark_redo.h"
#include "generator/marks.h"
#include "generator/wal_record.h"

/* in the startup process; a record this code cannot read stops recovery */
static void
mark_redo(XLogReaderState *record)
{
	IssuedBounds bounds;
	int64		snowflake_epoch_ms;

	if (!wal_record_read(record, &bounds, &snowflake_epoch_ms))
		elog(PANIC, "flakeid_redo: unknown record (info 0x%02X, %u bytes)",
			 XLogRecGetInfo(record) & ~XLR_INFO_MASK, XLogRecGetDataLen(record));
	mark_replay(&bounds, snowflake_epoch_ms);
}

/* for pg_waldump and wal inspection functions, in core's "key: value, ..." style */
static void
mark_desc(StringInfo buf, XLogReaderState *record)
{
	IssuedBounds bounds;
	int64		snowflake_epoch_ms;
	int			lows = 0;

	if (!wal_record_read(record, &bounds, &snowflake_epoch_ms))
		return;
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		lows += bounds.backfill_low[s] != BACKFILL_LOW_NONE;
	appendStringInfo(buf, "mark: " INT64_FORMAT ", sno mark 0: " INT64_FORMAT ", sno mark 1: " INT64_FORMAT ", sno tick-tock: %u, snowflake epoch: " INT64_FORMAT ", back-fill low-waters: %d, deep units: %u",
					 bounds.marks[MARK_MONOTONIC], bounds.marks[MARK_SNO_FLAG0], bounds.marks[MARK_SNO_FLAG1],
					 bounds.sno_ticktock, snowflake_epoch_ms, lows, bounds.backfill_deep.count);
}

static const char *
mark_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_FLAKEID_MARK:
			return "MARK";
		case XLOG_FLAKEID_BOUNDS:
			return "BOUNDS";
	}
	return NULL;
}

static RmgrData mark_rmgr = {
	.rm_name = "flakeid",
	.rm_redo = mark_redo,
	.rm_desc = mark_desc,
	.rm_identify = mark_identify,
};

void
mark_redo_init(void)
{
	RegisterCustomRmgr(FLAKEID_RMGR_ID, &mark_rmgr);
}
