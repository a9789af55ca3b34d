/*
 * horizon.c — the horizon: the lowest unit an open transaction may hold
 *
 * Each backend has a cell per counter slot in shared memory.  Before a
 * transaction's first ID of a slot, the backend writes there the unit its
 * counter word holds (a parallel worker writes its leader's cell): the
 * counters only move up, so every ID the transaction then gets from that
 * slot lies in that unit or later.  sno's toggle after a clock step back
 * takes its word down, and lowers the cells to its unit (horizon.h).  The
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
#include "generator/table.h"

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

	if (must_save)
		LWLockAcquire(FILE_LOCK, LW_EXCLUSIVE);
	else if (!LWLockConditionalAcquire(FILE_LOCK, LW_EXCLUSIVE))
		return;
	entries = palloc(sizeof(PreparedHolding) * Max(max_prepared_xacts, 1));
	LWLockAcquire(TABLE_LOCK, LW_SHARED);
	for (int i = 0; i < horizon_shared->nprepared; i++)
		if (TransactionIdIsValid(horizon_shared->prepared[i].xid))
			entries[count++] = horizon_shared->prepared[i];
	LWLockRelease(TABLE_LOCK);
	prepared_file_write(entries, count);
	LWLockRelease(FILE_LOCK);
	pfree(entries);
}

/* --- recording -------------------------------------------------------------------- */

/* lowers this backend's cell (a parallel worker: its leader's) to `unit`; a full barrier */
static void
lower_cell(int slot, uint64 unit)
{
	PGPROC	   *owner = IsParallelWorker() && MyProc->lockGroupLeader ? MyProc->lockGroupLeader : MyProc;
	pg_atomic_uint64 *cell = &cells_of(PROC_NUMBER(owner))->unit[slot];
	uint64		held = pg_atomic_read_u64(cell);

	/* the compare-and-swap is a full barrier: the cell is visible before the ID is issued */
	while (unit < held)
		if (pg_atomic_compare_exchange_u64(cell, &held, unit))
			break;
	pg_memory_barrier();
}

void
horizon_record(int slot)
{
	pg_atomic_uint64 *counter = slot_word(slot);
	uint64		word = pg_atomic_read_u64(counter);

	for (;;)
	{
		uint64		again;

		/* a counter whose unit is used up (closed by a horizon) issues in a later one */
		lower_cell(slot, word == 0 ? 0 : counter_unit(word) + (counter_seq(word) == COUNTER_SEQ_MASK ? 1 : 0));
		/* sno: a toggle whose sweep of the cells missed this one shows in the word */
		again = pg_atomic_read_u64(counter);
		if (counter_flag(again) == counter_flag(word))
			break;
		word = again;
	}
	horizon_recorded[slot] = true;
}

void
horizon_lower_own_for_toggle(int slot, uint64 unit)
{
	if (horizon_recorded[slot])
		lower_cell(slot, unit);
}

