/*
 * kuid_type.c — the kuid and kuid96 types (docs/spec/kuid.md): the Erlang uid
 * library's 64-bit local and 96-bit global ids, interval I = 8
 */
#include "postgres.h"

#include "access/xlog.h"
#include "utils/timestamp.h"

#include "format/kuid.h"
#include "types/fixed_type.h"

FLAKEID_FIXED_TYPE(kuid, &kuid_format, KUID_SIZE)
FLAKEID_FIXED_TYPE(kuid96, &kuid96_format, KUID96_SIZE)

static KuidFields
kuid_fields_from_timestamptz(TimestampTz ts, const FlakeFormat *format)
{
	KuidFields	fields;

	if (!kuid_fields_from_unix_us(flakeid_unix_us_from_timestamptz(ts, format->name), &fields))
		flakeid_time_out_of_range(format);
	return fields;
}

static Datum
kuid_datum(KuidFields fields)
{
	uint8		bytes[KUID_SIZE];

	kuid_pack(&fields, bytes);
	return fixed_datum(&kuid_format, bytes);
}

static Datum
kuid96_datum(KuidFields fields, uint32 node)
{
	uint8		bytes[KUID96_SIZE];

	kuid96_pack(&fields, node, bytes);
	return fixed_datum(&kuid96_format, bytes);
}

static KuidFields
kuid_arg(FunctionCallInfo fcinfo)
{
	KuidFields	fields;

	kuid_unpack((const uint8 *) PG_GETARG_POINTER(0), &fields);
	return fields;
}

static KuidFields
kuid96_arg(FunctionCallInfo fcinfo, uint32 *node)
{
	KuidFields	fields;

	kuid96_unpack((const uint8 *) PG_GETARG_POINTER(0), &fields, node);
	return fields;
}

/* the fields of a (unit, sequence) of the generator both types share */
static KuidFields
kuid_fields_of(uint64 unit, uint32 sequence)
{
	KuidFields	fields;

	kuid_fields_from_unit(unit, &fields);
	fields.seq = sequence;
	return fields;
}

/* the next (tick, sequence) of that generator */
static KuidFields
kuid_next_fields(void)
{
	GeneratedId id = flakeid_generate(GEN_KUID, 0);

	return kuid_fields_of(id.unit, id.sequence);
}

static KuidFields
kuid_backfill_fields(TimestampTz ts, const FlakeFormat *format)
{
	KuidFields	fields = kuid_fields_from_timestamptz(ts, format);

	/* kuid and kuid96 share one pool per unit, as their live generator does */
	uint64		unit = kuid_unit_from_fields(&fields);

	fields.seq = flakeid_generate_backfill(GEN_KUID, 0, unit, unit, ts).sequence;
	return fields;
}

/*
 * Even with flakeid.generate_on_standby: kuid IDs carry no node, so nothing
 * would tell a standby's from its primary's.
 */
static void
refuse_kuid_during_recovery(void)
{
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot generate kuid IDs during recovery"),
				 errdetail("kuid IDs carry no node, so a standby's would repeat its primary's."),
				 errhint("Generate kuid IDs on the primary, or kuid96 IDs with a flakeid.kuid_node of this standby's own.")));
	/* (and on a promoted server, for the same reason, while its upstream may still run) */
	generator_refuse_plain_kuid_promoted();
}

/*
 * The horizons of kuid_new and kuid96_new, which share one counter: the
 * smallest ID of the horizon unit (README, "Reading by ID: the horizon").
 * kuid96 IDs order by the 256-second window before the node, so its
 * horizon carries this server's node: every ID this server issues after it
 * follows it in the window.  (Node 0 would put it below this server's
 * earlier IDs of the window, up to 256 s back.  So a promoted standby's
 * horizon can pass IDs its primary left prepared in the held window when
 * the primary's node sorts below its own: sno, siq and snowflake, whose
 * identity follows the unit, give the unit's smallest ID of any identity.)
 */
static KuidFields
kuid_horizon_fields(void)
{
	return kuid_fields_of(flakeid_horizon_unit(GEN_KUID), 0);
}

FIXED_FN(kuid, horizon, return kuid_datum(kuid_horizon_fields()))

PG_FUNCTION_INFO_V1(kuid96_horizon);
Datum
kuid96_horizon(PG_FUNCTION_ARGS)
{
	uint8		bytes[KUID96_SIZE];
	KuidFields	fields = kuid_horizon_fields();

	kuid96_pack(&fields, flakeid_identity(IDENTITY_KUID_NODE), bytes);
	return fixed_datum(&kuid96_format, bytes);
}

