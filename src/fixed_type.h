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
 * sql/ext_fixed_type.sql.in with the same prefix.
 *
 * The helpers are static inline.  Comparisons and hashing take the width as
 * a compile-time constant (the format's own macro, which its description
 * also uses), so they compile to width-specialised code.
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
#include "utils/guc.h"
#include "utils/rangetypes.h"
#include "utils/sortsupport.h"
#include "utils/uuid.h"

#include "flakeid.h"
#include "format/bytes.h"
#include "format/format.h"
#include "format/uuid8.h"

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

extern void fixed_range_ids(const FlakeFormat *info, const RangeType *range, FixedRangeIds *ids);
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

/* Makes a palloc'd copy of an ID; the result is a by-reference Datum. */
static inline Datum
fixed_datum(const FlakeFormat *info, const uint8 *bytes)
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

static inline Datum
fixed_recv(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);

	fixed_check_length(info, buf->len - buf->cursor);
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

/* --- sortsupport ------------------------------------------------------------
 * Abbreviated keys must be order-preserving: a < b implies key(a) <= key(b).
 * core's uuid uses the first 8 bytes, which suits random IDs but not ours:
 * one server minting in bulk repeats the same leading time, partition and
 * node bytes for thousands of IDs (an sno unit holds 65,536), so a prefix key
 * is constant across them and HyperLogLog rightly abandons it.
 *
 * So an ID with identity bytes is abbreviated as its time bytes followed by
 * a code for the rest, relative to a reference identity (the first one the
 * sort sees — usually the only one): identities below the reference map to
 * the bottom quarter of the code space (their top bits), the reference to the
 * middle half (its sequence bytes), identities above to the top quarter.
 * Each piece is monotonic and the pieces are ordered, so the whole key is.
 * Time bytes that stay zero for a century are left out to make room for the
 * sequence; an ID where they are not zero gets the largest key (ties there
 * fall to the full comparator).
 * Keys live only in one in-memory sort (tuplesort drops them for merges), so
 * a per-sort reference is safe.
 */
typedef struct FixedSortState
{
	const FlakeFormat *info;
	int64		input_count;
	bool		estimating;
	bool		have_reference;
	uint64		reference;
	hyperLogLogState abbr_card;
} FixedSortState;

/* the top `to_bits` of a `bits`-bit value: monotonic narrowing */
static inline uint64
fixed_narrow(uint64 value, int bits, int to_bits)
{
	return bits > to_bits ? value >> (bits - to_bits) : value;
}

static inline uint64
fixed_abbrev_key(const FlakeFormat *info, FixedSortState *state, const uint8 *id)
{
	int			time_bytes = info->abbrev.time_bytes;
	int			identity_bytes = info->abbrev.identity_bytes;
	int			spare_bytes = info->abbrev.spare_bytes;
	int			tail_bytes = Min(info->width - time_bytes - identity_bytes, 8);
	int			code_bits = 64 - 8 * (time_bytes - spare_bytes);
	uint64		identity,
				code;

	if (identity_bytes == 0)
		return be_get(id, Min(info->width, 8)) << (8 * (8 - Min(info->width, 8)));
	if (be_get(id, spare_bytes) != 0)
		return PG_UINT64_MAX;

	identity = be_get(id + time_bytes, identity_bytes);
	if (!state->have_reference)
	{
		state->reference = identity;
		state->have_reference = true;
	}
	if (identity < state->reference)
		code = fixed_narrow(identity, 8 * identity_bytes, code_bits - 2);
	else if (identity == state->reference)
		code = (UINT64CONST(1) << (code_bits - 2)) +
			fixed_narrow(be_get(id + time_bytes + identity_bytes, tail_bytes),
						 8 * tail_bytes, code_bits - 1);
	else
		code = (UINT64CONST(3) << (code_bits - 2)) +
			fixed_narrow(identity, 8 * identity_bytes, code_bits - 2);
	return be_get(id + spare_bytes, time_bytes - spare_bytes) << code_bits | code;
}

/* instantiated per type (info a constant), so the byte loops unroll */
static inline Datum
fixed_abbrev_convert(const FlakeFormat *info, Datum original, SortSupport ssup)
{
	FixedSortState *state = (FixedSortState *) ssup->ssup_extra;
	uint64		key = fixed_abbrev_key(info, state, (const uint8 *) DatumGetPointer(original));

	if (state->estimating)
	{
		state->input_count++;
		addHyperLogLog(&state->abbr_card,
					   DatumGetUInt32(hash_uint32((uint32) key ^ (uint32) (key >> 32))));
	}
	return (Datum) key;
}