void
horizon_lower_all_for_toggle(int slot, uint64 unit)
{
	pg_memory_barrier();
	for (int p = 0; p < horizon_shared->nprocs; p++)
	{
		pg_atomic_uint64 *cell = &cells_of(p)->unit[slot];
		uint64		held = pg_atomic_read_u64(cell);

		/* (a cell cleared meanwhile stays cleared: its transaction has ended) */
		while (held != HORIZON_NONE && unit < held)
			if (pg_atomic_compare_exchange_u64(cell, &held, unit))
				break;
	}
	pg_memory_barrier();
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

/*
 * PRE_PREPARE: the cells become a holding of the transaction, saved before
 * it is prepared.  Refused while flakeid.prepared is damaged: rewriting it
 * with this holding alone would drop the holdings it could not give, and
 * the horizon would be served without them after the next restart.
 */
static void
hold_for_prepared(void)
{
	PreparedHolding holding = {.xid = GetTopTransactionIdIfAny()};
	int			free_entry = -1;

	if (!take_cells(&holding) || !TransactionIdIsValid(holding.xid))
		return;
	if (horizon_shared->prepared_damaged)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cannot prepare a transaction that generated IDs while flakeid's file \"%s\" is damaged", PREPARED_FILE),
				 errdetail("The file holds the units of the IDs that prepared transactions issued, and is kept as it is until an operator acts."),
				 errhint("Commit this transaction instead, or, once no prepared transaction that issued IDs remains (pg_prepared_xacts), remove the file and restart the server.")));
	LWLockAcquire(TABLE_LOCK, LW_EXCLUSIVE);
	(void) forget_ended();
	for (int i = 0; i < horizon_shared->nprepared && free_entry < 0; i++)
		if (!TransactionIdIsValid(horizon_shared->prepared[i].xid))
			free_entry = i;
	if (free_entry < 0 && horizon_shared->nprepared < max_prepared_xacts)
		free_entry = horizon_shared->nprepared++;
	if (free_entry >= 0)
		horizon_shared->prepared[free_entry] = holding;
	LWLockRelease(TABLE_LOCK);
	if (free_entry < 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("flakeid cannot hold the horizon for more prepared transactions than max_prepared_xacts")));
	save_prepared(true);
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
		{
			/* read once: Min() reads its arguments twice, and a cell cleared between them read as "none held" */
			uint64		held = pg_atomic_read_u64(&cells->unit[def->first_slot + v]);

			low = Min(low, held);
		}
	}
	LWLockAcquire(TABLE_LOCK, LW_SHARED);
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
	pg_atomic_uint64 *given = &horizon_shared->given[def->id];
	uint64		before = pg_atomic_read_u64(given);

	while (before < unit)
		if (pg_atomic_compare_exchange_u64(given, &before, unit))
			return unit;
	return before;
}

/* sno's floor (counters.h) raised to `unit`, before the counter is closed below it */
static void
raise_sno_floor(uint64 unit)
{
	pg_atomic_uint64 *floor = &counter_shared->sno_floor.value;
	uint64		before = pg_atomic_read_u64(floor);

	while (before < unit)
		if (pg_atomic_compare_exchange_u64(floor, &before, unit))
			break;
	pg_memory_barrier();
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
 *
 * sno: L is published as its floor before the closing.  A clock step back
 * then toggles only to a unit at or after the floor (issue.c), else counts
 * on from the last unit, so later IDs stay at or after L.  A toggle that
 * read the floor before it was raised wrote its transaction's cell first,
 * and the second reading sees it (each side writes, then reads the other's).
 */
uint64
horizon_unit(const GeneratorDef *def)
{
	uint64		latest = 0;
	uint64		horizon,
				held;

	if (horizon_shared->prepared_damaged)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's file \"%s\" is damaged, so no horizon can be given", PREPARED_FILE),
				 errdetail("It holds the units of the IDs that prepared transactions issued."),
				 errhint("Once no prepared transaction that issued IDs remains (pg_prepared_xacts), remove the file and restart the server.")));
	for (int v = 0; v < def->variants; v++)
	{
		uint64		unit = counter_unit(pg_atomic_read_u64(slot_word(def->first_slot + v)));

		latest = Max(latest, unit);
	}
	pg_memory_barrier();
	horizon = lowest_held(def);
	if (horizon == HORIZON_NONE)
		horizon = Max(latest, generator_clock_unit(def)) + 1;
	if (def->ticktock)
		raise_sno_floor(horizon);
	if (horizon > 0)
		for (int v = 0; v < def->variants; v++)
			(void) issue_close_through(def, def->first_slot + v, horizon - 1);
	pg_memory_barrier();
	/* read once: Min() evaluates its arguments twice */
	held = lowest_held(def);
	return never_back(def, Min(horizon, held));
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
	.nlocks = 2, .locks = &horizon_locks};

	shmem_request_part(&part);
	shmem_at_startup(horizon_at_start);
	RegisterXactCallback(horizon_at_xact_event, NULL);
}
