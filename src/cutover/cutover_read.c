/*
 * cutover_read.c — the largest ID of a column, read for
 * flakeid_advance_past_all without running anyone's code
 *
 * The cutover is run by a superuser (or a granted operator) over every
 * table of the database, most of them owned by other roles.  Reading a
 * maximum with SQL plans the table, and planning or reading it runs code its
 * owner chose: functions folded in an index predicate or expression, a
 * statistics expression, a CHECK or partition key; an implicit cast the
 * owner made after changing the column's type while the call waited for its
 * lock; a view's rule where a table was (PostgreSQL 15 lets an owner turn an
 * empty table into a view); a SECURITY DEFINER function that changes the
 * caller's search_path for what follows.  Each ran as the caller (the
 * audits of 1.4's cutover made their owner superuser each of these ways),
 * and no lock keeps a function's volatility or body from changing.  So the
 * maximum is read here, below SQL: a backward scan of a plain btree index on
 * the column (one descent), or else a scan of the heap, comparing with the
 * type's own btree comparison (flakeid's, or bigint's); no planner, no
 * executor, no function of the owner's.  Each table of a partition or
 * inheritance tree is read in turn.
 *
 * What SQL's read checked, this does too, after the lock, so that nothing
 * checked before the wait can change under it: the caller's USAGE on the
 * schema and SELECT on the column, that row-level security does not apply
 * to the caller, and that the relation is still a table whose column has
 * the number and type the caller listed (else 55000: call again; a name
 * alone would take another column of the same type that took it meanwhile).
 * The rows are those of a snapshot taken after every lock is granted, the
 * latest even at REPEATABLE READ: the transaction's, older than the locks,
 * would miss rows their holders committed while the call waited, and a
 * newer snapshot can only raise the maximum.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "cutover/cutover.h"
#include "format/uuid8.h"

#if PG_VERSION_NUM >= 190000
#define begin_index_scan(heap, index, snapshot, nkeys) index_beginscan(heap, index, snapshot, NULL, nkeys, 0, 0)
#define begin_table_scan(heap, snapshot) table_beginscan(heap, snapshot, 0, NULL, 0)
#elif PG_VERSION_NUM >= 180000
#define begin_index_scan(heap, index, snapshot, nkeys) index_beginscan(heap, index, snapshot, NULL, nkeys, 0)
#define begin_table_scan(heap, snapshot) table_beginscan(heap, snapshot, 0, NULL)
#else
#define begin_index_scan(heap, index, snapshot, nkeys) index_beginscan(heap, index, snapshot, nkeys, 0)
#define begin_table_scan(heap, snapshot) table_beginscan(heap, snapshot, 0, NULL)
#endif

/*
 * The largest value seen so far, by the element type's btree comparison;
 * of a uuid column read as one of flakeid's types (`as`), only the values
 * that are such an ID's UUIDv8 count (its embedding keeps the IDs' order
 * among them; another UUID in the column, a version 4 one, is no ID).
 */
typedef struct Largest
{
	FmgrInfo   *cmp;
	int16		len;
	bool		byval;
	const FlakeFormat *as;		/* NULL: every value counts */
	bool		found;
	Datum		value;
} Largest;

/* whether the value counts; if so, kept when it is the largest so far */
static bool
consider(Largest *largest, Datum value)
{
	if (largest->as != NULL)
	{
		uint8_t		id[UUID8_MAX_ID_WIDTH];

		if (!uuid8_to_id(DatumGetUUIDP(value)->data, largest->as->width, largest->as->uuid_tag, id))
			return false;
	}
	if (largest->found &&
		DatumGetInt32(FunctionCall2Coll(largest->cmp, InvalidOid, value, largest->value)) <= 0)
		return true;
	if (largest->found && !largest->byval)
		pfree(DatumGetPointer(largest->value));
	largest->value = datumCopy(value, largest->byval, largest->len);
	largest->found = true;
	return true;
}

/*
 * Every element of an array value (NULLs left out), and the elements of
 * those that are arrays themselves (an array of a domain over an array).
 * One frame for each level of nesting, which a chain of domains makes as
 * deep as its owner likes: 54001 (max_stack_depth), not a crash, past it.
 */
