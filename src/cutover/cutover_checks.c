/*
 * cutover_checks.c — what flakeid_advance_past_read (cutover_read.c) checks
 * of the caller and the table, before its lock and again under it, and
 * which tables of a partition or inheritance tree it reads
 *
 * These are the checks SQL's SELECT max(col) makes (USAGE on the schema,
 * SELECT on the column, row-level security), made again after each wait so
 * that nothing checked before it can change under the read; a table that
 * changed or went meanwhile is refused 55000 (call again).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/syscache.h"

#include "cutover/cutover.h"

/* (skip cannot name such a partition: no listing names it on its own) */
#define DETACH_PENDING_HINT \
	"Its detach from %s is pending (an interrupted DETACH PARTITION ... CONCURRENTLY): the owner of %s or a superuser finishes it with ALTER TABLE %s DETACH PARTITION %s FINALIZE; then, or now, the call reads it as a table of its own, which needs %s (or name it in skip, once detached)."

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

/* schema.table, quoted as SQL needs them, for a message an operator may paste */
char *
cutover_qualified_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
}

/*
 * The table a partition's pending detach (an interrupted DETACH ...
 * CONCURRENTLY) is from, or InvalidOid when no detach of it is pending.
 */
static Oid
detaching_from(Oid relid)
{
	Relation	inherits = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			parent = InvalidOid;

	ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(inherits, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
	while (!OidIsValid(parent) && (tuple = systable_getnext(scan)) != NULL)
		if (((Form_pg_inherits) GETSTRUCT(tuple))->inhdetachpending)
			parent = ((Form_pg_inherits) GETSTRUCT(tuple))->inhparent;
	systable_endscan(scan);
	table_close(inherits, AccessShareLock);
	return parent;
}

/* that table, schema-qualified, for a hint (the detach may have finished since) */
static char *
pending_parent(Oid relid)
{
	Oid			parent = detaching_from(relid);

	return OidIsValid(parent) ? cutover_qualified_name(parent) : pstrdup("its partitioned table");
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
List *
cutover_members(Oid relid, LOCKMODE lockmode, List **apart)
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
				*apart = lappend_int(*apart, OidIsValid(detaching_from(lfirst_oid(lc))));
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
char *
cutover_read_hint(const char *column, Oid relid, Oid base, const FlakeFormat *as)
{
	StringInfoData from;
	StringInfoData hint;
	int			depth = 0;
	char	   *value = pstrdup(quote_identifier(column));

	/* (aliases of their own: a column named e1 made "e1" ambiguous) */
	initStringInfo(&from);
	appendStringInfo(&from, "%s AS t", cutover_qualified_name(relid));
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

void
cutover_refuse_dropped(Oid relid)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("the table of OID %u was dropped while flakeid_advance_past_all waited for it", relid),
			 errdetail("Nothing was advanced."),
			 errhint("Call flakeid_advance_past_all again.")));
}

/*
 * the caller's USAGE on the table's schema and SELECT on the column, as SQL
 * checks them; `apart`: a partition whose detach is pending, read as a table
 * of its own (its 42501 says how the operator ends that)
 */
void
cutover_refuse_unreadable(Oid relid, const char *column, AttrNumber attnum, bool apart)
{
	bool		usage = schema_aclcheck(get_rel_namespace(relid)) == ACLCHECK_OK;
	bool		select = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK ||
		pg_attribute_aclcheck(relid, attnum, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
	char	   *parent;

	if (usage && select)
		return;
	parent = apart ? pending_parent(relid) : NULL;
	/* (what the read needs, all of it: USAGE alone granted met the next refusal) */
	if (!usage)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for schema %s", get_namespace_name(get_rel_namespace(relid))),
				 apart ? errhint(DETACH_PENDING_HINT, parent, parent, parent, cutover_qualified_name(relid),
								 select ? psprintf("USAGE on schema %s", quote_identifier(get_namespace_name(get_rel_namespace(relid)))) :
								 psprintf("USAGE on schema %s and SELECT on %s", quote_identifier(get_namespace_name(get_rel_namespace(relid))),
										  cutover_qualified_name(relid))) : 0));
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to read column \"%s\" of table %s", column, cutover_qualified_name(relid)),
			 apart ? errhint(DETACH_PENDING_HINT, parent, parent, parent, cutover_qualified_name(relid), "SELECT on it") : 0));
}

/*
 * The caller's privileges (cutover_refuse_unreadable) and the column's number; a
 * column that is not a user column of that type (renamed, dropped,
 * retyped, or a system column: slot_getattr takes no negative number) is
 * refused as a change.
 */
void
cutover_checked_column(Oid relid, const char *column, AttrNumber colnum, Oid coltype)
{
	AttrNumber	attnum = get_attnum(relid, column);

	if (attnum <= 0 || attnum != colnum || get_atttype(relid, attnum) != coltype)
		cutover_refuse_changed(relid, column);
	cutover_refuse_unreadable(relid, column, attnum, false);
}

void
cutover_refuse_rls(Oid relid)
{
	if (check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("row-level security applies to table %s for this role", cutover_qualified_name(relid))));
}

void
cutover_refuse_changed(Oid relid, const char *column)
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
const FlakeFormat *
cutover_uuid_read_as(Oid as_type, Oid elem_base)
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
