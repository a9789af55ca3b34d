/*
 * unit_runs.h — runs of consecutive time units of one counter: the units a
 * live counter issued in ahead of the clock (durable/issued_ahead.h)
 *
 * A live counter that lies ahead of the clock leaves a unit only once its
 * pool is used up, so back-fill, which counts a past unit's sequences down
 * from the top of its pool, must not draw there.  Such units come in runs
 * (an advance, a clock step back, a restart or a promotion starts one, the
 * clock catching up ends it), kept ascending, disjoint and not touching.
 *
 * Bounded: at most `max` runs (at most UNIT_RUNS_MAX).  One more joins the
 * two runs with the fewest units between them: the units between are then
 * counted as issued ahead too (a refusal of back-fill there, never a
 * repeat).
 *
 * Pure C, no PostgreSQL headers: shared memory, the state file and the WAL
 * record carry it.
 */
#ifndef FLAKEID_FORMAT_UNIT_RUNS_H
#define FLAKEID_FORMAT_UNIT_RUNS_H

#include <stdbool.h>
#include <stdint.h>

#define UNIT_RUNS_MAX	32

/* a run of consecutive units, both ends included */
typedef struct UnitRun
{
	uint64_t	low;
	uint64_t	high;
} UnitRun;

typedef struct UnitRuns
{
	uint32_t	count;
	uint32_t	reserved;		/* 0 */
	UnitRun		runs[UNIT_RUNS_MAX];	/* ascending, disjoint, not touching */
} UnitRuns;

extern void unit_runs_clear(UnitRuns *runs);

/* whether runs read from disk or the WAL are ones: count, order, no overlap, no touching */
extern bool unit_runs_valid(const UnitRuns *runs);

/*
 * Adds low..high (low <= high), joining every run it overlaps or touches;
 * past `max` runs (1 to UNIT_RUNS_MAX), joins the two neighbours with the
 * fewest units between them.  True when anything changed.
 */
extern bool unit_runs_add(UnitRuns *runs, uint64_t low, uint64_t high, uint32_t max);

/* adds every run of `from` (unit_runs_add); true when anything changed */
extern bool unit_runs_merge(UnitRuns *into, const UnitRuns *from, uint32_t max);

/* whether `unit` lies in a run: true with the run in *run (if not NULL) */
extern bool unit_runs_find(const UnitRuns *runs, uint64_t unit, UnitRun *run);

/* whether every unit of `inner` lies in a run of `outer` */
extern bool unit_runs_cover(const UnitRuns *outer, const UnitRuns *inner);

#endif
