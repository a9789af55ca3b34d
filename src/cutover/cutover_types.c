/*
 * cutover_types.c — what each column type of the database lies over, and
 * which tables a default that calls a generator counts for, for
 * flakeid_advance_past_all's listing (each a walk that SQL's recursive CTEs
 * made once for each starting point, and so quadratic in a chain's length)
 *
 * A column carries IDs through its type: one of flakeid's types, or bigint
 * or uuid whose default (or a domain's on the way) calls a generator, under
 * any number of domains and arrays.  The listing needs, for each type a
 * column has, the type at the bottom of that chain, whether an array lies
 * on the way, and the generators the domains' defaults on the way call.
 *
 * In SQL that was a recursive walk from each column type down its chain:
 * cheap for one chain, but a walk per type, so that columns of every level
 * of a chain of N domains (any role can make them, in pg_temp) cost N*N/2
 * steps and as many rows held at once (4,000 levels: 8 million).  Here each
 * type is walked once in a call: the answer for a type is its own step
 * combined with the answer for the type under it, kept in a hash table, so
 * the walk from a type stops at the first type already answered.  The walk
 * is a loop, not a recursion, so a chain of any depth needs no stack.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

typedef struct TypeAnswer
{
	Oid			type;			/* the hash key */
	bool		answered;		/* false while the walk is below it */
	Oid			bottom;			/* neither a domain nor a true array */
	bool		is_array;		/* an array lies on the way down */
	Bitmapset  *generators;		/* indexes into the call's generators */
} TypeAnswer;

/*
 * The call's generators, each once: `oids` the distinct ones, `index` from
 * an OID to its place there.  Only the extension's own functions are
 * indexed, looked up first: what else a caller names is no generator, and
 * each distinct OID of a PUBLIC caller's array of 20 million held 36 bytes
 * of hash (a 50-million bitmap a level before that).
 */
typedef struct Generators
{
	Oid		   *oids;
	int			count;
	HTAB	   *index;
} Generators;

typedef struct GeneratorIndex
{
	Oid			oid;			/* the hash key */
	int			index;			/* -1: an extension function the caller did not name */
} GeneratorIndex;

