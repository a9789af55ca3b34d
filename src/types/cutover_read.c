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
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "catalog/pg_inherits.h"
#include "commands/defrem.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "format/format.h"
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

/* USAGE on a schema, as each major spells it */
static AclResult
schema_aclcheck(Oid schema)
{
#if PG_VERSION_NUM >= 160000
	return object_aclcheck(NamespaceRelationId, schema, GetUserId(), ACL_USAGE);
#else
	return pg_namespace_aclcheck(schema, GetUserId(), ACL_USAGE);
#endif
}

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
 */
static void
consider_array(Largest *largest, Datum array_datum)
{
	ArrayType  *array = DatumGetArrayTypeP(array_datum);
	bool		nested = OidIsValid(get_element_type(getBaseType(ARR_ELEMTYPE(array))));
	int16		len;
	bool		byval;
	char		align;
	Datum	   *elements;
	bool	   *nulls;
	int			n;

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

/* schema.table, quoted as SQL needs them, for a message an operator may paste */
static char *
qualified_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
}

/* whether the table's detach from its parent is pending (an interrupted DETACH ... CONCURRENTLY) */
static bool
detach_pending(Oid relid)
{
	Relation	inherits = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	bool		pending = false;

	ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(inherits, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
	while ((tuple = systable_getnext(scan)) != NULL)
		pending |= ((Form_pg_inherits) GETSTRUCT(tuple))->inhdetachpending;
	systable_endscan(scan);
	table_close(inherits, AccessShareLock);
	return pending;
}

/*
 * The table and every table under it, each locked, breadth first: also a
 * partition whose detach is pending (an interrupted DETACH ... CONCURRENTLY),
 * which find_all_inheritors leaves out though its rows hold issued IDs and
 * no listing names it on its own.  SQL reads such a partition only as a
 * table of its own, so *apart gets, for each member, whether it is one:
 * its own privileges apply (not to the tables under it, which a read of
 * it as a table of its own covers, as SQL's would).
 */
static List *
tree_members(Oid relid, LOCKMODE lockmode, List **apart)
{
	List	   *members = list_make1_oid(relid);

	*apart = list_make1_int(false);
	for (int i = 0; i < list_length(members); i++)
	{
		List	   *children = find_inheritance_children_extended(list_nth_oid(members, i), false, lockmode, NULL, NULL);
		ListCell   *lc;

		foreach(lc, children)
			if (!list_member_oid(members, lfirst_oid(lc)))
			{
				members = lappend_oid(members, lfirst_oid(lc));
				*apart = lappend_int(*apart, detach_pending(lfirst_oid(lc)));
			}
		list_free(children);
	}
	return members;
}

/*
 * How an operator reads a foreign table's largest ID with SQL: an array's
 * largest element (max of the array is the largest in dictionary order),
 * one unnest for each level of arrays in the type (unnest flattens the
 * dimensions of one array, not an array of a domain over an array), and
 * of a uuid column only the UUIDs that embed an ID of the type.
 */
static char *
own_read_hint(const char *column, Oid relid, Oid base, const FlakeFormat *as)
{
	StringInfoData from;
	StringInfoData hint;
	int			depth = 0;
	char	   *value = pstrdup(quote_identifier(column));

	/* (aliases of their own: a column named e1 made "e1" ambiguous) */
	initStringInfo(&from);
	appendStringInfo(&from, "%s AS t", qualified_name(relid));
	value = psprintf("t.%s", value);
	for (Oid type = base; OidIsValid(get_element_type(type)); type = getBaseType(get_element_type(type)))
	{
		appendStringInfo(&from, ", unnest(%s) AS e%d(v)", value, ++depth);
		value = psprintf("e%d.v", depth);
	}
	initStringInfo(&hint);
	appendStringInfo(&hint, "SELECT max(%s) FROM %s", value, from.data);
	if (as != NULL)				/* (no max(uuid) before PostgreSQL 16, and the cast refuses other UUIDs) */
		appendStringInfo(&hint, " over only the UUIDs that embed a %s, cast to %s", as->name, as->name);
	return hint.data;
}

static void
refuse_dropped(Oid relid)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("the table of OID %u was dropped while flakeid_advance_past_all waited for it", relid),
			 errdetail("Nothing was advanced."),
			 errhint("Call flakeid_advance_past_all again.")));
}

static void refuse_changed(Oid relid, const char *column);

