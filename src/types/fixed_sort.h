/*
 * fixed_sort.h — sorting the fixed-width types: sortsupport with
 * abbreviated keys, and (PostgreSQL 18) skip support; part of the generic
 * type layer, included by fixed_type.h
 */
#ifndef FLAKEID_FIXED_SORT_H
#define FLAKEID_FIXED_SORT_H

#include "lib/hyperloglog.h"
#include "port/pg_bswap.h"
#include "utils/sortsupport.h"

#include "format/bytes.h"
#include "format/format.h"
#include "types/glue.h"

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
		ssup->comparator = ssup_datum_unsigned_cmp;
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

#endif
