/*
 * siq.h — the SIQ format (docs/spec/siq-and-snowflake.md Part A)
 *
 *   t56 (40-bit seconds . 16-bit fraction) | shard 8 | domain 32 | low 16
 *
 * where the low word is serial << w | qualifier, w = 3, 4 or 5 by kind.
 * Pure C, no PostgreSQL headers (OpenSSL for SHA-256, zlib for CRC-32).
 */
#ifndef FLAKEID_FORMAT_SIQ_H
#define FLAKEID_FORMAT_SIQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec.h"

#define SIQ_SIZE			14
#define SIQ_TEXT_LEN		23		/* zero-padded Crockford numeral */
#define SIQ_NUMERAL_MAX_LEN	24
#define SIQ_DID_PREFIX		"did:siq:"
#define SIQ_DID_PREFIX_LEN	8
#define SIQ_DID_BODY_LEN	29
#define SIQ_DID_LEN			(SIQ_DID_PREFIX_LEN + SIQ_DID_BODY_LEN)
#define SIQ_MAX_SHARD		255
#define SIQ_SECONDS_LIMIT	(UINT64_C(1) << 40)
#define SIQ_NAMED_KINDS		15

extern const FlakeTextLayout siq_text;

typedef struct SiqFields
{
	uint64_t	t56;			/* 1/65536 s since 1970-01-01 */
	unsigned	shard;
	uint32_t	domain;
	unsigned	low;			/* serial << width | qualifier */
} SiqFields;

extern void siq_pack(const SiqFields *fields, uint8_t *out);
extern void siq_unpack(const uint8_t *in, SiqFields *fields);

/* Exact floor to the tick (spec A2); false before 1970 or past 2^40 s. */
extern bool siq_t56_from_unix_us(int64_t unix_us, uint64_t *t56);
/* The tick rounded up to the microsecond, so that re-encoding lands in the same tick. */
extern int64_t siq_unix_us_ceil_from_t56(uint64_t t56);

/*
 * The generator counts ticks since 2020 (SIQ_UNIT_BASE_T56), so that they
 * fit the counter word's 47 bits (rules/counter.h): siq_new() works until
 * 2088-01-19, and siq_units_at refuses later instants.
 */
#define SIQ_UNIT_BASE_T56	(UINT64_C(1577836800) << 16)
static inline uint64_t
siq_t56_from_unit(uint64_t unit)
{
	return SIQ_UNIT_BASE_T56 + unit;
}

/* Kinds (spec A5): the 15 named ones first, then the 3 unassigned qualifiers. */
typedef struct SiqKind
{
	const char *name;			/* lowercase; NULL for an unassigned qualifier */
	unsigned	value;			/* marker bit | qualifier */
} SiqKind;

extern const SiqKind siq_kinds[];

/* Index into siq_kinds of a kind name (case-insensitive), or -1. */
extern int	siq_kind_lookup(const char *name, size_t len);
extern unsigned siq_kind_width(unsigned value);
extern unsigned siq_kind_serial_max(unsigned value);
extern unsigned siq_low_word(unsigned value, unsigned serial);
/* Splits a low word: returns the kind's value (marker | qualifier), sets the serial. */
extern unsigned siq_low_kind_value(unsigned low, unsigned *serial);
/* Index into siq_kinds of a kind value (named ones first, then the unassigned), or -1. */
extern int	siq_kind_index(unsigned value);
/* Name of a kind value, or NULL when unassigned. */
extern const char *siq_kind_name(unsigned value);

/* spec A4: SHA-256 of the ASCII domain, last 4 bytes; "" and "0" give 0; false if non-ASCII. */
extern bool siq_hash_domain(const char *domain, size_t len, uint32_t *hash);

/*
 * Text input (README, "Reference"): a Crockford numeral of 1..24 characters whose value
 * fits in 112 bits (case-insensitive, I/L read as 1, O as 0), or the DID
 * form (lowercase "did:siq:" + 29 case-insensitive base32 characters whose
 * CRC-32 matches a 14-byte payload).
 */
extern bool siq_parse(const char *in, size_t len, uint8_t *out);
/* Writes the SIQ_DID_LEN characters of the DID form (no terminator). */
extern void siq_format_did(const uint8_t *in, char *out);
/* Reads the DID form, checking its CRC-32; false for anything else (siq_forms.c). */
extern bool siq_parse_did(const char *in, size_t len, uint8_t *out);

/*
 * The library's text forms (spec A7), by the names of its format specs:
 * decimal, lowercase hex and octal (no leading zeros), URL-safe base64 of
 * 15 bytes, the Crockford numeral without leading zeros (zero is ""), '0'
 * and that, RFC 4648 base32 of 15 bytes, the DID body 'u' and the DID.
 * siq_parse_form is their strict inverse: the exact shape siq_format_form
 * writes, except that case is free where the alphabet ignores it (hex,
 * base32, Crockford with its aliases).
 */
typedef enum SiqForm
{
	SIQ_FORM_DEC,
	SIQ_FORM_HEX,
	SIQ_FORM_OCT,
	SIQ_FORM_BASE64,
	SIQ_FORM_CB32,
	SIQ_FORM_0C,
	SIQ_FORM_B32L,
	SIQ_FORM_U,
	SIQ_FORM_DID,
	SIQ_FORM_COUNT
} SiqForm;

#define SIQ_DEC_MAX_LEN		34	/* 2^112 - 1 */
#define SIQ_FORM_MAX_LEN	38	/* the longest form: octal */

extern const char *const siq_form_names[SIQ_FORM_COUNT];
/* The form of a name (exact, lowercase), or -1. */
extern int	siq_form_lookup(const char *name, size_t len);
/* Writes the form (at most SIQ_FORM_MAX_LEN characters, no terminator); returns its length. */
extern size_t siq_format_form(const uint8_t *in, SiqForm form, char *out);
extern bool siq_parse_form(const char *in, size_t len, SiqForm form, uint8_t *out);

/*
 * spec B5: the SIQ SnowflakeSiqMigrator makes of a snowflake (read as 64
 * unsigned bits) with the given epoch, domain hash and kind value.  False
 * when its time falls outside SIQ's range.
 */
extern bool siq_from_snowflake_fields(uint64_t snowflake, int64_t epoch_unix_us, uint32_t domain,
									  unsigned kind_value, SiqFields *out);

#endif
