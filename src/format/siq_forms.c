/*
 * siq_forms.c — the SIQ library's other text forms (docs/spec/siq-and-snowflake.md
 * A7): the DID and its 'u' body, and the numerals and encodings of
 * siq_format and siq_parse
 */
#include "siq.h"

#include <string.h>

#include <zlib.h>

#include "bytes.h"

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

static uint32_t
siq_crc32(const uint8_t *payload)
{
	return (uint32_t) crc32(crc32(0L, Z_NULL, 0), payload, SIQ_SIZE);
}

/* the 'u' form: the DID body over the CRC-32 and the payload */
static void
format_u(const uint8_t *in, char *out)
{
	uint8_t		body[4 + SIQ_SIZE];

	be_put(body, 4, siq_crc32(in));
	memcpy(body + 4, in, SIQ_SIZE);
	flake_encode(&did_body, body, out);
}

static bool
parse_u(const char *in, size_t len, uint8_t *out)
{
	uint8_t		body[4 + SIQ_SIZE];

	if (!flake_decode(&did_body, in, len, body) || (uint32_t) be_get(body, 4) != siq_crc32(body + 4))
		return false;
	memcpy(out, body + 4, SIQ_SIZE);
	return true;
}

void
siq_format_did(const uint8_t *in, char *out)
{
	memcpy(out, SIQ_DID_PREFIX, SIQ_DID_PREFIX_LEN);
	format_u(in, out + SIQ_DID_PREFIX_LEN);
}

bool
siq_parse_did(const char *in, size_t len, uint8_t *out)
{
	return len >= SIQ_DID_PREFIX_LEN && memcmp(in, SIQ_DID_PREFIX, SIQ_DID_PREFIX_LEN) == 0 &&
		parse_u(in + SIQ_DID_PREFIX_LEN, len - SIQ_DID_PREFIX_LEN, out);
}

/* --- the library's text forms (spec A7): siq_format and siq_parse ----------- */

static FlakeAlphabet hex_digits = {
	.symbols = "0123456789abcdef",
	.bits_per_symbol = 4,
	.aliases = "AaBbCcDdEeFf",
};

static FlakeAlphabet octal_digits = {
	.symbols = "01234567",
	.bits_per_symbol = 3,
};

/* RFC 4648 URL-safe base64: case matters */
static FlakeAlphabet base64url = {
	.symbols = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
	.bits_per_symbol = 6,
};

/* numerals: the value's digits, 2 spare bits before the octal ones */
static const FlakeTextLayout hex_numeral = {&hex_digits, SIQ_SIZE, 28, true};
static const FlakeTextLayout octal_numeral = {&octal_digits, SIQ_SIZE, 38, true};

/* the library writes these two from 15 bytes: a zero byte, then the value */
#define SIQ_WIDE_SIZE	(SIQ_SIZE + 1)
static const FlakeTextLayout base64_wide = {&base64url, SIQ_WIDE_SIZE, 20, false};
static const FlakeTextLayout b32l_wide = {&rfc_base32, SIQ_WIDE_SIZE, 24, false};

const char *const siq_form_names[SIQ_FORM_COUNT] = {
	[SIQ_FORM_DEC] = "dec", [SIQ_FORM_HEX] = "hex", [SIQ_FORM_OCT] = "oct",
	[SIQ_FORM_BASE64] = "base64", [SIQ_FORM_CB32] = "cb32", [SIQ_FORM_0C] = "0c",
	[SIQ_FORM_B32L] = "b32l", [SIQ_FORM_U] = "u", [SIQ_FORM_DID] = "did",
};

int
siq_form_lookup(const char *name, size_t len)
{
	for (int f = 0; f < SIQ_FORM_COUNT; f++)
		if (strlen(siq_form_names[f]) == len && memcmp(siq_form_names[f], name, len) == 0)
			return f;
	return -1;
}

/*
 * A numeral without leading zeros: the layout's digits with the leading
 * zero digits dropped.  Zero is "0", or for Crockford (the library's cb32)
 * the empty string.
 */
static size_t
format_numeral(const FlakeTextLayout *layout, const uint8_t *in, bool zero_is_empty, char *out)
{
	char		digits[64];
	int			first = 0;

	flake_encode(layout, in, digits);
	while (first < layout->nchars && digits[first] == layout->alphabet->symbols[0])
		first++;
	if (first == layout->nchars && !zero_is_empty)
		first--;
	memcpy(out, digits + first, (size_t) (layout->nchars - first));
	return (size_t) (layout->nchars - first);
}

/* the inverse: the layout's alphabet (with its aliases), exactly the digits format_numeral writes */
static bool
parse_numeral_form(const FlakeTextLayout *layout, const char *in, size_t len, bool zero_is_empty, uint8_t *out)
{
	char		padded[64],
				canonical[64];

	if (len > (size_t) layout->nchars)
		return false;
	memset(padded, layout->alphabet->symbols[0], (size_t) layout->nchars - len);
	memcpy(padded + layout->nchars - len, in, len);
	if (!flake_decode(layout, padded, (size_t) layout->nchars, out))
		return false;
	/* no leading zeros (an alias such as Crockford's O counts as one), and "" only where it is zero */
	return format_numeral(layout, out, zero_is_empty, canonical) == len && (len > 0 || zero_is_empty);
}

