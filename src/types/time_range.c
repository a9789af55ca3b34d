/*
 * time_range.c — `id <@ tstzrange` for every fixed-width type, and the
 * planner support that turns it into a range scan on the ID itself
 *
 * The operator means exactly `<type>_time(id) <@ range`.  Its bounds in ID
 * space come from format/time_layout.h: every ID with a time in the range
 * lies between the smallest ID with a time at or after the lower bound and
 * the largest with a time at or before the upper one, and for formats whose
 * time never decreases along ID order (sno, flax, siq) those are exactly the
 * IDs in the range.  kuid and kuid96 keep the time test as a recheck.
 *
 * SupportRequestSimplify rewrites `<@` into the type's own btree
 * comparisons, which index scans, BRIN and partition pruning all use: with
 * constant bounds for a constant range, and with stable bound expressions
 * for a range fixed per execution (now(), a parameter of a generic plan),
 * so that run-time partition pruning sees them.  SupportRequestIndexCondition
 * gives lossy index bounds for the rest (a column of another table, say).
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"

#include "types/fixed_type.h"

/* far outside every format's time range, and safe to add the epoch shift to */
#define FAR_UNIX_US		(INT64CONST(1) << 61)

static int64
unix_us_clamped(TimestampTz ts)
{
	if (ts > FAR_UNIX_US)
		return FAR_UNIX_US;
	if (ts < -FAR_UNIX_US)
		return -FAR_UNIX_US;
	return ts + FLAKEID_PG_EPOCH_UNIX_US;
}

/*
 * The IDs a time range can hold: `possible` false when none can; otherwise
 * `first` (when bounded below) and `last` (when bounded above).  The range's
 * ±infinity bound values count as unbounded where they do not exclude all.
 */
static void
fixed_range_ids(const FlakeFormat *info, const RangeType *range, FixedRangeIds *ids)
{
	TypeCacheEntry *typcache = lookup_type_cache(RangeTypeGetOid(range), TYPECACHE_RANGE_INFO);
	RangeBound	lower,
				upper;
	bool		empty;

	ids->possible = false;
	ids->has_first = ids->has_last = false;
	range_deserialize(typcache, range, &lower, &upper, &empty);
	if (empty)
		return;
	if (!lower.infinite && !TIMESTAMP_IS_NOBEGIN(DatumGetTimestampTz(lower.val)))
	{
		TimestampTz ts = DatumGetTimestampTz(lower.val);

		if (TIMESTAMP_IS_NOEND(ts) ||
			!time_layout_first_at_or_after(info->time, unix_us_clamped(ts) + (lower.inclusive ? 0 : 1), ids->first))
			return;
		ids->has_first = true;
	}
	if (!upper.infinite && !TIMESTAMP_IS_NOEND(DatumGetTimestampTz(upper.val)))
	{
		TimestampTz ts = DatumGetTimestampTz(upper.val);

		if (TIMESTAMP_IS_NOBEGIN(ts) ||
			!time_layout_last_at_or_before(info->time, unix_us_clamped(ts) - (upper.inclusive ? 0 : 1), ids->last))
			return;
		ids->has_last = true;
	}
	ids->possible = !(ids->has_first && ids->has_last && memcmp(ids->first, ids->last, info->width) > 0);
}

/* `<type>_time(id) <@ range`, the range type's cache kept in flinfo */
bool
fixed_time_in_range(const FlakeFormat *info, FunctionCallInfo fcinfo, const uint8 *id, const RangeType *range)
{
	TypeCacheEntry *typcache = (TypeCacheEntry *) fcinfo->flinfo->fn_extra;
	int64		unix_us = time_layout_time(info->time, id);

	if (typcache == NULL || typcache->type_id != RangeTypeGetOid(range))
	{
		typcache = lookup_type_cache(RangeTypeGetOid(range), TYPECACHE_RANGE_INFO);
		fcinfo->flinfo->fn_extra = typcache;
	}
	return range_contains_elem_internal(typcache, range,
										TimestampTzGetDatum(flakeid_timestamptz_from_unix_us(unix_us)));
}

