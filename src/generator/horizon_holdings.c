/*
 * horizon_holdings.c — the table of prepared transactions' holdings
 * (horizon_holdings.h)
 *
 * Saves are grouped: each change to the table is counted, and a save
 * records the count it copied.  A PREPARE whose change a completed save
 * already covers returns without writing; one that finds a save under way
 * waits for it on a condition variable (cancellable), then saves if that
 * save began before its change.  N PREPAREs at once cost about two saves,
 * not N, and none waits uncancellably on the file's lock.
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/twophase.h"	/* max_prepared_xacts */
#include "access/xlog.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/condition_variable.h"
#include "storage/procarray.h"
#include "utils/wait_event.h"

#include "generator/horizon_holdings.h"
#include "generator/shmem.h"

typedef struct HoldingsShared
{
	pg_atomic_uint64 changed;	/* changes made to prepared[], counted (under the table's lock) */
	pg_atomic_uint64 saved;		/* the count of changes the last completed save holds */
	ConditionVariable save_done;	/* broadcast when a save completes */
	bool		damaged;		/* flakeid.prepared could not be read at start */
	int			nprepared;		/* entries of prepared[] in use or free */
	PreparedHolding prepared[FLEXIBLE_ARRAY_MEMBER];
} HoldingsShared;

static HoldingsShared *holdings = NULL;
static LWLockPadded *holdings_locks = NULL;

#define TABLE_LOCK	(&holdings_locks[0].lock)	/* prepared[]: memory only, never held across I/O */
#define FILE_LOCK	(&holdings_locks[1].lock)	/* held by the one save under way */

/* how long a waiter for a save sleeps before it looks again (a save that failed broadcasts nothing) */
#define SAVE_WAIT_MS	100

/*
 * The entries the table has: twice max_prepared_xacts, and one.  A
 * recovery that starts again from a restartpoint loads flakeid.prepared as
 * saved at the last record it replayed, then replays the PREPAREs after the
 * restartpoint again: two sets, each bounded by max_prepared_xacts when the
 * standby's is at least its primary's.  The one more lets an overflow entry
 * be made even with max_prepared_transactions = 0 (a file left by a higher
 * setting).  Whatever does not fit is merged into the overflow entry.
 */
static int
holding_capacity(void)
{
	return 2 * max_prepared_xacts + 1;
}

static Size
holdings_size(void)
{
	return add_size(offsetof(HoldingsShared, prepared),
					mul_size(sizeof(PreparedHolding), (Size) holding_capacity()));
}

static bool
covers(const PreparedHolding *entry, FullTransactionId fxid)
{
	return FullTransactionIdIsValid(entry->fxid) &&
		!FullTransactionIdPrecedes(fxid, entry->fxid) && !FullTransactionIdFollows(fxid, entry->through);
}

/* `into` holds for `holding` too: the union of their transactions, the lower unit per slot */
static void
merge_holding(PreparedHolding *into, const PreparedHolding *holding)
{
	if (FullTransactionIdPrecedes(holding->fxid, into->fxid))
		into->fxid = holding->fxid;
	if (FullTransactionIdFollows(holding->through, into->through))
		into->through = holding->through;
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		into->unit[s] = Min(into->unit[s], holding->unit[s]);
}

/*
 * With the table's lock held exclusively (or in the postmaster at start):
 * stores `holding` in the entry of its transaction (merged when that entry
 * is an overflow), else in a free one, else merges it into the overflow
 * entry (made from entry 0 if none exists).  Never fails; counts the change.
 */
static uint64
store_holding(const PreparedHolding *holding)
{
	int			entry = -1;
	int			overflow = 0;

	for (int i = 0; i < holdings->nprepared && entry < 0; i++)
		if (covers(&holdings->prepared[i], holding->fxid) || covers(holding, holdings->prepared[i].fxid))
			entry = i;
	if (entry >= 0 && (holding_is_overflow(&holdings->prepared[entry]) || holding_is_overflow(holding)))
		merge_holding(&holdings->prepared[entry], holding);
	else
	{
		for (int i = 0; i < holdings->nprepared && entry < 0; i++)
			if (!FullTransactionIdIsValid(holdings->prepared[i].fxid))
				entry = i;
		if (entry < 0 && holdings->nprepared < holding_capacity())
			entry = holdings->nprepared++;
		if (entry >= 0)
			holdings->prepared[entry] = *holding;
		else
		{
			for (int i = 0; i < holdings->nprepared; i++)
				if (holding_is_overflow(&holdings->prepared[i]))
					overflow = i;
			merge_holding(&holdings->prepared[overflow], holding);
		}
	}
	return pg_atomic_add_fetch_u64(&holdings->changed, 1);
}