/* decimal: repeated division of the 14 bytes by 10 */
static size_t
format_decimal(const uint8_t *in, char *out)
{
	uint8_t		n[SIQ_SIZE];
	char		reversed[SIQ_DEC_MAX_LEN];
	size_t		len = 0;
	bool		zero;

	memcpy(n, in, SIQ_SIZE);
	do
	{
		unsigned	remainder = 0;

		zero = true;
		for (int i = 0; i < SIQ_SIZE; i++)
		{
			unsigned	acc = (remainder << 8) | n[i];

			n[i] = (uint8_t) (acc / 10);
			remainder = acc % 10;
			zero = zero && n[i] == 0;
		}
		reversed[len++] = (char) ('0' + remainder);
	} while (!zero);
	for (size_t i = 0; i < len; i++)
		out[i] = reversed[len - 1 - i];
	return len;
}

static bool
parse_decimal(const char *in, size_t len, uint8_t *out)
{
	if (len == 0 || len > SIQ_DEC_MAX_LEN || (len > 1 && in[0] == '0'))
		return false;
	memset(out, 0, SIQ_SIZE);
	for (size_t d = 0; d < len; d++)
	{
		unsigned	carry;

		if (in[d] < '0' || in[d] > '9')
			return false;
		carry = (unsigned) (in[d] - '0');
		for (int i = SIQ_SIZE - 1; i >= 0; i--)
		{
			unsigned	acc = out[i] * 10u + carry;

			out[i] = (uint8_t) acc;
			carry = acc >> 8;
		}
		if (carry != 0)
			return false;		/* past 2^112 - 1 */
	}
	return true;
}

static void
format_wide(const FlakeTextLayout *layout, const uint8_t *in, char *out)
{
	uint8_t		wide[SIQ_WIDE_SIZE] = {0};

	memcpy(wide + 1, in, SIQ_SIZE);
	flake_encode(layout, wide, out);
}

static bool
parse_wide(const FlakeTextLayout *layout, const char *in, size_t len, uint8_t *out)
{
	uint8_t		wide[SIQ_WIDE_SIZE];

	if (!flake_decode(layout, in, len, wide) || wide[0] != 0)
		return false;
	memcpy(out, wide + 1, SIQ_SIZE);
	return true;
}

size_t
siq_format_form(const uint8_t *in, SiqForm form, char *out)
{
	switch (form)
	{
		case SIQ_FORM_DEC:
			return format_decimal(in, out);
		case SIQ_FORM_HEX:
			return format_numeral(&hex_numeral, in, false, out);
		case SIQ_FORM_OCT:
			return format_numeral(&octal_numeral, in, false, out);
		case SIQ_FORM_BASE64:
			format_wide(&base64_wide, in, out);
			return (size_t) base64_wide.nchars;
		case SIQ_FORM_CB32:
			return format_numeral(&siq_text, in, true, out);
		case SIQ_FORM_0C:
			out[0] = '0';
			return 1 + format_numeral(&siq_text, in, true, out + 1);
		case SIQ_FORM_B32L:
			format_wide(&b32l_wide, in, out);
			return (size_t) b32l_wide.nchars;
		case SIQ_FORM_U:
			format_u(in, out);
			return SIQ_DID_BODY_LEN;
		case SIQ_FORM_DID:
		case SIQ_FORM_COUNT:
			break;
	}
	siq_format_did(in, out);
	return SIQ_DID_LEN;
}

bool
siq_parse_form(const char *in, size_t len, SiqForm form, uint8_t *out)
{
	switch (form)
	{
		case SIQ_FORM_DEC:
			return parse_decimal(in, len, out);
		case SIQ_FORM_HEX:
			return parse_numeral_form(&hex_numeral, in, len, false, out);
		case SIQ_FORM_OCT:
			return parse_numeral_form(&octal_numeral, in, len, false, out);
		case SIQ_FORM_BASE64:
			return parse_wide(&base64_wide, in, len, out);
		case SIQ_FORM_CB32:
			return parse_numeral_form(&siq_text, in, len, true, out);
		case SIQ_FORM_0C:
			return len >= 1 && in[0] == '0' && parse_numeral_form(&siq_text, in + 1, len - 1, true, out);
		case SIQ_FORM_B32L:
			return parse_wide(&b32l_wide, in, len, out);
		case SIQ_FORM_U:
			return parse_u(in, len, out);
		case SIQ_FORM_DID:
			return siq_parse_did(in, len, out);
		case SIQ_FORM_COUNT:
			break;
	}
	return false;
}
