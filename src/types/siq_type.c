/*
 * siq_type.c — the siq type (docs/spec/siq-and-snowflake.md Part A): 14 bytes, text as
 * a 23-digit Crockford numeral; input also takes shorter numerals and the
 * DID form.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "utils/timestamp.h"

#include "types/fixed_type.h"

FLAKEID_FIXED_TYPE(siq, &siq_format, SIQ_SIZE)

static uint64
siq_t56_from_timestamptz(TimestampTz ts)
{
	uint64		t56;

	if (!siq_t56_from_unix_us(flakeid_unix_us_from_timestamptz(ts, "siq"), &t56))
		flakeid_time_out_of_range(&siq_format);
	return t56;
}

static int
siq_kind_arg(text *kind)
{
	int			index = siq_kind_lookup(VARDATA_ANY(kind), VARSIZE_ANY_EXHDR(kind));

	if (index < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown siq kind \"%s\"", text_to_cstring(kind)),
				 errhint("Kinds are ternary, multi, manytomany, content, thread, message, user, tag, group, event, channel, invite, application, collection and premium.")));
	return index;
}

static uint32
siq_domain_hash_of(const char *domain, size_t len)
{
	uint32		hash;

	if (!siq_hash_domain(domain, len, &hash))
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("siq domain \"%s\" is not ASCII", pnstrdup(domain, len)),
				 errdetail("A siq domain is hashed as ASCII text.")));
	return hash;
}

static Datum
siq_fields_datum(SiqFields fields)
{
	uint8		bytes[SIQ_SIZE];

	siq_pack(&fields, bytes);
	return fixed_datum(&siq_format, bytes);
}

static Datum
siq_datum(uint64 t56, unsigned shard, uint32 domain, int kind, unsigned serial)
{
	return siq_fields_datum((SiqFields) {t56, shard, domain, siq_low_word(siq_kinds[kind].value, serial)});
}

/*
 * The horizon of siq_new, every kind: the smallest ID of the horizon unit
 * (README, "Reading by ID: the horizon"), of any shard and domain (as
 * sno_horizon: a promoted standby's unit may be held by its primary's
 * prepared transactions, whose IDs carry the primary's).
 */
PG_FUNCTION_INFO_V1(siq_horizon);
Datum
siq_horizon(PG_FUNCTION_ARGS)
{
	uint64		unit = flakeid_horizon_unit(GEN_SIQ);

	return siq_fields_datum((SiqFields) {siq_t56_from_unit(unit), 0, 0, 0});
}

PG_FUNCTION_INFO_V1(siq_new);
Datum
siq_new(PG_FUNCTION_ARGS)
{
	int			kind = siq_kind_arg(PG_GETARG_TEXT_PP(0));
	GeneratedId id = flakeid_generate(GEN_SIQ, kind);

	return siq_datum(siq_t56_from_unit(id.unit), flakeid_identity(IDENTITY_SIQ_SHARD),
					 flakeid_siq_domain_hash(), kind, id.sequence);
}

PG_FUNCTION_INFO_V1(siq_new_at);
Datum
siq_new_at(PG_FUNCTION_ARGS)
{
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
	uint64		t56 = siq_t56_from_timestamptz(ts);
	int			kind = siq_kind_arg(PG_GETARG_TEXT_PP(1));
	/* the live generator's units start at SIQ_UNIT_BASE_T56: an earlier tick is always past */
	uint64		live_unit = t56 >= SIQ_UNIT_BASE_T56 ? t56 - SIQ_UNIT_BASE_T56 : 0;
	GeneratedId id = flakeid_generate_backfill(GEN_SIQ, kind, t56, live_unit, ts);

	return siq_datum(t56, flakeid_identity(IDENTITY_SIQ_SHARD), flakeid_siq_domain_hash(), kind, id.sequence);
}

/*
 * The setval of siq_new for `id`'s kind (README, "Moving to flakeid and
 * between servers"): every later ID of that kind lies in a later tick.  An
 * ID before the generator's first unit (2020) is passed already.
 */
