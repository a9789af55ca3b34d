/*
 * snowflake_type.c — Discord-style snowflakes on bigint (docs/spec/siq-and-snowflake.md
 * Part B): 42-bit ms since an epoch | 5 worker | 5 process | 12 sequence
 *
 * Functions that need the epoch read flakeid.snowflake_epoch_ms (they are
 * STABLE); each also has an IMMUTABLE overload whose last argument is the
 * epoch, and both share one C function that looks at the argument count.
 */
#include "postgres.h"

#include "common/int.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "format/bytes.h"
#include "format/snowflake.h"
#include "types/glue.h"

/* the epoch in Unix microseconds: the argument at `argno` if given, else the setting */
static int64
epoch_unix_us(FunctionCallInfo fcinfo, int argno)
{
	if (PG_NARGS() > argno)
		return flakeid_unix_us_from_timestamptz(PG_GETARG_TIMESTAMPTZ(argno), "snowflake");
	return flakeid_snowflake_epoch_ms() * 1000;
}

static uint64
snowflake_ms_from_timestamptz(TimestampTz ts, int64 epoch_us)
{
	uint64		ms;

	if (!snowflake_ms_from_unix_us(flakeid_unix_us_from_timestamptz(ts, "snowflake"), epoch_us, &ms))
	{
		TimestampTz epoch = flakeid_timestamptz_from_unix_us(epoch_us);

		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range for type snowflake"),
				 errdetail("Snowflakes with epoch %s hold times from the epoch to 2^41 milliseconds after it.",
						   timestamptz_to_str(epoch))));
	}
	return ms;
}

static Datum
snowflake_datum(uint64 ms, unsigned worker, unsigned process, unsigned sequence)
{
	return Int64GetDatum((int64) snowflake_pack(&(SnowflakeFields) {ms, worker, process, sequence}));
}

static SnowflakeFields
snowflake_arg(FunctionCallInfo fcinfo)
{
	SnowflakeFields fields;

	snowflake_unpack((uint64) PG_GETARG_INT64(0), &fields);	/* all 64 bits, unsigned */
	return fields;
}

PG_FUNCTION_INFO_V1(snowflake_new);
Datum
snowflake_new(PG_FUNCTION_ARGS)
{
	GeneratedId id = flakeid_generate(GEN_SNOWFLAKE, 0);
	int64		epoch_ms = flakeid_snowflake_epoch_ms();
	uint64		ms;

	/* the clock, or the count on from a later last unit, must lie in the epoch's range */
	if (!snowflake_ms_from_unit(id.unit, epoch_ms, &ms))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the snowflake generator is outside the time range of epoch " INT64_FORMAT " ms", epoch_ms),
				 errdetail("Snowflakes hold times from the epoch to 2^41 milliseconds after it.")));
	return snowflake_datum(ms, flakeid_identity(IDENTITY_SNOWFLAKE_WORKER),
						   flakeid_identity(IDENTITY_SNOWFLAKE_PROCESS), id.sequence);
}

/*
 * The horizon of snowflake_new under the epoch in force: the smallest
 * snowflake of the horizon's millisecond, of any worker and process (0
 * when that lies before the epoch: every snowflake is at or after it).
 */
PG_FUNCTION_INFO_V1(snowflake_horizon);
Datum
snowflake_horizon(PG_FUNCTION_ARGS)
{
	uint64		unit = flakeid_horizon_unit(GEN_SNOWFLAKE);	/* a Unix millisecond */
	int64		epoch_ms = flakeid_snowflake_epoch_ms();
	uint64		ms = 0;

	if ((int64) unit > epoch_ms && !snowflake_ms_from_unit(unit, epoch_ms, &ms))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the snowflake horizon is outside the time range of epoch " INT64_FORMAT " ms", epoch_ms)));
	if (ms == 0)
		return Int64GetDatum(0);
	/* (worker and process 0: the smallest snowflake of the millisecond, as sno_horizon) */
	return snowflake_datum(ms, 0, 0, 0);
}

/*
 * The live generator's unit of a stored millisecond field: the Unix
 * millisecond whose value under the epoch in force is the same.
 */
static uint64
snowflake_live_unit(uint64 ms)
{
	return ms + (uint64) flakeid_snowflake_epoch_ms();
}

/*
 * Back-fill: the caller's time, a sequence this server never repeats within
 * the millisecond.  The live generator's unit is the Unix millisecond whose
 * value under the epoch in force is the same.
 */
