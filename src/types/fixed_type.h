/*
 * fixed_type.h — the generic fixed-width ID type layer
 *
 * Every flakeid type is "N big-endian bytes, compared with memcmp, written
 * as text through a FlakeTextLayout".  FLAKEID_FIXED_TYPE(prefix, format,
 * width) expands to all the SQL-callable support functions such a type
 * needs: text and binary I/O, bytea and uuid casts, comparisons, min/max
 * helpers, hashing, btree sortsupport with abbreviated keys, the time
 * extractor and the time-range operators (their planner support is in
 * time_range.c).  Everything per format comes from its pure-C description
 * (format/format.h); the SQL side is generated from
 * sql/source/fixed_type.sql.in with the same prefix.
 *
 * The helpers are static inline.  Comparisons and hashing take the width as
 * a compile-time constant (the format's own macro, which its description
 * also uses), so they compile to width-specialised code.
 */
#ifndef FLAKEID_FIXED_TYPE_H
#define FLAKEID_FIXED_TYPE_H

#include "common/hashfn.h"
#include "fmgr.h"
#include "lib/hyperloglog.h"
#include "libpq/pqformat.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/rangetypes.h"
#include "utils/sortsupport.h"
#include "utils/uuid.h"

#include "format/bytes.h"
#include "format/format.h"
#include "format/uuid8.h"
#include "types/glue.h"

#define FIXED_MAX_WIDTH 16

/* --- time ranges (time_range.c) --------------------------------------------- */
typedef struct FixedRangeIds
{
	bool		possible;		/* false: no ID has a time in the range */
	bool		has_first;		/* bounded below: IDs in the range are >= first */
	bool		has_last;		/* bounded above: IDs in the range are <= last */
	uint8		first[FIXED_MAX_WIDTH];
	uint8		last[FIXED_MAX_WIDTH];
} FixedRangeIds;

extern bool fixed_time_in_range(const FlakeFormat *info, FunctionCallInfo fcinfo,
								const uint8 *id, const RangeType *range);
extern Datum fixed_range_bound(const FlakeFormat *info, const RangeType *range, bool upper);
extern Datum fixed_range_support(const FlakeFormat *info, FunctionCallInfo fcinfo);

