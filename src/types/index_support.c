/*
 * index_support.c — the index and query shapes core types have, once for
 * every type: GiST (with the time distance <->) and BRIN minmax-multi's
 * distance here; GIN and btree in_range for window frames in
 * index_gin_frames.c; and (fixed_type.h, on 18) skip support
 *
 * Everything here reads the format's description: its width, and its time
 * layout for distances and frames.  Time order is the layout's "order time"
 * (format/time_layout.h): the time itself for every format but kuid96,
 * whose IDs follow time only to the 256-second window (the node comes next).
 */
#include "postgres.h"

#include "access/gist.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "utils/fmgrprotos.h"
#include "pgtime.h"
#include "utils/timestamp.h"

#include "types/fixed_type.h"

/* btree_gist's number for <>, and the distance's */
#define STRATEGY_NOT_EQUAL	6
#define STRATEGY_DISTANCE	15

/* --- the GiST key: the interval [lower, upper] of the IDs below an entry ---- */

/*
 * One storage type for every ID type: 16 bytes per bound (IDs are at most
 * 14), the ID's width kept in the lower bound's last byte so that the key
 * can be printed (gist_page_items shows it).
 */
typedef struct GistKey
{
	uint8		lower[FIXED_MAX_WIDTH];
	uint8		upper[FIXED_MAX_WIDTH];
} GistKey;

#define KEY_WIDTH(key) ((key)->lower[FIXED_MAX_WIDTH - 1])

StaticAssertDecl(sizeof(GistKey) == 2 * FIXED_MAX_WIDTH, "a GiST key is two padded bounds");

static GistKey *
make_key(const FlakeFormat *info, const uint8 *lower, const uint8 *upper)
{
	GistKey    *key = palloc0(sizeof(GistKey));

	memcpy(key->lower, lower, info->width);
	memcpy(key->upper, upper, info->width);
	key->lower[FIXED_MAX_WIDTH - 1] = (uint8) info->width;
	return key;
}

/* Widens key to cover other as well. */
static void
key_extend(const FlakeFormat *info, GistKey *key, const GistKey *other)
{
	if (fixed_cmp_bytes(other->lower, key->lower, info->width) < 0)
		memcpy(key->lower, other->lower, info->width);
	if (fixed_cmp_bytes(other->upper, key->upper, info->width) > 0)
		memcpy(key->upper, other->upper, info->width);
}

PG_FUNCTION_INFO_V1(flakeid_gist_key_in);
Datum
flakeid_gist_key_in(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("flakeid_gist_key has no text input"),
			 errdetail("It is the storage type of flakeid's GiST operator classes.")));
	PG_RETURN_NULL();
}

/* "[\x..., \x...]": both bounds in hex */
PG_FUNCTION_INFO_V1(flakeid_gist_key_out);
Datum
flakeid_gist_key_out(PG_FUNCTION_ARGS)
{
	GistKey    *key = (GistKey *) PG_GETARG_POINTER(0);
	int			width = Min(KEY_WIDTH(key), FIXED_MAX_WIDTH - 1);
	char	   *out = palloc(4 * width + 16);
	char	   *p = out;

	p += sprintf(p, "[\\x");
	for (int i = 0; i < width; i++)
		p += sprintf(p, "%02x", key->lower[i]);
	p += sprintf(p, ", \\x");
	for (int i = 0; i < width; i++)
		p += sprintf(p, "%02x", key->upper[i]);
	sprintf(p, "]");
	PG_RETURN_CSTRING(out);
}

/* --- time: what the distances and frames measure ---------------------------- */

static int64
id_time(const FlakeFormat *info, const uint8 *id)
{
	return time_layout_time(info->time, id);
}

/* |a - b| of two times in microseconds (< 2^62 apart for every format: no overflow) */
static int64
micros_apart(int64 a, int64 b)
{
	return a < b ? b - a : a - b;
}

static int64
time_apart(const FlakeFormat *info, const uint8 *a, const uint8 *b)
{
	return micros_apart(id_time(info, a), id_time(info, b));
}

