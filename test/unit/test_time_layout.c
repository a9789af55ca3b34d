/*
 * test_time_layout.c — range bounds from time layouts: each format's layout
 * gives the time its own functions give, and the greedy bounds are the
 * smallest / largest IDs with a time at or after / at or before an instant,
 * checked exhaustively on small layouts and by sampling on the real ones
 */
#include "tap.h"

#include "../../src/format/bytes.h"
#include "../../src/format/flax.h"
#include "../../src/format/format.h"
#include "../../src/format/kuid.h"
#include "../../src/format/siq.h"
#include "../../src/format/sno.h"
#include "../../src/format/time_layout.h"

#define FIXED_TEST_WIDTH 16

/* the time each format's own conversions give: an oracle independent of the layouts */
/* sno: 39 bits of units, then the tick-tock bit (spec §1) */
static int64_t
sno_oracle(const uint8_t *id)
{
	return sno_unix_us_from_units(be_get(id, 5) >> 1);
}

static int64_t
flax_oracle(const uint8_t *id)
{
	uint64_t	ms,
				random;

	flax_unpack(id, &ms, &random);
	return flax_unix_us_from_ms(ms);
}

/* siq: t56 in the first 7 bytes (spec A1) */
static int64_t
siq_oracle(const uint8_t *id)
{
	return siq_unix_us_ceil_from_t56(be_get(id, 7));
}

static int64_t
kuid_oracle(const uint8_t *id)
{
	KuidFields	f;

	kuid_unpack(id, &f);
	return kuid_unix_us_from_fields(&f);
}

static int64_t
kuid96_oracle(const uint8_t *id)
{
	KuidFields	f;
	uint32_t	node;

	kuid96_unpack(id, &f, &node);
	return kuid_unix_us_from_fields(&f);
}

static int64_t (*const oracles[FLAKE_FORMAT_COUNT]) (const uint8_t *id) = {
	[FLAKE_SNO] = sno_oracle,
	[FLAKE_FLAX] = flax_oracle,
	[FLAKE_SIQ] = siq_oracle,
	[FLAKE_KUID] = kuid_oracle,
	[FLAKE_KUID96] = kuid96_oracle,
};

static const FlakeFormat *current_format;

static int64_t
format_time(const TimeLayout *layout, const uint8_t *id)
{
	(void) layout;
	return oracles[current_format->id](id);
}

/* id + 1 or id - 1 as a big-endian number; false on wrap-around */
static bool
step(uint8_t *id, int width, int delta)
{
	for (int i = width - 1; i >= 0; i--)
	{
		id[i] = (uint8_t) (id[i] + delta);
		if (id[i] != (delta > 0 ? 0x00 : 0xFF))
			return true;
	}
	return false;
}

static void
test_format(const char *name, const TimeLayout *layout)
{
	enum
	{
		N = 20000
	};
	int			width = layout->width,
				time_mismatches = 0,
				bound_failures = 0,
				tight_failures = 0,
				sample_failures = 0;
	uint8_t		id[16],
				first[16],
				last[16],
				neighbour[16];

	for (int n = 0; n < N; n++)
	{
		tap_random_bytes(id, width);
		if (time_layout_time(layout, id) != format_time(layout, id))
			time_mismatches++;
	}
	tap_ok(time_mismatches == 0, "%s: the layout's time equals the format's for %d random IDs (%d differ)",
		   name, N, time_mismatches);

	for (int n = 0; n < N; n++)
	{
		int64_t		t;

		/* an instant: the time of a random ID, nudged, so unit edges come up often */
		tap_random_bytes(id, width);
		t = time_layout_time(layout, id) + (int64_t) (tap_random() % 5) - 2;
		if (!time_layout_first_at_or_after(layout, t, first) ||
			!time_layout_last_at_or_before(layout, t, last))
		{
			bound_failures++;
			continue;
		}
		if (time_layout_time(layout, first) < t || time_layout_time(layout, last) > t)
			bound_failures++;
		/* monotone: the neighbours outside the bounds are on the other side of t */
		if (layout->monotone)
		{
			memcpy(neighbour, first, width);
			if (step(neighbour, width, -1) && time_layout_time(layout, neighbour) >= t)
				tight_failures++;
			memcpy(neighbour, last, width);
			if (step(neighbour, width, +1) && time_layout_time(layout, neighbour) <= t)
				tight_failures++;
		}
		/* any ID: a time at or after t means at or after `first`, and so on */
		tap_random_bytes(id, width);
		if (time_layout_time(layout, id) >= t && memcmp(id, first, width) < 0)
			sample_failures++;
		if (time_layout_time(layout, id) <= t && memcmp(id, last, width) > 0)
			sample_failures++;
	}
	tap_ok(bound_failures == 0, "%s: bounds of %d instants have times on the right side (%d failures)",
		   name, N, bound_failures);
	if (layout->monotone)
		tap_ok(tight_failures == 0, "%s: the IDs just outside the bounds are outside the time (%d failures)",
			   name, tight_failures);
	tap_ok(sample_failures == 0, "%s: random IDs never fall outside the bounds of their side (%d failures)",
		   name, sample_failures);
}