static inline bool
fixed_abbrev_abort(int memtupcount, SortSupport ssup)
{
	FixedSortState *state = (FixedSortState *) ssup->ssup_extra;
	double		cardinality;
	bool		abort_keys;

	if (memtupcount < 10000 || state->input_count < 10000 || !state->estimating)
		return false;
	cardinality = estimateHyperLogLog(&state->abbr_card);

	/*
	 * As uuid's: once 100,000 distinct keys are seen, abbreviation has paid
	 * off and estimating (a hash per key) stops; until then, keep going while
	 * keys are still mostly distinct.
	 */
	abort_keys = cardinality <= (double) state->input_count / 2000.0 + 1.0;
	if (cardinality > 100000.0 || abort_keys)
		state->estimating = false;
#if defined(TRACE_SORT) || PG_VERSION_NUM >= 170000
	if (trace_sort)
		elog(LOG, "%s_abbrev: %s abbreviation at cardinality %f after " INT64_FORMAT " values (%d rows)%s",
			 state->info->name, abort_keys ? "aborting" : "not aborting",
			 cardinality, state->input_count, memtupcount,
			 state->estimating ? "" : "; estimation ends");
#endif
	return abort_keys;
}

#if PG_VERSION_NUM < 150000
static inline int
fixed_abbrev_cmp(Datum a, Datum b, SortSupport ssup pg_attribute_unused())
{
	return a < b ? -1 : (a > b ? 1 : 0);
}
#endif

/* full_cmp and abbrev_convert: the type's own, instantiated at its constant info */
static inline Datum
fixed_sortsupport(const FlakeFormat *info, FunctionCallInfo fcinfo,
				  int (*full_cmp) (Datum, Datum, SortSupport),
				  Datum (*abbrev_convert) (Datum, SortSupport))
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);
	FixedSortState *state;
	MemoryContext old = MemoryContextSwitchTo(ssup->ssup_cxt);

	state = palloc0(sizeof(FixedSortState));
	state->info = info;
	ssup->ssup_extra = state;
	ssup->comparator = full_cmp;
	/* keys are 64 bits; 32-bit builds sort on the full comparator */
	if (ssup->abbreviate && SIZEOF_DATUM == 8)
	{
		state->estimating = true;
		initHyperLogLog(&state->abbr_card, 10);
		ssup->abbrev_full_comparator = full_cmp;
		ssup->abbrev_converter = abbrev_convert;
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

/* --- skip support (PostgreSQL 18: btree support function 6) ------------------
 * Every byte pattern of the width is a value, so the next value is the bytes
 * plus one, big-endian, and the domain runs from all zeros to all ones.
 */
#if PG_VERSION_NUM >= 180000
#include "utils/skipsupport.h"

static inline Datum
fixed_skip_step(int width, Datum existing, bool *overflow, bool up)
{
	uint8		bytes[FIXED_MAX_WIDTH];
	int			i;

	memcpy(bytes, DatumGetPointer(existing), width);
	for (i = width - 1; i >= 0; i--)
	{
		bool		carry = up ? bytes[i] == 0xFF : bytes[i] == 0x00;

		bytes[i] = (uint8) (up ? bytes[i] + 1 : bytes[i] - 1);
		if (!carry)
			break;
	}
	*overflow = i < 0;			/* it was the highest (lowest) value */
	if (*overflow)
		return existing;
	return PointerGetDatum(memcpy(palloc(width), bytes, width));
}

static inline Datum
fixed_skipsupport(const FlakeFormat *info, FunctionCallInfo fcinfo,
				  SkipSupportIncDec decrement, SkipSupportIncDec increment)
{
	SkipSupport sksup = (SkipSupport) PG_GETARG_POINTER(0);
	uint8		lowest[FIXED_MAX_WIDTH],
				highest[FIXED_MAX_WIDTH];

	memset(lowest, 0x00, sizeof(lowest));
	memset(highest, 0xFF, sizeof(highest));
	sksup->low_elem = fixed_datum(info, lowest);
	sksup->high_elem = fixed_datum(info, highest);
	sksup->decrement = decrement;
	sksup->increment = increment;
	PG_RETURN_VOID();
}

#define FIXED_SKIP_SUPPORT(prefix, info, width) \
	static Datum prefix##_skip_decrement(Relation rel pg_attribute_unused(), Datum existing, bool *overflow) \
	{ \
		return fixed_skip_step(width, existing, overflow, false); \
	} \
	static Datum prefix##_skip_increment(Relation rel pg_attribute_unused(), Datum existing, bool *overflow) \
	{ \
		return fixed_skip_step(width, existing, overflow, true); \
	} \
	FIXED_FN(prefix, skipsupport, \
			 return fixed_skipsupport(info, fcinfo, prefix##_skip_decrement, prefix##_skip_increment))
#else
/* before 18 the SQL function exists (one script for every version) but no operator family uses it */
#define FIXED_SKIP_SUPPORT(prefix, info, width) \
	FIXED_FN(prefix, skipsupport, \
			 ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), \
							 errmsg("btree skip support needs PostgreSQL 18"))); \
			 PG_RETURN_VOID())
#endif

/* --- instantiation ---------------------------------------------------------- */

#define FIXED_FN(prefix, suffix, body) \
	PG_FUNCTION_INFO_V1(prefix##_##suffix); \
	Datum prefix##_##suffix(PG_FUNCTION_ARGS) { body; }

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