PG_FUNCTION_INFO_V1(kuid_new);
Datum
kuid_new(PG_FUNCTION_ARGS)
{
	refuse_kuid_during_recovery();
	return kuid_datum(kuid_next_fields());
}

void
flakeid_kuid96_next(uint8 *out)
{
	uint32		node = flakeid_identity(IDENTITY_KUID_NODE);	/* refuses on a standby before anything is issued */
	KuidFields	fields = kuid_next_fields();

	kuid96_pack(&fields, node, out);
}

PG_FUNCTION_INFO_V1(kuid96_new);
Datum
kuid96_new(PG_FUNCTION_ARGS)
{
	uint8		bytes[KUID96_SIZE];

	flakeid_kuid96_next(bytes);
	return fixed_datum(&kuid96_format, bytes);
}

PG_FUNCTION_INFO_V1(kuid_new_at);
Datum
kuid_new_at(PG_FUNCTION_ARGS)
{
	refuse_kuid_during_recovery();
	return kuid_datum(kuid_backfill_fields(PG_GETARG_TIMESTAMPTZ(0), &kuid_format));
}

PG_FUNCTION_INFO_V1(kuid96_new_at);
Datum
kuid96_new_at(PG_FUNCTION_ARGS)
{
	uint32		node = flakeid_identity(IDENTITY_KUID_NODE);

	return kuid96_datum(kuid_backfill_fields(PG_GETARG_TIMESTAMPTZ(0), &kuid96_format), node);
}

/*
 * The setval of kuid_new and kuid96_new, which share one counter (README,
 * "Moving to flakeid and between servers"): every later ID of either lies
 * in a later tick than the bound of `id` (format/kuid.h).
 */
PG_FUNCTION_INFO_V1(kuid_advance_past);
Datum
kuid_advance_past(PG_FUNCTION_ARGS)
{
	KuidFields	id = kuid_arg(fcinfo);

	flakeid_advance_past(GEN_KUID, 0, kuid_unix_us_from_fields(&id), kuid_unit_bound(&id));
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

PG_FUNCTION_INFO_V1(kuid96_advance_past);
Datum
kuid96_advance_past(PG_FUNCTION_ARGS)
{
	uint32		node;
	KuidFields	id = kuid96_arg(fcinfo, &node);

	flakeid_advance_past(GEN_KUID, 0, kuid_unix_us_from_fields(&id),
						 kuid96_unit_bound(&id, node, flakeid_identity(IDENTITY_KUID_NODE)));
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

FIXED_FN(kuid, seq, PG_RETURN_INT32((int32) kuid_arg(fcinfo).seq))

PG_FUNCTION_INFO_V1(kuid96_seq);
Datum
kuid96_seq(PG_FUNCTION_ARGS)
{
	uint32		node;

	PG_RETURN_INT32((int32) kuid96_arg(fcinfo, &node).seq);
}

PG_FUNCTION_INFO_V1(kuid96_node);
Datum
kuid96_node(PG_FUNCTION_ARGS)
{
	uint32		node;

	(void) kuid96_arg(fcinfo, &node);
	PG_RETURN_INT64((int64) node);
}

/*
 * This server's node, for a conversion: flakeid.kuid_node or the derived
 * one, both of which need the preload (the setting exists only then).
 */
static uint32
this_server_node(const char *function)
{
	if (!shmem_loaded())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s needs this server's node", function),
				 errdetail("This server's node (flakeid.kuid_node, or the one derived from the server) is known only when flakeid is preloaded."),
				 errhint(FLAKEID_PRELOAD_HINT)));
	return flakeid_identity(IDENTITY_KUID_NODE);
}

/* kuid96(kuid): this server's node (STABLE); kuid96(kuid, node): the given one */
PG_FUNCTION_INFO_V1(kuid96_from_kuid);
Datum
kuid96_from_kuid(PG_FUNCTION_ARGS)
{
	uint32		node;

	if (PG_NARGS() > 1)
	{
		int64		given = PG_GETARG_INT64(1);

		flakeid_check_field(given, PG_UINT32_MAX, "node", "kuid96");
		node = (uint32) given;
	}
	else
		node = this_server_node("kuid96(kuid)");
	return kuid96_datum(kuid_arg(fcinfo), node);
}

/* the library's gtol: drop the node, keep time and sequence */
PG_FUNCTION_INFO_V1(kuid_from_kuid96);
Datum
kuid_from_kuid96(PG_FUNCTION_ARGS)
{
	uint32		node;

	return kuid_datum(kuid96_arg(fcinfo, &node));
}