/* the operator <->: how far apart two IDs are in time */
Datum
fixed_time_distance(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	Interval   *result = palloc0(sizeof(Interval));

	result->time = time_apart(info, (const uint8 *) PG_GETARG_POINTER(0), (const uint8 *) PG_GETARG_POINTER(1));
	PG_RETURN_INTERVAL_P(result);
}

/* BRIN minmax-multi's distance (support function 11): the same, as float8 */
Datum
fixed_brin_distance(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	PG_RETURN_FLOAT8((float8) time_apart(info, (const uint8 *) PG_GETARG_POINTER(0), (const uint8 *) PG_GETARG_POINTER(1)));
}

/* --- GiST -------------------------------------------------------------------- */

Datum
fixed_gist_compress(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	GISTENTRY  *result;
	const uint8 *id;

	if (!entry->leafkey)
		PG_RETURN_POINTER(entry);
	id = (const uint8 *) DatumGetPointer(entry->key);
	result = palloc(sizeof(GISTENTRY));
	gistentryinit(*result, PointerGetDatum(make_key(info, id, id)), entry->rel, entry->page, entry->offset, false);
	PG_RETURN_POINTER(result);
}

/* index-only scans: a leaf key holds the ID itself */
Datum
fixed_gist_fetch(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	GistKey    *key = (GistKey *) DatumGetPointer(entry->key);
	GISTENTRY  *result = palloc(sizeof(GISTENTRY));

	gistentryinit(*result, fixed_datum(info, key->lower), entry->rel, entry->page, entry->offset, false);
	PG_RETURN_POINTER(result);
}

/*
 * Whether an entry can hold an ID that satisfies `id <op> query`.  Exact at
 * the leaves (lower = upper = the ID), so there is nothing to recheck.
 */
