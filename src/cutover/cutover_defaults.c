/*
 * cutover_defaults.c — flakeid_advance_past_defaults, the listing's walk of
 * a default's column up pg_inherits (flakeid_advance_past_all, issue 61)
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_inherits.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/tuplestore.h"

/* a column (by table and name) of a table whose default, or a table's under it, calls generator gen */
typedef struct DefaultKey
{
	Oid			rel;
	NameData	attname;
	NameData	gen;
} DefaultKey;

/*
 * Whether `rel` has a column named `attname`, by pg_attribute's index: not
 * the syscache, which keeps a negative entry for each name it did not find
 * until the backend ends (a PUBLIC caller's million made-up names held
 * 1 GB of a backend after the call).
 */
static bool
has_column(Relation attribute, Oid rel, Name attname)
{
	ScanKeyData key[2];
	SysScanDesc scan;
	bool		found;

	ScanKeyInit(&key[0], Anum_pg_attribute_attrelid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(rel));
	ScanKeyInit(&key[1], Anum_pg_attribute_attname, BTEqualStrategyNumber, F_NAMEEQ, NameGetDatum(attname));
	scan = systable_beginscan(attribute, AttributeRelidNameIndexId, true, NULL, 2, key);
	found = systable_getnext(scan) != NULL;
	systable_endscan(scan);
	return found;
}

/* the generators whose defaults a listing follows; any other is refused (22023) */
static void
check_generator_name(const char *gen)
{
	static const char *const names[] = {"sno", "siq", "kuid", "kuid96", "snowflake"};

	for (size_t i = 0; i < lengthof(names); i++)
		if (strcmp(gen, names[i]) == 0)
			return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("\"%s\" is not a generator whose defaults flakeid_advance_past_defaults follows", gen),
			 errhint("Name sno, siq, kuid, kuid96 or snowflake.")));
}

/* enters (rel, attname, gen) once; a new one goes on *queue to have its parents looked up */
static void
enter_default(HTAB *seen, List **queue, Oid rel, const char *attname, const char *gen)
{
	DefaultKey	key;
	DefaultKey *entry;
	bool		found;

	memset(&key, 0, sizeof(key));	/* (hashed as bytes) */
	key.rel = rel;
	namestrcpy(&key.attname, attname);
	namestrcpy(&key.gen, gen);
	entry = hash_search(seen, &key, HASH_ENTER, &found);
	if (!found)
		*queue = lappend(*queue, entry);
}

/*
 * flakeid_advance_past_defaults(rels oid[], attnames name[], gens text[]):
 * each (rel, attname, gen) given (a column whose default calls generator
 * gen) and the same column of every table above it through pg_inherits (a
 * parent, partitioned or not, one whose detach is pending too) that has it,
 * each (table, column, generator) once.
 * In SQL this was a recursive CTE whose plan scanned pg_inherits whole at
 * each level: a chain of N tables inheriting one another (any role can
 * make it in pg_temp) cost N*N.  Here each (table, column, generator) met
 * is looked up once, by pg_inherits' index, and climbs only to parents that
 * have the column.  Reads only pg_inherits and pg_attribute, which PUBLIC
 * reads.  A generator other than the five is refused: the output is at
 * most five rows for each column of the catalog.
 */
PG_FUNCTION_INFO_V1(flakeid_advance_past_defaults);
Datum
flakeid_advance_past_defaults(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum	   *rels;
	bool	   *rel_nulls;
	Datum	   *attnames;
	bool	   *attname_nulls;
	Datum	   *gens;
	bool	   *gen_nulls;
	int			n;
	int			n_attnames;
	int			n_gens;
	HASHCTL		ctl = {0};
	HTAB	   *seen;
	List	   *queue = NIL;
	Relation	inherits;
	Relation	attribute;

	InitMaterializedSRF(fcinfo, 0);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(0), OIDOID, sizeof(Oid), true, TYPALIGN_INT, &rels, &rel_nulls, &n);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR, &attnames, &attname_nulls, &n_attnames);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(2), TEXTOID, -1, false, TYPALIGN_INT, &gens, &gen_nulls, &n_gens);
	if (n_attnames != n || n_gens != n)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("rels, attnames and gens must be arrays of the same length")));

	ctl.keysize = sizeof(DefaultKey);
	ctl.entrysize = sizeof(DefaultKey);
	ctl.hcxt = CurrentMemoryContext;
	seen = hash_create("flakeid_advance_past_defaults", Max(n, 16), &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	for (int i = 0; i < n; i++)
		if (!rel_nulls[i] && !attname_nulls[i] && !gen_nulls[i])
		{
			char	   *gen = TextDatumGetCString(gens[i]);

			/* (a caller's own names each climbed every parent: 20,000 of them, 4 M rows) */
			check_generator_name(gen);
			enter_default(seen, &queue, DatumGetObjectId(rels[i]), NameStr(*DatumGetName(attnames[i])), gen);
		}

	/* breadth first: the queue grows as parents are met, each (table, column, generator) once */
	inherits = table_open(InheritsRelationId, AccessShareLock);
	attribute = table_open(AttributeRelationId, AccessShareLock);
	for (int i = 0; i < list_length(queue); i++)
	{
		DefaultKey *entry = list_nth(queue, i);
		Datum		values[3];
		bool		nulls[3] = {false, false, false};
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tuple;

		CHECK_FOR_INTERRUPTS();
		values[0] = ObjectIdGetDatum(entry->rel);
		values[1] = NameGetDatum(&entry->attname);
		values[2] = CStringGetTextDatum(NameStr(entry->gen));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);

		ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(entry->rel));
		scan = systable_beginscan(inherits, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
		while ((tuple = systable_getnext(scan)) != NULL)
		{
			Oid			parent = ((Form_pg_inherits) GETSTRUCT(tuple))->inhparent;

			/* (a column of the child's own is in no parent: it climbs no further) */
			if (has_column(attribute, parent, &entry->attname))
				enter_default(seen, &queue, parent, NameStr(entry->attname), NameStr(entry->gen));
		}
		systable_endscan(scan);
	}
	table_close(attribute, AccessShareLock);
	table_close(inherits, AccessShareLock);
	hash_destroy(seen);
	return (Datum) 0;
}
