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

#define EXHAUSTION_LOG_INTERVAL_US	(60 * USECS_PER_SEC)

char *
generator_variant_label(const GeneratorDef *def, int variant)
{
	return def->variant_name ? psprintf("%s %s", def->name, def->variant_name(variant)) : pstrdup(def->name);
}

/*
 * Like sno's SequenceOverflowNotification, but in the log, where nothing
 * can miss it: the first used-up pool of a generator variant is reported at
 * once, later ones once a minute has passed since the last line, with the
 * count since then.  The minute is the generators' clock's; a clock behind
 * the last line also reports.  The compare-and-swap on the time makes one
 * backend the reporter; the exchange hands it the count.
 */
void
stats_waited(const GeneratorDef *def, int slot, bool pool_used_up)
{
	GeneratorStats *stats = &flakeid_shared->slots[slot].stats;
	int64		now;
	uint64		last,
				exhaustions,
				before;

	pg_atomic_fetch_add_u64(&stats->exhausted_waits, 1);
	if (!pool_used_up)
		return;
	pg_atomic_fetch_add_u64(&stats->pool_exhaustions, 1);
	now = flakeid_clock_unix_us();
	last = pg_atomic_read_u64(&stats->exhaustion_logged_at);
	if (last != 0 && now >= (int64) last && now - (int64) last < EXHAUSTION_LOG_INTERVAL_US)
		return;
	if (!pg_atomic_compare_exchange_u64(&stats->exhaustion_logged_at, &last, (uint64) Max(now, 1)))
		return;					/* another backend reports */
	exhaustions = pg_atomic_read_u64(&stats->pool_exhaustions);
	before = pg_atomic_exchange_u64(&stats->exhaustions_reported, exhaustions);
	ereport(LOG,
			(last == 0
			 ? errmsg_plural("generator \"%s\" used up its pool " UINT64_FORMAT " time since the server started",
							 "generator \"%s\" used up its pool " UINT64_FORMAT " times since the server started",
							 (unsigned long) (exhaustions - before),
							 generator_variant_label(def, slot - def->first_slot), exhaustions - before)
			 : errmsg_plural("generator \"%s\" used up its pool " UINT64_FORMAT " time since %s",
							 "generator \"%s\" used up its pool " UINT64_FORMAT " times since %s",
							 (unsigned long) (exhaustions - before),
							 generator_variant_label(def, slot - def->first_slot), exhaustions - before,
							 timestamptz_to_str(flakeid_timestamptz_from_unix_us((int64) last))),
			 errdetail("Each time, a call waited for the next unit (" INT64_FORMAT " microseconds) because this server had issued every ID of the current one.",
					   def->format->unit_us),
			 errhint("The view flakeid_generators counts these waits in exhausted_waits; this line comes at most once a minute per generator.")));
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
	/* SHOW gives the default a refused value left in place: say what the configuration asked for */
	for (int i = 0; i < (int) lengthof(def->settings) && def->settings[i]; i++)
	{
		char	   *refused = settings_describe_rejected(def->settings[i]);

		if (refused)
			appendStringInfo(&text, "%s%s", text.len > 0 ? "; " : "", refused);
	}
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

	values[0] = CStringGetTextDatum(generator_variant_label(def, variant));
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