static void
consider_array(Largest *largest, Datum array_datum)
{
	ArrayType  *array;
	bool		nested;
	int16		len;
	bool		byval;
	char		align;
	Datum	   *elements;
	bool	   *nulls;
	int			n;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	array = DatumGetArrayTypeP(array_datum);
	nested = OidIsValid(get_element_type(getBaseType(ARR_ELEMTYPE(array))));
	get_typlenbyvalalign(ARR_ELEMTYPE(array), &len, &byval, &align);
	deconstruct_array(array, ARR_ELEMTYPE(array), len, byval, align, &elements, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			continue;
		if (nested)
			consider_array(largest, elements[i]);
		else
			(void) consider(largest, elements[i]);
	}
	pfree(elements);
	pfree(nulls);
	if ((Pointer) array != DatumGetPointer(array_datum))
		pfree(array);
}

/*
 * A btree index whose first key is the column, ascending with NULLs last,
 * in the type's default operator family, valid and without a predicate (read
 * from pg_index's tuple as it is: RelationGetIndexPredicate would fold it,
 * running the owner's functions), and usable by the snapshot: an index whose
 * builder saw broken HOT chains (indcheckxmin) is not, for a snapshot as old
 * as the index (the planner's rule: its entries may point at a row version
 * whose value differs from the one the snapshot sees).  InvalidOid if none.
 */
static Oid
plain_btree_index(Relation heap, AttrNumber attnum, Oid opfamily, Snapshot snapshot)
{
	List	   *indexes = RelationGetIndexList(heap);
	ListCell   *lc;
	Oid			found = InvalidOid;

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);
		bool		plain = index->rd_rel->relam == BTREE_AM_OID &&
			index->rd_index->indisvalid &&
			index->rd_index->indnkeyatts >= 1 &&
			index->rd_index->indkey.values[0] == attnum &&
			index->rd_indoption[0] == 0 &&
			index->rd_opfamily[0] == opfamily &&
			heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, NULL) &&
			(!index->rd_index->indcheckxmin ||
			 TransactionIdPrecedes(HeapTupleHeaderGetXmin(index->rd_indextuple->t_data), snapshot->xmin));

		index_close(index, NoLock);
		if (plain)
		{
			found = lfirst_oid(lc);
			break;
		}
	}
	list_free(indexes);
	return found;
}

/* one table's rows (a table with storage: not a partitioned parent) */
static void
read_table(Relation heap, AttrNumber attnum, bool is_array, Oid opfamily, Snapshot snapshot, Largest *largest)
{
	TupleTableSlot *slot = table_slot_create(heap, NULL);
	Oid			index_oid = is_array ? InvalidOid : plain_btree_index(heap, attnum, opfamily, snapshot);
	bool		isnull;
	Datum		value;

	if (OidIsValid(index_oid))
	{
		/* from the top of the index, past its NULLs (last, ascending): the largest first */
		Relation	index = index_open(index_oid, AccessShareLock);
		IndexScanDesc scan = begin_index_scan(heap, index, snapshot, 1);
		ScanKeyData not_null;

		ScanKeyEntryInitialize(&not_null, SK_ISNULL | SK_SEARCHNOTNULL, 1, InvalidStrategy,
							   InvalidOid, InvalidOid, InvalidOid, (Datum) 0);
		index_rescan(scan, &not_null, 1, NULL, 0);
		while (index_getnext_slot(scan, BackwardScanDirection, slot))
		{
			CHECK_FOR_INTERRUPTS();
			value = slot_getattr(slot, attnum, &isnull);
			/* (the first that counts is the largest) */
			if (!isnull && consider(largest, value))
				break;
		}
		index_endscan(scan);
		index_close(index, NoLock);
	}
	else
	{
		TableScanDesc scan = begin_table_scan(heap, snapshot);

		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			CHECK_FOR_INTERRUPTS();
			value = slot_getattr(slot, attnum, &isnull);
			if (isnull)
				continue;
			if (is_array)
				consider_array(largest, value);
			else
				(void) consider(largest, value);
		}
		table_endscan(scan);
	}
	ExecDropSingleTupleTableSlot(slot);
}

/*
 * flakeid_advance_past_read(rel, col, colnum, coltype[, as_type]): the
 * largest value of the column (the largest element, for an array column)
 * as text in its base type's form, or NULL for none; with as_type, of a
 * uuid column, the largest UUID that embeds an ID of that type (sno_new()::uuid
 * and the like: Largest says why).  NULL for a NULL among the first four.
 * Executable by PUBLIC: it reads what the caller may read with SELECT
 * max(col), no more.
 */
