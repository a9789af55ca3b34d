/*
 * bytes.h — big-endian unsigned integers of 1 to 8 bytes
 *
 * Every format stores its fields big-endian, so that memcmp order is value
 * order.  These are the one reader and writer of such fields; with a constant
 * byte count they unroll into shifts.  Pure C, no PostgreSQL headers.
 */
#ifndef FLAKEID_FORMAT_BYTES_H
#define FLAKEID_FORMAT_BYTES_H

#include <stdint.h>

static inline uint64_t
be_get(const uint8_t *in, int nbytes)
{
	uint64_t	value = 0;

	for (int i = 0; i < nbytes; i++)
		value = value << 8 | in[i];
	return value;
}

/* the low nbytes bytes of value */
static inline void
be_put(uint8_t *out, int nbytes, uint64_t value)
{
	for (int i = nbytes - 1; i >= 0; i--, value >>= 8)
		out[i] = (uint8_t) value;
}

#endif
