/*
 * siq.c — the SIQ format (docs/spec/siq-and-snowflake.md Part A)
 */
#include "siq.h"

#include <string.h>

#include <openssl/evp.h>

#include "bytes.h"
#include "rules/counter.h"
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

int
siq_kind_index(unsigned value)
{
	for (size_t i = 0; i < sizeof(siq_kinds) / sizeof(siq_kinds[0]); i++)
		if (siq_kinds[i].value == value)
			return (int) i;
	return -1;
}

const char *
siq_kind_name(unsigned value)
{
	int			index = siq_kind_index(value);

	return index < 0 ? NULL : siq_kinds[index].name;
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
		return siq_parse_did(in, len, out);	/* a prefixed body that does not parse is no numeral either */
	return parse_numeral(in, len, out);
}

/*
 * spec B5, SnowflakeSiqMigrator.to_siq, with the epoch as an instant and
 * exact integer time (the library's float path agrees on every vector row).
 * The snowflake's time becomes the tick; the shard is bits 12..19 (process
 * and the low 3 worker bits); the top 2 worker bits, and for 11-bit serials
 * the sequence's top bit, are added to the tick (a millisecond is 65.5
 * ticks, so they never reach the next one); the rest of the sequence is the
 * serial.  The domain hash is masked, not reduced mod 2^32 - 1.
 */
bool
siq_from_snowflake_fields(uint64_t snowflake, int64_t epoch_unix_us, uint32_t domain, unsigned kind_value,
				   SiqFields *out)
{
	int64_t		since_epoch_us = (int64_t) (snowflake >> 22) * 1000;	/* < 2^52 */
	unsigned	serial_bits = 16 - siq_kind_width(kind_value);
	unsigned	extra_ticks = (unsigned) (snowflake >> 20) & 3;
	unsigned	serial = (unsigned) snowflake & 4095;
	uint64_t	t56;

	if (epoch_unix_us > INT64_MAX - since_epoch_us ||
		!siq_t56_from_unix_us(epoch_unix_us + since_epoch_us, &t56))
		return false;
	if (serial_bits < 12)
	{
		extra_ticks = (extra_ticks << (12 - serial_bits)) + (serial >> serial_bits);
		serial &= (1u << serial_bits) - 1;
	}
	t56 += extra_ticks;
	if (t56 >> 56)
		return false;
	out->t56 = t56;
	out->shard = (unsigned) (snowflake >> 12) & 0xFF;
	out->domain = domain;
	out->low = siq_low_word(kind_value, serial);
	return true;
}

static bool
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

static const TimeLayout siq_time_layout = {
	SIQ_SIZE, 0, true, 6,
	{{40, 1000000, NULL}, {16, 0, siq_fraction_us}, {8, 0, NULL}, {32, 0, NULL}, {16, 0, NULL}}
};

/* kind is NULL for the three unassigned qualifiers; kind_value (marker | qualifier) tells them apart */
static int
siq_fields(const uint8_t *in, FlakeField *out)
{
	SiqFields	f;
	unsigned	serial;
	unsigned	value;

	siq_unpack(in, &f);
	value = siq_low_kind_value(f.low, &serial);
	out[0] = flake_number("shard", f.shard);
	out[1] = flake_number("domain", f.domain);
	out[2] = (FlakeField) {"kind", true, 0, siq_kind_name(value)};
	out[3] = flake_number("kind_value", value);
	out[4] = flake_number("serial", serial);
	return 5;
}

const FlakeFormat siq_format = {
	.id = FLAKE_SIQ, .name = "siq", .width = SIQ_SIZE,
	.text = &siq_text, .parse = siq_parse,
	.parse_shape = "siq text is a Crockford base32 numeral of 1 to 24 digits below 2^112 "
	"(0-9 and A-Z without I, L, O and U, in any case; I and L read as 1, O as 0), "
	"or \"did:siq:\" followed by 29 characters of RFC 4648 base32 holding a CRC-32 and the 14 bytes; "
	"siq_parse(text, form) reads the library's other forms.",
	.repack = siq_repack, .fields = siq_fields,
	.time = &siq_time_layout, .time_range = "1970-01-01 00:00:00+00, 36812-02-20 00:36:16+00",
	.units_at = siq_units_at, .unit_start = siq_unit_start, .unit_us = 16,
	/* t56 | shard, domain | low word; seconds < 2^32 until 2106 */
	.abbrev = {.time_bytes = 7, .identity_bytes = 5, .spare_bytes = 1}, .uuid_tag = UUID8_TAG_SIQ,
};
