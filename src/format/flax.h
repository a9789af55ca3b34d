/*
 * flax.h — the flax format (docs/spec/flax.md): 40-bit ms | 56 random bits
 *
 * Pure C, no PostgreSQL headers.
 */
#ifndef FLAKEID_FORMAT_FLAX_H
#define FLAKEID_FORMAT_FLAX_H

#include <stdbool.h>
#include <stdint.h>

#include "codec.h"

#define FLAX_SIZE			12
#define FLAX_TEXT_LEN		16
#define FLAX_EPOCH_UNIX_MS	INT64_C(1420070400000)	/* 2015-01-01T00:00:00Z */
#define FLAX_MS_LIMIT		(UINT64_C(1) << 40)
#define FLAX_RANDOM_BITS	56
#define FLAX_RANDOM_MAX		((UINT64_C(1) << FLAX_RANDOM_BITS) - 1)

extern const FlakeTextLayout flax_text;

extern void flax_pack(uint64_t ms, uint64_t random, uint8_t *out);
extern void flax_unpack(const uint8_t *in, uint64_t *ms, uint64_t *random);

/*
 * Floors a Unix-epoch microsecond instant to its millisecond since the flax
 * epoch with exact integer arithmetic (spec §2: not the library's float
 * path); false outside [2015-01-01, 2049-11-03T19:53:47.776Z).
 */
extern bool flax_ms_from_unix_us(int64_t unix_us, uint64_t *ms);
extern int64_t flax_unix_us_from_ms(uint64_t ms);

#endif
