/*
 * fixed_type.h — the generic fixed-width ID type layer
 *
 * Every flakeid type is "N big-endian bytes, compared with memcmp, written
 * as text through a FlakeTextLayout".  FLAKEID_FIXED_TYPE(prefix, info)
 * expands to all the SQL-callable support functions such a type needs:
 * text and binary I/O, bytea casts, comparisons, min/max helpers, hashing,
 * and btree sortsupport with abbreviated keys.  The SQL side is generated
 * from sql/ext_fixed_type.sql.in with the same prefix.
 *
 * The helpers are static inline and take a compile-time constant
 * FixedTypeInfo, so each instantiation compiles to width-specialised code.
 */
#ifndef FLAKEID_FIXED_TYPE_H
#define FLAKEID_FIXED_TYPE_H

#include "postgres.h"

#include "common/hashfn.h"
#include "fmgr.h"
#include "lib/hyperloglog.h"
#include "libpq/pqformat.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/sortsupport.h"

#include "format/codec.h"

typedef struct FixedTypeInfo
{
	const char *name;			/* SQL type name, for messages */
	int			width;			/* bytes */
	const FlakeTextLayout *text;	/* canonical output (and input, unless parse is set) */
	bool		(*parse) (const char *in, size_t len, uint8_t *out);	/* wider input */
} FixedTypeInfo;

/* Makes a palloc'd copy of an ID; the result is a by-reference Datum. */
static inline Datum
fixed_datum(const FixedTypeInfo *info, const uint8 *bytes)
{
	uint8	   *result = palloc(info->width);

	memcpy(result, bytes, info->width);
	return PointerGetDatum(result);
}

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
fixed_cmp(const FixedTypeInfo *info, Datum a, Datum b)
{
	return fixed_cmp_bytes((const uint8 *) DatumGetPointer(a), (const uint8 *) DatumGetPointer(b), info->width);
}

static inline Datum
fixed_in(const FixedTypeInfo *info, FunctionCallInfo fcinfo)
{
	const char *text = PG_GETARG_CSTRING(0);
	uint8	   *result = palloc(info->width);

	if (!(info->parse ? info->parse(text, strlen(text), result)
		  : flake_decode(info->text, text, strlen(text), result)))
#if PG_VERSION_NUM >= 160000
		ereturn(fcinfo->context, (Datum) 0,
#else
		ereport(ERROR,
#endif
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"", info->name, text)));
	PG_RETURN_POINTER(result);
}

static inline Datum
fixed_out(const FixedTypeInfo *info, FunctionCallInfo fcinfo)
{
	char	   *result = palloc(info->text->nchars + 1);

	flake_encode(info->text, (const uint8 *) PG_GETARG_POINTER(0), result);
	result[info->text->nchars] = '\0';
	PG_RETURN_CSTRING(result);
}

static inline void
fixed_check_length(const FixedTypeInfo *info, int length)
{
	if (length != info->width)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary length for type %s: %d bytes", info->name, length),
				 errdetail("A %s value is exactly %d bytes.", info->name, info->width)));
}

static inline Datum
fixed_recv(const FixedTypeInfo *info, FunctionCallInfo fcinfo)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);

	fixed_check_length(info, buf->len - buf->cursor);
	return fixed_datum(info, (const uint8 *) pq_getmsgbytes(buf, info->width));
}

static inline Datum
fixed_send(const FixedTypeInfo *info, FunctionCallInfo fcinfo)
{
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, PG_GETARG_POINTER(0), info->width);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

static inline Datum
fixed_to_bytea(const FixedTypeInfo *info, FunctionCallInfo fcinfo)
{
	bytea	   *result = palloc(VARHDRSZ + info->width);

	SET_VARSIZE(result, VARHDRSZ + info->width);
	memcpy(VARDATA(result), PG_GETARG_POINTER(0), info->width);
	PG_RETURN_BYTEA_P(result);
}

static inline Datum
fixed_from_bytea(const FixedTypeInfo *info, FunctionCallInfo fcinfo)
{
	bytea	   *input = PG_GETARG_BYTEA_PP(0);

	fixed_check_length(info, VARSIZE_ANY_EXHDR(input));
	return fixed_datum(info, (const uint8 *) VARDATA_ANY(input));
}

/* --- sortsupport ------------------------------------------------------------
 * As core's uuid: the abbreviated key is the first sizeof(Datum) bytes read
 * big-endian, so unsigned comparison of keys agrees with memcmp; abbreviation
 * is abandoned when HyperLogLog says those bytes barely vary (IDs minted in
 * the same unit share their leading time bytes).
 */
typedef struct FixedSortState
{
	const FixedTypeInfo *info;
	int64		input_count;
	bool		estimating;
	hyperLogLogState abbr_card;
} FixedSortState;


