/*
 * test_formats.c — the format descriptions (format.h) agree with themselves
 * and with their modules: the table is indexed by id, every part has the
 * format's width, tags are distinct, and a generator's units round-trip.
 */
#include "tap.h"

#include <string.h>

#include "../../src/format/codec.h"
#include "../../src/rules/counter.h"
#include "../../src/format/format.h"

static void
test_description(const FlakeFormat *format, int index)
{
	const char *name = format->name;

	tap_ok(format->id == (FlakeFormatId) index, "%s: flake_formats[%d] is its own id", name, index);
	tap_ok(flake_format_by_name(name) == format, "%s: found by name", name);
	tap_ok(format->repack != NULL, "%s: has a repack for the fuzz harness", name);
	if (format->text)
	{
		tap_ok(format->text->nbytes == format->width, "%s: the text layout has the format's width (%d)",
			   name, format->width);
		/* the receive function tells its binary and its text form apart by length */
		tap_ok(format->text->nchars != format->width, "%s: the text (%d characters) is not as long as the bytes (%d)",
			   name, format->text->nchars, format->width);
	}
	if (format->time)
	{
		int			bits = 0;

		for (int f = 0; f < format->time->nfields; f++)
			bits += format->time->fields[f].bits;
		tap_ok(format->time->width == format->width && bits == 8 * format->width,
			   "%s: the time layout covers the format's %d bytes", name, format->width);
		tap_ok(format->time_range != NULL, "%s: has a printable time range", name);
	}
	if (format->fields)
	{
		uint8_t		zero[16] = {0};
		FlakeField	fields[FLAKE_MAX_FIELDS + 1];
		int			count = format->fields(zero, fields);
		bool		distinct = true;

		for (int i = 0; i < count; i++)
			for (int j = 0; j <= i; j++)
				distinct = distinct && strcmp(fields[i].name, j < i ? fields[j].name : "time") != 0;
		tap_ok(count >= 1 && count <= FLAKE_MAX_FIELDS && distinct,
			   "%s: describes its fields (%d of at most %d), named apart from each other and from \"time\"",
			   name, count, FLAKE_MAX_FIELDS);
	}
	else
		tap_ok(false, "%s: describes its fields for <type>_fields", name);
	if (format->abbrev.identity_bytes > 0)
		tap_ok(format->abbrev.time_bytes + format->abbrev.identity_bytes < format->width &&
			   format->abbrev.spare_bytes < format->abbrev.time_bytes,
			   "%s: the abbreviation plan fits the width", name);
}

/* unit_start(u) floors back to u, and the unit before starts earlier by about unit_us */
static void
test_units(const FlakeFormat *format)
{
	const char *name = format->name;
	int			failures = 0;
	uint64_t	first,
				last;

	if (format->units_at == NULL)
		return;
	tap_ok(format->unit_start != NULL && format->unit_us > 0, "%s: a generator unit has a start and a length", name);
	/* around now (2026) and in the whole counter range */
	tap_ok(format->units_at(INT64_C(1795000000000000), &first), "%s: 2026 is within the generator's range", name);
	last = first + 1000000;
	for (int i = 0; i < 20000; i++)
	{
		uint64_t	unit = i < 10000 ? first + (uint64_t) i : first + tap_random() % (last - first),
					again;
		int64_t		start = format->unit_start(unit);

		if (!format->units_at(start, &again) || again != unit ||
			!format->units_at(start - 1, &again) || again != unit - 1 ||
			start - format->unit_start(unit - 1) > format->unit_us ||
			unit > COUNTER_MAX_UNIT)
			failures++;
	}
	tap_ok(failures == 0, "%s: units_at(unit_start(u)) = u and the instant before is u - 1 (%d failures)", name, failures);
}

/*
 * The DETAIL of a refused text: for random IDs spelled wrong in each way
 * flake_decode refuses (length, a character outside the alphabet, ASCII or
 * not, and set spare bits), the sentence names that, exactly.
 */