/* the caller's USAGE on the table's schema and SELECT on the column, as SQL checks them */
static void
refuse_unreadable(Oid relid, const char *column, AttrNumber attnum)
{
	if (schema_aclcheck(get_rel_namespace(relid)) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for schema %s", get_namespace_name(get_rel_namespace(relid)))));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
		pg_attribute_aclcheck(relid, attnum, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read column \"%s\" of table %s", column, qualified_name(relid))));
}

/*
 * The caller's privileges (refuse_unreadable) and the column's number; a
 * column that is not a user column of that type (renamed, dropped,
 * retyped, or a system column: slot_getattr takes no negative number) is
 * refused as a change.
 */
static void
checked_column(Oid relid, const char *column, AttrNumber colnum, Oid coltype)
{
	AttrNumber	attnum = get_attnum(relid, column);

	if (attnum <= 0 || attnum != colnum || get_atttype(relid, attnum) != coltype)
		refuse_changed(relid, column);
	refuse_unreadable(relid, column, attnum);
}

static void
refuse_rls(Oid relid)
{
	if (check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("row-level security applies to table %s for this role", qualified_name(relid))));
}

static void
refuse_changed(Oid relid, const char *column)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("table %s changed while flakeid_advance_past_all waited for it", get_rel_name(relid)),
			 errdetail("Column \"%s\" is no longer a column of the type it had when the call listed it, or the relation is no longer a table. Nothing was advanced.", column),
			 errhint("Call flakeid_advance_past_all again.")));
}

/*
 * The format a uuid column is read as (flakeid_advance_past_read's `as`):
 * one of flakeid's types with a UUIDv8 embedding, and a column of uuid (or
 * a domain over it).
 */
static const FlakeFormat *
uuid_read_as(Oid as_type, Oid elem_base)
{
	HeapTuple	tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(as_type));
	const FlakeFormat *format;

	if (!HeapTupleIsValid(tuple))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type with OID %u does not exist", as_type)));
	format = flake_format_by_name(NameStr(((Form_pg_type) GETSTRUCT(tuple))->typname));
	ReleaseSysCache(tuple);
	if (format == NULL || format->uuid_tag == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a uuid column can be read as sno, flax, siq, kuid or kuid96 only, not as %s", format_type_be(as_type))));
	if (elem_base != UUIDOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("only a uuid column can be read as %s, not one of type %s", format->name, format_type_be(elem_base))));
	return format;
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
		largest.as = uuid_read_as(PG_GETARG_OID(4), elem_base);
	typentry = lookup_type_cache(elem_base, TYPECACHE_CMP_PROC_FINFO | TYPECACHE_BTREE_OPFAMILY);
	if (!OidIsValid(typentry->cmp_proc_finfo.fn_oid) || !OidIsValid(typentry->btree_opf))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("type %s has no default btree comparison", format_type_be(elem_base))));
	largest.cmp = &typentry->cmp_proc_finfo;
	get_typlenbyval(elem_base, &largest.len, &largest.byval);

	/* what the caller may read, as SQL would check it (a table dropped since it was listed: 55000) */
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		refuse_dropped(relid);
	checked_column(relid, column, colnum, coltype);

	/* the lock (bounded by lock_timeout), then everything checked again under it */
	rel = try_relation_open(relid, AccessShareLock);
	if (rel == NULL)
		refuse_dropped(relid);
	if (rel->rd_rel->relkind != RELKIND_RELATION && rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE &&
		rel->rd_rel->relkind != RELKIND_MATVIEW && rel->rd_rel->relkind != RELKIND_FOREIGN_TABLE)
		refuse_changed(relid, column);
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot read temporary tables of other sessions")));
	checked_column(relid, column, colnum, coltype);
	refuse_rls(relid);
	tables = tree_members(relid, AccessShareLock, &apart);

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
			refuse_changed(member, column);
		if (member_apart)
		{
			refuse_unreadable(member, column, member_attnum);
			refuse_rls(member);
		}
		if (table->rd_rel->relkind == RELKIND_RELATION || table->rd_rel->relkind == RELKIND_MATVIEW)
			read_table(table, member_attnum, is_array, typentry->btree_opf, snapshot, &largest);
		else if (table->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot read the largest ID of %s, which is not a table of this server",
							qualified_name(member)),
					 errdetail("Its rows are read through code (a foreign data wrapper), which the cutover does not run as its caller. Nothing was advanced."),
					 errhint("Read the largest ID of the whole column yourself, as a role that may run that code (%s), and advance the generator past it with its *_advance_past (siq: once for each kind, docs/OPERATIONS.md); flakeid_advance_past_all can then leave the column out knowingly with skip.",
							 own_read_hint(column, relid, base, largest.as))));
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
