/*
 * glue.c — what the types' SQL glue shares (glue.h): the errors of a time
 * outside a type's range and of a field out of range, and a timestamptz in
 * Unix µs
 */
#include "postgres.h"

#include "utils/timestamp.h"

#include "types/glue.h"

void
flakeid_time_out_of_range(const FlakeFormat *format)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("timestamp out of range for type %s", format->name),
			 errdetail("%s holds times in [%s).", format->name, format->time_range)));
}

int64
flakeid_unix_us_from_timestamptz(TimestampTz ts, const char *type_name)
{
	if (TIMESTAMP_NOT_FINITE(ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("infinite timestamp cannot be stored in type %s", type_name)));
	/* PostgreSQL's finite range is far from int64's limits: no overflow */
	return (int64) ts + FLAKEID_PG_EPOCH_UNIX_US;
}

void
flakeid_check_field(int64 value, int64 max, const char *field, const char *type_name)
{
	if (value < 0 || value > max)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value %lld is out of range for field \"%s\" of type %s", (long long) value, field, type_name),
				 errdetail("The field takes values from 0 to %lld.", (long long) max)));
}

