/*
 * time_layout.c — greedy range bounds from a format's time description
 */
#include "time_layout.h"

#include <string.h>

static int64_t
contribution(const TimeField *field, uint64_t value)
{
	return field->contribution ? field->contribution(value) : (int64_t) value * field->weight;
}

static bool
carries_time(const TimeField *field)
{
	return field->weight != 0 || field->contribution != NULL;
}

static uint64_t
field_max(const TimeField *field)
{
	return field->bits == 64 ? UINT64_MAX : (UINT64_C(1) << field->bits) - 1;
}

/* the largest value whose contribution is <= budget (budget >= 0; f(0) = 0) */
static uint64_t
largest_within(const TimeField *field, int64_t budget)
{
	uint64_t	lo = 0,
				hi = field_max(field);

	if (!carries_time(field))
		return hi;
	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo + 1) / 2;

		if (contribution(field, mid) <= budget)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* the smallest value whose contribution is >= need (some value reaches it) */
static uint64_t
smallest_reaching(const TimeField *field, int64_t need)
{
	uint64_t	lo = 0,
				hi = field_max(field);

	if (need <= 0)
		return 0;
	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (contribution(field, mid) >= need)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Fields are a big-endian bit string, most significant first.  A field is
 * read and written a byte at a time from its last bit up: `take` bits of the
 * byte holding bit end - 1, whose lowest is `low` bits above the byte's end.
 */
static uint64_t
get_bits(const uint8_t *id, int offset, int count)
{
	uint64_t	value = 0;
	int			shift = 0;

	for (int end = offset + count; count > 0;)
	{
		int			low = 7 - (end - 1) % 8,
					take = count < 8 - low ? count : 8 - low;

		value |= (uint64_t) ((id[(end - 1) / 8] >> low) & ((1u << take) - 1)) << shift;
		shift += take;
		count -= take;
		end -= take;
	}
	return value;
}

static void
put_bits(uint8_t *id, int offset, int count, uint64_t value)
{
	for (int end = offset + count; count > 0;)
	{
		int			low = 7 - (end - 1) % 8,
					take = count < 8 - low ? count : 8 - low;

		id[(end - 1) / 8] |= (uint8_t) ((value & ((1u << take) - 1)) << low);
		value >>= take;
		count -= take;
		end -= take;
	}
}

static void
put_fields(const TimeLayout *layout, const uint64_t *values, uint8_t *id)
{
	memset(id, 0, layout->width);
	for (int f = 0, offset = 0; f < layout->nfields; offset += layout->fields[f++].bits)
		put_bits(id, offset, layout->fields[f].bits, values[f]);
}

int64_t
time_layout_time(const TimeLayout *layout, const uint8_t *id)
{
	int64_t		t = layout->epoch_unix_us;

	/* only the fields that carry time are read: this runs per row in filters */
	for (int f = 0, offset = 0; f < layout->nfields; offset += layout->fields[f++].bits)
		if (carries_time(&layout->fields[f]))
			t += contribution(&layout->fields[f], get_bits(id, offset, layout->fields[f].bits));
	return t;
}

/* the number of leading fields time order follows (see time_layout.h) */
static int
order_prefix(const TimeLayout *layout)
{
	int			last_timed = -1;

	for (int f = 0; f < layout->nfields; f++)
		if (carries_time(&layout->fields[f]))
			last_timed = f;
	for (int f = 0; f < last_timed; f++)
		if (!carries_time(&layout->fields[f]))
			return f;
	return layout->nfields;
}

int64_t
time_layout_order_time(const TimeLayout *layout, const uint8_t *id)
{
	int64_t		t = layout->epoch_unix_us;
	int			prefix = order_prefix(layout);

	for (int f = 0, offset = 0; f < prefix; offset += layout->fields[f++].bits)
		if (carries_time(&layout->fields[f]))
			t += contribution(&layout->fields[f], get_bits(id, offset, layout->fields[f].bits));
	return t;
}

int64_t
time_layout_order_slack(const TimeLayout *layout)
{
	int64_t		slack = 0;

	for (int f = order_prefix(layout); f < layout->nfields; f++)
		slack += contribution(&layout->fields[f], field_max(&layout->fields[f]));
	return slack;
}

/*
 * Largest ID first: each field, most significant first, takes the largest
 * value that leaves the rest of the budget reachable with the remaining
 * fields at 0.  Since contributions are non-decreasing, no larger ID fits.
 */
bool
time_layout_last_at_or_before(const TimeLayout *layout, int64_t unix_us, uint8_t *id)
{
	uint64_t	values[TIME_LAYOUT_MAX_FIELDS];
	int64_t		budget;

	if (unix_us < layout->epoch_unix_us)
		return false;
	budget = unix_us - layout->epoch_unix_us;
	for (int f = 0; f < layout->nfields; f++)
	{
		values[f] = largest_within(&layout->fields[f], budget);
		budget -= contribution(&layout->fields[f], values[f]);
	}
	put_fields(layout, values, id);
	return true;
}

/*
 * Smallest ID first: each field takes the smallest value with which the
 * remaining fields at their maximum still reach the time.
 */
bool
time_layout_first_at_or_after(const TimeLayout *layout, int64_t unix_us, uint8_t *id)
{
	uint64_t	values[TIME_LAYOUT_MAX_FIELDS];
	int64_t		rest_max[TIME_LAYOUT_MAX_FIELDS + 1];
	int64_t		need;

	rest_max[layout->nfields] = 0;
	for (int f = layout->nfields - 1; f >= 0; f--)
		rest_max[f] = rest_max[f + 1] + contribution(&layout->fields[f], field_max(&layout->fields[f]));
	if (unix_us > layout->epoch_unix_us && unix_us - layout->epoch_unix_us > rest_max[0])
		return false;
	need = unix_us - layout->epoch_unix_us;
	for (int f = 0; f < layout->nfields; f++)
	{
		values[f] = smallest_reaching(&layout->fields[f], need - rest_max[f + 1]);
		need -= contribution(&layout->fields[f], values[f]);
	}
	put_fields(layout, values, id);
	return true;
}
