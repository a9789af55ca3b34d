/*
 * codec.c — fixed-width text codecs over power-of-two alphabets (see codec.h)
 */
#include "codec.h"

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
