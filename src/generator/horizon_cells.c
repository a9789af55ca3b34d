/*
 * horizon_cells.c — the cells of what each transaction may hold
 * (horizon_cells.h)
 *
 * The order of the two sides is what makes the horizon safe.  A backend
 * publishes its cell (a compare-and-swap: a full barrier) before the
 * compare-and-swap that issues its ID; horizon_unit closes the counters
 * first and reads the cells after a barrier.  So a cell the horizon misses
 * was written after the closing, and its IDs lie at or after the horizon.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/twophase.h"	/* max_prepared_xacts */
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/wait_event.h"

#include "base/clock.h"
#include "base/shmem.h"
#include "generator/counters.h"
#include "generator/horizon_cells.h"

#if PG_VERSION_NUM >= 170000
#define PROC_NUMBER(proc)	GetNumberFromPGProc(proc)
#else
#define PROC_NUMBER(proc)	((proc)->pgprocno)
#endif

/* one backend's cells: written by it (and its parallel workers), read by the horizon */
typedef struct HorizonCells
{
	pg_atomic_uint64 unit[GEN_SLOT_COUNT];	/* HORIZON_NONE: nothing held */
} HorizonCells;

#define CELLS_STRIDE	TYPEALIGN(PG_CACHE_LINE_SIZE, sizeof(HorizonCells))

typedef struct CellsShared
{
	int			nprocs;
	/* sno toggles begun and ended (horizon_toggle_*): odd while one is in progress */
	pg_atomic_uint64 toggles;
	/* then nprocs HorizonCells, CELLS_STRIDE apart, from CELLS_OFFSET */
} CellsShared;

#define CELLS_OFFSET	TYPEALIGN(PG_CACHE_LINE_SIZE, sizeof(CellsShared))

static CellsShared *cells_shared = NULL;
bool		horizon_recorded[GEN_SLOT_COUNT];

static int
total_procs(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

static Size
cells_size(void)
{
	return add_size(CELLS_OFFSET, mul_size(CELLS_STRIDE, (Size) total_procs()));
}

static HorizonCells *
cells_of(int procno)
{
	if (procno < 0 || procno >= cells_shared->nprocs)
		elog(ERROR, "flakeid horizon: process number %d out of range", procno);
	return (HorizonCells *) ((char *) cells_shared + CELLS_OFFSET + CELLS_STRIDE * (Size) procno);
}

/* lowers this backend's cell (a parallel worker: its leader's) to `unit`; a full barrier */
static void
lower_cell(int slot, uint64 unit)
{
	PGPROC	   *owner = IsParallelWorker() && MyProc->lockGroupLeader ? MyProc->lockGroupLeader : MyProc;

	/* the compare-and-swap is a full barrier: the cell is visible before the ID is issued */
	(void) atomic_lower_u64(&cells_of(PROC_NUMBER(owner))->unit[slot], unit);
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

/* every cell of `slot` that holds a unit above `unit` lowered to it */
static void
lower_all_cells(int slot, uint64 unit)
{
	pg_memory_barrier();
	for (int p = 0; p < cells_shared->nprocs; p++)
	{
		pg_atomic_uint64 *cell = &cells_of(p)->unit[slot];
		uint64		held = pg_atomic_read_u64(cell);

		/* not atomic_lower_u64: a cell cleared meanwhile stays cleared (its transaction ended) */
		while (held != HORIZON_NONE && unit < held)
			if (pg_atomic_compare_exchange_u64(cell, &held, unit))
				break;
	}
	pg_memory_barrier();
}

void
horizon_toggle_begin(int slot, uint64 unit)
{
	(void) pg_atomic_fetch_add_u64(&cells_shared->toggles, 1);	/* odd: a full barrier */
	lower_all_cells(slot, unit);
}

void
horizon_toggle_end(int slot, uint64 unit, bool made)
{
	if (made)
		lower_all_cells(slot, unit);
	(void) pg_atomic_fetch_add_u64(&cells_shared->toggles, 1);	/* even: a full barrier */
}

/* one pass over the cells, pausing (for tests) after each that holds a unit */
static uint64
scan_cells(int first_slot, int nslots)
{
	uint64		low = HORIZON_NONE;

	for (int p = 0; p < cells_shared->nprocs; p++)
	{
		HorizonCells *cells = cells_of(p);

		for (int s = first_slot; s < first_slot + nslots; s++)
		{
			/* read once: Min() reads its arguments twice, and a cell cleared between them read as "none held" */
			uint64		held = pg_atomic_read_u64(&cells->unit[s]);

			low = Min(low, held);
			if (held != HORIZON_NONE)
				debug_pause(DEBUG_PAUSE_HORIZON_CELL_READ);
		}
	}
	return low;
}

/*
 * A scan one by one may read a cell before a toggle lowered it, and the
 * toggling transaction's own (lower) cell after it ended: between two equal,
 * even readings of the toggles, no toggle overlapped the scan.
 */
uint64
horizon_cells_lowest(int first_slot, int nslots)
{
	for (;;)
	{
		uint64		toggles = pg_atomic_read_u64(&cells_shared->toggles);
		uint64		low;

		if (toggles % 2 != 0)
		{
			/* a toggle in progress: a few sweeps of the cells, or a test's pause */
			pgstat_report_wait_start(PG_WAIT_EXTENSION);
			pg_usleep(100L);
			pgstat_report_wait_end();
			CHECK_FOR_INTERRUPTS();
			continue;
		}
		pg_read_barrier();
		low = scan_cells(first_slot, nslots);
		pg_read_barrier();
		if (pg_atomic_read_u64(&cells_shared->toggles) == toggles)
			return low;
	}
}

bool
horizon_cells_take(uint64 *into)
{
	HorizonCells *cells;
	bool		any = false;

	/* in the transaction callback: never raise (horizon_record refused such a process) */
	if (cells_shared == NULL || MyProc == NULL || PROC_NUMBER(MyProc) >= cells_shared->nprocs)
		return false;
	cells = cells_of(PROC_NUMBER(MyProc));
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		uint64		held = pg_atomic_read_u64(&cells->unit[s]);

		if (into)
			into[s] = held;
		else if (held != HORIZON_NONE)
			pg_atomic_write_u64(&cells->unit[s], HORIZON_NONE);
		any |= held != HORIZON_NONE;
	}
	return any;
}

int
horizon_cells_nprocs(void)
{
	return cells_shared ? cells_shared->nprocs : 0;
}

bool
horizon_cells_of_process(int procno, uint64 units[GEN_SLOT_COUNT], int *pid, TransactionId *xid)
{
	HorizonCells *cells = cells_of(procno);
	PGPROC	   *proc = GetPGProcByNumber(procno);
	bool		any = false;

	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		units[s] = pg_atomic_read_u64(&cells->unit[s]);
		any |= units[s] != HORIZON_NONE;
	}
	*pid = proc->pid;
	*xid = proc->xid;
	return any;
}

static void
cells_shared_init(void *part)
{
	cells_shared = (CellsShared *) part;
	cells_shared->nprocs = total_procs();
	pg_atomic_init_u64(&cells_shared->toggles, 0);
	for (int p = 0; p < cells_shared->nprocs; p++)
		for (int s = 0; s < GEN_SLOT_COUNT; s++)
			pg_atomic_init_u64(&cells_of(p)->unit[s], HORIZON_NONE);
}

void
horizon_cells_init(void)
{
	ShmemPart	part = {.name = "flakeid horizon cells", .size_at_request = cells_size,
	.address = (void **) &cells_shared, .init = cells_shared_init};

	shmem_request_part(&part);
}
