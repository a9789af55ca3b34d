/*
 * flax_type.c — the flax type (docs/spec/flax.md): 12 bytes, 16 characters of
 * ASCII-ordered base64; 40-bit ms and 56 secure random bits.  Stateless: it
 * needs no preload.
 */
#include "postgres.h"

#include "utils/timestamp.h"

#include "format/flax.h"
#include "types/fixed_type.h"

FLAKEID_FIXED_TYPE(flax, &flax_format, FLAX_SIZE)

static uint64
flax_ms_from_timestamptz(TimestampTz ts)
{
	uint64		ms;

	if (!flax_ms_from_unix_us(flakeid_unix_us_from_timestamptz(ts, "flax"), &ms))
		flakeid_time_out_of_range(&flax_format);
	return ms;
}

static Datum
flax_datum(uint64 ms, uint64 random)
{
	uint8		bytes[FLAX_SIZE];

	flax_pack(ms, random, bytes);
	return fixed_datum(&flax_format, bytes);
}

static uint64
flax_secure_random(void)
{
	uint8		bytes[FLAX_RANDOM_BITS / 8];
	uint64		random = 0;

	flakeid_random_bytes(bytes, sizeof(bytes));
	for (size_t i = 0; i < sizeof(bytes); i++)
		random = (random << 8) | bytes[i];
	return random;
}

PG_FUNCTION_INFO_V1(flax_new);
Datum
flax_new(PG_FUNCTION_ARGS)
{
	uint64		ms;

	if (!flax_ms_from_unix_us(flakeid_clock_unix_us(), &ms))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the system clock is outside the time range of type flax")));
	return flax_datum(ms, flax_secure_random());
}

FIXED_FN(flax, new_at,
		 return flax_datum(flax_ms_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0)), flax_secure_random()))

PG_FUNCTION_INFO_V1(flax_from_parts);
Datum
flax_from_parts(PG_FUNCTION_ARGS)
{
	uint64		ms = flax_ms_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0));
	int64		random = PG_GETARG_INT64(1);

	flakeid_check_field(random, (int64) FLAX_RANDOM_MAX, "random part", "flax");
	return flax_datum(ms, (uint64) random);
}

PG_FUNCTION_INFO_V1(flax_random);
Datum
flax_random(PG_FUNCTION_ARGS)
{
	uint64		ms,
				random;

	flax_unpack((const uint8 *) PG_GETARG_POINTER(0), &ms, &random);
	PG_RETURN_INT64((int64) random);
}

FIXED_FN(flax, lower_bound, return flax_datum(flax_ms_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0)), 0))
FIXED_FN(flax, upper_bound,
		 return flax_datum(flax_ms_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0)), FLAX_RANDOM_MAX))
