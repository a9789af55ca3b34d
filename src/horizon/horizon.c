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
 * the table of prepared holdings (prepared_holdings.h), keyed by the
 * transaction ID, and logged in the WAL, so they outlive the backend and a
 * restart ("flakeid.prepared" is saved later); at PREPARE the cells are
 * cleared.  A holding counts while its transaction is in progress
 * (TransactionIdIsInProgress: true for a prepared one); horizon_unit
 * forgets those that ended.
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/procarray.h"

#include "base/identity.h"
#include "base/shmem.h"
#include "base/table.h"
#include "durable/wal_record.h"
#include "generator/counters.h"
#include "generator/generator.h"
#include "generator/horizon_cells.h"
#include "generator/issue.h"
#include "horizon/horizon.h"
#include "horizon/prepared_holdings.h"

typedef struct HorizonShared
{
	/* per generator: the latest horizon given, as a unit */
	pg_atomic_uint64 given[GEN_COUNT];
	/* per generator: the highest horizon computed outside recovery (the prepared file's floors) */
	pg_atomic_uint64 floor[GEN_COUNT];
} HorizonShared;

static HorizonShared *horizon_shared = NULL;

/*
 * PRE_PREPARE: the cells become a holding of the transaction, stored in the
 * table, then logged (the order the saves rely on: prepared_saves.c);
 * the transaction's PREPARE record, which follows, flushes the log.
 * Refused while flakeid.prepared is damaged: rewriting it with this
 * holding alone would drop the holdings it could not give, and the
 * horizon would be served without them after the next restart.
 */
static void
hold_for_prepared(void)
{
	PreparedHolding holding = {.fxid = GetTopFullTransactionIdIfAny()};
	PersistedHolding persisted;

	if (!horizon_cells_take(holding.unit) || !FullTransactionIdIsValid(holding.fxid))
		return;
	holding.through = holding.fxid;
	if (holdings_damaged())
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cannot prepare a transaction that generated IDs while flakeid's file \"%s\" is damaged", PREPARED_FILE),
				 errdetail("The file holds the units of the IDs that prepared transactions issued, and is kept as it is until an operator acts."),
				 errhint("Commit this transaction instead, or remove the file and restart the server: the transactions prepared then hold the horizon at its lowest until each has ended.")));
	holdings_hold(&holding, false);
	holding_to_persisted(&holding, &persisted);
	wal_record_log_prepared(&persisted);
}

void
horizon_redo_prepared(const PersistedHolding *persisted)
{
	PreparedHolding holding;

	if (!holding_from_persisted(persisted, &holding))
		ereport(PANIC,
				(errmsg("flakeid_redo: a prepared transaction's holding names a counter this version of flakeid does not have"),
				 errhint("Upgrade flakeid on standbys before their primary.")));
	if (holdings_damaged())
		return;					/* the horizon refuses until an operator acts; the file stays as it is */
	holdings_hold(&holding, true);
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
	return holdings_lowest(def, horizon_cells_lowest(def->first_slot, def->variants));
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
	if (holdings_damaged())
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's file \"%s\" is damaged, so no horizon can be given", PREPARED_FILE),
				 errdetail("It holds the units of the IDs that prepared transactions issued."),
				 errhint("Remove the file and restart the server: the transactions prepared then hold the horizon at its lowest until each has ended.")));
}

int
horizon_prepared_holdings(PreparedHolding **holdings)
{
	refuse_if_damaged();
	return holdings_open(holdings);
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
	if (!RecoveryInProgress())
		(void) atomic_raise_u64(&horizon_shared->floor[def->id], Min(clock, held));
	return never_back(def, Min(clock, held));
}

/*
 * Per slot, the highest horizon its generator computed outside recovery:
 * every ID committed after it was computed lies at or after it.  (`given`
 * is not that: it keeps what a standby gave, which says nothing of its
 * primary's open transactions, after a promotion.)
 */
static void
horizon_floors(uint64 *floor)
{
	for (int g = 0; g < GEN_COUNT; g++)
	{
		const GeneratorDef *def = &generator_defs[g];

		for (int v = 0; v < def->variants; v++)
			floor[def->first_slot + v] = pg_atomic_read_u64(&horizon_shared->floor[g]);
	}
}

/* --- start ---------------------------------------------------------------------- */

static void
horizon_shared_init(void *part)
{
	HorizonShared *shared = (HorizonShared *) part;

	horizon_shared = shared;
	for (int g = 0; g < GEN_COUNT; g++)
	{
		pg_atomic_init_u64(&shared->given[g], 0);
		pg_atomic_init_u64(&shared->floor[g], 0);
	}
}

void
horizon_init(void)
{
	ShmemPart	part = {.name = "flakeid horizon", .size = sizeof(HorizonShared),
		.address = (void **) &horizon_shared, .init = horizon_shared_init,
	};

	shmem_request_part(&part);
	horizon_cells_init();
	holdings_init();
	holdings_saves_init(horizon_floors);
	RegisterXactCallback(horizon_at_xact_event, NULL);
}

uint64
flakeid_horizon_unit(GeneratorId gen)
{
	const GeneratorDef *def = &generator_defs[gen];

	if (RecoveryInProgress() && !identity_generate_on_standby())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot take the %s horizon during recovery", def->name),
				 errdetail("A standby that does not generate IDs has no horizon of its own."),
				 errhint("Take the horizon on the primary with pg_current_wal_lsn(), and read the standby once pg_last_wal_replay_lsn() has passed that position.")));
	(void) generator_prepare(def, 0);	/* the preload, the state file, settings, identities */
	return horizon_unit(def);
}
