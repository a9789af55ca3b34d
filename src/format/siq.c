/*
 * siq.c — the SIQ format (spec/siq-and-snowflake.md Part A)
 */
#include "siq.h"

#include <string.h>

#include <openssl/evp.h>
#include <zlib.h>

#include "bytes.h"
#include "counter.h"
#include "format.h"
#include "uuid8.h"

/* Crockford base32; lowercase reads as uppercase, I and L as 1, O as 0 */
static FlakeAlphabet crockford = {
	.symbols = "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
	.bits_per_symbol = 5,
	.aliases = "aAbBcCdDeEfFgGhHjJkKmMnNpPqQrRsStTvVwWxXyYzZ" "I1i1L1l1O0o0",
};

/* the value as a 23-digit numeral: 115 bits, the 3 leading ones zero */
const FlakeTextLayout siq_text = {
	.alphabet = &crockford,
	.nbytes = SIQ_SIZE,
	.nchars = SIQ_TEXT_LEN,
	.spare_bits_first = true,
};

/* RFC 4648 base32, written lowercase, read in either case */
static FlakeAlphabet rfc_base32 = {
	.symbols = "abcdefghijklmnopqrstuvwxyz234567",
	.bits_per_symbol = 5,
	.aliases = "AaBbCcDdEeFfGgHhIiJjKkLlMmNnOoPpQqRrSsTtUuVvWwXxYyZz",
};

/*
 * The DID body (spec A7, 'u' form): base32 of 2 zero bytes, the CRC-32 and
 * the 14 bytes, with the first 3 symbols (always "aaa") dropped.  What is
 * left is 1 zero bit then the CRC and the payload: 29 symbols over 18 bytes.
 */
static const FlakeTextLayout did_body = {
	.alphabet = &rfc_base32,
	.nbytes = 4 + SIQ_SIZE,
	.nchars = SIQ_DID_BODY_LEN,
	.spare_bits_first = true,
};

const SiqKind siq_kinds[] = {
	{"ternary", 9}, {"multi", 11}, {"manytomany", 13}, {"content", 15},
	{"thread", 22}, {"message", 30},
	{"user", 32}, {"tag", 34}, {"group", 36}, {"event", 40}, {"channel", 42},
	{"invite", 44}, {"application", 48}, {"collection", 52}, {"premium", 56},
	{NULL, 50}, {NULL, 58}, {NULL, 60},
};

void
siq_pack(const SiqFields *f, uint8_t *out)
{
	be_put(out, 7, f->t56);
	out[7] = (uint8_t) f->shard;
	be_put(out + 8, 4, f->domain);
	be_put(out + 12, 2, f->low);
}

void
siq_unpack(const uint8_t *in, SiqFields *f)
{
	f->t56 = be_get(in, 7);
	f->shard = in[7];
	f->domain = (uint32_t) be_get(in + 8, 4);
	f->low = (unsigned) be_get(in + 12, 2);
}

/* unpack then pack (FlakeFormat.repack) */
static void
siq_repack(const uint8_t *in, uint8_t *out)
{
	SiqFields	fields;

	siq_unpack(in, &fields);
	siq_pack(&fields, out);
}

bool
siq_t56_from_unix_us(int64_t unix_us, uint64_t *t56)
{
	uint64_t	seconds;

	if (unix_us < 0)
		return false;
	seconds = (uint64_t) unix_us / 1000000;
	if (seconds >= SIQ_SECONDS_LIMIT)
		return false;
	/* split so that us * 65536 cannot overflow (spec A2) */
	*t56 = (seconds << 16) | (((uint64_t) unix_us % 1000000) * 65536 / 1000000);
	return true;
}

int64_t
siq_unix_us_ceil_from_t56(uint64_t t56)
{
	return (int64_t) ((t56 >> 16) * 1000000 + ((t56 & 0xFFFF) * 1000000 + 65535) / 65536);
}

int
siq_kind_lookup(const char *name, size_t len)
{
	for (int i = 0; i < SIQ_NAMED_KINDS; i++)
	{
		const char *k = siq_kinds[i].name;
		size_t		j;

		if (strlen(k) != len)
			continue;
		for (j = 0; j < len; j++)
		{
			char		c = name[j];

			if (c >= 'A' && c <= 'Z')
				c = (char) (c - 'A' + 'a');
			if (c != k[j])
				break;
		}
		if (j == len)
			return i;
	}
	return -1;
}

unsigned
siq_kind_width(unsigned value)
{
	unsigned	w = 0;

	while (value >> (w + 1))
		w++;
	return w;					/* floor(log2(value)): the marker bit's position */
}

unsigned
siq_kind_serial_max(unsigned value)
{
	return (1u << (16 - siq_kind_width(value))) - 1;
}

unsigned
siq_low_word(unsigned value, unsigned serial)
{
	unsigned	w = siq_kind_width(value);

	return (serial << w) | (value & ((1u << w) - 1));
}

unsigned
siq_low_kind_value(unsigned low, unsigned *serial)
{
	/* the qualifier suffixes are prefix-free read from the right (spec A5) */
	unsigned	w = (low & 1) ? 3 : ((low & 2) && (low & 4)) ? 4 : 5;

	*serial = low >> w;
	return (low & ((1u << w) - 1)) | (1u << w);
}

