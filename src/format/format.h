/*
 * format.h — one description per format, read by every layer
 *
 * What differs between flakeid's formats is data: the width, the text
 * layout, the time layout, the printable time range, the unit a generator
 * counts in, the abbreviated-key plan and the UUIDv8 tag.  Each format
 * module (src/format/<name>.c) defines one FlakeFormat; flake_formats[]
 * indexes them by FlakeFormatId, as contrib/isn indexes its types.  The
 * type layer (fixed_type.h), the range support, the generators, the fuzz
 * harness and the unit tests all read these descriptions instead of keeping
 * lists of their own.
 *
 * Pure C, no PostgreSQL headers.
 */
#ifndef FLAKEID_FORMAT_FORMAT_H
#define FLAKEID_FORMAT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec.h"
#include "time_layout.h"

/*
 * Every format, once: X(ID, name) expands to its enum constant FLAKE_<ID>
 * and its description <name>_format, defined in src/format/<module>.c.
 */
#define FLAKE_FORMAT_LIST(X) \
	X(SNO, sno) \
	X(FLAX, flax) \
	X(SIQ, siq) \
	X(KUID, kuid) \
	X(KUID96, kuid96) \
	X(SNOWFLAKE, snowflake)

#define FLAKE_FORMAT_ENUM(id, name) FLAKE_##id,
typedef enum FlakeFormatId
{
	FLAKE_FORMAT_LIST(FLAKE_FORMAT_ENUM)
	FLAKE_FORMAT_COUNT
} FlakeFormatId;

/*
 * How a sort abbreviates an ID (fixed_type.h): its leading time bytes, then
 * identity bytes (partition, node, shard) that one server repeats in every
 * ID, then trailing sequence bytes.  0 identity bytes: the plain 8-byte
 * prefix is a good key already.  Spare bytes: leading time bytes that stay
 * zero for about a century, left out of keys.
 */
typedef struct FlakeAbbrevPlan
{
	int			time_bytes;
	int			identity_bytes;
	int			spare_bytes;
} FlakeAbbrevPlan;

/*
 * One field of an ID as <type>_fields shows it: a number, or a name (siq's
 * kind; NULL text for none).  The time is shown apart, from the time layout.
 */
typedef struct FlakeField
{
	const char *name;
	bool		is_text;
	int64_t		number;
	const char *text;
} FlakeField;

#define FLAKE_MAX_FIELDS	6

typedef struct FlakeFormat
{
	FlakeFormatId id;
	const char *name;			/* the SQL type name (snowflake: its functions' prefix) */
	int			width;			/* bytes of a value */

	/* text: the canonical layout, and a wider parser where input takes more forms */
	const FlakeTextLayout *text;	/* NULL: no text form of its own (snowflakes are bigint) */
	bool		(*parse) (const char *in, size_t len, uint8_t *out);	/* NULL: flake_decode(text) */
	const char *parse_shape;	/* with parse: what it takes, for the DETAIL of a refusal */
	/* unpack then pack: every bit pattern of the width survives it */
	void		(*repack) (const uint8_t *in, uint8_t *out);
	/* every field but the time, in layout order; returns the count (<= FLAKE_MAX_FIELDS) */
	int			(*fields) (const uint8_t *in, FlakeField *out);

	/* time: the one implementation of <type>_time and of the range support */
	const TimeLayout *time;		/* NULL: the time depends on a setting (snowflake's epoch) */
	const char *time_range;		/* printable half-open range, for messages */

	/*
	 * The unit a generator counts in (rules/counter.h): units_at floors an
	 * instant to its unit (false outside what the counter word can hold),
	 * unit_start is the first instant of a unit (Unix microseconds).  NULL
	 * for formats without a stateful generator (flax).
	 */
	bool		(*units_at) (int64_t unix_us, uint64_t *unit);
	int64_t		(*unit_start) (uint64_t unit);
	int64_t		unit_us;		/* a unit's length, rounded up (0: none) */

	FlakeAbbrevPlan abbrev;
	uint8_t		uuid_tag;		/* UUID8_TAG_*; 0 for none */
} FlakeFormat;

/* a numeric field, for the describers */
static inline FlakeField
flake_number(const char *name, int64_t number)
{
	FlakeField	field = {name, false, number, NULL};

	return field;
}

#define FLAKE_FORMAT_EXTERN(id, name) extern const FlakeFormat name##_format;
FLAKE_FORMAT_LIST(FLAKE_FORMAT_EXTERN)

extern const FlakeFormat *const flake_formats[FLAKE_FORMAT_COUNT];

/* The format of a name, or NULL. */
extern const FlakeFormat *flake_format_by_name(const char *name);

#endif
