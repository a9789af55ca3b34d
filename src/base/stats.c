/*
 * stats.c — what the generators have done (the view is views.c's)
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

#include "base/clock.h"
#include "base/shmem.h"
#include "base/stats.h"
#include "base/table.h"

typedef struct GeneratorStats
{
	pg_atomic_uint64 issued;
	pg_atomic_uint64 exhausted_waits;
	pg_atomic_uint64 clock_regressions;
	/* the log's report of used-up pools (stats_waited) */
	pg_atomic_uint64 pool_exhaustions;	/* calls that waited because the unit's pool was used up */
	pg_atomic_uint64 exhaustions_reported;	/* pool_exhaustions at the last LOG line */
	pg_atomic_uint64 exhaustion_logged_at;	/* Unix µs of the last LOG line; 0: none yet */
	char		pad[PG_CACHE_LINE_SIZE - 6 * sizeof(pg_atomic_uint64)];
} GeneratorStats;

/* written by many backends: each slot's counts on cache lines of their own */
typedef struct StatsShared
{
	GeneratorStats slots[GEN_SLOT_COUNT];
} StatsShared;

StaticAssertDecl(sizeof(GeneratorStats) % PG_CACHE_LINE_SIZE == 0, "each slot's counts fill whole cache lines");

static StatsShared *stats_shared = NULL;
StatsPending stats_pending;

static void
stats_shared_init(void *part)
{
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		GeneratorStats *stats = &((StatsShared *) part)->slots[s];

		pg_atomic_init_u64(&stats->issued, 0);
		pg_atomic_init_u64(&stats->exhausted_waits, 0);
		pg_atomic_init_u64(&stats->clock_regressions, 0);
		pg_atomic_init_u64(&stats->pool_exhaustions, 0);
		pg_atomic_init_u64(&stats->exhaustions_reported, 0);
		pg_atomic_init_u64(&stats->exhaustion_logged_at, 0);
	}
}

void
stats_init(void)
{
	shmem_request_part(&(ShmemPart) {.name = "flakeid stats", .size = sizeof(StatsShared), .address = (void **) &stats_shared, .init = stats_shared_init});
}

SlotCounts
stats_read(int slot)
{
	GeneratorStats *stats = &stats_shared->slots[slot];

	return (SlotCounts) {(int64) pg_atomic_read_u64(&stats->issued),
		(int64) pg_atomic_read_u64(&stats->exhausted_waits),
	(int64) pg_atomic_read_u64(&stats->clock_regressions)};
}

void
stats_flush(void)
{
	if (stats_pending.total == 0 || stats_shared == NULL)
		return;
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		GeneratorStats *stats = &stats_shared->slots[s];

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
	GeneratorStats *stats = &stats_shared->slots[slot];
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
