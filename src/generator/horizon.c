/*
 * horizon.c — the horizon: the lowest unit an open transaction may hold
 *
 * What open transactions hold is in their backends' cells
 * (horizon_cells.h).  They are cleared at commit or abort, from the
 * transaction callback here, which runs once the transaction is visible to
 * new snapshots (after ProcArrayEndTransaction).  Subtransactions leave them
 * alone: the IDs of a rolled-back one are never committed, so holding them
 * back is harmless.
 *
 * Prepared transactions: at PRE_PREPARE the backend's cells are copied into
 * a table of prepared holdings, keyed by the transaction ID and saved to
 * "flakeid.prepared" (horizon_file.c) before the transaction is
 * prepared, so they outlive the backend and a restart; at PREPARE the cells
 * are cleared.  A holding counts while its transaction is in progress
 * (TransactionIdIsInProgress: true for a prepared one); horizon_unit
 * forgets those that ended.
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/twophase.h"	/* max_prepared_xacts */
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/procarray.h"

#include "generator/counters.h"
#include "generator/horizon.h"
#include "generator/horizon_cells.h"
#include "generator/horizon_file.h"
#include "generator/issue.h"
#include "generator/shmem.h"
#include "generator/wal_record.h"

typedef struct HorizonShared
{
	/* per generator: the latest horizon given, as a unit */
	pg_atomic_uint64 given[GEN_COUNT];
	int			nprepared;		/* entries of prepared[] */
	bool		prepared_damaged;	/* flakeid.prepared could not be read at start */
	PreparedHolding prepared[FLEXIBLE_ARRAY_MEMBER];
} HorizonShared;

static HorizonShared *horizon_shared = NULL;
static LWLockPadded *horizon_locks = NULL;

/*
 * The holdings the table can keep: twice max_prepared_xacts.  A recovery
 * that starts again from a restartpoint (a standby stopped, a crash) loads
 * flakeid.prepared as saved at the last record it had replayed, then
 * replays the records after the restartpoint again: the transactions
 * prepared there come back before their ends are replayed, beside those of
 * the file that are still to end.  Each set is bounded by
 * max_prepared_xacts (a standby has at least its primary's), so their union
 * by twice that; with max_prepared_xacts alone, a standby with many
 * prepared transactions stopped at its next start (the fault campaign,
 * test/chaos, found it).
 */
static int
holding_capacity(void)
{
	return 2 * max_prepared_xacts;
}

static Size
horizon_size(void)
{
	return add_size(offsetof(HorizonShared, prepared),
					mul_size(sizeof(PreparedHolding), (Size) holding_capacity()));
}

#define TABLE_LOCK	(&horizon_locks[0].lock)	/* prepared[]: memory only, never held across I/O */
#define FILE_LOCK	(&horizon_locks[1].lock)	/* serialises writes of flakeid.prepared */

/*
 * Saves the holdings in use durably; ERROR on failure.  Called without the
 * table's lock: the copy is taken after the file's lock, so each write holds
 * every change made before it began, and the table is never locked across
 * the fsyncs (the horizon reads it without waiting for them).  With
 * `must_save` false (forgetting ended holdings) it saves only when no other
 * write is under way: an ended holding left in the file costs nothing.
 */
static void
save_prepared(bool must_save)
{
	PreparedHolding *entries;
	int			count = 0;
	int			capacity = holding_capacity();	/* (read once: Max() reads twice) */

	if (must_save)
		LWLockAcquire(FILE_LOCK, LW_EXCLUSIVE);
	else if (!LWLockConditionalAcquire(FILE_LOCK, LW_EXCLUSIVE))
		return;
	entries = palloc(sizeof(PreparedHolding) * Max(capacity, 1));
	LWLockAcquire(TABLE_LOCK, LW_SHARED);
	for (int i = 0; i < horizon_shared->nprepared; i++)
		if (FullTransactionIdIsValid(horizon_shared->prepared[i].fxid))
			entries[count++] = horizon_shared->prepared[i];
	LWLockRelease(TABLE_LOCK);
	prepared_file_write(entries, count);
	LWLockRelease(FILE_LOCK);
	pfree(entries);
}

/* with the lock held exclusively: forgets the holdings of transactions that have ended */
static bool
forget_ended(void)
{
	bool		forgot = false;

	for (int i = 0; i < horizon_shared->nprepared; i++)
		if (FullTransactionIdIsValid(horizon_shared->prepared[i].fxid) &&
			!TransactionIdIsInProgress(XidFromFullTransactionId(horizon_shared->prepared[i].fxid)))
		{
			horizon_shared->prepared[i].fxid = InvalidFullTransactionId;
			forgot = true;
		}
	while (horizon_shared->nprepared > 0 &&
		   !FullTransactionIdIsValid(horizon_shared->prepared[horizon_shared->nprepared - 1].fxid))
		horizon_shared->nprepared--;
	return forgot;
}

/*
 * With the table's lock held exclusively: stores `holding` in the entry of
 * its transaction, else in a free one; its index, or -1 when all
 * holding_capacity() are in use.
 */