PG_FUNCTION_INFO_V1(siq_advance_past);
Datum
siq_advance_past(PG_FUNCTION_ARGS)
{
	SiqFields	id;
	unsigned	serial;
	unsigned	value;
	int			kind;

	siq_unpack((const uint8 *) PG_GETARG_POINTER(0), &id);
	value = siq_low_kind_value(id.low, &serial);
	kind = siq_kind_index(value);
	/* the named kinds come first in siq_kinds; the rest have no generator */
	if (kind < 0 || kind >= SIQ_NAMED_KINDS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no siq generator issues the kind of this ID (qualifier value %u)", value),
				 errhint("siq_new() issues the kinds ternary, multi, manytomany, content, thread, message, user, tag, group, event, channel, invite, application, collection and premium.")));
	flakeid_advance_past(GEN_SIQ, kind, siq_unix_us_ceil_from_t56(id.t56),
						 id.t56 >= SIQ_UNIT_BASE_T56 ? id.t56 - SIQ_UNIT_BASE_T56 : 0);
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

PG_FUNCTION_INFO_V1(siq_from_parts);
Datum
siq_from_parts(PG_FUNCTION_ARGS)
{
	uint64		t56 = siq_t56_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0));
	int32		shard = PG_GETARG_INT32(1);
	int64		domain = PG_GETARG_INT64(2);
	int			kind = siq_kind_arg(PG_GETARG_TEXT_PP(3));
	int32		serial = PG_GETARG_INT32(4);

	flakeid_check_field(shard, SIQ_MAX_SHARD, "shard", "siq");
	flakeid_check_field(domain, PG_UINT32_MAX, "domain", "siq");
	flakeid_check_field(serial, siq_kind_serial_max(siq_kinds[kind].value), "serial", "siq");
	return siq_datum(t56, (unsigned) shard, (uint32) domain, kind, (unsigned) serial);
}

static SiqFields
siq_arg_fields(FunctionCallInfo fcinfo)
{
	SiqFields	fields;

	siq_unpack((const uint8 *) PG_GETARG_POINTER(0), &fields);
	return fields;
}

FIXED_FN(siq, shard, PG_RETURN_INT32((int32) siq_arg_fields(fcinfo).shard))
FIXED_FN(siq, domain, PG_RETURN_INT64((int64) siq_arg_fields(fcinfo).domain))

PG_FUNCTION_INFO_V1(siq_kind);
Datum
siq_kind(PG_FUNCTION_ARGS)
{
	unsigned	serial;
	const char *name = siq_kind_name(siq_low_kind_value(siq_arg_fields(fcinfo).low, &serial));

	if (name == NULL)
		PG_RETURN_NULL();		/* one of the three unassigned qualifiers */
	PG_RETURN_TEXT_P(cstring_to_text(name));
}

PG_FUNCTION_INFO_V1(siq_serial);
Datum
siq_serial(PG_FUNCTION_ARGS)
{
	unsigned	serial;

	(void) siq_low_kind_value(siq_arg_fields(fcinfo).low, &serial);
	PG_RETURN_INT32((int32) serial);
}

PG_FUNCTION_INFO_V1(siq_did);
Datum
siq_did(PG_FUNCTION_ARGS)
{
	char		did[SIQ_DID_LEN];

	siq_format_did((const uint8 *) PG_GETARG_POINTER(0), did);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(did, SIQ_DID_LEN));
}

PG_FUNCTION_INFO_V1(siq_domain_hash);
Datum
siq_domain_hash(PG_FUNCTION_ARGS)
{
	text	   *domain = PG_GETARG_TEXT_PP(0);
	uint32		hash = siq_domain_hash_of(VARDATA_ANY(domain), VARSIZE_ANY_EXHDR(domain));

	if (PG_NARGS() > 1)
	{
		int32		local_id = PG_GETARG_INT32(1);

		/* checked always, though the hash 0 ('' and '0') takes no local id (spec A4) */
		flakeid_check_field(local_id, 255, "local id", "siq");
		if (hash != 0)			/* a local id replaces the hash's top byte */
			hash = (hash & 0x00FFFFFF) | ((uint32) local_id << 24);
	}
	PG_RETURN_INT64((int64) hash);
}

/* --- the library's text forms (spec A7) ----------------------------------- */