Datum
fixed_gist_consistent(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	const uint8 *query = (const uint8 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = (StrategyNumber) PG_GETARG_UINT16(2);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(4);
	GistKey    *key = (GistKey *) DatumGetPointer(entry->key);
	int			lower = fixed_cmp_bytes(key->lower, query, info->width);
	int			upper = fixed_cmp_bytes(key->upper, query, info->width);

	*recheck = false;
	switch (strategy)
	{
		case BTLessStrategyNumber:
			PG_RETURN_BOOL(lower < 0);
		case BTLessEqualStrategyNumber:
			PG_RETURN_BOOL(lower <= 0);
		case BTEqualStrategyNumber:
			PG_RETURN_BOOL(lower <= 0 && upper >= 0);
		case BTGreaterEqualStrategyNumber:
			PG_RETURN_BOOL(upper >= 0);
		case BTGreaterStrategyNumber:
			PG_RETURN_BOOL(upper > 0);
		case STRATEGY_NOT_EQUAL:
			PG_RETURN_BOOL(!(lower == 0 && upper == 0));
	}
	elog(ERROR, "unknown strategy number %d for a %s GiST index", strategy, info->name);
	PG_RETURN_BOOL(false);
}

/*
 * ORDER BY id <-> query: at a leaf the exact time distance; above, the
 * least distance any ID of [lower, upper] can have, from the times ID order
 * follows (kuid96: the windows, so the bound widens by one window).
 */
Datum
fixed_gist_distance(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	const uint8 *query = (const uint8 *) PG_GETARG_POINTER(1);
	GistKey    *key = (GistKey *) DatumGetPointer(entry->key);
	int64		at = id_time(info, query),
				earliest,
				latest;

	if (GIST_LEAF(entry))
		PG_RETURN_FLOAT8((float8) micros_apart(id_time(info, key->lower), at));
	earliest = time_layout_order_time(info->time, key->lower);
	latest = time_layout_order_time(info->time, key->upper) + time_layout_order_slack(info->time);
	PG_RETURN_FLOAT8(at < earliest ? (float8) (earliest - at) : at > latest ? (float8) (at - latest) : 0.0);
}

Datum
fixed_gist_union(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	GistEntryVector *entries = (GistEntryVector *) PG_GETARG_POINTER(0);
	int		   *size = (int *) PG_GETARG_POINTER(1);
	GistKey    *first = (GistKey *) DatumGetPointer(entries->vector[0].key);
	GistKey    *result = make_key(info, first->lower, first->upper);

	for (int i = 1; i < entries->n; i++)
		key_extend(info, result, (GistKey *) DatumGetPointer(entries->vector[i].key));
	*size = sizeof(GistKey);
	PG_RETURN_POINTER(result);
}

Datum
fixed_gist_same(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	GistKey    *a = (GistKey *) PG_GETARG_POINTER(0);
	GistKey    *b = (GistKey *) PG_GETARG_POINTER(1);
	bool	   *result = (bool *) PG_GETARG_POINTER(2);

	*result = memcmp(a->lower, b->lower, info->width) == 0 && memcmp(a->upper, b->upper, info->width) == 0;
	PG_RETURN_POINTER(result);
}

/* an ID's position as a number: its leading 8 bytes (time first in every format) */
static float8
position(const FlakeFormat *info, const uint8 *id)
{
	return (float8) be_get(id, Min(info->width, 8));
}

/* how far a key must stretch to take in another, measured on positions */
Datum
fixed_gist_penalty(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	GistKey    *orig = (GistKey *) DatumGetPointer(((GISTENTRY *) PG_GETARG_POINTER(0))->key);
	GistKey    *added = (GistKey *) DatumGetPointer(((GISTENTRY *) PG_GETARG_POINTER(1))->key);
	float	   *penalty = (float *) PG_GETARG_POINTER(2);
	float8		below = position(info, orig->lower) - position(info, added->lower);
	float8		above = position(info, added->upper) - position(info, orig->upper);

	*penalty = (float) (Max(below, 0.0) + Max(above, 0.0));
	PG_RETURN_POINTER(penalty);
}

typedef struct SplitItem
{
	GistKey    *key;
	OffsetNumber offset;
} SplitItem;

static const FlakeFormat *sorting_format;	/* qsort's comparator has no argument */

static int
compare_lower(const void *a, const void *b)
{
	return fixed_cmp_bytes(((const SplitItem *) a)->key->lower, ((const SplitItem *) b)->key->lower,
						   sorting_format->width);
}

/* as btree_gist does: sorted by lower bound, the first half left, the rest right */
Datum
fixed_gist_picksplit(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	GistEntryVector *entries = (GistEntryVector *) PG_GETARG_POINTER(0);
	GIST_SPLITVEC *split = (GIST_SPLITVEC *) PG_GETARG_POINTER(1);
	int			n = entries->n - FirstOffsetNumber;
	SplitItem  *items = palloc(sizeof(SplitItem) * n);
	GistKey    *unions[2] = {NULL, NULL};

	for (int i = 0; i < n; i++)
	{
		items[i].offset = (OffsetNumber) (i + FirstOffsetNumber);
		items[i].key = (GistKey *) DatumGetPointer(entries->vector[items[i].offset].key);
	}
	sorting_format = info;
	qsort(items, n, sizeof(SplitItem), compare_lower);
	split->spl_left = palloc(sizeof(OffsetNumber) * n);
	split->spl_right = palloc(sizeof(OffsetNumber) * n);
	split->spl_nleft = split->spl_nright = 0;
	for (int i = 0; i < n; i++)
	{
		int			side = i < (n + 1) / 2 ? 0 : 1;
		GistKey    *key = items[i].key;

		if (side == 0)
			split->spl_left[split->spl_nleft++] = items[i].offset;
		else
			split->spl_right[split->spl_nright++] = items[i].offset;
		if (unions[side] == NULL)
			unions[side] = make_key(info, key->lower, key->upper);
		else
			key_extend(info, unions[side], key);
	}
	split->spl_ldatum = PointerGetDatum(unions[0]);
	split->spl_rdatum = PointerGetDatum(unions[1]);
	PG_RETURN_POINTER(split);
}