/* gens from the caller's array: those of its OIDs that are functions of the extension of `self` */
static void
generators_init(Generators *gens, Relation depend, Oid self, const Datum *datums, const bool *nulls, int n)
{
	HASHCTL		ctl = {0};
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	long		members;

	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(GeneratorIndex);
	ctl.hcxt = CurrentMemoryContext;
	gens->index = hash_create("flakeid_advance_past_types generators", 256, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	ScanKeyInit(&keys[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(ExtensionRelationId));
	ScanKeyInit(&keys[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(getExtensionOfObject(ProcedureRelationId, self)));
	scan = systable_beginscan(depend, DependReferenceIndexId, true, NULL, 2, keys);
	while ((tuple = systable_getnext(scan)) != NULL)
	{
		Form_pg_depend dep = (Form_pg_depend) GETSTRUCT(tuple);

		if (dep->classid == ProcedureRelationId && dep->deptype == DEPENDENCY_EXTENSION)
			((GeneratorIndex *) hash_search(gens->index, &dep->objid, HASH_ENTER, NULL))->index = -1;
	}
	systable_endscan(scan);
	members = hash_get_num_entries(gens->index);
	gens->oids = palloc(sizeof(Oid) * Max(members, 1));
	gens->count = 0;
	for (int g = 0; g < n; g++)
	{
		Oid			oid = nulls[g] ? InvalidOid : DatumGetObjectId(datums[g]);
		GeneratorIndex *entry = hash_search(gens->index, &oid, HASH_FIND, NULL);

		CHECK_FOR_INTERRUPTS();
		if (entry != NULL && entry->index < 0)
		{
			entry->index = gens->count;
			gens->oids[gens->count++] = oid;
		}
	}
}

/* the generator a dependency names: a function of them, or an operator whose function is one; -1 if none */
static int
generator_of(const Generators *gens, Oid classid, Oid objid)
{
	GeneratorIndex *entry;
	Oid			function = classid == ProcedureRelationId ? objid :
		classid == OperatorRelationId ? get_opcode(objid) : InvalidOid;

	if (!OidIsValid(function))
		return -1;
	entry = hash_search(gens->index, &function, HASH_FIND, NULL);
	return entry == NULL ? -1 : entry->index;	/* (-1 for one not named) */
}

/* the generators (indexes into gens->oids) that the default of domain `type` calls */
static Bitmapset *
domain_default_generators(Relation depend, Oid type, const Generators *gens)
{
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	Bitmapset  *found = NULL;

	ScanKeyInit(&keys[0], Anum_pg_depend_classid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(TypeRelationId));
	ScanKeyInit(&keys[1], Anum_pg_depend_objid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(type));
	scan = systable_beginscan(depend, DependDependerIndexId, true, NULL, 2, keys);
	while ((tuple = systable_getnext(scan)) != NULL)
	{
		Form_pg_depend dep = (Form_pg_depend) GETSTRUCT(tuple);

		int			g = generator_of(gens, dep->refclassid, dep->refobjid);

		CHECK_FOR_INTERRUPTS();
		if (g >= 0)
			found = bms_add_member(found, g);
	}
	systable_endscan(scan);
	return found;
}

/*
 * The type one step under `type`: a domain's base type, a true array's
 * element type (*array set); InvalidOid at the bottom (or for a type
 * dropped meanwhile, or never made, which is then its own bottom and
 * carries nothing).  By pg_type's index, not the syscache: it keeps a
 * negative entry for each OID it did not find until the backend ends
 * (PUBLIC's million made-up type OIDs held 150 MB of a backend after the
 * call).
 */
static Oid
type_under(Relation types, Oid type, bool *domain, bool *array)
{
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			under = InvalidOid;

	*domain = *array = false;
	ScanKeyInit(&key, Anum_pg_type_oid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(type));
	scan = systable_beginscan(types, TypeOidIndexId, true, NULL, 1, &key);
	if ((tuple = systable_getnext(scan)) != NULL)
	{
		Form_pg_type form = (Form_pg_type) GETSTRUCT(tuple);

		if (form->typtype == TYPTYPE_DOMAIN)
		{
			*domain = true;
			under = form->typbasetype;
		}
		else if (IsTrueArrayType(form))
		{
			*array = true;
			under = form->typelem;
		}
	}
	systable_endscan(scan);
	return under;
}

/*
 * The answer for `type`: walks down until a type already answered (or the
 * bottom), then answers the types on the way from the bottom up.
 */
static TypeAnswer *
answer(HTAB *answers, Relation depend, Relation types, Oid type, const Generators *gens)
{
	List	   *path = NIL;
	TypeAnswer *below = NULL;
	ListCell   *lc;
	bool		found;

	for (Oid t = type; OidIsValid(t);)
	{
		TypeAnswer *entry = hash_search(answers, &t, HASH_ENTER, &found);
		bool		domain;
		bool		array;

		CHECK_FOR_INTERRUPTS();
		if (found)
		{
			/* (a type under itself cannot be made; were one made, this ends the walk) */
			if (!entry->answered)
				elog(ERROR, "type %u lies under itself", t);
			below = entry;
			break;
		}
		entry->answered = false;
		path = lcons_oid(t, path);
		t = type_under(types, t, &domain, &array);
		entry->is_array = array;
		entry->generators = domain ? domain_default_generators(depend, entry->type, gens) : NULL;
	}
	/* path runs from the lowest type walked up to `type` */
	foreach(lc, path)
	{
		Oid			t = lfirst_oid(lc);
		TypeAnswer *entry = hash_search(answers, &t, HASH_FIND, NULL);

		if (below == NULL)
			entry->bottom = t;
		else
		{
			entry->bottom = below->bottom;
			entry->is_array |= below->is_array;
			entry->generators = bms_add_members(entry->generators, below->generators);
		}
		entry->answered = true;
		below = entry;
	}
	list_free(path);
	return below;
}

/*
 * flakeid_advance_past_types(types oid[], generators oid[]): for each type
 * of `types`, a row (type, bottom, is_array, generators): the type at the
 * bottom of its domains and arrays, whether an array lies on the way, and
 * those of `generators` that the defaults of its domains on the way call
 * (of the extension's own functions: another OID is no generator).  It
 * reads only catalogs every role may read.
 */
PG_FUNCTION_INFO_V1(flakeid_advance_past_types);
Datum
flakeid_advance_past_types(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum	   *types;
	bool	   *type_nulls;
	int			ntypes;
	Datum	   *gen_datums;
	bool	   *gen_nulls;
	int			ngens;
	Generators	gens;
	HASHCTL		ctl = {0};
	HTAB	   *answers;
	Relation	depend;
	Relation	type_rel;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return (Datum) 0;
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(0), OIDOID, sizeof(Oid), true, TYPALIGN_INT, &types, &type_nulls, &ntypes);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), OIDOID, sizeof(Oid), true, TYPALIGN_INT, &gen_datums, &gen_nulls, &ngens);
	depend = table_open(DependRelationId, AccessShareLock);
	type_rel = table_open(TypeRelationId, AccessShareLock);
	generators_init(&gens, depend, fcinfo->flinfo->fn_oid, gen_datums, gen_nulls, ngens);

	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(TypeAnswer);
	ctl.hcxt = CurrentMemoryContext;
	answers = hash_create("flakeid_advance_past_types", Max(ntypes, 16), &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	for (int i = 0; i < ntypes; i++)
	{
		TypeAnswer *a;
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};
		Datum	   *out;
		int			n = 0;
		int			count;
		int			g = -1;

		/* (no type has OID 0: an answer for it would be no row's) */
		if (type_nulls[i] || !OidIsValid(DatumGetObjectId(types[i])))
			continue;
		a = answer(answers, depend, type_rel, DatumGetObjectId(types[i]), &gens);
		count = bms_num_members(a->generators);
		out = palloc(sizeof(Datum) * Max(count, 1));
		while ((g = bms_next_member(a->generators, g)) >= 0)
			out[n++] = ObjectIdGetDatum(gens.oids[g]);
		values[0] = ObjectIdGetDatum(a->type);
		values[1] = ObjectIdGetDatum(a->bottom);
		values[2] = BoolGetDatum(a->is_array);
		values[3] = PointerGetDatum(construct_array(out, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		pfree(out);
	}
	table_close(type_rel, AccessShareLock);
	table_close(depend, AccessShareLock);
	hash_destroy(answers);
	return (Datum) 0;
}