/* --- index and query shapes (index_support.c) ------------------------------- */
extern Datum fixed_time_distance(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_brin_distance(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_gist_compress(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_gist_fetch(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_gist_consistent(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_gist_distance(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_gist_union(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_gist_same(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_gist_penalty(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_gist_picksplit(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_gin_extract_value(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_gin_extract_query(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_gin_compare_partial(const FlakeFormat *info, FunctionCallInfo fcinfo);
extern Datum fixed_in_range(const FlakeFormat *info, FunctionCallInfo fcinfo);

/*
 * memcmp order a word at a time: big-endian loads compare like the bytes.
 * With the constant widths of the instantiations this unrolls into a few
 * loads and compares, much cheaper than a memcmp call in a sort.
 */
static inline int
fixed_cmp_bytes(const uint8 *a, const uint8 *b, int width)
{
	int			i = 0;

	for (; i + 8 <= width; i += 8)
	{
		uint64		x,
					y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return pg_ntoh64(x) < pg_ntoh64(y) ? -1 : 1;
	}
	for (; i + 4 <= width; i += 4)
	{
		uint32		x,
					y;

		memcpy(&x, a + i, 4);
		memcpy(&y, b + i, 4);
		if (x != y)
			return pg_ntoh32(x) < pg_ntoh32(y) ? -1 : 1;
	}
	for (; i < width; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static inline int
fixed_cmp(int width, Datum a, Datum b)
{
	return fixed_cmp_bytes((const uint8 *) DatumGetPointer(a), (const uint8 *) DatumGetPointer(b), width);
}

static inline Datum
fixed_in(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	const char *text = PG_GETARG_CSTRING(0);
	size_t		len = strlen(text);
	uint8	   *result = palloc(info->width);
	char		problem[320];

	if (info->parse ? info->parse(text, len, result) : flake_decode(info->text, text, len, result))
		PG_RETURN_POINTER(result);
	if (info->parse)
		strlcpy(problem, info->parse_shape, sizeof(problem));
	else
		flake_decode_problem(info->text, info->name, text, len, problem, sizeof(problem));
#if PG_VERSION_NUM >= 160000
	ereturn(fcinfo->context, (Datum) 0,
#else
	ereport(ERROR,
#endif
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%s\"", info->name, text),
			 errdetail("%s", problem)));
#if PG_VERSION_NUM < 160000
	PG_RETURN_NULL();			/* not reached */
#endif
}

static inline Datum
fixed_out(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	char	   *result = palloc(info->text->nchars + 1);

	flake_encode(info->text, (const uint8 *) PG_GETARG_POINTER(0), result);
	result[info->text->nchars] = '\0';
	PG_RETURN_CSTRING(result);
}

static inline void
fixed_check_length(const FlakeFormat *info, int length)
{
	if (length != info->width)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary length for type %s: %d bytes", info->name, length),
				 errdetail("A %s value is exactly %d bytes.", info->name, info->width)));
}

/*
 * The binary form is the ID's bytes.  A value exactly as long as the type's
 * canonical text is read as that text, strictly (the canonical alphabet and
 * length only, none of siq's other forms): drivers that copy in binary and
 * do not know the type (pgx's CopyFrom) send a string's bytes as its binary
 * value.  No type's text is as long as its bytes (sno 16/10, flax 16/12,
 * siq 23/14, kuid 11/8, kuid96 16/12; test_formats.c checks it), so the
 * two can never be mistaken for each other.
 */
static inline Datum
fixed_recv(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			length = buf->len - buf->cursor;

	if (length == info->text->nchars && length != info->width)
	{
		const char *text = pq_getmsgbytes(buf, length);
		uint8	   *result = palloc(info->width);
		char		problem[320];

		if (flake_decode(info->text, text, length, result))
			PG_RETURN_POINTER(result);
		flake_decode_problem(info->text, info->name, text, length, problem, sizeof(problem));
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary value for type %s: %d bytes that are not its text", info->name, length),
				 errdetail("A binary %s value is its %d bytes, or its %d-character canonical text. %s",
						   info->name, info->width, info->text->nchars, problem)));
	}
	if (length != info->width)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary length for type %s: %d bytes", info->name, length),
				 errdetail("A binary %s value is its %d bytes, or its %d-character canonical text.",
						   info->name, info->width, info->text->nchars)));
	return fixed_datum(info, (const uint8 *) pq_getmsgbytes(buf, info->width));
}

static inline Datum
fixed_send(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, PG_GETARG_POINTER(0), info->width);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

static inline Datum
fixed_to_bytea(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	bytea	   *result = palloc(VARHDRSZ + info->width);

	SET_VARSIZE(result, VARHDRSZ + info->width);
	memcpy(VARDATA(result), PG_GETARG_POINTER(0), info->width);
	PG_RETURN_BYTEA_P(result);
}

static inline Datum
fixed_from_bytea(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	bytea	   *input = PG_GETARG_BYTEA_PP(0);

	fixed_check_length(info, VARSIZE_ANY_EXHDR(input));
	return fixed_datum(info, (const uint8 *) VARDATA_ANY(input));
}

/* --- UUIDv8 casts (format/uuid8.h): order-preserving, refused unless ours -- */
static inline Datum
fixed_to_uuid(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	pg_uuid_t  *result = palloc(sizeof(pg_uuid_t));

	uuid8_from_id((const uint8 *) PG_GETARG_POINTER(0), info->width, info->uuid_tag, result->data);
	PG_RETURN_UUID_P(result);
}

static inline Datum
fixed_from_uuid(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	pg_uuid_t  *input = PG_GETARG_UUID_P(0);
	uint8	   *result = palloc(info->width);

	if (!uuid8_to_id(input->data, info->width, info->uuid_tag, result))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("uuid %s was not made from a %s",
						DatumGetCString(DirectFunctionCall1(uuid_out, UUIDPGetDatum(input))), info->name),
				 errdetail("Only the UUIDv8 values of the cast %s::uuid cast back to %s.", info->name, info->name)));
	PG_RETURN_POINTER(result);
}

#include "types/fixed_sort.h"

/* --- instantiation ---------------------------------------------------------- */

#define FIXED_CMP_FN(prefix, width, suffix, test) \
	FIXED_FN(prefix, suffix, \
			 PG_RETURN_BOOL(fixed_cmp(width, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) test))

/* the ID's time: the same code as the range support's (format/time_layout.h) */
static inline Datum
fixed_time(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	PG_RETURN_TIMESTAMPTZ(flakeid_timestamptz_from_unix_us(
		time_layout_time(info->time, (const uint8 *) PG_GETARG_POINTER(0))));
}

static inline Datum
fixed_fields(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	const uint8 *id = (const uint8 *) PG_GETARG_POINTER(0);

	return flakeid_fields_jsonb(info, id, flakeid_timestamptz_from_unix_us(time_layout_time(info->time, id)));
}

/* `width` is the format's width as a constant expression (SNO_SIZE, ...) */
#define FLAKEID_FIXED_TYPE(prefix, info, width) \
	FIXED_FN(prefix, in, return fixed_in(info, fcinfo)) \
	FIXED_FN(prefix, out, return fixed_out(info, fcinfo)) \
	FIXED_FN(prefix, recv, return fixed_recv(info, fcinfo)) \
	FIXED_FN(prefix, send, return fixed_send(info, fcinfo)) \
	FIXED_FN(prefix, to_bytea, return fixed_to_bytea(info, fcinfo)) \
	FIXED_FN(prefix, from_bytea, return fixed_from_bytea(info, fcinfo)) \
	FIXED_FN(prefix, to_uuid, return fixed_to_uuid(info, fcinfo)) \
	FIXED_FN(prefix, time, return fixed_time(info, fcinfo)) \
	FIXED_FN(prefix, fields, return fixed_fields(info, fcinfo)) \
	FIXED_FN(prefix, time_distance, return fixed_time_distance(info, fcinfo)) \
	FIXED_FN(prefix, brin_distance, return fixed_brin_distance(info, fcinfo)) \
	FIXED_FN(prefix, gist_compress, return fixed_gist_compress(info, fcinfo)) \
	FIXED_FN(prefix, gist_fetch, return fixed_gist_fetch(info, fcinfo)) \
	FIXED_FN(prefix, gist_consistent, return fixed_gist_consistent(info, fcinfo)) \
	FIXED_FN(prefix, gist_distance, return fixed_gist_distance(info, fcinfo)) \
	FIXED_FN(prefix, gist_union, return fixed_gist_union(info, fcinfo)) \
	FIXED_FN(prefix, gist_same, return fixed_gist_same(info, fcinfo)) \
	FIXED_FN(prefix, gist_penalty, return fixed_gist_penalty(info, fcinfo)) \
	FIXED_FN(prefix, gist_picksplit, return fixed_gist_picksplit(info, fcinfo)) \
	FIXED_FN(prefix, gin_extract_value, return fixed_gin_extract_value(info, fcinfo)) \
	FIXED_FN(prefix, gin_extract_query, return fixed_gin_extract_query(info, fcinfo)) \
	FIXED_FN(prefix, gin_compare_partial, return fixed_gin_compare_partial(info, fcinfo)) \
	FIXED_FN(prefix, window_in_range, return fixed_in_range(info, fcinfo)) \
	FIXED_SKIP_SUPPORT(prefix, info, width) \
	FIXED_FN(prefix, time_in, \
			 PG_RETURN_BOOL(fixed_time_in_range(info, fcinfo, (const uint8 *) PG_GETARG_POINTER(0), \
												PG_GETARG_RANGE_P(1)))) \
	FIXED_FN(prefix, range_contains, \
			 PG_RETURN_BOOL(fixed_time_in_range(info, fcinfo, (const uint8 *) PG_GETARG_POINTER(1), \
												PG_GETARG_RANGE_P(0)))) \
	FIXED_FN(prefix, range_lower_bound, return fixed_range_bound(info, PG_GETARG_RANGE_P(0), false)) \
	FIXED_FN(prefix, range_upper_bound, return fixed_range_bound(info, PG_GETARG_RANGE_P(0), true)) \
	FIXED_FN(prefix, range_support, return fixed_range_support(info, fcinfo)) \
	FIXED_FN(prefix, from_uuid, return fixed_from_uuid(info, fcinfo)) \
	FIXED_CMP_FN(prefix, width, eq, == 0) \
	FIXED_CMP_FN(prefix, width, ne, != 0) \
	FIXED_CMP_FN(prefix, width, lt, < 0) \
	FIXED_CMP_FN(prefix, width, le, <= 0) \
	FIXED_CMP_FN(prefix, width, gt, > 0) \
	FIXED_CMP_FN(prefix, width, ge, >= 0) \
	FIXED_FN(prefix, cmp, \
			 int			c = fixed_cmp(width, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)); \
			 PG_RETURN_INT32((c > 0) - (c < 0))) \
	FIXED_FN(prefix, smaller, \
			 return fixed_cmp(width, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) <= 0 \
				 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1)) \
	FIXED_FN(prefix, larger, \
			 return fixed_cmp(width, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) >= 0 \
				 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1)) \
	FIXED_FN(prefix, hash, \
			 return hash_any((const unsigned char *) PG_GETARG_POINTER(0), width)) \
	FIXED_FN(prefix, hash_extended, \
			 return hash_any_extended((const unsigned char *) PG_GETARG_POINTER(0), \
									  width, PG_GETARG_INT64(1))) \
	static int prefix##_sort_cmp(Datum a, Datum b, SortSupport ssup pg_attribute_unused()) \
	{ \
		return fixed_cmp(width, a, b); \
	} \
	static Datum prefix##_abbrev_convert(Datum original, SortSupport ssup) \
	{ \
		return fixed_abbrev_convert(info, original, ssup); \
	} \
	FIXED_FN(prefix, sortsupport, \
			 return fixed_sortsupport(info, fcinfo, prefix##_sort_cmp, prefix##_abbrev_convert))

#endif
