/*
 * backfill_floor.c — flakeid_backfill_floor() and
 * flakeid_backfill_floor_raise(): the instant before which back-fill is
 * refused, as a DBA reads it and as the cutover's step raises it
 * (flakeid_advance_past_all; docs/OPERATIONS.md, "A logical-replication
 * cutover")
 */
#include "postgres.h"

#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "generator/resume.h"
#include "types/glue.h"

/* EXECUTE on a function, as each major spells it */
static AclResult
function_aclcheck(Oid function)
{
#if PG_VERSION_NUM >= 160000
	return object_aclcheck(ProcedureRelationId, function, GetUserId(), ACL_EXECUTE);
#else
	return pg_proc_aclcheck(function, GetUserId(), ACL_EXECUTE);
#endif
}

/* the floor as a timestamptz, NULL for none */
static Datum
floor_datum(FunctionCallInfo fcinfo, int64 floor)
{
	if (floor == 0)
		PG_RETURN_NULL();
	PG_RETURN_TIMESTAMPTZ(flakeid_timestamptz_from_unix_us(floor));
}

PG_FUNCTION_INFO_V1(flakeid_backfill_floor);
Datum
flakeid_backfill_floor(PG_FUNCTION_ARGS)
{
	shmem_require("flakeid_backfill_floor");
	/*
	 * After a promotion, the primary's bounds replayed from the WAL are
	 * taken up first, as back-fill takes them up before it refuses below
	 * the floor (may take flakeid_lock): read before, a monitor saw no
	 * floor until the renewer's next pass while back-fill was refused
	 * (1.4's audit).
	 */
	resume_take_up_upstream();
	return floor_datum(fcinfo, mark_backfill_floor());
}

/*
 * Whether the current user may raise the floor: a superuser, or a role
 * that may run the whole cutover step, which calls it: EXECUTE on
 * flakeid_advance_past_all and on each *_advance_past it calls, all in this
 * function's schema.  The function is executable by PUBLIC for the step's
 * call (an operator granted the step in 1.3 needs no new grant); a floor
 * refuses back-fill to every role, so no other role may raise it, and a
 * step that would then be refused an advance (42501) is refused here,
 * before anything is raised or advanced (the review of ca63933: the floor
 * outlived the step's error).
 */
static const char *const step_functions[] = {
	"flakeid_advance_past_all", "sno_advance_past", "siq_advance_past", "kuid_advance_past",
	"kuid96_advance_past", "snowflake_advance_past",
};

/*
 * The function of `name` in `schema` with its own signature, found by its
 * argument types, not by name alone: a function of the same name that a
 * role with CREATE there added must neither be taken for it nor make the
 * lookup ambiguous (an error, 42725, that would refuse the step).
 */
static Oid
step_function(Oid schema, const char *schema_name, const char *name)
{
	Oid			argtypes[2] = {InvalidOid, InvalidOid};
	int			nargs = 1;

	if (strcmp(name, "flakeid_advance_past_all") == 0)
	{
		argtypes[0] = TIMESTAMPTZOID;
		argtypes[1] = TEXTARRAYOID;
		nargs = 2;
	}
	else if (strcmp(name, "snowflake_advance_past") == 0)
		argtypes[0] = INT8OID;
	else
	{
		/* sno_advance_past(sno), ...: the type its name begins with, in the schema */
		char	   *type_name = pnstrdup(name, strlen(name) - strlen("_advance_past"));

		argtypes[0] = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum(type_name),
									  ObjectIdGetDatum(schema));
		if (!OidIsValid(argtypes[0]))
			return InvalidOid;
	}
	return LookupFuncName(list_make2(makeString(pstrdup(schema_name)), makeString(pstrdup(name))),
						  nargs, argtypes, true);
}

static bool
may_raise(FunctionCallInfo fcinfo)
{
	Oid			schema = get_func_namespace(fcinfo->flinfo->fn_oid);
	char	   *schema_name = get_namespace_name(schema);

	if (superuser())
		return true;
	if (schema_name == NULL)
		return false;
	for (int i = 0; i < (int) lengthof(step_functions); i++)
	{
		Oid			function = step_function(schema, schema_name, step_functions[i]);

		if (!OidIsValid(function) || function_aclcheck(function) != ACLCHECK_OK)
			return false;
	}
	return true;
}

PG_FUNCTION_INFO_V1(flakeid_backfill_floor_raise);
Datum
flakeid_backfill_floor_raise(PG_FUNCTION_ARGS)
{
	TimestampTz instant = PG_GETARG_TIMESTAMPTZ(0);

	if (!may_raise(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to raise flakeid's back-fill floor"),
				 errdetail("Only a superuser, or a role that may execute flakeid_advance_past_all and each *_advance_past it calls, may raise it: it refuses back-fill to every role."),
				 errhint("Run the cutover's step as a role granted EXECUTE on flakeid_advance_past_all and on sno_advance_past, siq_advance_past, kuid_advance_past, kuid96_advance_past and snowflake_advance_past (docs/OPERATIONS.md).")));
	if (TIMESTAMP_NOT_FINITE(instant))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the back-fill floor must be a finite time")));
	return floor_datum(fcinfo, flakeid_raise_backfill_floor(flakeid_unix_us_from_timestamptz(instant, "timestamptz")));
}
