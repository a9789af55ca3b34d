/*
 * index_gin_frames.c — GIN (as btree_gin serves core types) and btree
 * in_range (window frames by time), once for every type
 */
#include "postgres.h"

#include "access/gist.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "utils/fmgrprotos.h"
#include "pgtime.h"
#include "utils/timestamp.h"

#include "types/fixed_type.h"

/* --- GIN, as btree_gin serves core types ------------------------------------ */

/* what a query's partial match needs: its strategy and the original value */
typedef struct GinQuery
{
	StrategyNumber strategy;
	Datum		value;
} GinQuery;

Datum
fixed_gin_extract_value(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	int32	   *count = (int32 *) PG_GETARG_POINTER(1);
	Datum	   *entries = palloc(sizeof(Datum));

	entries[0] = fixed_datum(info, (const uint8 *) PG_GETARG_POINTER(0));
	*count = 1;
	PG_RETURN_POINTER(entries);
}

/*
 * One partial-match entry per query: the scan starts at the query value
 * (or, for < and <=, at the smallest ID) and compare_partial says when to
 * take, skip or stop.
 */
Datum
fixed_gin_extract_query(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	const uint8 *query = (const uint8 *) PG_GETARG_POINTER(0);
	int32	   *count = (int32 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	bool	  **partial = (bool **) PG_GETARG_POINTER(3);
	Pointer   **extra = (Pointer **) PG_GETARG_POINTER(4);
	Datum	   *entries = palloc(sizeof(Datum));
	GinQuery   *data = palloc(sizeof(GinQuery));
	uint8		smallest[FIXED_MAX_WIDTH] = {0};

	if (strategy < BTLessStrategyNumber || strategy > BTGreaterStrategyNumber)
		elog(ERROR, "unknown strategy number %d for a %s GIN index", strategy, info->name);
	data->strategy = strategy;
	data->value = fixed_datum(info, query);
	entries[0] = strategy <= BTLessEqualStrategyNumber ? fixed_datum(info, smallest) : data->value;
	*partial = palloc(sizeof(bool));
	(*partial)[0] = true;
	*extra = palloc(sizeof(Pointer));
	(*extra)[0] = (Pointer) data;
	*count = 1;
	PG_RETURN_POINTER(entries);
}

/* 0: a match; < 0: not yet, go on; > 0: past the range, stop */
Datum
fixed_gin_compare_partial(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	const uint8 *key = (const uint8 *) PG_GETARG_POINTER(1);
	GinQuery   *data = (GinQuery *) PG_GETARG_POINTER(3);
	int			cmp = fixed_cmp_bytes((const uint8 *) DatumGetPointer(data->value), key, info->width);

	switch (data->strategy)
	{
		case BTLessStrategyNumber:
			PG_RETURN_INT32(cmp > 0 ? 0 : 1);
		case BTLessEqualStrategyNumber:
			PG_RETURN_INT32(cmp >= 0 ? 0 : 1);
		case BTEqualStrategyNumber:
			PG_RETURN_INT32(cmp == 0 ? 0 : 1);
		case BTGreaterEqualStrategyNumber:
			PG_RETURN_INT32(cmp <= 0 ? 0 : 1);
		case BTGreaterStrategyNumber:
			PG_RETURN_INT32(cmp < 0 ? 0 : cmp == 0 ? -1 : 1);
	}
	elog(ERROR, "unknown strategy number %d for a %s GIN index", data->strategy, info->name);
	PG_RETURN_INT32(1);
}

/* every entry is exact: one key, no recheck */
PG_FUNCTION_INFO_V1(flakeid_gin_consistent);
Datum
flakeid_gin_consistent(PG_FUNCTION_ARGS)
{
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);

	*recheck = false;
	PG_RETURN_BOOL(true);
}

/* --- btree in_range: window frames by time ---------------------------------- */

/*
 * The target time of the last (base, offset, direction) in_range computed
 * for one call site.  A window's frame moves call it several times with
 * one base, so the interval arithmetic and the range check run once per
 * base.  The session's time zone is part of the key (calendar units).
 */
typedef struct InRangeTarget
{
	bool		valid;
	int64		base_us;
	Interval	offset;
	bool		sub;
	pg_tz	   *zone;
	int64		target_us;
} InRangeTarget;

static int64
in_range_target(const FlakeFormat *info, int64 base_us, Interval *offset, bool sub)
{
	Interval	zero = {0};
	TimestampTz target;
	int64		target_us;
	uint8		probe[FIXED_MAX_WIDTH];

	if (DatumGetBool(DirectFunctionCall2(interval_lt, IntervalPGetDatum(offset), IntervalPGetDatum(&zero))))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PRECEDING_OR_FOLLOWING_SIZE),
				 errmsg("invalid preceding or following size in window function")));
	target = DatumGetTimestampTz(DirectFunctionCall2(sub ? timestamptz_mi_interval : timestamptz_pl_interval,
													 TimestampTzGetDatum(flakeid_timestamptz_from_unix_us(base_us)),
													 IntervalPGetDatum(offset)));
	target_us = TIMESTAMP_NOT_FINITE(target) ? 0 : flakeid_unix_us_from_timestamptz(target, info->name);
	if (TIMESTAMP_NOT_FINITE(target) ||
		!(sub ? time_layout_last_at_or_before(info->time, target_us, probe)
		  : time_layout_first_at_or_after(info->time, target_us, probe)))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("window frame offset reaches outside the time range of type %s", info->name),
				 errdetail("%s holds times in [%s).", info->name, info->time_range),
				 errhint("For a frame without a bound on that side, use UNBOUNDED PRECEDING or UNBOUNDED FOLLOWING.")));
	return target_us;
}

/*
 * RANGE frames with interval offsets over ORDER BY id: whether val's time
 * is at least (less = false) or at most (less = true) base's time minus
 * (sub) or plus the offset.  Both times are the ones ID order follows, so
 * the test is monotone along the order, as in_range must be, and a frame is
 * exactly the frame of ORDER BY <type>_time(id) (kuid96: of the window
 * starts).  Calendar units in the offset follow the session's time zone,
 * as for timestamptz (so the function is STABLE).
 */
Datum
fixed_in_range(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	const uint8 *val = (const uint8 *) PG_GETARG_POINTER(0);
	const uint8 *base = (const uint8 *) PG_GETARG_POINTER(1);
	Interval   *offset = PG_GETARG_INTERVAL_P(2);
	bool		sub = PG_GETARG_BOOL(3);
	bool		less = PG_GETARG_BOOL(4);
	int64		base_us = time_layout_order_time(info->time, base);
	InRangeTarget *last = (InRangeTarget *) fcinfo->flinfo->fn_extra;
	int64		val_us;

	if (last == NULL)
		last = fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(InRangeTarget));
	if (!last->valid || last->base_us != base_us || last->sub != sub || last->zone != session_timezone ||
		memcmp(&last->offset, offset, sizeof(Interval)) != 0)
	{
		last->valid = false;	/* until the new target is known: in_range_target may raise */
		last->target_us = in_range_target(info, base_us, offset, sub);
		last->base_us = base_us;
		last->offset = *offset;
		last->sub = sub;
		last->zone = session_timezone;
		last->valid = true;
	}
	val_us = time_layout_order_time(info->time, val);
	PG_RETURN_BOOL(less ? val_us <= last->target_us : val_us >= last->target_us);
}