PG_FUNCTION_INFO_V1(snowflake_new_at);
Datum
snowflake_new_at(PG_FUNCTION_ARGS)
{
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
	uint64		ms = snowflake_ms_from_timestamptz(ts, epoch_unix_us(fcinfo, 1));
	/* keyed by the field the ID stores, so that two epochs cannot share a sequence */
	uint64		live_unit = snowflake_live_unit(ms);
	GeneratedId id = flakeid_generate_backfill(GEN_SNOWFLAKE, 0, ms, live_unit, ts);

	return snowflake_datum(ms, flakeid_identity(IDENTITY_SNOWFLAKE_WORKER),
						   flakeid_identity(IDENTITY_SNOWFLAKE_PROCESS), id.sequence);
}

/*
 * The setval of snowflake_new under the epoch in force (README, "Moving to
 * flakeid and between servers"): every later snowflake lies in a later
 * millisecond.  A negative bigint sorts below every snowflake: passed
 * already.
 */
PG_FUNCTION_INFO_V1(snowflake_advance_past);
Datum
snowflake_advance_past(PG_FUNCTION_ARGS)
{
	int64		id = PG_GETARG_INT64(0);
	uint64		unit = 0;		/* a Unix millisecond, as the generator counts */

	if (id >= 0)
		unit = snowflake_live_unit(snowflake_arg(fcinfo).ms);
	flakeid_advance_past(GEN_SNOWFLAKE, 0, (int64) unit * 1000, unit);
	PG_RETURN_INT64(id);
}

PG_FUNCTION_INFO_V1(snowflake_from_parts);
Datum
snowflake_from_parts(PG_FUNCTION_ARGS)
{
	uint64		ms = snowflake_ms_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0), epoch_unix_us(fcinfo, 4));
	int32		worker = PG_GETARG_INT32(1);
	int32		process = PG_GETARG_INT32(2);
	int32		sequence = PG_GETARG_INT32(3);

	flakeid_check_field(worker, SNOWFLAKE_MAX_WORKER, "worker", "snowflake");
	flakeid_check_field(process, SNOWFLAKE_MAX_PROCESS, "process", "snowflake");
	flakeid_check_field(sequence, SNOWFLAKE_MAX_SEQUENCE, "sequence", "snowflake");
	return snowflake_datum(ms, (unsigned) worker, (unsigned) process, (unsigned) sequence);
}

/* The start of the millisecond; an epoch near the end of time can push it out of range. */
static TimestampTz
snowflake_time_of(uint64 ms, int64 epoch_us)
{
	int64		unix_us;
	TimestampTz result;

	if (pg_add_s64_overflow(epoch_us, (int64) ms * 1000, &unix_us) ||
		!IS_VALID_TIMESTAMP(result = flakeid_timestamptz_from_unix_us(unix_us)))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range")));
	return result;
}

FIXED_FN(snowflake, time,
		 PG_RETURN_TIMESTAMPTZ(snowflake_time_of(snowflake_arg(fcinfo).ms, epoch_unix_us(fcinfo, 1))))

PG_FUNCTION_INFO_V1(snowflake_fields);
Datum
snowflake_fields(PG_FUNCTION_ARGS)
{
	uint8		bytes[8];

	be_put(bytes, 8, (uint64) PG_GETARG_INT64(0));
	return flakeid_fields_jsonb(&snowflake_format, bytes,
								snowflake_time_of(snowflake_arg(fcinfo).ms, epoch_unix_us(fcinfo, 1)));
}

FIXED_FN(snowflake, worker, PG_RETURN_INT32((int32) snowflake_arg(fcinfo).worker))
FIXED_FN(snowflake, process, PG_RETURN_INT32((int32) snowflake_arg(fcinfo).process))
FIXED_FN(snowflake, sequence, PG_RETURN_INT32((int32) snowflake_arg(fcinfo).sequence))

PG_FUNCTION_INFO_V1(snowflake_lower_bound);
Datum
snowflake_lower_bound(PG_FUNCTION_ARGS)
{
	uint64		ms = snowflake_ms_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0), epoch_unix_us(fcinfo, 1));

	return snowflake_datum(ms, 0, 0, 0);
}

PG_FUNCTION_INFO_V1(snowflake_upper_bound);
Datum
snowflake_upper_bound(PG_FUNCTION_ARGS)
{
	uint64		ms = snowflake_ms_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0), epoch_unix_us(fcinfo, 1));

	return snowflake_datum(ms, SNOWFLAKE_MAX_WORKER, SNOWFLAKE_MAX_PROCESS, SNOWFLAKE_MAX_SEQUENCE);
}