static int
store_holding(const PreparedHolding *holding)
{
	int			entry = -1;

	for (int i = 0; i < horizon_shared->nprepared && entry < 0; i++)
		if (FullTransactionIdEquals(horizon_shared->prepared[i].fxid, holding->fxid))
			entry = i;
	for (int i = 0; i < horizon_shared->nprepared && entry < 0; i++)
		if (!FullTransactionIdIsValid(horizon_shared->prepared[i].fxid))
			entry = i;
	if (entry < 0 && horizon_shared->nprepared < holding_capacity())
		entry = horizon_shared->nprepared++;
	if (entry >= 0)
		horizon_shared->prepared[entry] = *holding;
	return entry;
}

/*
 * PRE_PREPARE: the cells become a holding of the transaction, saved before
 * it is prepared.  Refused while flakeid.prepared is damaged: rewriting it
 * with this holding alone would drop the holdings it could not give, and
 * the horizon would be served without them after the next restart.
 */
static void
hold_for_prepared(void)
{
	PreparedHolding holding = {.fxid = GetTopFullTransactionIdIfAny()};
	int			entry;

	if (!horizon_cells_take(holding.unit) || !FullTransactionIdIsValid(holding.fxid))
		return;
	if (horizon_shared->prepared_damaged)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cannot prepare a transaction that generated IDs while flakeid's file \"%s\" is damaged", PREPARED_FILE),
				 errdetail("The file holds the units of the IDs that prepared transactions issued, and is kept as it is until an operator acts."),
				 errhint("Commit this transaction instead, or, once no prepared transaction that issued IDs remains (pg_prepared_xacts), remove the file and restart the server.")));
	LWLockAcquire(TABLE_LOCK, LW_EXCLUSIVE);
	(void) forget_ended();
	entry = store_holding(&holding);
	LWLockRelease(TABLE_LOCK);
	if (entry < 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("flakeid cannot hold the horizon for more prepared transactions than max_prepared_xacts")));
	save_prepared(true);
	/* and to the standbys: the transaction's PREPARE record, which follows, flushes it */
	{
		PersistedHolding persisted;

		holding_to_persisted(&holding, &persisted);
		wal_record_log_prepared(&persisted);
	}
}

/* the oldest transaction whose status the commit log still keeps */
static TransactionId
oldest_clog_xid(void)
{
#if PG_VERSION_NUM >= 170000
	return TransamVariables->oldestClogXid;
#else
	return ShmemVariableCache->oldestClogXid;
#endif
}

/*
 * With the table's lock held exclusively, in recovery: forgets the holdings
 * of transactions the replayed commit log says ended.  Not
 * TransactionIdIsInProgress: during recovery a prepared transaction joins
 * the procarray only when recovery ends.  A transaction older than the
 * commit log ended long ago (a prepared one holds its truncation back).
 */
static void
forget_ended_in_recovery(void)
{
	TransactionId oldest = oldest_clog_xid();

	for (int i = 0; i < horizon_shared->nprepared; i++)
	{
		TransactionId xid = XidFromFullTransactionId(horizon_shared->prepared[i].fxid);

		if (TransactionIdIsValid(xid) &&
			(TransactionIdPrecedes(xid, oldest) || TransactionIdDidCommit(xid) || TransactionIdDidAbort(xid)))
			horizon_shared->prepared[i].fxid = InvalidFullTransactionId;
	}
}

void
horizon_redo_prepared(const PersistedHolding *persisted)
{
	PreparedHolding holding;
	int			entry;

	if (!holding_from_persisted(persisted, &holding))
		ereport(PANIC,
				(errmsg("flakeid_redo: a prepared transaction's holding names a counter this version of flakeid does not have"),
				 errhint("Upgrade flakeid on standbys before their primary.")));
	if (horizon_shared->prepared_damaged)
		return;					/* the horizon refuses until an operator acts; the file stays as it is */
	LWLockAcquire(TABLE_LOCK, LW_EXCLUSIVE);
	forget_ended_in_recovery();
	entry = store_holding(&holding);
	LWLockRelease(TABLE_LOCK);
	if (entry < 0)
		ereport(FATAL,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("flakeid cannot hold the horizon for more prepared transactions than twice max_prepared_xacts"),
				 errhint("Set max_prepared_transactions on this standby at least as high as on its primary.")));
	save_prepared(true);
}

static void
horizon_at_xact_event(XactEvent event, void *arg pg_attribute_unused())
{
	if (horizon_shared == NULL)
		return;
	switch (event)
	{
		case XACT_EVENT_PRE_PREPARE:
			hold_for_prepared();
			return;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
			(void) horizon_cells_take(NULL);
			horizon_cells_forget_recorded();
			return;
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			horizon_cells_forget_recorded();
			return;
		default:
			return;
	}
}

/* --- the horizon ----------------------------------------------------------------- */

/*
 * The lowest unit the cells of open transactions and the holdings of
 * prepared ones hold for `def` (HORIZON_NONE: none); forgets the holdings
 * of transactions that have ended.
 */
