/*
 * stats.c — what the generators have done, and the flakeid_generators view
 *
 * IDs issued and clock regressions are counted per backend and added to
 * shared memory in batches (and at transaction end), so the per-ID cost is
 * a local increment; exhausted-pool waits are rare and go straight to
 * shared memory.
 */
#include "postgres.h"

#include "access/xact.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "generator.h"

StatsPending stats_pending;

static void
stats_flush(void)
{
	if (stats_pending.total == 0 || flakeid_shared == NULL)
		return;
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		GeneratorStats *stats = &flakeid_shared->slots[s].stats;

		if (stats_pending.issued[s])
			pg_atomic_fetch_add_u64(&stats->issued, stats_pending.issued[s]);
		if (stats_pending.regressions[s])
			pg_atomic_fetch_add_u64(&stats->clock_regressions, stats_pending.regressions[s]);
		stats_pending.issued[s] = stats_pending.regressions[s] = 0;
	}
	stats_pending.total = 0;
}

static void
stats_at_xact_end(XactEvent event pg_attribute_unused(), void *arg pg_attribute_unused())
{
	stats_flush();
}

/* stats_issued's slow path: a full batch, or the first ID of this backend */
void
stats_batch_full(void)
{
	if (!stats_pending.flush_at_xact_end)
	{
		RegisterXactCallback(stats_at_xact_end, NULL);
		stats_pending.flush_at_xact_end = true;
	}
	if (stats_pending.total >= STATS_BATCH)
		stats_flush();
}

void
stats_waited(int slot)
{
	pg_atomic_fetch_add_u64(&flakeid_shared->slots[slot].stats.exhausted_waits, 1);
}

/* "partition 7, sequences 0..65535": the identities, then the other settings it writes */
static char *
describe_settings(const GeneratorDef *def)
{
	StringInfoData text;

	initStringInfo(&text);
	for (int i = 0; i < def->nidentities; i++)
		appendStringInfo(&text, "%s%s", i > 0 ? ", " : "", identity_describe(def->identities[i]));
	if (def->describe_settings)
		appendStringInfo(&text, "%s%s", def->nidentities > 0 ? ", " : "", def->describe_settings());
	return text.data;
}

/* one row of the view: a generator variant */
static void
put_row(ReturnSetInfo *rsinfo, const GeneratorDef *def, int variant)
{
	GeneratorSlot *slot = &flakeid_shared->slots[def->first_slot + variant];
	uint64		word = pg_atomic_read_u64(&slot->word.value);
	Datum		values[8];
	bool		nulls[8] = {false};

	values[0] = CStringGetTextDatum(def->variant_name
									? psprintf("%s %s", def->name, def->variant_name(variant))
									: def->name);
	values[1] = CStringGetTextDatum(describe_settings(def));
	values[2] = Int64GetDatum((int64) pg_atomic_read_u64(&slot->stats.issued));
	values[3] = Int64GetDatum((int64) pg_atomic_read_u64(&slot->stats.exhausted_waits));
	values[4] = Int64GetDatum((int64) pg_atomic_read_u64(&slot->stats.clock_regressions));
	values[5] = Int32GetDatum(counter_flag(word) ? 1 : 0);
	nulls[5] = !def->ticktock;
	/* the start of the last used unit; nothing before the first ID or saved mark */
	values[6] = TimestampTzGetDatum(flakeid_timestamptz_from_unix_us(def->format->unit_start(counter_unit(word))));
	nulls[6] = word == 0;
	values[7] = CStringGetTextDatum(clock_describe(def));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

PG_FUNCTION_INFO_V1(flakeid_generators);
Datum
flakeid_generators(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	generator_require_shared("flakeid_generators()");
	stats_flush();				/* this backend's own IDs count at once */
	InitMaterializedSRF(fcinfo, 0);
	for (int g = 0; g < GEN_COUNT; g++)
		for (int v = 0; v < generator_defs[g].variants; v++)
			put_row(rsinfo, &generator_defs[g], v);
	return (Datum) 0;
}
