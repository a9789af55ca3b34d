/*
 * unit_runs.c — runs of consecutive time units of one counter (unit_runs.h)
 */
#include "unit_runs.h"

#include <string.h>

void
unit_runs_clear(UnitRuns *runs)
{
	memset(runs, 0, sizeof(*runs));
}

bool
unit_runs_valid(const UnitRuns *runs)
{
	if (runs->count > UNIT_RUNS_MAX)
		return false;
	for (uint32_t i = 0; i < runs->count; i++)
	{
		if (runs->runs[i].low > runs->runs[i].high)
			return false;
		/* (ascending and not touching: a gap of at least one unit; no high end + 1, which wraps) */
		if (i > 0 && (runs->runs[i].low == 0 || runs->runs[i].low - 1 <= runs->runs[i - 1].high))
			return false;
	}
	return true;
}

bool
unit_runs_add(UnitRuns *runs, uint64_t low, uint64_t high, uint32_t max)
{
	UnitRun		merged[UNIT_RUNS_MAX + 1];
	uint32_t	n = 0;
	bool		placed = false;
	UnitRun		held;

	if (max < 1 || max > UNIT_RUNS_MAX)
		max = UNIT_RUNS_MAX;
	if (unit_runs_find(runs, low, &held) && held.high >= high)
		return false;			/* one run holds it already */
	for (uint32_t i = 0; i < runs->count; i++)
	{
		UnitRun		r = runs->runs[i];

		if (r.high < low && low - r.high > 1)
			merged[n++] = r;	/* wholly below, not touching */
		else if (r.low > high && r.low - high > 1)
		{
			if (!placed)
				merged[n++] = (UnitRun) {low, high};
			placed = true;
			merged[n++] = r;	/* wholly above, not touching */
		}
		else
		{
			low = r.low < low ? r.low : low;	/* overlapping or touching: one run */
			high = r.high > high ? r.high : high;
		}
	}
	if (!placed)
		merged[n++] = (UnitRun) {low, high};
	while (n > max)
	{
		uint32_t	closest = 0;

		for (uint32_t i = 1; i + 1 < n; i++)
			if (merged[i + 1].low - merged[i].high < merged[closest + 1].low - merged[closest].high)
				closest = i;
		merged[closest].high = merged[closest + 1].high;
		memmove(&merged[closest + 1], &merged[closest + 2], sizeof(UnitRun) * (n - closest - 2));
		n--;
	}
	memcpy(runs->runs, merged, sizeof(UnitRun) * n);
	runs->count = n;
	return true;
}

bool
unit_runs_merge(UnitRuns *into, const UnitRuns *from, uint32_t max)
{
	bool		changed = false;

	for (uint32_t i = 0; i < from->count && i < UNIT_RUNS_MAX; i++)
		changed |= unit_runs_add(into, from->runs[i].low, from->runs[i].high, max);
	return changed;
}

bool
unit_runs_find(const UnitRuns *runs, uint64_t unit, UnitRun *run)
{
	for (uint32_t i = 0; i < runs->count && i < UNIT_RUNS_MAX; i++)
		if (runs->runs[i].low <= unit && unit <= runs->runs[i].high)
		{
			if (run != NULL)
				*run = runs->runs[i];
			return true;
		}
	return false;
}

bool
unit_runs_cover(const UnitRuns *outer, const UnitRuns *inner)
{
	for (uint32_t i = 0; i < inner->count && i < UNIT_RUNS_MAX; i++)
	{
		UnitRun		run;

		if (!unit_runs_find(outer, inner->runs[i].low, &run) || run.high < inner->runs[i].high)
			return false;
	}
	return true;
}
