/*
 * time_layout.h — an ID's time as a sum over its fields, for range bounds
 *
 * Every format's time is epoch + Σ contribution(field), each contribution
 * non-decreasing in its field's value and 0 at 0, the fields in ID order
 * (most significant first; fields that carry no time contribute nothing).
 * From that description alone, bounds_first_at_or_after(t) finds the
 * smallest ID whose time is >= t and bounds_last_at_or_before(t) the largest
 * whose time is <= t, greedily field by field.  So every ID whose time lies
 * in [lo, hi] lies between those two IDs, whatever its bit pattern; when
 * time never decreases along ID order (`monotone`) the IDs between them are
 * exactly the IDs with a time in [lo, hi].
 *
 * Pure C, no PostgreSQL headers.
 */
#ifndef FLAKEID_FORMAT_TIME_LAYOUT_H
#define FLAKEID_FORMAT_TIME_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#define TIME_LAYOUT_MAX_FIELDS	8

typedef struct TimeField
{
	int			bits;
	int64_t		weight;			/* microseconds per unit of the field, 0 for none */
	/* instead of weight: any non-decreasing contribution with f(0) = 0 */
	int64_t		(*contribution) (uint64_t value);
} TimeField;

typedef struct TimeLayout
{
	int			width;			/* bytes; the fields' bits add up to width * 8 */
	int64_t		epoch_unix_us;
	bool		monotone;		/* time never decreases along ID order */
	int			nfields;
	TimeField	fields[TIME_LAYOUT_MAX_FIELDS];
} TimeLayout;

/* the ID's time in Unix microseconds, as the format's *_time function gives it */
extern int64_t time_layout_time(const TimeLayout *layout, const uint8_t *id);

/*
 * The time that ID order follows: the contribution of the leading fields up
 * to the first one without time that has time-carrying fields after it.
 * For a monotone layout that is the whole time; for kuid96 it is the start
 * of the 256-second window, since the node comes next.  It never decreases
 * along ID order, and an ID's time lies in [order time, order time + slack].
 */
extern int64_t time_layout_order_time(const TimeLayout *layout, const uint8_t *id);
extern int64_t time_layout_order_slack(const TimeLayout *layout);

/* false when no ID has such a time */
extern bool time_layout_first_at_or_after(const TimeLayout *layout, int64_t unix_us, uint8_t *id);
extern bool time_layout_last_at_or_before(const TimeLayout *layout, int64_t unix_us, uint8_t *id);

#endif