/*
 * The library's checked l(Id): a kuid96 of this server's node becomes a
 * kuid; another node's is refused, since its kuid could repeat one of ours.
 */
PG_FUNCTION_INFO_V1(kuid96_local);
Datum
kuid96_local(PG_FUNCTION_ARGS)
{
	uint32		node;
	KuidFields	fields = kuid96_arg(fcinfo, &node);
	uint32		ours = this_server_node("kuid96_local()");

	if (node != ours)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("kuid96 of node %u is not of this server's node %u", node, ours),
				 errdetail("kuid96_local() converts only this server's IDs, as the library's l/1 does."),
				 errhint("kuid(kuid96) drops any node, without the check.")));
	return kuid_datum(fields);
}

/* The library's encode/2 and decode/2 for a neighbourhood interval other than the type's 8. */
static int
interval_arg(FunctionCallInfo fcinfo, int argno)
{
	int32		interval = PG_GETARG_INT32(argno);

	if (interval < KUID_INTERVAL_MIN || interval > KUID_INTERVAL_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("interval %d is out of range for kuid96", interval),
				 errdetail("The uid library's neighbourhood interval runs from %d to %d; kuid96 itself uses %d.",
						   KUID_INTERVAL_MIN, KUID_INTERVAL_MAX, KUID_INTERVAL)));
	return interval;
}

PG_FUNCTION_INFO_V1(kuid96_encode);
Datum
kuid96_encode(PG_FUNCTION_ARGS)
{
	int			interval = interval_arg(fcinfo, 1);
	uint32		node;
	KuidFields	fields = kuid96_arg(fcinfo, &node);
	bytea	   *result = palloc(VARHDRSZ + KUID96_SIZE);

	SET_VARSIZE(result, VARHDRSZ + KUID96_SIZE);
	kuid96_pack_interval(&fields, node, interval, (uint8 *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

PG_FUNCTION_INFO_V1(kuid96_decode);
Datum
kuid96_decode(PG_FUNCTION_ARGS)
{
	bytea	   *input = PG_GETARG_BYTEA_PP(0);
	int			interval = interval_arg(fcinfo, 1);
	KuidFields	fields;
	uint32		node;

	if (VARSIZE_ANY_EXHDR(input) != KUID96_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary length for type kuid96: %d bytes", (int) VARSIZE_ANY_EXHDR(input)),
				 errdetail("A kuid96 value is exactly %d bytes.", KUID96_SIZE)));
	kuid96_unpack_interval((const uint8 *) VARDATA_ANY(input), interval, &fields, &node);
	return kuid96_datum(fields, node);
}

PG_FUNCTION_INFO_V1(kuid_node_hash);
Datum
kuid_node_hash(PG_FUNCTION_ARGS)
{
	text	   *name = PG_GETARG_TEXT_PP(0);

	PG_RETURN_INT64((int64) kuid_node_fingerprint(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name)));
}

/* The smallest or largest kuid of the tick containing a time. */
FIXED_FN(kuid, lower_bound,
		 return kuid_datum(kuid_fields_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0), &kuid_format)))

PG_FUNCTION_INFO_V1(kuid_upper_bound);
Datum
kuid_upper_bound(PG_FUNCTION_ARGS)
{
	KuidFields	fields = kuid_fields_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0), &kuid_format);

	fields.seq = KUID_SEQ_MAX;
	return kuid_datum(fields);
}

/*
 * kuid96 sorts by (Mega, Sec >> 8) before the node (spec §4), so its bounds
 * are those of the whole 256-second window: every field after the window
 * index is all zeros or all ones.
 */
static Datum
kuid96_window_bound(TimestampTz ts, bool upper)
{
	KuidFields	fields = kuid_fields_from_timestamptz(ts, &kuid96_format);
	uint32		low_sec_mask = (1u << KUID_INTERVAL) - 1;

	fields.sec = upper ? fields.sec | low_sec_mask : fields.sec & ~low_sec_mask;
	fields.tick = upper ? KUID_TICK_MAX : 0;
	fields.seq = upper ? KUID_SEQ_MAX : 0;
	return kuid96_datum(fields, upper ? PG_UINT32_MAX : 0);
}

FIXED_FN(kuid96, lower_bound, return kuid96_window_bound(PG_GETARG_TIMESTAMPTZ(0), false))
FIXED_FN(kuid96, upper_bound, return kuid96_window_bound(PG_GETARG_TIMESTAMPTZ(0), true))