static void
test_refusal_details(const FlakeFormat *format)
{
	const char *name = format->name;
	const FlakeTextLayout *layout = format->text;
	const char *symbols;
	int			nchars,
				bits,
				spare;
	char		good[64],
				bad[80],
				problem[320],
				expected[320],
				prefix[160];
	uint8_t		id[16],
				out[16];
	bool		all = true;

	if (!layout)
		return;
	tap_ok((format->parse != NULL) == (format->parse_shape != NULL),
		   "%s: has parse_shape exactly when it has a wider parser", name);
	if (format->parse)
		return;
	symbols = layout->alphabet->symbols;
	nchars = layout->nchars;
	bits = layout->alphabet->bits_per_symbol;
	spare = nchars * bits - 8 * layout->nbytes;
	snprintf(prefix, sizeof(prefix), "%s text is %d characters of \"%s\"", name, nchars, symbols);
	for (int round = 0; round < 200; round++)
	{
		int			at = (int) (tap_random() % (uint64_t) nchars);

		for (int i = 0; i < layout->nbytes; i++)
			id[i] = (uint8_t) tap_random();
		flake_encode(layout, id, good);

		/* one character too many, and one too few */
		memcpy(bad, good, nchars);
		bad[nchars] = good[0];
		flake_decode_problem(layout, name, bad, nchars + 1, problem, sizeof(problem));
		snprintf(expected, sizeof(expected), "%s; this text has %d.", prefix, nchars + 1);
		all = all && !flake_decode(layout, bad, nchars + 1, out) && strcmp(problem, expected) == 0;
		flake_decode_problem(layout, name, bad, nchars - 1, problem, sizeof(problem));
		snprintf(expected, sizeof(expected), "%s; this text has %d.", prefix, nchars - 1);
		all = all && strcmp(problem, expected) == 0;

		/* "!" (in no alphabet) and "é" (two bytes, one character) at one place */
		memcpy(bad, good, nchars);
		bad[at] = '!';
		flake_decode_problem(layout, name, bad, nchars, problem, sizeof(problem));
		snprintf(expected, sizeof(expected), "%s; \"!\" (character %d) is not one of them.", prefix, at + 1);
		all = all && !flake_decode(layout, bad, nchars, out) && strcmp(problem, expected) == 0;
		memcpy(bad, good, at);
		memcpy(bad + at, "\xc3\xa9", 2);
		memcpy(bad + at + 2, good + at + 1, nchars - at - 1);
		flake_decode_problem(layout, name, bad, nchars + 1, problem, sizeof(problem));
		snprintf(expected, sizeof(expected), "%s; \"\xc3\xa9\" (character %d) is not one of them.", prefix, at + 1);
		all = all && !flake_decode(layout, bad, nchars + 1, out) && strcmp(problem, expected) == 0;

		/* a spare bit set: the last character (trailing) or the first (leading) */
		if (spare > 0)
		{
			memcpy(bad, good, nchars);
			if (layout->spare_bits_first)
				bad[0] = symbols[1 << (bits - spare)];
			else
				bad[nchars - 1] = symbols[(strchr(symbols, good[nchars - 1]) - symbols) | 1];
			flake_decode_problem(layout, name, bad, nchars, problem, sizeof(problem));
			all = all && !flake_decode(layout, bad, nchars, out) &&
				strncmp(problem, prefix, strlen(prefix)) == 0 &&
				strstr(problem, layout->spare_bits_first ? "; its first character can be at most"
					   : "; its last character must be one of") != NULL;
		}
	}
	tap_ok(all, "%s: 200 random IDs misspelt by length, character and spare bits: each DETAIL names what is wrong", name);
}

int
main(void)
{
	tap_random_state = 7;
	for (int f = 0; f < FLAKE_FORMAT_COUNT; f++)
	{
		test_description(flake_formats[f], f);
		test_units(flake_formats[f]);
		test_refusal_details(flake_formats[f]);
		for (int g = 0; g < f; g++)
			if (flake_formats[f]->uuid_tag != 0)
				tap_ok(flake_formats[f]->uuid_tag != flake_formats[g]->uuid_tag,
					   "%s and %s: distinct UUIDv8 tags", flake_formats[f]->name, flake_formats[g]->name);
	}
	tap_ok(flake_format_by_name("uuid") == NULL, "no format named uuid");
	return tap_done();
}
