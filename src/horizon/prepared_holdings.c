/*
 * prepared_holdings.c — the table of prepared transactions' holdings
 * (prepared_holdings.h); its saves to flakeid.prepared, and the start and
 * stop, are prepared_saves.c's
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/twophase.h"	/* max_prepared_xacts */
#include "access/xlog.h"
#include "storage/procarray.h"
#include "utils/snapmgr.h"

#include "base/shmem.h"
#include "horizon/prepared_internal.h"

HoldingsShared *prepared_holdings = NULL;
LWLockPadded *prepared_holdings_locks = NULL;

/*
 * The entries the table has: twice max_prepared_xacts, and one.  A
 * recovery that starts again from a restartpoint loads flakeid.prepared as
 * saved at the last record it replayed, then replays the PREPAREs after the
 * restartpoint again: two sets, each bounded by max_prepared_xacts when the
 * standby's is at least its primary's.  The one more lets an overflow entry
 * be made even with max_prepared_transactions = 0 (a file left by a higher
 * setting).  Whatever does not fit is merged into the overflow entry.
 */
int
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
uint64
store_holding(const PreparedHolding *holding)
{
	int			entry = -1;
	int			overflow = 0;

	for (int i = 0; i < prepared_holdings->nprepared && entry < 0; i++)
		if (covers(&prepared_holdings->prepared[i], holding->fxid) || covers(holding, prepared_holdings->prepared[i].fxid))
			entry = i;
	if (entry >= 0 && (holding_is_overflow(&prepared_holdings->prepared[entry]) || holding_is_overflow(holding)))
		merge_holding(&prepared_holdings->prepared[entry], holding);
	else
	{
		for (int i = 0; i < prepared_holdings->nprepared && entry < 0; i++)
			if (!FullTransactionIdIsValid(prepared_holdings->prepared[i].fxid))
				entry = i;
		if (entry < 0 && prepared_holdings->nprepared < holding_capacity())
			entry = prepared_holdings->nprepared++;
		if (entry >= 0)
			prepared_holdings->prepared[entry] = *holding;
		else
		{
			for (int i = 0; i < prepared_holdings->nprepared; i++)
				if (holding_is_overflow(&prepared_holdings->prepared[i]))
					overflow = i;
			merge_holding(&prepared_holdings->prepared[overflow], holding);
		}
	}
	return pg_atomic_add_fetch_u64(&prepared_holdings->changed, 1);
}

/*
 * Transaction IDs in 64 bits.  `xid`, a transaction running now or the
 * oldest one (never more than 2^31 before `next`: wraparound protection
 * stops the server first), as a full ID.  A holding of a transaction more
 * than 2^31 before `next` has ended: its 32 bits name another by now, so
 * it is never asked about by them.  (1.3 and 1.4 at first compared an
 * overflow's last transaction with the oldest running in 32 bits: 2^31
 * transactions after an overflow ended, it counted again.)  Except a
 * transaction of epoch 0 once the epoch has moved on: 1.2's file kept 32
 * bits, read back with epoch 0, and only those are known (prepared_file.h).
 */
static bool
only_32_bits(FullTransactionId fxid, FullTransactionId next)
{
	return EpochFromFullTransactionId(fxid) == 0 && EpochFromFullTransactionId(next) > 0;
}

static FullTransactionId
widened(FullTransactionId next, TransactionId xid)
{
	uint64		back = (uint32) (XidFromFullTransactionId(next) - xid);
	uint64		top = U64FromFullTransactionId(next);

	return FullTransactionIdFromU64(top - Min(back, top));
}

static bool
too_old_to_run(FullTransactionId fxid, FullTransactionId next)
{
	return !only_32_bits(fxid, next) &&
		U64FromFullTransactionId(next) - U64FromFullTransactionId(fxid) > (uint64) PG_INT32_MAX;
}

