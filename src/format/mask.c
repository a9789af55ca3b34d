/*
 * mask.c — tokens of masked IDs and the key file's text (see mask.h)
 */
#include "mask.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "codec.h"

/* RFC 4648 §5, in its own order (not ASCII's: tokens sort in no useful order anyway) */
static FlakeAlphabet base64url = {
	.symbols = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
	.bits_per_symbol = 6,
};

static const char tweak_label[] = "flakeid mask 1";

static FlakeTextLayout
token_layout(int width)
{
	FlakeTextLayout layout = {
		.alphabet = &base64url,
		.nbytes = width + MASK_HEADER_BYTES,
		.nchars = mask_token_length(width),
		.spare_bits_first = false,
	};

	return layout;
}

bool
mask_tweak(const char *type, const char *purpose, size_t purpose_len, uint8_t tweak[MASK_TWEAK_BYTES])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	uint8_t		digest[EVP_MAX_MD_SIZE];
	unsigned	digest_len = 0;
	bool		ok;

	/* the label and the type end with their NUL: no two (type, purpose) give one input */
	ok = ctx != NULL &&
		EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
		EVP_DigestUpdate(ctx, tweak_label, sizeof(tweak_label)) == 1 &&
		EVP_DigestUpdate(ctx, type, strlen(type) + 1) == 1 &&
		EVP_DigestUpdate(ctx, purpose, purpose_len) == 1 &&
		EVP_DigestFinal_ex(ctx, digest, &digest_len) == 1 &&
		digest_len >= MASK_TWEAK_BYTES;
	EVP_MD_CTX_free(ctx);
	if (ok)
		memcpy(tweak, digest, MASK_TWEAK_BYTES);
	return ok;
}

bool
mask_prepare(Ff1 *ff1, Ff1Key *key, const uint8_t tweak[MASK_TWEAK_BYTES], int width)
{
	if (width < MASK_MIN_WIDTH || width > MASK_MAX_WIDTH)
		return false;
	return ff1_prepare(ff1, key, 256, width, tweak, MASK_TWEAK_BYTES);
}

void
mask_encode(const Ff1 *ff1, int key_id, const uint8_t *id, char *out)
{
	uint16_t	numerals[MASK_MAX_WIDTH];
	uint8_t		bytes[MASK_HEADER_BYTES + MASK_MAX_WIDTH];
	FlakeTextLayout layout = token_layout(ff1->n);
	unsigned	header = (unsigned) MASK_MARKER << 10 | (unsigned) key_id;

	for (int i = 0; i < ff1->n; i++)
		numerals[i] = id[i];
	ff1_encrypt(ff1, numerals, numerals);
	bytes[0] = (uint8_t) (header >> 8);
	bytes[1] = (uint8_t) header;
	for (int i = 0; i < ff1->n; i++)
		bytes[MASK_HEADER_BYTES + i] = (uint8_t) numerals[i];
	flake_encode(&layout, bytes, out);
}

bool
mask_token_read(const char *type, const char *token, size_t len, int width, int *key_id,
				uint8_t *enciphered, char *why, size_t why_size)
{
	uint8_t		bytes[MASK_HEADER_BYTES + MASK_MAX_WIDTH];
	FlakeTextLayout layout = token_layout(width);

	char		what[64];

	if (!flake_decode(&layout, token, len, bytes))
	{
		/* the codec's sentence: "<type> mask token text is N characters of ..." */
		snprintf(what, sizeof(what), "%s mask token", type);
		flake_decode_problem(&layout, what, token, len, why, why_size);
		return false;
	}
	if (bytes[0] >> 2 != MASK_MARKER)
	{
		snprintf(why, why_size, "A mask token starts with \"U\"; this one does not.");
		return false;
	}
	*key_id = (bytes[0] & 3) << 8 | bytes[1];
	memcpy(enciphered, bytes + MASK_HEADER_BYTES, width);
	return true;
}

void
mask_decode(const Ff1 *ff1, const uint8_t *enciphered, uint8_t *id)
{
	uint16_t	numerals[MASK_MAX_WIDTH];

	for (int i = 0; i < ff1->n; i++)
		numerals[i] = enciphered[i];
	ff1_decrypt(ff1, numerals, numerals);
	for (int i = 0; i < ff1->n; i++)
		id[i] = (uint8_t) numerals[i];
}

static int
hex_value(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
		c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/*
 * One line of keys: "KEY_ID HEX_KEY", spaces or tabs around and between.
 * Returns NULL, or what is wrong (never the line's content).
 */
static const char *
parse_key_line(const char *p, const char *end, MaskKeyLine *key)
{
	long		id = 0;
	int			digits = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (; p < end && isdigit((unsigned char) *p); p++, digits++)
		if ((id = id * 10 + (*p - '0')) > MASK_MAX_KEY_ID)
			return "the key ID is above 1023";
	if (digits == 0)
		return "it does not start with a key ID (a number from 0 to 1023)";
	if (p == end || (*p != ' ' && *p != '\t'))
		return "the key ID is not followed by a space and the key";
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (int i = 0; i < 2 * MASK_KEY_BYTES; i++, p++)
	{
		int			v = p < end ? hex_value(*p) : -1;

		if (v < 0)
			return "the key is not 64 hexadecimal digits (AES-256)";
		if (i % 2 == 0)
			key->key[i / 2] = (uint8_t) (v << 4);
		else
			key->key[i / 2] |= (uint8_t) v;
	}
	if (p < end && hex_value(*p) >= 0)
		return "the key is longer than 64 hexadecimal digits (AES-256)";
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p != end)
		return "something follows the key";
	key->id = (int) id;
	return NULL;
}

int
mask_keys_parse(const char *text, size_t len, MaskKeyLine *keys, int max, char *why, size_t why_size)
{
	const char *end = text + len;
	int			count = 0;
	int			line = 0;

	for (const char *p = text; p < end; line++)
	{
		const char *eol = memchr(p, '\n', (size_t) (end - p));
		const char *first = p;
		const char *problem = NULL;

		if (eol == NULL)
			eol = end;
		while (first < eol && (*first == ' ' || *first == '\t' || *first == '\r'))
			first++;
		if (first < eol && *first != '#')
		{
			if (memchr(p, '\0', (size_t) (eol - p)) != NULL)
				problem = "it holds a NUL byte";
			else if (count == max)
				problem = "the file holds more keys than flakeid takes (64)";
			else if ((problem = parse_key_line(p, eol, &keys[count])) == NULL)
			{
				for (int i = 0; i < count && problem == NULL; i++)
					if (keys[i].id == keys[count].id)
						problem = "its key ID is on an earlier line too";
				if (problem == NULL)
					count++;
			}
			if (problem != NULL)
			{
				snprintf(why, why_size, "line %d: %s", line + 1, problem);
				return -1;
			}
		}
		p = eol < end ? eol + 1 : end;
	}
	return count;
}
