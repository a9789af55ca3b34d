/*
 * horizon.c — the horizon: the lowest unit an open transaction may hold
 *
 * Each backend has a cell per counter slot in shared memory.  Before a
 * transaction's first ID of a slot, the backend writes there the unit its
 * counter word holds (a parallel worker writes its leader's cell): the
 * counters only move up (sno's tick-tock aside), so every ID the
 * transaction then gets from that slot lies in that unit or later.  The
 * cell is cleared at commit or abort, from the transaction callback, which
 * runs once the transaction is visible to new snapshots (after
 * ProcArrayEndTransaction).  Subtransactions leave it alone: the IDs of a
 * rolled-back one are never committed, so holding them back is harmless.
 *
 * The order of the two sides is what makes the horizon safe.  A backend
 * publishes its cell (a compare-and-swap: a full barrier) before the
 * compare-and-swap that issues its ID; horizon_unit reads the counter words
 * first and the cells after a barrier.  So a cell the horizon misses was
 * written after it read the counters, and its IDs lie at or after the unit
 * it read.
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

#include "access/parallel.h"
#include "access/transam.h"
#include "access/twophase.h"	/* max_prepared_xacts */
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "storage/procarray.h"

#include "generator/counters.h"
#include "generator/horizon.h"
#include "generator/horizon_file.h"
#include "generator/issue.h"
#include "generator/shmem.h"

#define HORIZON_NONE		PG_UINT64_MAX

#if PG_VERSION_NUM >= 170000
#define PROC_NUMBER(proc)	GetNumberFromPGProc(proc)
#else
#define PROC_NUMBER(proc)	((proc)->pgprocno)
#endif

/* one backend's cells: written by it (and its parallel workers), read by horizon_unit */
typedef struct HorizonCells
{
	pg_atomic_uint64 unit[GEN_SLOT_COUNT];	/* HORIZON_NONE: nothing held */
} HorizonCells;

#define CELLS_STRIDE	TYPEALIGN(PG_CACHE_LINE_SIZE, sizeof(HorizonCells))

typedef struct HorizonShared
{
	/* per generator: the latest horizon given, (unit << 1) | sno's tick-tock then */
	pg_atomic_uint64 given[GEN_COUNT];
	int			nprocs;
	int			nprepared;		/* entries of prepared[] */
	bool		prepared_damaged;	/* flakeid.prepared could not be read at start */
	PreparedHolding prepared[FLEXIBLE_ARRAY_MEMBER];
	/* then nprocs HorizonCells, CELLS_STRIDE apart, from cells_offset */
} HorizonShared;

static HorizonShared *horizon_shared = NULL;
static LWLockPadded *horizon_locks = NULL;
bool		horizon_recorded[GEN_SLOT_COUNT];

static int
total_procs(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

static Size
cells_offset(void)
{
	return TYPEALIGN(PG_CACHE_LINE_SIZE, offsetof(HorizonShared, prepared) +
					 sizeof(PreparedHolding) * (Size) max_prepared_xacts);
}

static Size
horizon_size(void)
{
	return add_size(cells_offset(), mul_size(CELLS_STRIDE, (Size) total_procs()));
}

static HorizonCells *
cells_of(int procno)
{
	if (procno < 0 || procno >= horizon_shared->nprocs)
		elog(ERROR, "flakeid horizon: process number %d out of range", procno);
	return (HorizonCells *) ((char *) horizon_shared + cells_offset() + CELLS_STRIDE * (Size) procno);
}

/* With the horizon's lock held exclusively: the holdings in use, saved durably; ERROR on failure. */
static void
save_prepared(void)
{
	PreparedHolding *entries = palloc(sizeof(PreparedHolding) * Max(horizon_shared->nprepared, 1));
	int			count = 0;

	for (int i = 0; i < horizon_shared->nprepared; i++)
		if (TransactionIdIsValid(horizon_shared->prepared[i].xid))
			entries[count++] = horizon_shared->prepared[i];
	prepared_file_write(entries, count);
	pfree(entries);
}

/* --- recording -------------------------------------------------------------------- */

void
horizon_record(int slot)
{
	PGPROC	   *owner = IsParallelWorker() && MyProc->lockGroupLeader ? MyProc->lockGroupLeader : MyProc;
	pg_atomic_uint64 *cell = &cells_of(PROC_NUMBER(owner))->unit[slot];
	uint64		word = pg_atomic_read_u64(slot_word(slot));

	/* a counter whose unit is used up (closed by a horizon) issues in a later one */
	uint64		floor = word == 0 ? 0 : counter_unit(word) + (counter_seq(word) == COUNTER_SEQ_MASK ? 1 : 0);
	uint64		held = pg_atomic_read_u64(cell);

	/* the compare-and-swap is a full barrier: the cell is visible before the ID is issued */
	while (floor < held)
		if (pg_atomic_compare_exchange_u64(cell, &held, floor))
			break;
	pg_memory_barrier();
	horizon_recorded[slot] = true;
}

/* this backend's cells, cleared; with `into` (PRE_PREPARE) copied there first */
static bool
take_cells(PreparedHolding *into)
{
	HorizonCells *cells;
	bool		any = false;

	/* in the transaction callback: never raise (horizon_record refused such a process) */
	if (PROC_NUMBER(MyProc) >= horizon_shared->nprocs)
		return false;
	cells = cells_of(PROC_NUMBER(MyProc));

	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		uint64		held = pg_atomic_read_u64(&cells->unit[s]);

		if (into)
			into->unit[s] = held;
		else if (held != HORIZON_NONE)
			pg_atomic_write_u64(&cells->unit[s], HORIZON_NONE);
		any |= held != HORIZON_NONE;
	}
	return any;
}

