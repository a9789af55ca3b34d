/*
 * vclock_type.c — the uid library's vector clocks on kuid96[] (docs/spec/kuid.md §8)
 *
 * kuid96_vclock(), kuid96_vclock(vc), kuid96_vclock_join, _descends and
 * _diff, with the library's semantics (format/vclock.h).  A clock is a
 * one-dimensional kuid96[] with at most one entry per node.  The functions
 * are not STRICT: a NULL clock, a NULL entry or two entries of one node
 * are errors, never a NULL answer that would silently lose causality.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "format/vclock.h"
#include "types/glue.h"

typedef struct Clock
{
	Oid			entry_type;		/* kuid96 */
	VclockEntry *entries;		/* as given */
	VclockEntry *sorted;		/* by node */
	size_t		n;
} Clock;

static void
refuse_null(FunctionCallInfo fcinfo, int argno, const char *what)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", what),
				 errhint("The empty vector clock is '{}'.")));
}

/* argument `argno` as a checked clock: one-dimensional, no NULL entry, one entry per node */
static Clock
clock_arg(FunctionCallInfo fcinfo, int argno, const char *name)
{
	ArrayType  *array;
	Datum	   *values;
	bool	   *nulls;
	int			count;
	Clock		clock;
	uint32		node;

	refuse_null(fcinfo, argno, psprintf("vector clock %s", name));
	array = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("vector clock %s has %d dimensions", name, ARR_NDIM(array)),
				 errdetail("A vector clock is a one-dimensional kuid96[].")));
	clock.entry_type = ARR_ELEMTYPE(array);
	deconstruct_array(array, clock.entry_type, KUID96_SIZE, false, TYPALIGN_CHAR, &values, &nulls, &count);
	clock.n = (size_t) count;
	clock.entries = palloc(sizeof(VclockEntry) * (clock.n + 1));
	clock.sorted = palloc(sizeof(VclockEntry) * (clock.n + 1));
	for (int i = 0; i < count; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("vector clock %s has a NULL entry", name),
					 errdetail("Entry %d is NULL; every entry of a vector clock is a kuid96.", i + 1)));
		memcpy(clock.entries[i].id, DatumGetPointer(values[i]), KUID96_SIZE);
	}
	memcpy(clock.sorted, clock.entries, sizeof(VclockEntry) * clock.n);
	vclock_sort(clock.sorted, clock.n);
	if (vclock_duplicate_node(clock.sorted, clock.n, &node))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("vector clock %s has two entries for node %u", name, node),
				 errdetail("A vector clock holds at most one entry per node.")));
	return clock;
}

static Datum
clock_datum(Oid entry_type, const VclockEntry *entries, size_t n)
{
	Datum	   *values = palloc(sizeof(Datum) * (n + 1));

	for (size_t i = 0; i < n; i++)
		values[i] = PointerGetDatum(entries[i].id);
	PG_RETURN_ARRAYTYPE_P(construct_array(values, (int) n, entry_type, KUID96_SIZE, false, TYPALIGN_CHAR));
}

/* the kuid96 type, for a clock made from nothing: the element type of the result */
static Oid
result_entry_type(FunctionCallInfo fcinfo)
{
	Oid			array_type = get_fn_expr_rettype(fcinfo->flinfo);
	Oid			entry_type = OidIsValid(array_type) ? get_element_type(array_type) : InvalidOid;

	if (!OidIsValid(entry_type))
		elog(ERROR, "could not determine the entry type of kuid96_vclock()");
	return entry_type;
}

/* kuid96_vclock(): a new clock, [kuid96_new()] */
PG_FUNCTION_INFO_V1(kuid96_vclock_new);
Datum
kuid96_vclock_new(PG_FUNCTION_ARGS)
{
	VclockEntry fresh;

	flakeid_kuid96_next(fresh.id);
	return clock_datum(result_entry_type(fcinfo), &fresh, 1);
}

/*
 * kuid96_vclock(vc): the tick.  This server's entry (if any) is dropped and
 * a fresh kuid96_new() goes first; the other entries keep their order.
 */
PG_FUNCTION_INFO_V1(kuid96_vclock_tick);
Datum
kuid96_vclock_tick(PG_FUNCTION_ARGS)
{
	Clock		vc = clock_arg(fcinfo, 0, "vc");
	VclockEntry *out = palloc(sizeof(VclockEntry) * (vc.n + 1));
	size_t		n = 1;

	flakeid_kuid96_next(out[0].id);
	for (size_t i = 0; i < vc.n; i++)
		if (vclock_node(&vc.entries[i]) != vclock_node(&out[0]))
			out[n++] = vc.entries[i];
	return clock_datum(vc.entry_type, out, n);
}

/* per node the larger entry, sorted by node */
PG_FUNCTION_INFO_V1(kuid96_vclock_join);
Datum
kuid96_vclock_join(PG_FUNCTION_ARGS)
{
	Clock		a = clock_arg(fcinfo, 0, "a");
	Clock		b = clock_arg(fcinfo, 1, "b");
	VclockEntry *out = palloc(sizeof(VclockEntry) * (a.n + b.n + 1));

	return clock_datum(a.entry_type, out, vclock_join(a.sorted, a.n, b.sorted, b.n, out));
}

/* a descends b; with a third argument, that node's entries do not count */
PG_FUNCTION_INFO_V1(kuid96_vclock_descends);
Datum
kuid96_vclock_descends(PG_FUNCTION_ARGS)
{
	Clock		a = clock_arg(fcinfo, 0, "a");
	Clock		b = clock_arg(fcinfo, 1, "b");
	bool		ignore = PG_NARGS() > 2;
	int64		ignored = 0;

	if (ignore)
	{
		refuse_null(fcinfo, 2, "ignore_node");
		ignored = PG_GETARG_INT64(2);
		flakeid_check_field(ignored, PG_UINT32_MAX, "node", "kuid96");
	}
	PG_RETURN_BOOL(vclock_descends(a.sorted, a.n, b.entries, b.n, ignore, (uint32) ignored));
}

/*
 * The entries of b that a does not descend, in b's order: with a's entry
 * of the node, how far ahead they are in time and sequence (the library's
 * d/2); with none, NULL deltas.
 */
PG_FUNCTION_INFO_V1(kuid96_vclock_diff);
Datum
kuid96_vclock_diff(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Clock		a = clock_arg(fcinfo, 0, "a");
	Clock		b = clock_arg(fcinfo, 1, "b");

	InitMaterializedSRF(fcinfo, 0);
	for (size_t j = 0; j < b.n; j++)
	{
		const VclockEntry *mine;
		VclockStanding standing = vclock_standing(a.sorted, a.n, &b.entries[j], &mine);
		Datum		values[4];
		bool		nulls[4] = {false, false, true, true};

		if (standing == VCLOCK_COVERED)
			continue;
		values[0] = Int64GetDatum((int64) vclock_node(&b.entries[j]));
		values[1] = PointerGetDatum(b.entries[j].id);
		if (standing == VCLOCK_AHEAD)
		{
			Interval   *ahead = palloc0(sizeof(Interval));
			KuidFields	theirs,
						ours;
			uint32		node;

			kuid96_unpack(b.entries[j].id, &theirs, &node);
			kuid96_unpack(mine->id, &ours, &node);
			ahead->time = kuid_unix_us_from_fields(&theirs) - kuid_unix_us_from_fields(&ours);
			values[2] = IntervalPGetDatum(ahead);
			values[3] = Int32GetDatum((int32) theirs.seq - (int32) ours.seq);
			nulls[2] = nulls[3] = false;
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