/*
 * Outside recovery: whether the transactions `entry` holds for have all
 * ended.  A transaction at or past the next ID was never assigned in this
 * history (its holding was saved before a crash that lost its WAL), so it
 * has ended; the others ask the procarray (a prepared transaction is in
 * it).  An overflow ends when the oldest transaction still running (a
 * prepared one included) follows every transaction it covers.
 */
static bool
holding_ended(const PreparedHolding *entry, FullTransactionId next)
{
	FullTransactionId last = entry->through;

	if (!FullTransactionIdPrecedes(entry->fxid, next))
		return true;
	if (!holding_is_overflow(entry))
		return !TransactionIdIsInProgress(XidFromFullTransactionId(entry->fxid));
	if (!FullTransactionIdPrecedes(last, next))
		last = FullTransactionIdFromU64(U64FromFullTransactionId(next) - 1);
#if PG_VERSION_NUM >= 190000
	return TransactionIdPrecedes(XidFromFullTransactionId(last), GetOldestActiveTransactionId(false, true));
#else
	return TransactionIdPrecedes(XidFromFullTransactionId(last), GetOldestActiveTransactionId());
#endif
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
 * In recovery (the startup process): whether the replayed commit log says
 * `entry`'s transaction ended.  Never asks about a transaction at or past
 * the next ID, in full or in its 32 bits (1.2's files kept no epoch): the
 * file is saved at PREPARE, so it may name one whose commit-log page is not
 * on disk yet, and its status is not known yet anyway.  An overflow stays
 * until recovery ends (its transactions are not known one by one).  A
 * transaction older than the commit log ended long ago.
 */
static bool
holding_ended_in_recovery(const PreparedHolding *entry, FullTransactionId next)
{
	TransactionId xid = XidFromFullTransactionId(entry->fxid);

	if (holding_is_overflow(entry) || !FullTransactionIdPrecedes(entry->fxid, next) ||
		!TransactionIdPrecedes(xid, XidFromFullTransactionId(next)))
		return false;
	return TransactionIdPrecedes(xid, oldest_clog_xid()) || TransactionIdDidCommit(xid) || TransactionIdDidAbort(xid);
}

/* with the table's lock held exclusively: forgets the holdings that ended; whether any was */
static bool
forget_ended(bool in_recovery)
{
	FullTransactionId next = ReadNextFullTransactionId();
	bool		forgot = false;

	for (int i = 0; i < holdings->nprepared; i++)
	{
		PreparedHolding *entry = &holdings->prepared[i];

		if (FullTransactionIdIsValid(entry->fxid) &&
			(in_recovery ? holding_ended_in_recovery(entry, next) : holding_ended(entry, next)))
		{
			entry->fxid = entry->through = InvalidFullTransactionId;
			forgot = true;
		}
	}
	while (holdings->nprepared > 0 &&
		   !FullTransactionIdIsValid(holdings->prepared[holdings->nprepared - 1].fxid))
		holdings->nprepared--;
	if (forgot)
		(void) pg_atomic_add_fetch_u64(&holdings->changed, 1);
	return forgot;
}

/*
 * With the file's lock held: writes the table as it is now, and records the
 * changes that write holds.  ERROR when the file cannot be written (the
 * lock is released by the abort).
 */
static void
write_table(void)
{
	PreparedHolding *entries = palloc(sizeof(PreparedHolding) * holding_capacity());
	int			count = 0;
	uint64		covered;

	LWLockAcquire(TABLE_LOCK, LW_SHARED);
	covered = pg_atomic_read_u64(&holdings->changed);
	for (int i = 0; i < holdings->nprepared; i++)
		if (FullTransactionIdIsValid(holdings->prepared[i].fxid))
			entries[count++] = holdings->prepared[i];
	LWLockRelease(TABLE_LOCK);
	prepared_file_write(entries, count);
	pg_atomic_write_u64(&holdings->saved, covered);
	pfree(entries);
}

/*
 * Returns once a completed save holds change number `change`: at once if
 * one already does; else saves, or waits for the save under way (on the
 * condition variable, which ends on a cancel) and looks again.
 */
static void
save_through(uint64 change)
{
	bool		prepared_to_sleep = false;

	while (pg_atomic_read_u64(&holdings->saved) < change)
	{
		if (LWLockConditionalAcquire(FILE_LOCK, LW_EXCLUSIVE))
		{
			if (pg_atomic_read_u64(&holdings->saved) < change)
				write_table();
			LWLockRelease(FILE_LOCK);
			ConditionVariableBroadcast(&holdings->save_done);
			break;
		}
		if (!prepared_to_sleep)
			ConditionVariablePrepareToSleep(&holdings->save_done);
		else
			(void) ConditionVariableTimedSleep(&holdings->save_done, SAVE_WAIT_MS, PG_WAIT_EXTENSION);
		prepared_to_sleep = true;
	}
	if (prepared_to_sleep)
		ConditionVariableCancelSleep();
}

/* saves the table unless a save is under way (which will hold every change made before it copies) */
static void
save_if_idle(void)
{
	if (!LWLockConditionalAcquire(FILE_LOCK, LW_EXCLUSIVE))
		return;
	write_table();
	LWLockRelease(FILE_LOCK);
	ConditionVariableBroadcast(&holdings->save_done);
}

void
holdings_hold(const PreparedHolding *holding, bool in_recovery)
{
	uint64		change;

	LWLockAcquire(TABLE_LOCK, LW_EXCLUSIVE);
	(void) forget_ended(in_recovery);
	change = store_holding(holding);
	LWLockRelease(TABLE_LOCK);
	save_through(change);
}

/*
 * Whether `entry` still holds the horizon, for a horizon call (a backend):
 * outside recovery by the procarray; in recovery (a standby that
 * generates, so a hot standby) by the replayed commit log, as the startup
 * process judges it, and by the primary's running transactions the
 * standby knows (TransactionIdIsInProgress): a transaction whose holding
 * was logged but which died in a crash of the primary before its PREPARE
 * has no end in the commit log, and the primary's next running-xacts
 * record drops it from those.  Only the startup process forgets entries
 * in recovery, by the commit log alone (the known transactions are kept
 * only with hot_standby).  An overflow counts until recovery ends.
 */
static bool
holding_counts(const PreparedHolding *entry, FullTransactionId next, bool in_recovery)
{
	if (!in_recovery)
		return !holding_ended(entry, next);
	if (holding_ended_in_recovery(entry, next))
		return false;
	return holding_is_overflow(entry) || !FullTransactionIdPrecedes(entry->fxid, next) ||
		TransactionIdIsInProgress(XidFromFullTransactionId(entry->fxid));
}

uint64
holdings_lowest(const GeneratorDef *def, uint64 low)
{
	bool		ended = false;
	bool		in_recovery = RecoveryInProgress();
	FullTransactionId next = ReadNextFullTransactionId();

	LWLockAcquire(TABLE_LOCK, LW_SHARED);
	for (int i = 0; i < holdings->nprepared; i++)
	{
		const PreparedHolding *entry = &holdings->prepared[i];

		if (!FullTransactionIdIsValid(entry->fxid))
			continue;
		if (!holding_counts(entry, next, in_recovery))
		{
			ended = !in_recovery;	/* (in recovery only replay forgets) */
			continue;
		}
		for (int v = 0; v < def->variants; v++)
			low = Min(low, entry->unit[def->first_slot + v]);
	}
	LWLockRelease(TABLE_LOCK);
	if (ended)
	{
		bool		forgot;

		LWLockAcquire(TABLE_LOCK, LW_EXCLUSIVE);
		forgot = forget_ended(false);
		LWLockRelease(TABLE_LOCK);
		if (forgot)
			save_if_idle();
	}
	return low;
}

int
holdings_open(PreparedHolding **open)
{
	int			count = 0;
	bool		in_recovery = RecoveryInProgress();
	FullTransactionId next = ReadNextFullTransactionId();

	*open = palloc(sizeof(PreparedHolding) * holding_capacity());
	LWLockAcquire(TABLE_LOCK, LW_SHARED);
	for (int i = 0; i < holdings->nprepared; i++)
		if (FullTransactionIdIsValid(holdings->prepared[i].fxid) &&
			holding_counts(&holdings->prepared[i], next, in_recovery))
			(*open)[count++] = holdings->prepared[i];
	LWLockRelease(TABLE_LOCK);
	return count;
}

bool
holdings_damaged(void)
{
	return holdings->damaged;
}

/* --- start ---------------------------------------------------------------------- */

static void
holdings_shared_init(void *part)
{
	HoldingsShared *shared = (HoldingsShared *) part;

	holdings = shared;
	pg_atomic_init_u64(&shared->changed, 0);
	pg_atomic_init_u64(&shared->saved, 0);
	ConditionVariableInit(&shared->save_done);
}

static void
take_at_start(void *arg pg_attribute_unused(), const PreparedHolding *holding)
{
	(void) store_holding(holding);
}

/*
 * At start, in the postmaster, before recovery: every holding of the file
 * joins the table, however many (those beyond its room are merged into the
 * overflow entry).  The commit log cannot be asked here: which ended is
 * decided by recovery's replay and, after it, by holdings_lowest.
 */
static void
holdings_at_start(void)
{
	holdings->nprepared = 0;
	holdings->damaged = !prepared_file_read(take_at_start, NULL);
	pg_atomic_write_u64(&holdings->saved, pg_atomic_read_u64(&holdings->changed));
}

void
holdings_init(void)
{
	ShmemPart	part = {.name = "flakeid prepared holdings", .size_at_request = holdings_size,
		.address = (void **) &holdings, .init = holdings_shared_init,
	.nlocks = 2, .locks = &holdings_locks};

	shmem_request_part(&part);
	shmem_at_startup(holdings_at_start);
}
