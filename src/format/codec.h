/*
 * codec.h — fixed-width text codecs over power-of-two alphabets
 *
 * Every text form in flakeid except SIQ's variable-length numeral is "the
 * ID's bytes, read most significant bit first, cut into groups of 5 or 6
 * bits, one alphabet symbol per group".  Only the alphabet, the width and
 * where the spare bits sit differ, so one codec serves every type:
 *
 *   sno     10 bytes, 16 x 5 bits, no spare bits
 *   flax    12 bytes, 16 x 6 bits, no spare bits
 *   kuid     8 bytes, 11 x 6 bits, 2 spare bits at the end (must be zero)
 *   kuid96  12 bytes, 16 x 6 bits, no spare bits
 *   siq     14 bytes, 23 x 5 bits, 3 spare bits at the front (a numeral)
 *
 * Pure C: no PostgreSQL headers, so it is unit-tested and fuzzed alone.
 */
#ifndef FLAKEID_CODEC_H
#define FLAKEID_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct FlakeAlphabet
{
	const char *symbols;		/* 2^bits_per_symbol ASCII symbols, value = index */
	int			bits_per_symbol;	/* 5 or 6 */
	const char *aliases;		/* optional pairs "xy": input x reads as symbol y */
	int8_t		values[256];	/* symbol -> value, -1 if not a symbol; built lazily */
	bool		ready;
} FlakeAlphabet;

typedef struct FlakeTextLayout
{
	FlakeAlphabet *alphabet;
	int			nbytes;			/* binary width */
	int			nchars;			/* text width */
	bool		spare_bits_first;	/* spare bits lead (numeral) or trail (padding) */
} FlakeTextLayout;

/* Writes exactly layout->nchars symbols to out (no terminator). */
extern void flake_encode(const FlakeTextLayout *layout, const uint8_t *in, char *out);

/*
 * Decodes exactly layout->nchars symbols.  Returns false, leaving out
 * unspecified, on a wrong length, a byte outside the alphabet or a spare bit
 * that is set: every accepted string is the canonical encoding of its bytes.
 */
extern bool flake_decode(const FlakeTextLayout *layout, const char *in, size_t len, uint8_t *out);

/*
 * Why flake_decode refuses in: one sentence for an error's DETAIL, naming
 * the length and alphabet the layout takes and the first thing in that
 * breaks them (the length, a character outside the alphabet, or a value
 * too large for the bytes).  Written to out, NUL-terminated, cut at size.
 * type names the text in the sentence ("sno text is 16 characters ...").
 */
extern void flake_decode_problem(const FlakeTextLayout *layout, const char *type, const char *in, size_t len,
								 char *out, size_t size);

#endif