/* the ID bounds of a range as values: an impossible range gives max > min */
Datum
fixed_range_bound(const FlakeFormat *info, const RangeType *range, bool upper)
{
	FixedRangeIds ids;
	uint8	   *result = palloc(info->width);

	fixed_range_ids(info, range, &ids);
	if (!ids.possible)
		memset(result, upper ? 0x00 : 0xFF, info->width);
	else if (upper ? ids.has_last : ids.has_first)
		memcpy(result, upper ? ids.last : ids.first, info->width);
	else
		memset(result, upper ? 0xFF : 0x00, info->width);
	return PointerGetDatum(result);
}

/* --- planner support ----------------------------------------------------- */

static Expr *
id_compare(Oid opfamily, Oid type, int strategy, Node *id, Expr *value)
{
	Oid			opno = get_opfamily_member(opfamily, type, type, strategy);
	OpExpr	   *clause;

	if (!OidIsValid(opno))
		elog(ERROR, "operator family %u has no strategy %d for type %u", opfamily, strategy, type);
	clause = (OpExpr *) make_opclause(opno, BOOLOID, false, (Expr *) copyObject(id), value, InvalidOid, InvalidOid);
	clause->opfuncid = get_opcode(opno);
	return (Expr *) clause;
}

static Expr *
id_const(const FlakeFormat *info, Oid type, const uint8 *bytes)
{
	return (Expr *) makeConst(type, -1, InvalidOid, info->width, fixed_datum(info, bytes), false, false);
}