static uint64
lowest_held(const GeneratorDef *def)
{
	uint64		low = horizon_cells_lowest(def->first_slot, def->variants);
	bool		ended = false;

	LWLockAcquire(TABLE_LOCK, LW_SHARED);
	for (int i = 0; i < horizon_shared->nprepared; i++)
	{
		const PreparedHolding *holding = &horizon_shared->prepared[i];

		if (!FullTransactionIdIsValid(holding->fxid))
			continue;
		if (!TransactionIdIsInProgress(XidFromFullTransactionId(holding->fxid)))
		{
			ended = true;
			continue;
		}
		for (int v = 0; v < def->variants; v++)
			low = Min(low, holding->unit[def->first_slot + v]);
	}
	LWLockRelease(TABLE_LOCK);
	if (ended)
	{
		bool		forgot;

		LWLockAcquire(TABLE_LOCK, LW_EXCLUSIVE);
		forgot = forget_ended();
		LWLockRelease(TABLE_LOCK);
		if (forgot)
			save_prepared(false);
	}
	return low;
}

/*
 * A horizon never moves back: a transaction that read its counter before a
 * closing may hold a unit below the horizon given then, although its IDs
 * lie after it, so the horizon given is at least the last one given.
 */
static uint64
never_back(const GeneratorDef *def, uint64 unit)
{
	return atomic_raise_u64(&horizon_shared->given[def->id], unit);
}

static void
refuse_if_damaged(void)
{
	if (horizon_shared->prepared_damaged)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's file \"%s\" is damaged, so no horizon can be given", PREPARED_FILE),
				 errdetail("It holds the units of the IDs that prepared transactions issued."),
				 errhint("Once no prepared transaction that issued IDs remains (pg_prepared_xacts), remove the file and restart the server.")));
}

int
horizon_prepared_holdings(PreparedHolding **holdings)
{
	int			count = 0;
	int			capacity = holding_capacity();	/* (read once: Max() reads twice) */

	refuse_if_damaged();
	*holdings = palloc(sizeof(PreparedHolding) * Max(capacity, 1));
	LWLockAcquire(TABLE_LOCK, LW_SHARED);
	for (int i = 0; i < horizon_shared->nprepared; i++)
		if (FullTransactionIdIsValid(horizon_shared->prepared[i].fxid) &&
			TransactionIdIsInProgress(XidFromFullTransactionId(horizon_shared->prepared[i].fxid)))
			(*holdings)[count++] = horizon_shared->prepared[i];
	LWLockRelease(TABLE_LOCK);
	return count;
}

/*
 * The horizon unit L is the clock's unit C, read first, or the lowest unit
 * an open or prepared transaction holds, if lower.  Every counter of the
 * generator is closed through C - 1, so that every ID issued afterwards
 * lies at or after C: a counter that lags (an idle siq kind, a writer that
 * has not issued since the last unit) moves up.  The clock is already in
 * C, so no writer waits for it: 1.2 gave the unit after the latest one
 * used and closed the present unit, so every call made the writers wait
 * for the next unit (4 ms for sno), and any role polling in a loop held
 * them to a few hundred IDs a second.  A horizon one unit behind costs a
 * poller nothing: the present unit's rows come at its next call.
 *
 * The holdings are read after the closing: a transaction that issued an ID
 * below C did so before the closing (after it, every counter lies at or
 * after C), so it had recorded its cell before, and shows there unless it
 * has ended.
 *
 * sno: C is published as its floor before the closing.  A clock step back
 * then toggles only to a unit at or after the floor (issue.c), else counts
 * on from the last unit, so later IDs stay at or after C.  A toggle that
 * read the floor before it was raised wrote its transaction's cell first,
 * and the reading of the holdings sees it (each side writes, then reads the
 * other's).
 */
uint64
horizon_unit(const GeneratorDef *def)
{
	uint64		clock = generator_clock_unit(def);
	uint64		held;

	refuse_if_damaged();
	if (def->ticktock)
		counters_raise_sno_floor(clock);
	if (clock > 0)
		for (int v = 0; v < def->variants; v++)
			(void) issue_close_through(def, def->first_slot + v, clock - 1);
	pg_memory_barrier();
	held = lowest_held(def);
	return never_back(def, Min(clock, held));
}

/* --- start ---------------------------------------------------------------------- */

static void
horizon_shared_init(void *part)
{
	HorizonShared *shared = (HorizonShared *) part;

	horizon_shared = shared;
	for (int g = 0; g < GEN_COUNT; g++)
		pg_atomic_init_u64(&shared->given[g], 0);
}

/* at start, in the postmaster: the holdings of the transactions prepared before it */
static void
horizon_at_start(void)
{
	int			count = 0;

	if (prepared_file_read(horizon_shared->prepared, holding_capacity(), &count))
		horizon_shared->nprepared = count;
	else
		horizon_shared->prepared_damaged = true;
}

void
horizon_init(void)
{
	ShmemPart	part = {.name = "flakeid horizon", .size_at_request = horizon_size,
		.address = (void **) &horizon_shared, .init = horizon_shared_init,
	.nlocks = 2, .locks = &horizon_locks};

	shmem_request_part(&part);
	horizon_cells_init();
	shmem_at_startup(horizon_at_start);
	RegisterXactCallback(horizon_at_xact_event, NULL);
}
