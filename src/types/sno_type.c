/*
 * sno_type.c — the sno type (docs/spec/sno.md): 10 bytes, 16 characters of base32
 */
#include "postgres.h"

#include "utils/timestamp.h"

#include "format/sno.h"
#include "types/fixed_type.h"

FLAKEID_FIXED_TYPE(sno, &sno_format, SNO_SIZE)

static uint64
sno_units_from_timestamptz(TimestampTz ts)
{
	uint64		units;

	if (!sno_units_from_unix_us(flakeid_unix_us_from_timestamptz(ts, "sno"), &units))
		flakeid_time_out_of_range(&sno_format);
	return units;
}

static Datum
sno_datum(uint64 units, unsigned ticktock, unsigned meta, unsigned partition, unsigned sequence)
{
	SnoFields	fields = {units, ticktock, meta, partition, sequence};
	uint8		bytes[SNO_SIZE];

	sno_pack(&fields, bytes);
	return fixed_datum(&sno_format, bytes);
}

static unsigned
sno_meta_arg(FunctionCallInfo fcinfo, int argno)
{
	int32		meta = PG_GETARG_INT32(argno);

	flakeid_check_field(meta, SNO_MAX_META, "meta", "sno");
	return (unsigned) meta;
}

/*
 * The horizon of sno_new: the smallest ID of the horizon unit (README,
 * "Reading by ID: the horizon"), of any partition.  Not this server's own
 * partition: the unit may be held by a prepared transaction of another
 * server's (a promoted standby holds its primary's, whose partition
 * differs), whose IDs in that unit would sort below a horizon carrying
 * this server's partition and be passed before they commit.
 */
PG_FUNCTION_INFO_V1(sno_horizon);
Datum
sno_horizon(PG_FUNCTION_ARGS)
{
	uint64		unit = flakeid_horizon_unit(GEN_SNO);

	return sno_datum(unit, false, 0, 0, 0);
}

PG_FUNCTION_INFO_V1(sno_new);
Datum
sno_new(PG_FUNCTION_ARGS)
{
	unsigned	meta = sno_meta_arg(fcinfo, 0);
	GeneratedId id = flakeid_generate(GEN_SNO, 0);

	return sno_datum(id.unit, id.ticktock, meta, flakeid_identity(IDENTITY_SNO_PARTITION), id.sequence);
}

/*
 * Back-fill (spec §5.2): tick-tock 0, and a sequence that this server never
 * repeats within the unit (the spec's static sequence wraps silently); in a
 * unit the live generator may still use, a live ID (its tick-tock).
 */
PG_FUNCTION_INFO_V1(sno_new_at);
Datum
sno_new_at(PG_FUNCTION_ARGS)
{
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
	uint64		units = sno_units_from_timestamptz(ts);
	unsigned	meta = sno_meta_arg(fcinfo, 1);
	GeneratedId id = flakeid_generate_backfill(GEN_SNO, 0, units, units, ts);

	return sno_datum(units, id.ticktock, meta, flakeid_identity(IDENTITY_SNO_PARTITION), id.sequence);
}

PG_FUNCTION_INFO_V1(sno_from_parts);
Datum
sno_from_parts(PG_FUNCTION_ARGS)
{
	uint64		units = sno_units_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0));
	unsigned	meta = sno_meta_arg(fcinfo, 1);
	int32		partition = PG_GETARG_INT32(2);
	int32		sequence = PG_GETARG_INT32(3);
	int32		ticktock = PG_GETARG_INT32(4);

	flakeid_check_field(partition, SNO_MAX_PARTITION, "partition", "sno");
	flakeid_check_field(sequence, SNO_MAX_SEQUENCE, "sequence", "sno");
	flakeid_check_field(ticktock, 1, "tick-tock", "sno");
	return sno_datum(units, (unsigned) ticktock, meta, (unsigned) partition, (unsigned) sequence);
}

static SnoFields
sno_arg_fields(FunctionCallInfo fcinfo)
{
	SnoFields	fields;

	sno_unpack((const uint8 *) PG_GETARG_POINTER(0), &fields);
	return fields;
}

/*
 * The setval of sno_new (README, "Moving to flakeid and between servers"):
 * every later sno_new lies in a later unit than `id`, whatever its
 * partition; time comes first in the order.
 */
PG_FUNCTION_INFO_V1(sno_advance_past);
Datum
sno_advance_past(PG_FUNCTION_ARGS)
{
	SnoFields	id = sno_arg_fields(fcinfo);

	flakeid_advance_past(GEN_SNO, 0, sno_format.unit_start(id.units), id.units);
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

FIXED_FN(sno, meta, PG_RETURN_INT32((int32) sno_arg_fields(fcinfo).meta))
FIXED_FN(sno, partition, PG_RETURN_INT32((int32) sno_arg_fields(fcinfo).partition))
FIXED_FN(sno, sequence, PG_RETURN_INT32((int32) sno_arg_fields(fcinfo).sequence))
FIXED_FN(sno, ticktock, PG_RETURN_INT32((int32) sno_arg_fields(fcinfo).ticktock))

/* Smallest and largest IDs of the unit containing ts: bounds for range scans. */
FIXED_FN(sno, lower_bound, return sno_datum(sno_units_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0)), 0, 0, 0, 0))

PG_FUNCTION_INFO_V1(sno_upper_bound);
Datum
sno_upper_bound(PG_FUNCTION_ARGS)
{
	return sno_datum(sno_units_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0)), 1,
					 SNO_MAX_META, SNO_MAX_PARTITION, SNO_MAX_SEQUENCE);
}
