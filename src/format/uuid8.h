/*
 * uuid8.h — flakeid IDs carried in UUIDv8 (RFC 9562 §5.8), order preserved
 *
 *   bits   0..47   ID bits 0..47
 *   bits  48..51   version 1000
 *   bits  52..63   ID bits 48..59
 *   bits  64..65   variant 10
 *   bits  66..     ID bits 60.. (up to 112 ID bits), then zeros
 *   bits 120..127  the type's tag (1 sno, 2 flax, 3 siq, 4 kuid, 5 kuid96)
 *
 * The ID's bits keep their order and every other bit is fixed per type, so
 * UUIDs compare (bytewise, as PostgreSQL's uuid does) exactly as their IDs.
 * Decoding checks the version, variant, zeros and tag: a UUID that no
 * encoding of that type produced is refused.
 *
 * Pure C, no PostgreSQL headers.
 */
#ifndef FLAKEID_FORMAT_UUID8_H
#define FLAKEID_FORMAT_UUID8_H

#include <stdbool.h>
#include <stdint.h>

#define UUID8_SIZE			16
#define UUID8_MAX_ID_WIDTH	14		/* 112 bits: 122 free, 8 for the tag, 2 spare */

enum
{
	UUID8_TAG_SNO = 1,
	UUID8_TAG_FLAX = 2,
	UUID8_TAG_SIQ = 3,
	UUID8_TAG_KUID = 4,
	UUID8_TAG_KUID96 = 5
};

extern void uuid8_from_id(const uint8_t *id, int width, uint8_t tag, uint8_t *uuid);
extern bool uuid8_to_id(const uint8_t *uuid, int width, uint8_t tag, uint8_t *id);

#endif