/*
 * Small layouts enumerated completely: for every instant, the bounds must be
 * exactly the smallest and largest IDs found by brute force.  One monotone,
 * one where a lower field's contribution overlaps the next higher one (as
 * kuid's Sec and Tick can), with a field that carries no time in between.
 */
static int64_t
squared(uint64_t v)
{
	return (int64_t) (v * v);
}

static const TimeLayout toy_monotone = {2, 100, true, 3, {{6, 64, NULL}, {6, 1, NULL}, {4, 0, NULL}}};
static const TimeLayout toy_overlapping = {2, -50, false, 4, {{5, 40, NULL}, {3, 0, NULL}, {4, 0, squared}, {4, 3, NULL}}};

static void
test_exhaustive(const char *name, const TimeLayout *layout)
{
	static int64_t times[65536];
	int64_t		lo = INT64_MAX,
				hi = INT64_MIN;
	int			failures = 0,
				instants;
	int		   *want_first,
			   *want_last;

	for (unsigned v = 0; v < 65536; v++)
	{
		uint8_t		id[2] = {(uint8_t) (v >> 8), (uint8_t) v};

		times[v] = time_layout_time(layout, id);
		lo = times[v] < lo ? times[v] : lo;
		hi = times[v] > hi ? times[v] : hi;
	}
	/* brute force for every instant in [lo - 3, hi + 3], in one pass each way */
	instants = (int) (hi - lo + 7);
	want_first = malloc(sizeof(int) * instants);
	want_last = malloc(sizeof(int) * instants);
	for (int i = 0; i < instants; i++)
		want_first[i] = want_last[i] = -1;
	{
		int64_t		reached = lo - 4;	/* every instant up to here has its first ID */

		for (unsigned v = 0; v < 65536; v++)
			for (; reached < times[v]; reached++)
				want_first[reached + 1 - (lo - 3)] = (int) v;
		reached = hi + 4;		/* every instant from here on has its last ID */
		for (int v = 65535; v >= 0; v--)
			for (; reached > times[v]; reached--)
				want_last[reached - 1 - (lo - 3)] = v;
	}
	for (int i = 0; i < instants; i++)
	{
		int64_t		t = lo - 3 + i;
		uint8_t		first[2],
					last[2];
		bool		has_first = time_layout_first_at_or_after(layout, t, first),
					has_last = time_layout_last_at_or_before(layout, t, last);

		if (has_first != (want_first[i] >= 0) || has_last != (want_last[i] >= 0) ||
			(has_first && (first[0] << 8 | first[1]) != want_first[i]) ||
			(has_last && (last[0] << 8 | last[1]) != want_last[i]))
			failures++;
	}
	free(want_first);
	free(want_last);
	tap_ok(failures == 0, "%s: bounds equal brute force at all %d instants from before the first to after the last time (%d differ)",
		   name, instants, failures);
}

/*
 * The order time: at most the time, which stays within the slack of it, and
 * never decreasing along ID order (checked on sorted random IDs); the whole
 * time exactly when the layout is monotone.
 */
static int
compare_ids(const void *a, const void *b)
{
	return memcmp(a, b, FIXED_TEST_WIDTH);
}

static void
test_order_time(const char *name, const TimeLayout *layout)
{
	uint8_t		ids[2000][FIXED_TEST_WIDTH];
	int64_t		slack = time_layout_order_slack(layout);
	int			failures = 0;

	for (int i = 0; i < 2000; i++)
	{
		memset(ids[i], 0, FIXED_TEST_WIDTH);
		tap_random_bytes(ids[i], layout->width);
		if (i % 2)				/* neighbours: the same leading bytes */
			memcpy(ids[i], ids[i - 1], layout->width / 2);
	}
	qsort(ids, 2000, FIXED_TEST_WIDTH, compare_ids);
	for (int i = 0; i < 2000; i++)
	{
		int64_t		order = time_layout_order_time(layout, ids[i]),
					time = time_layout_time(layout, ids[i]);

		if (order > time || time - order > slack ||
			(i > 0 && time_layout_order_time(layout, ids[i - 1]) > order))
			failures++;
	}
	tap_ok(failures == 0 && (!layout->monotone || slack == 0),
		   "%s: order time <= time <= order time + %lld us, never decreasing along ID order (%d failures)",
		   name, (long long) slack, failures);
}

int
main(void)
{
	tap_random_state = 42;
	test_exhaustive("toy monotone layout", &toy_monotone);
	test_exhaustive("toy overlapping layout", &toy_overlapping);
	/* every format with a time layout, and an oracle for each */
	for (int f = 0; f < FLAKE_FORMAT_COUNT; f++)
	{
		current_format = flake_formats[f];
		if (current_format->time == NULL)
			continue;
		tap_ok(oracles[f] != NULL, "%s: the test has an oracle for its time", current_format->name);
		if (oracles[f] != NULL)
			test_format(current_format->name, current_format->time);
		test_order_time(current_format->name, current_format->time);
	}
	return tap_done();
}
