/*
 * test_flax.c — the flax format layer against the reference vectors
 *
 * Usage: test_flax VECTOR_DIR.  Prints TAP.
 */
#include "tap.h"
#include "../../src/format/flax.h"

static const char *vectors;

static void
test_codec(void)
{
	Tsv		   *t = tsv_open(vectors, "flax.tsv");

	while (tsv_next(t))
	{
		const char *text = tsv_get(t, "flax_id");
		uint8_t		bytes[FLAX_SIZE],
					packed[FLAX_SIZE];
		uint64_t	ms,
					random,
					ms_again = 0;
		int64_t		unix_ms = strtoll(tsv_get(t, "unix_ms"), NULL, 10);
		bool		pass;

		if (hex_to_bytes(tsv_get(t, "bytes12_hex"), bytes, FLAX_SIZE) != FLAX_SIZE)
		{
			tap_ok(false, "flax line %d: bad hex in vector", t->lineno);
			continue;
		}
		flax_unpack(bytes, &ms, &random);
		flax_pack(ms, random, packed);
		pass = codec_round_trip(&flax_text, bytes, text) &&
			memcmp(packed, bytes, FLAX_SIZE) == 0 &&
			ms == strtoull(tsv_get(t, "flax_epoch_ms"), NULL, 10) &&
			random == strtoull(tsv_get(t, "random56_hex"), NULL, 16) &&
			flax_unix_us_from_ms(ms) == unix_ms * 1000 &&
		/* the time a row shows encodes back to its millisecond, from any microsecond in it */
			flax_ms_from_unix_us(unix_ms * 1000 + 999, &ms_again) && ms_again == ms;
		tap_ok(pass, "flax %s (line %d)", text, t->lineno);
	}
	tsv_close(t);
}

static void
test_invalid(void)
{
	Tsv		   *t = tsv_open(vectors, "flax_invalid.tsv");

	while (tsv_next(t))
	{
		const char *kind = tsv_get(t, "kind");
		const char *input = tsv_get(t, "input");

		if (strcmp(kind, "parse") == 0)
		{
			char		raw[256];
			size_t		len = unescape(input, raw);
			uint8_t		out[FLAX_SIZE];
			bool		expect = strcmp(tsv_get(t, "strict16"), "accept") == 0;

			tap_ok(flake_decode(&flax_text, raw, len, out) == expect, "parse \"%s\": %s",
				   input, expect ? "accepted" : "rejected");
		}
		else if (strcmp(kind, "generate") == 0)
		{
			/*
			 * Unix seconds the library turned into garbage or "now" (0);
			 * all lie outside the flax range and must be refused.
			 */
			double		seconds = strtod(input, NULL);
			int64_t		unix_us = (int64_t) (seconds * 1e6 + (seconds >= 0 ? 0.5 : -0.5));
			uint64_t	ms;

			tap_ok(!flax_ms_from_unix_us(unix_us, &ms), "generate at %s s: outside the range, refused", input);
		}
		/* "encode" rows feed the library numbers outside 96 bits: no such flax exists */
	}
	tsv_close(t);
}

static void
test_range_edges(void)
{
	uint64_t	ms = 99;

	tap_ok(flax_ms_from_unix_us(FLAX_EPOCH_UNIX_MS * 1000, &ms) && ms == 0, "epoch start is ms 0");
	tap_ok(!flax_ms_from_unix_us(FLAX_EPOCH_UNIX_MS * 1000 - 1, &ms), "1 us before the epoch is refused");
	tap_ok(flax_ms_from_unix_us(INT64_C(2519582027775999), &ms) && ms == FLAX_MS_LIMIT - 1,
		   "2049-11-03T19:53:47.775999Z is the last ms");
	tap_ok(!flax_ms_from_unix_us(INT64_C(2519582027776000), &ms), "2049-11-03T19:53:47.776Z is refused");
}

int
main(int argc, char **argv)
{
	vectors = argc > 1 ? argv[1] : "test/vectors";
	test_codec();
	test_invalid();
	test_range_edges();
	return tap_done();
}