/* what each form looks like, for the errors of siq_parse */
static const char *const form_shapes[SIQ_FORM_COUNT] = {
	[SIQ_FORM_DEC] = "The dec form is a decimal numeral of 1 to 34 digits without leading zeros, below 2^112.",
	[SIQ_FORM_HEX] = "The hex form is 1 to 28 hexadecimal digits without leading zeros.",
	[SIQ_FORM_OCT] = "The oct form is 1 to 38 octal digits without leading zeros, below 2^112.",
	[SIQ_FORM_BASE64] = "The base64 form is 20 characters of URL-safe base64 (A-Z a-z 0-9 - _): \"A\", then one of A to P, then 18 more.",
	[SIQ_FORM_CB32] = "The cb32 form is a Crockford base32 numeral of at most 23 characters without leading zeros, below 2^112; zero is the empty string.",
	[SIQ_FORM_0C] = "The 0c form is \"0\" followed by the cb32 form.",
	[SIQ_FORM_B32L] = "The b32l form is 24 characters of RFC 4648 base32 (a-z 2-7): \"a\", then one of a to d, then 22 more.",
	[SIQ_FORM_U] = "The u form is 29 characters of RFC 4648 base32 (a-z 2-7) holding a CRC-32 and the 14 bytes.",
	[SIQ_FORM_DID] = "The did form is \"did:siq:\" followed by the u form.",
};

static SiqForm
siq_form_arg(text *form)
{
	int			found = siq_form_lookup(VARDATA_ANY(form), VARSIZE_ANY_EXHDR(form));

	if (found < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown siq form \"%s\"", text_to_cstring(form)),
				 errhint("Forms are dec, hex, oct, base64, cb32, 0c, b32l, u and did.")));
	return (SiqForm) found;
}

/* SQL siq_format(siq, form) */
PG_FUNCTION_INFO_V1(siq_to_form);
Datum
siq_to_form(PG_FUNCTION_ARGS)
{
	SiqForm		form = siq_form_arg(PG_GETARG_TEXT_PP(1));
	char		out[SIQ_FORM_MAX_LEN];
	size_t		len = siq_format_form((const uint8 *) PG_GETARG_POINTER(0), form, out);

	PG_RETURN_TEXT_P(cstring_to_text_with_len(out, (int) len));
}

/* SQL siq_parse(text, form) */
PG_FUNCTION_INFO_V1(siq_from_form);
Datum
siq_from_form(PG_FUNCTION_ARGS)
{
	text	   *input = PG_GETARG_TEXT_PP(0);
	SiqForm		form = siq_form_arg(PG_GETARG_TEXT_PP(1));
	uint8		bytes[SIQ_SIZE];

	if (!siq_parse_form(VARDATA_ANY(input), VARSIZE_ANY_EXHDR(input), form, bytes))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for siq form %s: \"%s\"", siq_form_names[form], text_to_cstring(input)),
				 errdetail("%s", form_shapes[form])));
	return fixed_datum(&siq_format, bytes);
}

/*
 * The library's SnowflakeSiqMigrator (spec B5), the epoch an instant: the
 * same snowflake, domain, kind and epoch always give the same siq, and two
 * snowflakes never give one.
 */
PG_FUNCTION_INFO_V1(siq_from_snowflake);
Datum
siq_from_snowflake(PG_FUNCTION_ARGS)
{
	uint64		snowflake = (uint64) PG_GETARG_INT64(0);	/* all 64 bits, unsigned, as the extractors read */
	text	   *domain = PG_GETARG_TEXT_PP(1);
	int			kind = siq_kind_arg(PG_GETARG_TEXT_PP(2));
	int64		epoch_us = flakeid_unix_us_from_timestamptz(PG_GETARG_TIMESTAMPTZ(3), "siq");
	uint32		hash = siq_domain_hash_of(VARDATA_ANY(domain), VARSIZE_ANY_EXHDR(domain));
	SiqFields	fields;

	if (!siq_from_snowflake_fields(snowflake, epoch_us, hash, siq_kinds[kind].value, &fields))
		flakeid_time_out_of_range(&siq_format);
	return siq_fields_datum(fields);
}

/* The smallest or largest siq of the tick containing a time. */
static Datum
siq_bound(TimestampTz ts, unsigned shard, uint32 domain, unsigned low)
{
	return siq_fields_datum((SiqFields) {siq_t56_from_timestamptz(ts), shard, domain, low});
}

FIXED_FN(siq, lower_bound, return siq_bound(PG_GETARG_TIMESTAMPTZ(0), 0, 0, 0))
FIXED_FN(siq, upper_bound, return siq_bound(PG_GETARG_TIMESTAMPTZ(0), SIQ_MAX_SHARD, PG_UINT32_MAX, 0xFFFF))
