/*
 * snowflake.c — Discord-style snowflakes (see snowflake.h)
 */
#include "snowflake.h"

#include "bytes.h"
#include "rules/counter.h"
#include "format.h"

_Static_assert(SNOWFLAKE_MS_LIMIT - 1 <= COUNTER_MAX_UNIT, "snowflake ms exceed the counter word");
_Static_assert(SNOWFLAKE_MAX_SEQUENCE <= COUNTER_SEQ_MASK, "snowflake sequences exceed the counter word");

/* spec B1, without the library's unmasked timestamp: fields are reduced to their widths */
uint64_t
snowflake_pack(const SnowflakeFields *f)
{
	return ((f->ms & ((UINT64_C(1) << 42) - 1)) << 22) |
		((uint64_t) (f->worker & 31) << 17) |
		((uint64_t) (f->process & 31) << 12) |
		(f->sequence & 4095);
}

void
snowflake_unpack(uint64_t value, SnowflakeFields *f)
{
	f->ms = value >> 22;
	f->worker = (unsigned) (value >> 17) & 31;
	f->process = (unsigned) (value >> 12) & 31;
	f->sequence = (unsigned) value & 4095;
}

bool
snowflake_ms_from_unix_us(int64_t unix_us, int64_t epoch_unix_us, uint64_t *ms)
{
	uint64_t	since;

	if (unix_us < epoch_unix_us)
		return false;
	/* the true difference is below 2^64 even where int64 would overflow */
	since = ((uint64_t) unix_us - (uint64_t) epoch_unix_us) / 1000;
	if (since >= SNOWFLAKE_MS_LIMIT)
		return false;
	*ms = since;
	return true;
}

int64_t
snowflake_unix_us_from_ms(uint64_t ms, int64_t epoch_unix_us)
{
	return epoch_unix_us + (int64_t) ms * 1000;
}

/*
 * The generator counts Unix milliseconds, whatever the epoch setting, so
 * that the saved mark means the same instant under any epoch; an ID's value
 * is the unit less the epoch (snowflake_ms_from_unit).
 */
static bool
snowflake_units_at(int64_t unix_us, uint64_t *unit)
{
	if (unix_us < 0 || (uint64_t) unix_us / 1000 > COUNTER_MAX_UNIT)
		return false;
	*unit = (uint64_t) unix_us / 1000;
	return true;
}

static int64_t
snowflake_unit_start(uint64_t unit)
{
	return (int64_t) unit * 1000;
}

bool
snowflake_ms_from_unit(uint64_t unit, int64_t epoch_ms, uint64_t *ms)
{
	if ((int64_t) unit < epoch_ms || unit - (uint64_t) epoch_ms >= SNOWFLAKE_MS_LIMIT)
		return false;
	*ms = unit - (uint64_t) epoch_ms;
	return true;
}

static void
snowflake_repack(const uint8_t *in, uint8_t *out)
{
	SnowflakeFields fields;

	snowflake_unpack(be_get(in, 8), &fields);
	be_put(out, 8, snowflake_pack(&fields));
}

/* a bigint: no text or time layout of its own (its time depends on the epoch setting) */
/* ms_since_epoch is the raw time field: the time itself needs the epoch */
static int
snowflake_fields(const uint8_t *in, FlakeField *out)
{
	SnowflakeFields f;

	snowflake_unpack(be_get(in, 8), &f);
	out[0] = flake_number("ms_since_epoch", (int64_t) f.ms);
	out[1] = flake_number("worker", f.worker);
	out[2] = flake_number("process", f.process);
	out[3] = flake_number("sequence", f.sequence);
	return 4;
}

const FlakeFormat snowflake_format = {
	.id = FLAKE_SNOWFLAKE, .name = "snowflake", .width = 8,
	.repack = snowflake_repack, .fields = snowflake_fields,
	.units_at = snowflake_units_at, .unit_start = snowflake_unit_start, .unit_us = 1000,
};
