/*
 * advance.c — the setval of flakeid: moving a live generator past an ID
 * that another server issued (README, "Moving to flakeid and between
 * servers")
 *
 * A raise uses the horizon's own means (horizon.c): sno's floor, then the
 * counter closed through a unit, so that the lock-free loops of issue.c
 * need nothing new; and the marks, so that it outlives the shared memory.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_proc.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/datetime.h"
#include "utils/wait_event.h"

#include "access/xact.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "generator/clock.h"
#include "generator/counters.h"
#include "generator/generator.h"
#include "generator/issue.h"
#include "generator/marks.h"
#include "generator/table.h"

static void
refuse_ahead_of_clock(const GeneratorDef *def, int64 ahead_us)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the %s ID lies %.3f s ahead of this server's clock", def->name, ahead_us / 1e6),
			 errdetail("An ID to advance past may lie at most %d s ahead of the clock: the generator would issue that far ahead of it.",
					   (int) (ADVANCE_LEAD_US / USECS_PER_SEC)),
			 errhint("Check the clocks of both servers; once this server's clock is within %d s of the ID, call again.",
					 (int) (ADVANCE_LEAD_US / USECS_PER_SEC))));
}

/*
 * The ID lies within the lead, but this server's IDs sort after it only
 * from a later unit: kuid96 of a node above this server's, passed only at
 * the end of its 256-second window.  1.3 closed the counter through that
 * end at once, taking kuid_new() up to 315 s ahead of the clock; 1.4's
 * first version refused where the end lay more than the lead ahead (3 calls
 * in 4 for a fresh ID).  The call waits instead until that end lies within
 * the lead, at most 256 s (the ID is at most the lead ahead, its window at
 * most 256 s long), so the generator never issues more than the lead ahead
 * of its clock, which marks_setup.c's fresh start relies on, and the call
 * the docs call good is taken.  Other sessions issue meanwhile as before;
 * a cancel ends the wait (it holds no lock).
 */
static void
wait_until_within_lead(const GeneratorDef *def, int64 issue_from_us)
{
	int64		now = clock_read(def);

	if (issue_from_us - now <= ADVANCE_LEAD_US)
		return;
	ereport(NOTICE,
			(errmsg("waiting %.0f s for this server's clock: its %s IDs sort after this ID only after %s, and a generator is never advanced more than %d s ahead of the clock",
					(issue_from_us - ADVANCE_LEAD_US - now) / 1e6, def->name,
					timestamptz_to_str(flakeid_timestamptz_from_unix_us(issue_from_us)),
					(int) (ADVANCE_LEAD_US / USECS_PER_SEC)),
			 errdetail("kuid96 orders by a 256-second window before the node, and the ID's node sorts after this server's.")));
	while ((now = clock_read(def)) < issue_from_us - ADVANCE_LEAD_US)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 (long) Min((issue_from_us - ADVANCE_LEAD_US - now) / 1000 + 1, 1000), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * The marks first, then the counter: a restart between the two resumes
 * after the raised marks, and a generator call between them issues before
 * the raise, as it would have before the call.  sno raises both of its
 * marks: after a restart it takes up either tick-tock only past its mark,
 * so neither can go back below the unit.
 */
void
flakeid_advance_past(GeneratorId gen, int variant, int64 id_unix_us, uint64 through_unit)
{
	const GeneratorDef *def = &generator_defs[gen];
	int			slot = def->first_slot + variant;
	int64		latest[MARK_COUNT] = {0};
	int64		ahead;

	Assert(variant >= 0 && variant < def->variants);
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot advance the %s generator during recovery", def->name),
				 errhint("Advance it on the primary: the raise reaches the standbys through the WAL.")));
	(void) generator_prepare(def, variant);	/* the preload, the state file, settings, identities */
	ahead = id_unix_us - clock_read(def);
	if (ahead > ADVANCE_LEAD_US)
		refuse_ahead_of_clock(def, ahead);
	/* (unreachable while the lead is 60 s: a counter counts units far past any clock) */
	if (through_unit >= COUNTER_MAX_UNIT)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the %s generator cannot issue past the last time unit it can count", def->name)));
	/* the units it will issue in: at most the lead ahead as well (kuid96's window may end later) */
	wait_until_within_lead(def, def->format->unit_start(through_unit));

	if (def->ticktock)
		latest[MARK_SNO_FLAG0] = latest[MARK_SNO_FLAG1] = def->format->unit_start(through_unit + 1);
	else
		latest[MARK_MONOTONIC] = def->format->unit_start(through_unit + 1);
	/* (an error releases the lock with the transaction's abort, as everywhere) */
	flakeid_lock_acquire();
	(void) mark_renew_latest_locked(latest, MARK_RENEW_US, ERROR);
	flakeid_lock_release();

	if (def->ticktock)
		counters_raise_sno_floor(through_unit + 1);
	(void) issue_close_through(def, slot, through_unit);
}

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

