/*
 * harness.c — libFuzzer harness for the pure-C formats (src/format)
 *
 * Built once per format with -DFUZZ_FORMAT='"name"' (see the
 * Makefile's fuzz targets), under AddressSanitizer and
 * UndefinedBehaviorSanitizer.  The first input byte picks the path:
 *
 *   even: text input.  Whatever the parser accepts must encode to a string
 *         that parses back to the same bytes (and, for the strict codecs,
 *         is the input itself: one spelling per value).
 *   odd:  binary input, as a receiver sees it.  A value of the right width
 *         must survive unpack -> pack and encode -> decode unchanged.
 *
 * For siq, even inputs whose first byte is 2 mod 4 go to siq_parse_form
 * instead (the form picked by the second byte): what it accepts must be
 * what siq_format_form writes, up to the letter case the form ignores (and
 * Crockford's I, L and O readings); and
 * every form of a binary value parses back to it.
 *
 * Any mismatch aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/format/format.h"
#include "../../src/format/siq.h"

#define MAX_WIDTH 16

static const FlakeFormat *format;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	format = flake_format_by_name(FUZZ_FORMAT);
	if (format == NULL || format->text == NULL)
	{
		fprintf(stderr, "no text format named %s\n", FUZZ_FORMAT);
		abort();
	}
	return 0;
}

static bool
parse(const char *in, size_t len, uint8_t *out)
{
	return format->parse ? format->parse(in, len, out) : flake_decode(format->text, in, len, out);
}

static void
fail(const char *what, const uint8_t *data, size_t size)
{
	fprintf(stderr, "%s: %s (input of %zu bytes)\n", format->name, what, size);
	(void) data;
	abort();
}

static void
check_text(const uint8_t *data, size_t size)
{
	uint8_t		bytes[MAX_WIDTH],
				again[MAX_WIDTH];
	char		text[64];
	int			width = format->text->nbytes;

	if (!parse((const char *) data, size, bytes))
	{
		/* the DETAIL of the refusal: within its buffer, and always a sentence */
		char		problem[320];

		if (format->parse == NULL)
		{
			flake_decode_problem(format->text, format->name, (const char *) data, size, problem, sizeof(problem));
			if (strnlen(problem, sizeof(problem)) == sizeof(problem) || strstr(problem, " text is ") == NULL)
				fail("the DETAIL of a refused text is not a terminated sentence", data, size);
		}
		return;
	}
	flake_encode(format->text, bytes, text);
	/* the strict decoders accept exactly the encoder's output: one spelling per value */
	if (format->parse == NULL && (size != (size_t) format->text->nchars || memcmp(text, data, size) != 0))
		fail("accepted a string that is not the canonical spelling of its value", data, size);
	if (!parse(text, (size_t) format->text->nchars, again) || memcmp(bytes, again, width) != 0)
		fail("the encoding of an accepted value does not parse back to it", data, size);
}

static void
check_binary(const uint8_t *data, size_t size)
{
	uint8_t		again[MAX_WIDTH];
	char		text[64];
	int			width = format->text->nbytes;

	if (size != (size_t) width)
		return;					/* a receiver refuses any other length (22P03) */
	format->repack(data, again);
	if (memcmp(data, again, width) != 0)
		fail("unpack then pack changed the value", data, size);
	flake_encode(format->text, data, text);
	if (!parse(text, (size_t) format->text->nchars, again) || memcmp(data, again, width) != 0)
		fail("the text of a binary value does not parse back to it", data, size);
}

/* a symbol as the form reads it: lowercase, and for Crockford I and L as 1, O as 0 */
static char
read_as(char c, bool crockford)
{
	if (c >= 'A' && c <= 'Z')
		c = (char) (c - 'A' + 'a');
	if (crockford && (c == 'i' || c == 'l'))
		return '1';
	if (crockford && c == 'o')
		return '0';
	return c;
}

static bool
same_reading(const char *a, const char *b, size_t len, bool crockford)
{
	for (size_t i = 0; i < len; i++)
		if (read_as(a[i], crockford) != read_as(b[i], crockford))
			return false;
	return true;
}

/* siq's other forms: one spelling per value and form, up to case where the alphabet ignores it */
static void
check_siq_form(const uint8_t *data, size_t size)
{
	uint8_t		bytes[SIQ_SIZE],
				again[SIQ_SIZE];
	char		text[SIQ_FORM_MAX_LEN];
	SiqForm		form;
	size_t		len;

	if (size == 0)
		return;
	form = (SiqForm) (data[0] % SIQ_FORM_COUNT);
	if (!siq_parse_form((const char *) data + 1, size - 1, form, bytes))
		return;
	len = siq_format_form(bytes, form, text);
	if (len != size - 1 ||
		(form == SIQ_FORM_BASE64 ? memcmp(text, data + 1, len) != 0
		 : !same_reading(text, (const char *) data + 1, len, form == SIQ_FORM_CB32 || form == SIQ_FORM_0C)))
		fail("siq_parse_form accepted a string siq_format_form does not write", data, size);
	if (!siq_parse_form(text, len, form, again) || memcmp(bytes, again, SIQ_SIZE) != 0)
		fail("a siq form does not parse back to its value", data, size);
}

static void
check_siq_forms_of(const uint8_t *value)
{
	for (int f = 0; f < SIQ_FORM_COUNT; f++)
	{
		char		text[SIQ_FORM_MAX_LEN];
		uint8_t		again[SIQ_SIZE];
		size_t		len = siq_format_form(value, (SiqForm) f, text);

		if (!siq_parse_form(text, len, (SiqForm) f, again) || memcmp(value, again, SIQ_SIZE) != 0)
			fail("a siq form of a binary value does not parse back to it", value, SIQ_SIZE);
	}
}

extern int	LLVMFuzzerInitialize(int *argc, char ***argv);
extern int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
	{
		check_binary(data + 1, size - 1);
		if (format->id == FLAKE_SIQ && size - 1 == SIQ_SIZE)
			check_siq_forms_of(data + 1);
	}
	else if (format->id == FLAKE_SIQ && data[0] % 4 == 2)
		check_siq_form(data + 1, size - 1);
	else
		check_text(data + 1, size - 1);
	return 0;
}