PG_FUNCTION_INFO_V1(flakeid_advance_past_read);
Datum
flakeid_advance_past_read(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char	   *column;
	AttrNumber	colnum;
	Oid			coltype;
	Oid			base;
	bool		is_array;
	Oid			elem_base;
	TypeCacheEntry *typentry;
	Relation	rel;
	List	   *tables;
	List	   *apart;
	ListCell   *lc;
	Snapshot	snapshot;
	Largest		largest = {0};
	Oid			outfunc;
	bool		outvarlena;

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			PG_RETURN_NULL();
	relid = PG_GETARG_OID(0);
	column = NameStr(*PG_GETARG_NAME(1));
	colnum = PG_GETARG_INT16(2);
	coltype = PG_GETARG_OID(3);
	base = SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(coltype)) ? getBaseType(coltype) : InvalidOid;
	if (!OidIsValid(base))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type with OID %u does not exist", coltype)));
	/* the innermost element's base type: arrays of domains over arrays are looked into */
	is_array = OidIsValid(get_element_type(base));
	elem_base = base;
	while (OidIsValid(get_element_type(elem_base)))
		elem_base = getBaseType(get_element_type(elem_base));
	if (PG_NARGS() > 4 && !PG_ARGISNULL(4))
		largest.as = cutover_uuid_read_as(PG_GETARG_OID(4), elem_base);
	typentry = lookup_type_cache(elem_base, TYPECACHE_CMP_PROC_FINFO | TYPECACHE_BTREE_OPFAMILY);
	if (!OidIsValid(typentry->cmp_proc_finfo.fn_oid) || !OidIsValid(typentry->btree_opf))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("type %s has no default btree comparison", format_type_be(elem_base))));
	largest.cmp = &typentry->cmp_proc_finfo;
	get_typlenbyval(elem_base, &largest.len, &largest.byval);

	/* what the caller may read, as SQL would check it (a table dropped since it was listed: 55000) */
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		cutover_refuse_dropped(relid);
	cutover_checked_column(relid, column, colnum, coltype);

	/* the lock (bounded by lock_timeout), then everything checked again under it */
	rel = try_relation_open(relid, AccessShareLock);
	if (rel == NULL)
		cutover_refuse_dropped(relid);
	if (rel->rd_rel->relkind != RELKIND_RELATION && rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE &&
		rel->rd_rel->relkind != RELKIND_MATVIEW && rel->rd_rel->relkind != RELKIND_FOREIGN_TABLE)
		cutover_refuse_changed(relid, column);
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot read temporary tables of other sessions")));
	cutover_checked_column(relid, column, colnum, coltype);
	cutover_refuse_rls(relid);
	tables = cutover_members(relid, AccessShareLock, &apart);

	/* the rows committed once the locks are granted (the header says why not the transaction's) */
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	foreach(lc, tables)
	{
		Oid			member = lfirst_oid(lc);
		bool		member_apart = list_nth_int(apart, foreach_current_index(lc));
		Relation	table = member == relid ? rel : relation_open(member, NoLock);
		AttrNumber	member_attnum = get_attnum(member, column);

		/* another session's temporary child: no one else can read it, as the planner skips it */
		if (RELATION_IS_OTHER_TEMP(table))
		{
			if (table != rel)
				relation_close(table, NoLock);
			continue;
		}
		if (member_attnum <= 0 || get_atttype(member, member_attnum) != coltype)
			cutover_refuse_changed(member, column);
		if (member_apart)
		{
			cutover_refuse_unreadable(member, column, member_attnum, true);
			cutover_refuse_rls(member);
		}
		if (table->rd_rel->relkind == RELKIND_RELATION || table->rd_rel->relkind == RELKIND_MATVIEW)
			read_table(table, member_attnum, is_array, typentry->btree_opf, snapshot, &largest);
		else if (table->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot read the largest ID of %s, which is not a table of this server",
							cutover_qualified_name(member)),
					 errdetail("Its rows are read through code (a foreign data wrapper), which the cutover does not run as its caller. Nothing was advanced."),
					 errhint("Read the largest ID of the whole column yourself, as a role that may run that code (%s), and advance the generator past it with its *_advance_past (siq: once for each kind, docs/OPERATIONS.md); flakeid_advance_past_all can then leave the column out knowingly with skip.",
							 cutover_read_hint(column, relid, base, largest.as))));
		if (table != rel)
			relation_close(table, NoLock);
	}
	UnregisterSnapshot(snapshot);
	relation_close(rel, NoLock);	/* (the locks are held until the transaction ends) */

	if (!largest.found)
		PG_RETURN_NULL();
	getTypeOutputInfo(elem_base, &outfunc, &outvarlena);
	PG_RETURN_TEXT_P(cstring_to_text(OidOutputFunctionCall(outfunc, largest.value)));
}
