/*
 * mask.h — keyed, reversible masks of IDs: tokens and the key file's text
 *
 * A token is the unpadded base64url (RFC 4648 §5) of
 *
 *     [marker and key ID: 2 bytes] [FF1-AES-256 of the ID's bytes: width bytes]
 *
 * The first 6 bits are the marker 010100, so every token starts with "U",
 * a character that no ID's text takes (docs/REFERENCE.md, "Masks"); the
 * next 10 bits are the ID of the key that masked it (0..1023), so that
 * old tokens still unmask after a new key takes over.  FF1 (ff1.h) runs in
 * radix 256 over exactly the ID's bytes: every bit pattern of the width is
 * a valid plaintext, and the token is as long as the ID allows.  Its
 * tweak is the first 16 bytes of SHA-256("flakeid mask 1" 0 type 0
 * purpose): another type or purpose gives an unrelated permutation.
 *
 * The key file's text: lines "KEY_ID HEX_KEY", the key 64 hex digits
 * (AES-256); blank lines and lines starting with '#' are skipped.
 *
 * Pure C: no PostgreSQL headers.
 */
#ifndef FLAKEID_FORMAT_MASK_H
#define FLAKEID_FORMAT_MASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ff1.h"

#define MASK_KEY_BYTES		32	/* AES-256 */
#define MASK_MAX_KEY_ID		1023
#define MASK_MAX_KEYS		64	/* lines of keys in one file */
#define MASK_TWEAK_BYTES	16
#define MASK_HEADER_BYTES	2
#define MASK_MARKER			20	/* base64url "U" */
#define MASK_MIN_WIDTH		3	/* FF1: 256^n >= 1,000,000 */
#define MASK_MAX_WIDTH		14	/* ff1.h: 256^ceil(n/2) <= 2^56 */
#define MASK_MAX_TOKEN_LEN	((8 * (MASK_MAX_WIDTH + MASK_HEADER_BYTES) + 5) / 6)

/* a token's length for an ID of width bytes */
static inline int
mask_token_length(int width)
{
	return (8 * (width + MASK_HEADER_BYTES) + 5) / 6;
}

/* the tweak of a type and a purpose (purpose_len bytes, any content) */
extern bool mask_tweak(const char *type, const char *purpose, size_t purpose_len, uint8_t tweak[MASK_TWEAK_BYTES]);

/*
 * The FF1 of a key and tweak for IDs of width bytes, to mask or unmask
 * with: false if width is outside [MASK_MIN_WIDTH, MASK_MAX_WIDTH].
 */
extern bool mask_prepare(Ff1 *ff1, Ff1Key *key, const uint8_t tweak[MASK_TWEAK_BYTES], int width);

/*
 * Writes the token of id (ff1->n bytes) under the key that ff1 was
 * prepared with, whose ID is key_id, to out: mask_token_length(ff1->n)
 * characters, no terminator.
 */
extern void mask_encode(const Ff1 *ff1, int key_id, const uint8_t *id, char *out);

/*
 * Reads a token's key ID and enciphered bytes (width of them).  False on a
 * wrong length, a character outside base64url, a wrong marker or spare bits
 * that are set, with why (NUL-terminated, cut at why_size) saying which in
 * a sentence for an error's DETAIL (naming the type).  The key ID is not checked against any
 * key: the caller looks it up.
 */
extern bool mask_token_read(const char *type, const char *token, size_t len, int width, int *key_id,
							uint8_t *enciphered, char *why, size_t why_size);

/* the ID (ff1->n bytes) of a token's enciphered bytes */
extern void mask_decode(const Ff1 *ff1, const uint8_t *enciphered, uint8_t *id);

/* one key of the file, as read */
typedef struct MaskKeyLine
{
	int			id;
	uint8_t		key[MASK_KEY_BYTES];
} MaskKeyLine;

/*
 * Parses a key file's text into keys (at most max): their count, or -1
 * with why saying which line is wrong and how, never quoting it (a line
 * holds a key).  Duplicate key IDs are refused.  The caller wipes all max
 * entries of keys afterwards, whatever the result.
 */
extern int	mask_keys_parse(const char *text, size_t len, MaskKeyLine *keys, int max, char *why, size_t why_size);

#endif