/* with the lock held exclusively: forgets the holdings of transactions that have ended */
static bool
forget_ended(void)
{
	bool		forgot = false;

	for (int i = 0; i < horizon_shared->nprepared; i++)
		if (TransactionIdIsValid(horizon_shared->prepared[i].xid) &&
			!TransactionIdIsInProgress(horizon_shared->prepared[i].xid))
		{
			horizon_shared->prepared[i].xid = InvalidTransactionId;
			forgot = true;
		}
	while (horizon_shared->nprepared > 0 &&
		   !TransactionIdIsValid(horizon_shared->prepared[horizon_shared->nprepared - 1].xid))
		horizon_shared->nprepared--;
	return forgot;
}

/* PRE_PREPARE: the cells become a holding of the transaction, saved before it is prepared */
static void
hold_for_prepared(void)
{
	PreparedHolding holding = {.xid = GetTopTransactionIdIfAny()};
	int			free_entry = -1;

	if (!take_cells(&holding) || !TransactionIdIsValid(holding.xid))
		return;
	LWLockAcquire(&horizon_locks[0].lock, LW_EXCLUSIVE);
	(void) forget_ended();
	for (int i = 0; i < horizon_shared->nprepared && free_entry < 0; i++)
		if (!TransactionIdIsValid(horizon_shared->prepared[i].xid))
			free_entry = i;
	if (free_entry < 0 && horizon_shared->nprepared < max_prepared_xacts)
		free_entry = horizon_shared->nprepared++;
	if (free_entry < 0)
	{
		LWLockRelease(&horizon_locks[0].lock);
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("flakeid cannot hold the horizon for more prepared transactions than max_prepared_xacts")));
	}
	horizon_shared->prepared[free_entry] = holding;
	save_prepared();
	LWLockRelease(&horizon_locks[0].lock);
}

