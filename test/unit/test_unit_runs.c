/*
 * test_unit_runs.c — runs of consecutive units (src/rules/unit_runs.h):
 * adding joins what overlaps or touches; past the bound the two closest
 * runs are joined and no unit is ever dropped; merge, find, cover, and the
 * check of runs read from disk.  Random additions are checked against a
 * plain bitmap of the units.  Prints TAP.
 */
#include "tap.h"
#include "../../src/rules/unit_runs.h"

#define SPAN	4096

static bool
same_as(const UnitRuns *runs, const bool *units, int n)
{
	for (int u = 0; u < n; u++)
		if (units[u] != unit_runs_find(runs, (uint64_t) u, NULL))
			return false;
	return true;
}

int
main(void)
{
	UnitRuns	runs,
				other;
	UnitRun		run;
	static bool units[SPAN];
	int			dropped = 0,
				invalid = 0;

	unit_runs_clear(&runs);
	tap_ok(!unit_runs_find(&runs, 0, NULL) && unit_runs_valid(&runs), "no runs: nothing found, valid");
	tap_ok(unit_runs_add(&runs, 10, 12, 4) && runs.count == 1, "a run");
	tap_ok(!unit_runs_add(&runs, 11, 12, 4) && runs.count == 1, "units it holds change nothing");
	tap_ok(unit_runs_add(&runs, 13, 13, 4) && runs.count == 1 && runs.runs[0].high == 13, "a touching unit extends it");
	tap_ok(unit_runs_add(&runs, 20, 20, 4) && unit_runs_add(&runs, 5, 5, 4) && runs.count == 3 &&
		   runs.runs[0].low == 5 && runs.runs[2].low == 20, "runs apart stay apart, in order");
	tap_ok(unit_runs_add(&runs, 6, 19, 4) && runs.count == 1 && runs.runs[0].low == 5 && runs.runs[0].high == 20,
		   "one that spans them joins them");
	unit_runs_clear(&runs);
	for (int i = 0; i < 4; i++)
		(void) unit_runs_add(&runs, 100 * i, 100 * i, 4);
	(void) unit_runs_add(&runs, 250, 250, 4);
	tap_ok(runs.count == 4 && unit_runs_find(&runs, 200, &run) && run.low == 200 && run.high == 250,
		   "a fifth run past a bound of 4 joins the closest two (200 and 250)");
	tap_ok(unit_runs_find(&runs, 225, NULL) && !unit_runs_find(&runs, 150, NULL), "units between them are held, others not");
	other = runs;
	tap_ok(unit_runs_cover(&runs, &other) && !unit_runs_merge(&runs, &other, 4), "runs cover themselves; merging them changes nothing");
	unit_runs_clear(&other);
	(void) unit_runs_add(&other, 150, 160, 4);
	tap_ok(!unit_runs_cover(&runs, &other) && unit_runs_merge(&runs, &other, 4) && unit_runs_cover(&runs, &other),
		   "a run not covered, merged, is covered");
	other = runs;
	other.runs[1].low = other.runs[0].high + 1;
	tap_ok(!unit_runs_valid(&other), "touching runs read from disk: not valid");
	other = runs;
	other.runs[0].low = other.runs[0].high + 1;
	tap_ok(!unit_runs_valid(&other), "a run whose low end lies past its high end: not valid");
	other.count = UNIT_RUNS_MAX + 1;
	tap_ok(!unit_runs_valid(&other), "more runs than the bound: not valid");
	unit_runs_clear(&other);
	other.count = 2;
	other.runs[0] = (UnitRun) {0, UINT64_MAX};
	other.runs[1] = (UnitRun) {5, 6};
	tap_ok(!unit_runs_valid(&other), "a run after one that ends at the last unit: not valid (the review of 4ee81ec: its end + 1 wrapped)");
	unit_runs_clear(&runs);
	tap_ok(unit_runs_add(&runs, UINT64_MAX - 1, UINT64_MAX, 2) && unit_runs_add(&runs, 0, 0, 2) &&
		   unit_runs_add(&runs, UINT64_MAX - 5, UINT64_MAX - 3, 2) && runs.count == 2 &&
		   unit_runs_find(&runs, UINT64_MAX - 2, NULL) && unit_runs_valid(&runs),
		   "the ends of the range: no overflow");

	/* random additions against a bitmap: every unit added stays held; bound respected; valid */
	tap_random_state = 20261128;
	for (int trial = 0; trial < 200; trial++)
	{
		uint32_t	max = 1 + (uint32_t) (tap_random() % UNIT_RUNS_MAX);

		unit_runs_clear(&runs);
		memset(units, 0, sizeof(units));
		for (int k = 0; k < 60; k++)
		{
			uint64_t	low = tap_random() % (SPAN - 64),
						high = low + tap_random() % 8;

			(void) unit_runs_add(&runs, low, high, max);
			for (uint64_t u = low; u <= high; u++)
				units[u] = true;
			if (!unit_runs_valid(&runs) || runs.count > max)
				invalid++;
		}
		for (int u = 0; u < SPAN; u++)
			if (units[u] && !unit_runs_find(&runs, (uint64_t) u, NULL))
				dropped++;
		if (max == UNIT_RUNS_MAX && runs.count < UNIT_RUNS_MAX && !same_as(&runs, units, SPAN))
			dropped++;			/* (below the bound nothing is joined: exactly the units added) */
	}
	tap_ok(invalid == 0, "200 random histories: the runs stay valid and within their bound");
	tap_ok(dropped == 0, "no unit added is ever dropped, and below the bound no other is held");
	return tap_done();
}