static inline Datum
fixed_abbrev_convert(Datum original, SortSupport ssup)
{
	FixedSortState *state = (FixedSortState *) ssup->ssup_extra;
	Datum		key = 0;

	memcpy(&key, DatumGetPointer(original), Min(sizeof(Datum), (size_t) state->info->width));
	if (state->estimating)
	{
		uint32		hash;

		state->input_count++;
#if SIZEOF_DATUM == 8
		hash = DatumGetUInt32(hash_uint32((uint32) key ^ (uint32) (key >> 32)));
#else
		hash = DatumGetUInt32(hash_uint32((uint32) key));
#endif
		addHyperLogLog(&state->abbr_card, hash);
	}
	return DatumBigEndianToNative(key);
}

static inline bool
fixed_abbrev_abort(int memtupcount, SortSupport ssup)
{
	FixedSortState *state = (FixedSortState *) ssup->ssup_extra;
	double		cardinality;

	if (memtupcount < 10000 || state->input_count < 10000 || !state->estimating)
		return false;
	cardinality = estimateHyperLogLog(&state->abbr_card);
	/* same threshold as uuid: keep going while keys are still mostly distinct */
	if (cardinality > (double) state->input_count / 2000.0 + 1.0)
		return false;
	state->estimating = false;
	return true;
}

#if PG_VERSION_NUM < 150000
static inline int
fixed_abbrev_cmp(Datum a, Datum b, SortSupport ssup pg_attribute_unused())
{
	return a < b ? -1 : (a > b ? 1 : 0);
}
#endif

/* full_cmp: the type's own comparator (fixed_cmp at its constant width) */
static inline Datum
fixed_sortsupport(const FixedTypeInfo *info, FunctionCallInfo fcinfo,
				  int (*full_cmp) (Datum, Datum, SortSupport))
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);
	FixedSortState *state;
	MemoryContext old = MemoryContextSwitchTo(ssup->ssup_cxt);

	state = palloc0(sizeof(FixedSortState));
	state->info = info;
	ssup->ssup_extra = state;
	ssup->comparator = full_cmp;
	if (ssup->abbreviate)
	{
		state->estimating = true;
		initHyperLogLog(&state->abbr_card, 10);
		ssup->abbrev_full_comparator = full_cmp;
		ssup->abbrev_converter = fixed_abbrev_convert;
		ssup->abbrev_abort = fixed_abbrev_abort;
#if PG_VERSION_NUM >= 150000
		ssup->comparator = ssup_datum_unsigned_cmp;
#else
		ssup->comparator = fixed_abbrev_cmp;
#endif
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_VOID();
}

/* --- instantiation ---------------------------------------------------------- */

#define FIXED_FN(prefix, suffix, body) \
	PG_FUNCTION_INFO_V1(prefix##_##suffix); \
	Datum prefix##_##suffix(PG_FUNCTION_ARGS) { body; }

#define FIXED_CMP_FN(prefix, info, suffix, test) \
	FIXED_FN(prefix, suffix, \
			 PG_RETURN_BOOL(fixed_cmp(info, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) test))

#define FLAKEID_FIXED_TYPE(prefix, info) \
	FIXED_FN(prefix, in, return fixed_in(info, fcinfo)) \
	FIXED_FN(prefix, out, return fixed_out(info, fcinfo)) \
	FIXED_FN(prefix, recv, return fixed_recv(info, fcinfo)) \
	FIXED_FN(prefix, send, return fixed_send(info, fcinfo)) \
	FIXED_FN(prefix, to_bytea, return fixed_to_bytea(info, fcinfo)) \
	FIXED_FN(prefix, from_bytea, return fixed_from_bytea(info, fcinfo)) \
	FIXED_CMP_FN(prefix, info, eq, == 0) \
	FIXED_CMP_FN(prefix, info, ne, != 0) \
	FIXED_CMP_FN(prefix, info, lt, < 0) \
	FIXED_CMP_FN(prefix, info, le, <= 0) \
	FIXED_CMP_FN(prefix, info, gt, > 0) \
	FIXED_CMP_FN(prefix, info, ge, >= 0) \
	FIXED_FN(prefix, cmp, \
			 int			c = fixed_cmp(info, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)); \
			 PG_RETURN_INT32((c > 0) - (c < 0))) \
	FIXED_FN(prefix, smaller, \
			 return fixed_cmp(info, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) <= 0 \
				 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1)) \
	FIXED_FN(prefix, larger, \
			 return fixed_cmp(info, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) >= 0 \
				 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1)) \
	FIXED_FN(prefix, hash, \
			 return hash_any((const unsigned char *) PG_GETARG_POINTER(0), (info)->width)) \
	FIXED_FN(prefix, hash_extended, \
			 return hash_any_extended((const unsigned char *) PG_GETARG_POINTER(0), \
									  (info)->width, PG_GETARG_INT64(1))) \
	static int prefix##_sort_cmp(Datum a, Datum b, SortSupport ssup pg_attribute_unused()) \
	{ \
		return fixed_cmp(info, a, b); \
	} \
	FIXED_FN(prefix, sortsupport, return fixed_sortsupport(info, fcinfo, prefix##_sort_cmp))

#endif
