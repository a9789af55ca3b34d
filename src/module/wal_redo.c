/*
 * wal_redo.c — the resource manager of flakeid's WAL records: replay on
 * standbys and in crash recovery, and their text for pg_waldump and
 * pg_walinspect
 *
 * Replay hands a record's bounds to the marks (mark_replay), which raise
 * only the primary's bounds and save them; the counters take them up once
 * recovery has ended (resume.c).
 */
#include "postgres.h"

#include "access/xlog_internal.h"
#include "utils/memutils.h"

#include "base/table.h"
#include "durable/marks.h"
#include "durable/wal_record.h"
#include "horizon/horizon.h"
#include "horizon/prepared_holdings.h"
#include "module/module.h"

/*
 * The bounds of a record by slot, or recovery stops: a slot this flakeid
 * does not have is a newer primary's (upgrade standbys first).
 */
static void
bounds_of(const PersistedRecord *decoded, IssuedBounds *bounds)
{
	const char *unknown = bounds_from_persisted(&decoded->bounds, bounds);

	if (unknown != NULL)
		ereport(PANIC,
				(errmsg("flakeid_redo: the record names the counter \"%s\", which this version of flakeid does not have",
						unknown),
				 errhint("Upgrade flakeid on standbys before their primary.")));
}

/*
 * Replay allocates here, and the context is reset after each record (as
 * core's resource managers keep a per-record context): the file's buffers,
 * the holdings copied for a save, its path strings.  Made at the first
 * record, in the startup process.
 */
static MemoryContext redo_context = NULL;

static void replay_record(XLogReaderState *record);

/* in the startup process; a record this code cannot read stops recovery */
static void
mark_redo(XLogReaderState *record)
{
	MemoryContext caller;

	if (redo_context == NULL)
		redo_context = AllocSetContextCreate(TopMemoryContext, "flakeid redo", ALLOCSET_DEFAULT_SIZES);
	caller = MemoryContextSwitchTo(redo_context);
	replay_record(record);
	/* (a standby has no renewer: flakeid.prepared is saved here when due, at any record of flakeid's) */
	holdings_save_in_redo();
	MemoryContextSwitchTo(caller);
	MemoryContextReset(redo_context);
}

static void
replay_record(XLogReaderState *record)
{
	static PersistedRecord decoded;
	IssuedBounds bounds;
	PersistedVerdict verdict = wal_record_read(record, &decoded);

	if (verdict != PERSISTED_OK)
		ereport(PANIC,
				(errmsg("flakeid_redo: %s record (info 0x%02X, %u bytes)",
						verdict == PERSISTED_TOO_NEW ? "a newer flakeid's" : "a damaged",
						XLogRecGetInfo(record) & ~XLR_INFO_MASK, XLogRecGetDataLen(record)),
				 verdict == PERSISTED_TOO_NEW ? errhint("Upgrade flakeid on standbys before their primary.") : 0));
	if (decoded.info == XLOG_FLAKEID_PREPARED)
	{
		horizon_redo_prepared(&decoded.holding);
		return;
	}
	if (decoded.info == XLOG_FLAKEID_DEEP)
	{
		int			slot = generator_slot_by_name(decoded.deep_unit.slot);

		if (slot < 0)
			ereport(PANIC,
					(errmsg("flakeid_redo: the record names the counter \"%s\", which this version of flakeid does not have",
							decoded.deep_unit.slot),
					 errhint("Upgrade flakeid on standbys before their primary.")));
		mark_replay_deep(slot, decoded.deep_unit.unit, decoded.deep_unit.low);
		return;
	}
	bounds_of(&decoded, &bounds);
	mark_replay(&bounds, decoded.snowflake_epoch_ms);
}

/* for pg_waldump and wal inspection functions, in core's "key: value, ..." style */
static void
mark_desc(StringInfo buf, XLogReaderState *record)
{
	static PersistedRecord decoded;

	if (wal_record_read(record, &decoded) != PERSISTED_OK)
		return;
	if (decoded.info == XLOG_FLAKEID_PREPARED)
	{
		appendStringInfo(buf, "xid: " UINT64_FORMAT ", counters held: %u", decoded.holding.full_xid,
						 decoded.holding.nunits);
		return;
	}
	if (decoded.info == XLOG_FLAKEID_DEEP)
	{
		appendStringInfo(buf, "counter: %s, unit: " UINT64_FORMAT ", back-fill low-water: %u",
						 decoded.deep_unit.slot, decoded.deep_unit.unit, decoded.deep_unit.low);
		return;
	}
	/* (the record's layout, persisted/persisted.h: the latest monotonic mark, sno's two, then each generator's) */
	appendStringInfo(buf, "mark: " INT64_FORMAT ", sno mark 0: " INT64_FORMAT ", sno mark 1: " INT64_FORMAT ", sno tick-tock: %u, snowflake epoch: " INT64_FORMAT ", back-fill low-waters: %u, deep units: %u, counters with runs ahead: %u",
					 decoded.bounds.marks[0], decoded.bounds.marks[1],
					 decoded.bounds.marks[2], decoded.bounds.sno_ticktock, decoded.snowflake_epoch_ms,
					 decoded.bounds.nlows, decoded.bounds.ndeep, decoded.bounds.nahead);
	for (uint32 i = 0; i < decoded.bounds.ngenerator_marks; i++)
		appendStringInfo(buf, ", %s mark: " INT64_FORMAT, decoded.bounds.generator_marks[i].generator,
						 decoded.bounds.generator_marks[i].mark);
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
		case XLOG_FLAKEID_ISSUED:
			return "ISSUED";
		case XLOG_FLAKEID_PREPARED:
			return "PREPARED";
		case XLOG_FLAKEID_DEEP:
			return "DEEP";
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