static void
horizon_at_xact_event(XactEvent event, void *arg pg_attribute_unused())
{
	if (horizon_shared == NULL || MyProc == NULL)
		return;
	switch (event)
	{
		case XACT_EVENT_PRE_PREPARE:
			hold_for_prepared();
			return;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
			/* the leader clears what its parallel workers wrote too */
			(void) take_cells(NULL);
			memset(horizon_recorded, 0, sizeof(horizon_recorded));
			return;
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			memset(horizon_recorded, 0, sizeof(horizon_recorded));
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
	uint64		low = HORIZON_NONE;
	bool		ended = false;

	for (int p = 0; p < horizon_shared->nprocs; p++)
	{
		HorizonCells *cells = cells_of(p);

		for (int v = 0; v < def->variants; v++)
			low = Min(low, pg_atomic_read_u64(&cells->unit[def->first_slot + v]));
	}
	LWLockAcquire(&horizon_locks[0].lock, LW_SHARED);
	for (int i = 0; i < horizon_shared->nprepared; i++)
	{
		const PreparedHolding *holding = &horizon_shared->prepared[i];

		if (!TransactionIdIsValid(holding->xid))
			continue;
		if (!TransactionIdIsInProgress(holding->xid))
		{
			ended = true;
			continue;
		}
		for (int v = 0; v < def->variants; v++)
			low = Min(low, holding->unit[def->first_slot + v]);
	}
	LWLockRelease(&horizon_locks[0].lock);
	if (ended)
	{
		LWLockAcquire(&horizon_locks[0].lock, LW_EXCLUSIVE);
		if (forget_ended())
			save_prepared();
		LWLockRelease(&horizon_locks[0].lock);
	}
	return low;
}

/*
 * A horizon never moves back while sno keeps its tick-tock (the other
 * generators have none): a transaction that read its counter before a
 * closing may hold a unit below the horizon given then, although its IDs
 * lie after it, and nothing can be issued below a horizon given before
 * but after a clock step back.  So the horizon given is at least the last
 * one given with the same tick-tock; after a toggle it starts again from
 * what is held, which moves it back: the reader's sign to read again.
 */
static uint64
never_back(const GeneratorDef *def, uint64 unit)
{
	pg_atomic_uint64 *given = &horizon_shared->given[def->id];
	uint64		flag = def->ticktock && counter_flag(pg_atomic_read_u64(slot_word(def->first_slot))) ? 1 : 0;
	uint64		before = pg_atomic_read_u64(given);

	for (;;)
	{
		uint64		result = unit;

		if (before != 0 && (before & 1) == flag)
			result = Max(result, before >> 1);
		if (before == ((result << 1) | flag) ||
			pg_atomic_compare_exchange_u64(given, &before, (result << 1) | flag))
			return result;
	}
}

/*
 * The horizon unit L is the lowest unit an open or prepared transaction
 * holds; when none holds any, every ID issued so far has ended, and L lies
 * past all of them and the clock: the latest of the counters' units and the
 * clock's, plus one.  Every counter of the generator is then closed through
 * L - 1, so that every ID issued afterwards lies at or after L: a counter
 * that lags (an idle siq kind) moves up, and a counter in L - 1 with the
 * clock still there makes its next caller wait for the next unit (4 ms at
 * most for sno).  The holdings are read again after the closing: a
 * transaction that recorded its cell before its ID was issued, but after
 * the first reading, shows there, since an ID issued before the closing
 * was recorded before it.
 */
uint64
horizon_unit(const GeneratorDef *def)
{
	uint64		latest = 0;
	uint64		horizon;

	if (horizon_shared->prepared_damaged)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's file \"%s\" is damaged, so no horizon can be given", PREPARED_FILE),
				 errdetail("It holds the units of the IDs that prepared transactions issued."),
				 errhint("Once no prepared transaction that issued IDs remains (pg_prepared_xacts), remove the file and restart the server.")));
	for (int v = 0; v < def->variants; v++)
		latest = Max(latest, counter_unit(pg_atomic_read_u64(slot_word(def->first_slot + v))));
	pg_memory_barrier();
	horizon = lowest_held(def);
	if (horizon == HORIZON_NONE)
		horizon = Max(latest, generator_clock_unit(def)) + 1;
	if (horizon > 0)
		for (int v = 0; v < def->variants; v++)
			(void) issue_close_through(def, def->first_slot + v, horizon - 1);
	pg_memory_barrier();
	return never_back(def, Min(horizon, lowest_held(def)));
}

/* --- start ---------------------------------------------------------------------- */

static void
horizon_shared_init(void *part)
{
	HorizonShared *shared = (HorizonShared *) part;

	horizon_shared = shared;
	for (int g = 0; g < GEN_COUNT; g++)
		pg_atomic_init_u64(&shared->given[g], 0);
	shared->nprocs = total_procs();
	for (int p = 0; p < shared->nprocs; p++)
		for (int s = 0; s < GEN_SLOT_COUNT; s++)
			pg_atomic_init_u64(&cells_of(p)->unit[s], HORIZON_NONE);
}

/* at start, in the postmaster: the holdings of the transactions prepared before it */
static void
horizon_at_start(void)
{
	int			count = 0;

	if (prepared_file_read(horizon_shared->prepared, max_prepared_xacts, &count))
		horizon_shared->nprepared = count;
	else
		horizon_shared->prepared_damaged = true;
}

void
horizon_init(void)
{
	ShmemPart	part = {.name = "flakeid horizon", .size_at_request = horizon_size,
		.address = (void **) &horizon_shared, .init = horizon_shared_init,
	.nlocks = 1, .locks = &horizon_locks};

	shmem_request_part(&part);
	shmem_at_startup(horizon_at_start);
	RegisterXactCallback(horizon_at_xact_event, NULL);
}
