/*
 * flax.c — the flax format (docs/spec/flax.md)
 */
#include "flax.h"

#include "bytes.h"
#include "format.h"
#include "uuid8.h"

static FlakeAlphabet flax_alphabet = {
	.symbols = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz",
	.bits_per_symbol = 6,
};

const FlakeTextLayout flax_text = {
	.alphabet = &flax_alphabet,
	.nbytes = FLAX_SIZE,
	.nchars = FLAX_TEXT_LEN,
	.spare_bits_first = false,
};

/* spec §1: the 96-bit value (ms << 56) | random, big-endian */
void
flax_pack(uint64_t ms, uint64_t random, uint8_t *out)
{
	be_put(out, 5, ms);
	be_put(out + 5, 7, random);
}

void
flax_unpack(const uint8_t *in, uint64_t *ms, uint64_t *random)
{
	*ms = be_get(in, 5);
	*random = be_get(in + 5, 7);
}

bool
flax_ms_from_unix_us(int64_t unix_us, uint64_t *ms)
{
	const int64_t epoch_us = FLAX_EPOCH_UNIX_MS * 1000;

	if (unix_us < epoch_us || (uint64_t) ((unix_us - epoch_us) / 1000) >= FLAX_MS_LIMIT)
		return false;
	*ms = (uint64_t) ((unix_us - epoch_us) / 1000);	/* non-negative: / floors */
	return true;
}

int64_t
flax_unix_us_from_ms(uint64_t ms)
{
	return (FLAX_EPOCH_UNIX_MS + (int64_t) ms) * 1000;
}

static void
flax_repack(const uint8_t *in, uint8_t *out)
{
	uint64_t	ms,
				random;

	flax_unpack(in, &ms, &random);
	flax_pack(ms, random, out);
}

static const TimeLayout flax_time_layout = {
	FLAX_SIZE, FLAX_EPOCH_UNIX_MS * 1000, true, 2,
	{{40, 1000, NULL}, {FLAX_RANDOM_BITS, 0, NULL}}
};

/* stateless: no generator units */
static int
flax_fields(const uint8_t *in, FlakeField *out)
{
	uint64_t	ms,
				random;

	flax_unpack(in, &ms, &random);
	out[0] = flake_number("random", (int64_t) random);
	return 1;
}

const FlakeFormat flax_format = {
	.id = FLAKE_FLAX, .name = "flax", .width = FLAX_SIZE,
	.text = &flax_text, .repack = flax_repack, .fields = flax_fields,
	.time = &flax_time_layout, .time_range = "2015-01-01 00:00:00+00, 2049-11-03 19:53:47.776+00",
	.uuid_tag = UUID8_TAG_FLAX,
};