/* `<type>_<suffix>(args)` from the extension's schema (the supported function's) */
static Expr *
sibling_call(const FlakeFormat *info, Oid funcid, const char *suffix, Oid result_type, List *args)
{
	Oid			argtypes[2];
	int			nargs = 0;
	ListCell   *lc;
	List	   *name;

	foreach(lc, args)
		argtypes[nargs++] = exprType(lfirst(lc));
	name = list_make2(makeString(get_namespace_name(get_func_namespace(funcid))),
					  makeString(psprintf("%s_%s", info->name, suffix)));
	return (Expr *) makeFuncExpr(LookupFuncName(name, nargs, argtypes, false), result_type, args,
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/* which of a two-argument call is the ID and which the range */
static bool
split_args(List *args, Node **id, Node **range)
{
	if (list_length(args) != 2)
		return false;
	*id = linitial(args);
	*range = lsecond(args);
	if (exprType(*id) == TSTZRANGEOID)
	{
		*id = lsecond(args);
		*range = linitial(args);
	}
	return exprType(*range) == TSTZRANGEOID;
}

/*
 * `id >= <type>_range_lower_bound(range)` and `id <= <type>_range_upper_bound(range)`
 * with the opfamily's operators: the ID bounds of a range known only when
 * the query runs.
 */
static List *
run_time_bound_quals(const FlakeFormat *info, Oid funcid, Oid opfamily, Node *id, Node *range)
{
	Oid			type = exprType(id);

	return list_make2(id_compare(opfamily, type, BTGreaterEqualStrategyNumber, id,
								 sibling_call(info, funcid, "range_lower_bound", type, list_make1(copyObject(range)))),
					  id_compare(opfamily, type, BTLessEqualStrategyNumber, id,
								 sibling_call(info, funcid, "range_upper_bound", type, list_make1(copyObject(range)))));
}

/* `<type>_time_in(id, range)`: the test bounds leave to make where ID order does not follow time */
static Expr *
time_recheck(const FlakeFormat *info, Oid funcid, Node *id, Node *range)
{
	return sibling_call(info, funcid, "time_in", BOOLOID, list_make2(copyObject(id), copyObject(range)));
}

/*
 * A range fixed for one execution, though not at plan time: it holds no Var
 * of this query level (outer ones become parameters), nothing volatile, no
 * subquery and no aggregate or window function.  now(), parameters of a
 * generic plan and expressions of them qualify; this is what run-time
 * partition pruning and index bounds accept.
 */
static bool
fixed_per_execution(Node *range)
{
	return !contain_var_clause(range) && !contain_volatile_functions(range) &&
		!checkExprHasSubLink(range) && !contain_agg_clause(range) && !contain_window_function(range);
}

/*
 * A range fixed per execution: `id >= <type>_range_lower_bound(r) AND id <=
 * <type>_range_upper_bound(r)`, plus the time test where the format is not
 * monotone.  The bounds are what `<@` means for monotone formats (an
 * impossible range gives lower > upper, an unbounded side the extreme ID),
 * and being stable comparisons on the ID they reach index bounds, BRIN and
 * run-time partition pruning, which a `<@` opaque to the planner does not.
 */
static Node *
run_time_bounds(const FlakeFormat *info, SupportRequestSimplify *req, Node *id, Node *range, Oid opfamily)
{
	List	   *quals = run_time_bound_quals(info, req->fcall->funcid, opfamily, id, range);

	if (!info->time->monotone)
		quals = lappend(quals, time_recheck(info, req->fcall->funcid, id, range));
	return (Node *) make_andclause(quals);
}

/*
 * `id <@ range` as comparisons on the ID.  A constant range gives the exact
 * btree comparisons with constant bounds (plus the time test where the
 * format is not monotone); NULL IDs still give NULL: an impossible range
 * becomes `id < <smallest ID>`, an unbounded one `id >= <smallest ID>`.  A
 * range fixed per execution gives run_time_bounds; any other range (a
 * column, say) stays `<@`, with index bounds from index_condition.
 */
static Node *
simplify(const FlakeFormat *info, SupportRequestSimplify *req)
{
	Node	   *id,
			   *range;
	Const	   *range_const;
	Oid			type,
				opfamily;
	FixedRangeIds ids;
	uint8		smallest[FIXED_MAX_WIDTH] = {0};
	List	   *quals = NIL;

	if (!split_args(req->fcall->args, &id, &range))
		return NULL;
	/* a volatile ID expression must stay evaluated once */
	if (contain_volatile_functions(id))
		return NULL;
	type = exprType(id);
	opfamily = get_opclass_family(GetDefaultOpClass(type, BTREE_AM_OID));
	if (!IsA(range, Const))
		return fixed_per_execution(range) ? run_time_bounds(info, req, id, range, opfamily) : NULL;
	range_const = (Const *) range;
	if (range_const->constisnull)
		return NULL;
	fixed_range_ids(info, DatumGetRangeTypeP(range_const->constvalue), &ids);
	if (!ids.possible)
		return (Node *) id_compare(opfamily, type, BTLessStrategyNumber, id, id_const(info, type, smallest));
	if (ids.has_first)
		quals = lappend(quals, id_compare(opfamily, type, BTGreaterEqualStrategyNumber, id, id_const(info, type, ids.first)));
	if (ids.has_last)
		quals = lappend(quals, id_compare(opfamily, type, BTLessEqualStrategyNumber, id, id_const(info, type, ids.last)));
	if (!info->time->monotone)
		quals = lappend(quals, time_recheck(info, req->fcall->funcid, id, range));
	if (quals == NIL)
		return (Node *) id_compare(opfamily, type, BTGreaterEqualStrategyNumber, id, id_const(info, type, smallest));
	return list_length(quals) == 1 ? linitial(quals) : (Node *) make_andclause(quals);
}

/* A range known at run time: lossy bounds from <type>_range_lower/upper_bound. */
static List *
index_condition(const FlakeFormat *info, SupportRequestIndexCondition *req)
{
	List	   *args;
	Node	   *id,
			   *range;
	Oid			type;

	if (IsA(req->node, OpExpr))
		args = ((OpExpr *) req->node)->args;
	else if (IsA(req->node, FuncExpr))
		args = ((FuncExpr *) req->node)->args;
	else
		return NIL;
	if (!split_args(args, &id, &range) || list_nth(args, req->indexarg) != id)
		return NIL;
	type = exprType(id);
	/* btree and BRIN minmax families have the range strategies; hash and bloom do not */
	if (!OidIsValid(get_opfamily_member(req->opfamily, type, type, BTGreaterEqualStrategyNumber)) ||
		!OidIsValid(get_opfamily_member(req->opfamily, type, type, BTLessEqualStrategyNumber)) ||
		!is_pseudo_constant_for_index(req->root, range, req->index))
		return NIL;
	req->lossy = true;
	return run_time_bound_quals(info, req->funcid, req->opfamily, id, range);
}

Datum
fixed_range_support(const FlakeFormat *info, FunctionCallInfo fcinfo)
{
	Node	   *request = (Node *) PG_GETARG_POINTER(0);

	if (IsA(request, SupportRequestSimplify))
		PG_RETURN_POINTER(simplify(info, (SupportRequestSimplify *) request));
	if (IsA(request, SupportRequestIndexCondition))
		PG_RETURN_POINTER(index_condition(info, (SupportRequestIndexCondition *) request));
	PG_RETURN_POINTER(NULL);
}
