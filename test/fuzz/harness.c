/*
 * harness.c — libFuzzer harness for the pure-C format layer
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
 * Any mismatch aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/format/format.h"

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
		return;
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

extern int	LLVMFuzzerInitialize(int *argc, char ***argv);
extern int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		check_binary(data + 1, size - 1);
	else
		check_text(data + 1, size - 1);
	return 0;
}
