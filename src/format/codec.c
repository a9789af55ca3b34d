/*
 * codec.c — fixed-width text codecs over power-of-two alphabets (see codec.h)
 */
#include "codec.h"

#include <stdio.h>

static void
alphabet_build(FlakeAlphabet *alphabet)
{
	int			count = 1 << alphabet->bits_per_symbol;

	for (int c = 0; c < 256; c++)
		alphabet->values[c] = -1;
	for (int v = 0; v < count; v++)
		alphabet->values[(unsigned char) alphabet->symbols[v]] = (int8_t) v;
	for (const char *a = alphabet->aliases; a && a[0] && a[1]; a += 2)
		alphabet->values[(unsigned char) a[0]] = alphabet->values[(unsigned char) a[1]];
	alphabet->ready = true;
}

static inline int
spare_bits(const FlakeTextLayout *layout)
{
	return layout->nchars * layout->alphabet->bits_per_symbol - layout->nbytes * 8;
}

void
flake_encode(const FlakeTextLayout *layout, const uint8_t *in, char *out)
{
	const int	bits = layout->alphabet->bits_per_symbol;
	const unsigned mask = (1u << bits) - 1;
	const char *symbols = layout->alphabet->symbols;
	uint32_t	acc = 0;		/* only the low `pending` bits are meaningful */
	int			pending = layout->spare_bits_first ? spare_bits(layout) : 0;
	int			next_byte = 0;

	for (int i = 0; i < layout->nchars; i++)
	{
		while (pending < bits)
		{
			if (next_byte < layout->nbytes)
			{
				acc = (acc << 8) | in[next_byte++];
				pending += 8;
			}
			else
			{
				/* trailing spare bits are zero */
				acc <<= bits - pending;
				pending = bits;
			}
		}
		out[i] = symbols[(acc >> (pending - bits)) & mask];
		pending -= bits;
	}
}

bool
flake_decode(const FlakeTextLayout *layout, const char *in, size_t len, uint8_t *out)
{
	FlakeAlphabet *alphabet = layout->alphabet;
	const int	bits = alphabet->bits_per_symbol;
	const int	spare = spare_bits(layout);
	uint32_t	acc = 0;
	int			pending = 0;
	int			next_byte = 0;

	if (len != (size_t) layout->nchars)
		return false;
	if (!alphabet->ready)
		alphabet_build(alphabet);

	for (int i = 0; i < layout->nchars; i++)
	{
		int			v = alphabet->values[(unsigned char) in[i]];

		if (v < 0)
			return false;
		acc = (acc << bits) | (uint32_t) v;
		pending += bits;
		if (i == 0 && layout->spare_bits_first && spare > 0)
		{
			/* the numeral's leading bits must be zero: no overflow */
			if ((v >> (bits - spare)) != 0)
				return false;
			pending -= spare;
		}
		while (pending >= 8)
		{
			out[next_byte++] = (uint8_t) (acc >> (pending - 8));
			pending -= 8;
		}
	}
	/* trailing padding must be zero, so that each ID has one spelling */
	if (pending > 0 && (acc & ((1u << pending) - 1)) != 0)
		return false;
	return next_byte == layout->nbytes;
}

/* the length of a UTF-8 sequence that starts with byte c (1 for anything else) */
static size_t
utf8_sequence_length(unsigned char c)
{
	return c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

void
flake_decode_problem(const FlakeTextLayout *layout, const char *type, const char *in, size_t len,
					 char *out, size_t size)
{
	FlakeAlphabet *alphabet = layout->alphabet;
	const int	bits = alphabet->bits_per_symbol;
	const int	spare = spare_bits(layout);
	size_t		characters = 0;
	int			written;

	if (!alphabet->ready)
		alphabet_build(alphabet);
	written = snprintf(out, size, "%s text is %d characters of \"%s\"", type, layout->nchars, alphabet->symbols);
	if (written < 0 || (size_t) written >= size)
		return;
	out += written;
	size -= (size_t) written;

	for (size_t i = 0; i < len; i += utf8_sequence_length((unsigned char) in[i]))
		characters++;
	if (characters != (size_t) layout->nchars)
	{
		snprintf(out, size, "; this text has %zu.", characters);
		return;
	}
	for (size_t i = 0, position = 1; i < len; position++)
	{
		size_t		n = utf8_sequence_length((unsigned char) in[i]);

		if (n > len - i)
			n = len - i;
		if (n > 1 || alphabet->values[(unsigned char) in[i]] < 0)
		{
			snprintf(out, size, "; \"%.*s\" (character %zu) is not one of them.", (int) n, in + i, position);
			return;
		}
		i += n;
	}
	if (layout->spare_bits_first && spare > 0)
	{
		/* the first symbol's leading spare bits must be zero */
		snprintf(out, size, "; its first character can be at most \"%c\" (the value fits in %d bytes).",
				 alphabet->symbols[(1 << (bits - spare)) - 1], layout->nbytes);
		return;
	}
	if (spare > 0)
	{
		/* the last symbol's trailing spare bits must be zero */
		char		allowed[64 + 1];
		int			count = 0;

		for (int v = 0; v < (1 << bits); v += 1 << spare)
			allowed[count++] = alphabet->symbols[v];
		allowed[count] = '\0';
		snprintf(out, size, "; its last character must be one of \"%s\" (the unused low bits are zero, so every value has one spelling).", allowed);
		return;
	}
	snprintf(out, size, ".");
}