/* whether every transaction an overflow covers (up to `next`) precedes `oldest`, the oldest running */
static bool
overflow_passed(const PreparedHolding *entry, FullTransactionId next, TransactionId oldest)
{
	FullTransactionId last = entry->through;

	if (!FullTransactionIdPrecedes(last, next))
		last = FullTransactionIdFromU64(U64FromFullTransactionId(next) - 1);
	if (only_32_bits(last, next))
		return TransactionIdPrecedes(XidFromFullTransactionId(last), oldest);
	/* (`next` was read first: a transaction begun since can make the oldest follow it) */
	if (TransactionIdFollowsOrEquals(oldest, XidFromFullTransactionId(next)))
		return true;
	return FullTransactionIdPrecedes(last, widened(next, oldest));
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
	if (!FullTransactionIdPrecedes(entry->fxid, next))
		return true;
	if (!holding_is_overflow(entry))
		return too_old_to_run(entry->fxid, next) ||
			!TransactionIdIsInProgress(XidFromFullTransactionId(entry->fxid));
#if PG_VERSION_NUM >= 190000
	return overflow_passed(entry, next, GetOldestActiveTransactionId(false, true));
#else
	return overflow_passed(entry, next, GetOldestActiveTransactionId());
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
 * the next ID, in full or in its 32 bits (1.2's files kept no epoch): a
 * save may come before a crash loses the WAL after it, so the file may
 * name one whose commit-log page is not on disk yet, and its status is not
 * known yet anyway.  An overflow stays in the table until recovery ends
 * (its transactions are not known one by one here; a hot standby's
 * horizon calls judge it by their snapshot).  A transaction older than
 * the commit log ended long ago.
 */
static bool
holding_ended_in_recovery(const PreparedHolding *entry, FullTransactionId next)
{
	TransactionId xid = XidFromFullTransactionId(entry->fxid);

	if (holding_is_overflow(entry) || !FullTransactionIdPrecedes(entry->fxid, next))
		return false;
	if (too_old_to_run(entry->fxid, next))
		return true;
	if (!TransactionIdPrecedes(xid, XidFromFullTransactionId(next)))
		return false;
	return TransactionIdPrecedes(xid, oldest_clog_xid()) || TransactionIdDidCommit(xid) || TransactionIdDidAbort(xid);
}

/* with the table's lock held exclusively: forgets the holdings that ended; whether any was */
static bool
forget_ended(bool in_recovery)
{
	FullTransactionId next = ReadNextFullTransactionId();
	bool		forgot = false;

	for (int i = 0; i < prepared_holdings->nprepared; i++)
	{
		PreparedHolding *entry = &prepared_holdings->prepared[i];

		if (FullTransactionIdIsValid(entry->fxid) &&
			(in_recovery ? holding_ended_in_recovery(entry, next) : holding_ended(entry, next)))
		{
			entry->fxid = entry->through = InvalidFullTransactionId;
			forgot = true;
		}
	}
	while (prepared_holdings->nprepared > 0 &&
		   !FullTransactionIdIsValid(prepared_holdings->prepared[prepared_holdings->nprepared - 1].fxid))
		prepared_holdings->nprepared--;
	if (forgot)
		(void) pg_atomic_add_fetch_u64(&prepared_holdings->changed, 1);
	return forgot;
}

void
holdings_hold(const PreparedHolding *holding, bool in_recovery)
{
	LWLockAcquire(TABLE_LOCK, LW_EXCLUSIVE);
	(void) forget_ended(in_recovery);
	(void) store_holding(holding);
	LWLockRelease(TABLE_LOCK);
}

/*
 * In recovery, for a horizon call (a backend of a hot standby): whether
 * every transaction an overflow covers has ended, by the transactions of
 * the primary the standby knows to be running (a hot standby's snapshots
 * take their xmin from them, prepared transactions included): the calling
 * statement's snapshot's xmin follows them all.  Without a snapshot, no.
 * (An overflow made at start, when the file's last save came before the
 * redo point, covers every transaction before the checkpoint's next one:
 * 1.3's rule, "counts until recovery ends", froze the horizon of every
 * standby made by pg_basebackup that generates.)
 */
static bool
overflow_ended_in_recovery(const PreparedHolding *entry, FullTransactionId next)
{
	if (!ActiveSnapshotSet())
		return false;
	return overflow_passed(entry, next, GetActiveSnapshot()->xmin);
}

/*
 * Whether `entry` still holds the horizon, for a horizon call (a backend):
 * outside recovery by the procarray; in recovery (a standby that
 * generates, so a hot standby) by the replayed commit log, as the startup
 * process judges it, and by the primary's running transactions the
 * standby knows (TransactionIdIsInProgress, or for an overflow the
 * snapshot's xmin): a transaction whose holding was logged but which died
 * in a crash of the primary before its PREPARE has no end in the commit
 * log, and the primary's next running-xacts record drops it from those.
 * Only the startup process forgets entries in recovery, by the commit log
 * alone (the known transactions are kept only with hot_standby).
 */
static bool
holding_counts(const PreparedHolding *entry, FullTransactionId next, bool in_recovery)
{
	if (!in_recovery)
		return !holding_ended(entry, next);
	if (holding_is_overflow(entry))
		return !overflow_ended_in_recovery(entry, next);
	if (holding_ended_in_recovery(entry, next))
		return false;
	return !FullTransactionIdPrecedes(entry->fxid, next) ||
		(!too_old_to_run(entry->fxid, next) && TransactionIdIsInProgress(XidFromFullTransactionId(entry->fxid)));
}

uint64
holdings_lowest(const GeneratorDef *def, uint64 low)
{
	bool		ended = false;
	bool		in_recovery = RecoveryInProgress();
	FullTransactionId next = ReadNextFullTransactionId();

	LWLockAcquire(TABLE_LOCK, LW_SHARED);
	for (int i = 0; i < prepared_holdings->nprepared; i++)
	{
		const PreparedHolding *entry = &prepared_holdings->prepared[i];

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
		/* (the renewer saves the table without them) */
		LWLockAcquire(TABLE_LOCK, LW_EXCLUSIVE);
		(void) forget_ended(false);
		LWLockRelease(TABLE_LOCK);
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
	for (int i = 0; i < prepared_holdings->nprepared; i++)
		if (FullTransactionIdIsValid(prepared_holdings->prepared[i].fxid) &&
			holding_counts(&prepared_holdings->prepared[i], next, in_recovery))
			(*open)[count++] = prepared_holdings->prepared[i];
	LWLockRelease(TABLE_LOCK);
	return count;
}

bool
holdings_damaged(void)
{
	return prepared_holdings->damaged;
}

/* --- start ---------------------------------------------------------------- */

static void
holdings_shared_init(void *part)
{
	HoldingsShared *shared = (HoldingsShared *) part;

	prepared_holdings = shared;
	pg_atomic_init_u64(&shared->changed, 0);
	pg_atomic_init_u64(&shared->saved, 0);
	pg_atomic_init_u64(&shared->saved_lsn, 0);
}

void
holdings_init(void)
{
	ShmemPart	part = {.name = "flakeid prepared holdings", .size_at_request = holdings_size,
		.address = (void **) &prepared_holdings, .init = holdings_shared_init,
	.nlocks = 2, .locks = &prepared_holdings_locks};

	shmem_request_part(&part);
}