/*
 * flakeid_advance_past_hold(rel): the lock flakeid_advance_past_all takes
 * on a table, and every table under it (partitions, inheritance children),
 * before it checks what code planning the table's read would run, and holds
 * until the transaction ends.  SHARE UPDATE EXCLUSIVE conflicts with what
 * adds such code (CREATE INDEX, CREATE STATISTICS, ATTACH PARTITION, a new
 * inheritance child, ALTER TABLE ... ADD CHECK) but not with reads or
 * writes; with ACCESS SHARE alone (the read's own lock), a table's owner
 * could add an index whose predicate calls its function between the check
 * and the read, and the planner would run it as the caller (the audit of
 * 1.4's cutover made itself superuser so).
 *
 * LOCK TABLE takes that mode only with UPDATE, DELETE or TRUNCATE, which an
 * operator granted SELECT to run the cutover lacks; this takes it with what
 * the cutover itself needs: EXECUTE on flakeid_advance_past_all and SELECT
 * on a column of the table (checked here, so that no other role holds a
 * table against VACUUM with it).  The check that follows reads the catalogs
 * through its statement's snapshot: at REPEATABLE READ or above that is the
 * transaction's, which may predate the lock and miss an index committed
 * while waiting for it, so those levels are refused (0A000).  Waits for the
 * lock as LOCK TABLE does, bounded by lock_timeout (55P03).  Returns how
 * many tables it holds.
 */
PG_FUNCTION_INFO_V1(flakeid_advance_past_hold);
Datum
flakeid_advance_past_hold(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Oid			schema = get_func_namespace(fcinfo->flinfo->fn_oid);
	Oid			argtypes[2] = {TIMESTAMPTZOID, TEXTARRAYOID};
	Oid			cutover;
	List	   *tables;

	cutover = LookupFuncName(list_make2(makeString(get_namespace_name(schema)),
										makeString("flakeid_advance_past_all")),
							 2, argtypes, false);
	if (function_aclcheck(cutover) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function flakeid_advance_past_all"),
				 errdetail("flakeid_advance_past_hold takes the lock of flakeid_advance_past_all, for its callers only.")));
	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("flakeid_advance_past_all cannot hold a table another role owns at isolation level %s",
						XactIsoLevel == XACT_SERIALIZABLE ? "SERIALIZABLE" : "REPEATABLE READ"),
				 errdetail("Its check of the code that reading the table would run reads the catalogs through the transaction's snapshot, taken before the lock: an index added meanwhile would go unseen."),
				 errhint("Call it at READ COMMITTED (the default), in a transaction of its own.")));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
		pg_attribute_aclcheck_all(relid, GetUserId(), ACL_SELECT, ACLMASK_ANY) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(relid))));
	LockRelationOid(relid, ShareUpdateExclusiveLock);
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	tables = find_all_inheritors(relid, ShareUpdateExclusiveLock, NULL);
	PG_RETURN_INT32(list_length(tables));
}
