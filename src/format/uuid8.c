/*
 * uuid8.c — the UUIDv8 embedding (see uuid8.h), as two 64-bit halves
 */
#include "uuid8.h"

#include <string.h>

#include "bytes.h"

void
uuid8_from_id(const uint8_t *id, int width, uint8_t tag, uint8_t *uuid)
{
	uint8_t		padded[UUID8_SIZE] = {0};
	uint64_t	hi,
				lo;

	/* the ID as the top `width` bytes of a 128-bit number */
	memcpy(padded, id, width);
	hi = be_get(padded, 8);
	lo = be_get(padded + 8, 8);
	be_put(uuid, 8, (hi & UINT64_C(0xFFFFFFFFFFFF0000)) | UINT64_C(0x8000) | ((hi >> 4) & 0x0FFF));
	be_put(uuid + 8, 8, UINT64_C(0x8000000000000000) | ((hi & 0xF) << 58) | (lo >> 6) | tag);
}

bool
uuid8_to_id(const uint8_t *uuid, int width, uint8_t tag, uint8_t *id)
{
	uint64_t	hi = be_get(uuid, 8),
				lo = be_get(uuid + 8, 8);
	uint8_t		padded[UUID8_SIZE],
				again[UUID8_SIZE];

	be_put(padded, 8, (hi & UINT64_C(0xFFFFFFFFFFFF0000)) | ((hi & 0x0FFF) << 4) | ((lo >> 58) & 0xF));
	be_put(padded + 8, 8, lo << 6);
	memcpy(id, padded, width);
	/* version, variant, tag and the zeros past the ID: only our encoding gives back the input */
	uuid8_from_id(id, width, tag, again);
	return memcmp(again, uuid, UUID8_SIZE) == 0;
}