const char *
siq_kind_name(unsigned value)
{
	for (size_t i = 0; i < sizeof(siq_kinds) / sizeof(siq_kinds[0]); i++)
		if (siq_kinds[i].value == value)
			return siq_kinds[i].name;
	return NULL;
}

bool
siq_hash_domain(const char *domain, size_t len, uint32_t *hash)
{
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int digest_len = 0;

	for (size_t i = 0; i < len; i++)
		if ((unsigned char) domain[i] > 127)
			return false;
	if (len == 0 || (len == 1 && domain[0] == '0'))
	{
		*hash = 0;
		return true;
	}
	if (!EVP_Digest(domain, len, digest, &digest_len, EVP_sha256(), NULL) || digest_len != 32)
		return false;
	*hash = (uint32_t) be_get(digest + 28, 4);
	return true;
}

static uint32_t
siq_crc32(const uint8_t *payload)
{
	return (uint32_t) crc32(crc32(0L, Z_NULL, 0), payload, SIQ_SIZE);
}

void
siq_format_did(const uint8_t *in, char *out)
{
	uint8_t		body[4 + SIQ_SIZE];
	uint32_t	crc = siq_crc32(in);

	body[0] = (uint8_t) (crc >> 24);
	body[1] = (uint8_t) (crc >> 16);
	body[2] = (uint8_t) (crc >> 8);
	body[3] = (uint8_t) crc;
	memcpy(body + 4, in, SIQ_SIZE);
	memcpy(out, SIQ_DID_PREFIX, SIQ_DID_PREFIX_LEN);
	flake_encode(&did_body, body, out + SIQ_DID_PREFIX_LEN);
}

static bool
parse_did(const char *in, size_t len, uint8_t *out)
{
	uint8_t		body[4 + SIQ_SIZE];
	uint32_t	crc;

	if (!flake_decode(&did_body, in + SIQ_DID_PREFIX_LEN, len - SIQ_DID_PREFIX_LEN, body))
		return false;
	crc = (uint32_t) be_get(body, 4);
	if (crc != siq_crc32(body + 4))
		return false;
	memcpy(out, body + 4, SIQ_SIZE);
	return true;
}

static bool
parse_numeral(const char *in, size_t len, uint8_t *out)
{
	char		padded[SIQ_TEXT_LEN];

	if (len == 0 || len > SIQ_NUMERAL_MAX_LEN)
		return false;
	if (len == SIQ_NUMERAL_MAX_LEN)
	{
		/* 24 digits hold 120 bits: the first must be a zero to fit in 112 */
		uint8_t		probe[SIQ_SIZE];
		char		first[SIQ_TEXT_LEN];

		memset(first, '0', sizeof(first));
		first[SIQ_TEXT_LEN - 1] = in[0];
		if (!flake_decode(&siq_text, first, SIQ_TEXT_LEN, probe) || probe[SIQ_SIZE - 1] != 0)
			return false;
		in++;
		len--;
	}
	memset(padded, '0', SIQ_TEXT_LEN - len);
	memcpy(padded + SIQ_TEXT_LEN - len, in, len);
	/* the codec checks the 3 spare leading bits: the value fits in 112 bits */
	return flake_decode(&siq_text, padded, SIQ_TEXT_LEN, out);
}

bool
siq_parse(const char *in, size_t len, uint8_t *out)
{
	if (len >= SIQ_DID_PREFIX_LEN && memcmp(in, SIQ_DID_PREFIX, SIQ_DID_PREFIX_LEN) == 0)
		return parse_did(in, len, out);
	return parse_numeral(in, len, out);
}

bool
siq_units_at(int64_t unix_us, uint64_t *unit)
{
	uint64_t	t56;

	if (!siq_t56_from_unix_us(unix_us, &t56) || t56 < SIQ_UNIT_BASE_T56 ||
		t56 - SIQ_UNIT_BASE_T56 > COUNTER_MAX_UNIT)
		return false;
	*unit = t56 - SIQ_UNIT_BASE_T56;
	return true;
}

/* rounded up: an instant from here on floors into this tick */
static int64_t
siq_unit_start(uint64_t unit)
{
	return siq_unix_us_ceil_from_t56(siq_t56_from_unit(unit));
}

/* siq's fraction: 1/65536 s rounded up to the microsecond, as siq_time reports it */
static int64_t
siq_fraction_us(uint64_t fraction)
{
	return siq_unix_us_ceil_from_t56(fraction);	/* a t56 of 0 seconds */
}

const TimeLayout siq_time_layout = {
	SIQ_SIZE, 0, true, 6,
	{{40, 1000000, NULL}, {16, 0, siq_fraction_us}, {8, 0, NULL}, {32, 0, NULL}, {16, 0, NULL}}
};

const FlakeFormat siq_format = {
	.id = FLAKE_SIQ, .name = "siq", .width = SIQ_SIZE,
	.text = &siq_text, .parse = siq_parse, .repack = siq_repack,	/* numerals of any length, any case, DIDs */
	.time = &siq_time_layout, .time_range = "1970-01-01 00:00:00+00, 36812-02-20 00:36:16+00",
	.units_at = siq_units_at, .unit_start = siq_unit_start, .unit_us = 16,
	/* t56 | shard, domain | low word; seconds < 2^32 until 2106 */
	.abbrev = {.time_bytes = 7, .identity_bytes = 5, .spare_bytes = 1}, .uuid_tag = UUID8_TAG_SIQ,
};
