/*
 * ff1.c — NIST SP 800-38G FF1 over AES (see ff1.h)
 *
 * The steps are the standard's Algorithm 7 (encryption) and 8 (decryption),
 * numbered as there.  The halves A and B are kept as their values NUM(A),
 * NUM(B): STR and NUM only happen at the ends.
 */
#include "ff1.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#define FF1_ROUNDS	10
#define HALF_LIMIT	(UINT64_C(1) << 56)

bool
ff1_key_init(Ff1Key *key, const uint8_t *bytes, size_t key_len)
{
	const EVP_CIPHER *aes = key_len == 16 ? EVP_aes_128_ecb() :
		key_len == 24 ? EVP_aes_192_ecb() :
		key_len == 32 ? EVP_aes_256_ecb() : NULL;
	EVP_CIPHER_CTX *ctx;

	key->cipher = NULL;
	if (aes == NULL || (ctx = EVP_CIPHER_CTX_new()) == NULL)
		return false;
	if (EVP_EncryptInit_ex(ctx, aes, NULL, bytes, NULL) != 1 || EVP_CIPHER_CTX_set_padding(ctx, 0) != 1)
	{
		EVP_CIPHER_CTX_free(ctx);
		return false;
	}
	key->cipher = ctx;
	return true;
}

void
ff1_key_free(Ff1Key *key)
{
	/* EVP_CIPHER_CTX_free cleanses the expanded key */
	if (key->cipher)
		EVP_CIPHER_CTX_free((EVP_CIPHER_CTX *) key->cipher);
	key->cipher = NULL;
}

/* CIPH_K of one block; ECB of a whole block has no state between calls */
static inline void
aes_block(const Ff1Key *key, const uint8_t in[16], uint8_t out[16])
{
	int			len;

	(void) EVP_EncryptUpdate((EVP_CIPHER_CTX *) key->cipher, out, &len, in, 16);
}

void
ff1_key_check_value(const Ff1Key *key, uint8_t out[FF1_CHECK_VALUE_BYTES])
{
	static const uint8_t zero[16] = {0};
	uint8_t		block[16];

	aes_block(key, zero, block);
	memcpy(out, block, FF1_CHECK_VALUE_BYTES);
}

/* CBC-MAC step: chain = CIPH(chain xor block) */
static void
mac_block(const Ff1Key *key, uint8_t chain[16], const uint8_t block[16])
{
	uint8_t		x[16];

	for (int i = 0; i < 16; i++)
		x[i] = chain[i] ^ block[i];
	aes_block(key, x, chain);
}

/* radix^count, or 0 above 2^56 */
static uint64_t
power(unsigned radix, int count)
{
	uint64_t	result = 1;

	for (int i = 0; i < count; i++)
	{
		if (result > HALF_LIMIT / radix)
			return 0;
		result *= radix;
	}
	return result;
}

bool
ff1_prepare(Ff1 *ff1, Ff1Key *key, unsigned radix, int n, const uint8_t *tweak, size_t tweak_len)
{
	uint8_t		p[16];
	uint8_t		q[FF1_MAX_TWEAK + 32];
	size_t		q_len;
	int			bits = 0;

	if (radix < 2 || radix > 65536 || n < 2 || n > FF1_MAX_NUMERALS || tweak_len > FF1_MAX_TWEAK ||
		key->cipher == NULL)
		return false;
	ff1->key = key;
	ff1->radix = radix;
	ff1->radix_bits = 0;
	if ((radix & (radix - 1)) == 0)
		while ((1u << ff1->radix_bits) < radix)
			ff1->radix_bits++;
	ff1->n = n;
	ff1->u = n / 2;				/* step 1 */
	ff1->v = n - ff1->u;
	ff1->radix_u = power(radix, ff1->u);
	ff1->radix_v = power(radix, ff1->v);
	if (ff1->radix_u == 0 || ff1->radix_v == 0)
		return false;
	/* FF1's domain: radix^n >= 1,000,000 (radix^n may exceed 64 bits) */
	if (ff1->radix_u < (UINT64_C(1000000) + ff1->radix_v - 1) / ff1->radix_v)
		return false;
	/* step 3: b = ceil(ceil(v * log2(radix)) / 8), exactly: 2^bits >= radix^v */
	while ((UINT64_C(1) << bits) < ff1->radix_v)
		bits++;
	ff1->b = (bits + 7) / 8;
	ff1->d = 4 * ((ff1->b + 3) / 4) + 4;	/* step 4; at most 12 here */

	/* step 5: P = [1]1 [2]1 [1]1 [radix]3 [10]1 [u mod 256]1 [n]4 [t]4 */
	p[0] = 1;
	p[1] = 2;
	p[2] = 1;
	p[3] = (uint8_t) (radix >> 16);
	p[4] = (uint8_t) (radix >> 8);
	p[5] = (uint8_t) radix;
	p[6] = 10;
	p[7] = (uint8_t) (ff1->u % 256);
	for (int i = 0; i < 4; i++)
	{
		p[8 + i] = (uint8_t) ((uint32_t) n >> (24 - 8 * i));
		p[12 + i] = (uint8_t) ((uint32_t) tweak_len >> (24 - 8 * i));
	}

	/* step 6.i: Q = T || [0]^((-t-b-1) mod 16) || [i]1 || [NUM(B)]b */
	q_len = tweak_len + (size_t) ((16 - (int) ((tweak_len + ff1->b + 1) % 16)) % 16) + 1 + ff1->b;
	memset(q, 0, sizeof(q));
	if (tweak_len > 0)
		memcpy(q, tweak, tweak_len);

	/* the PRF's chain over P and every block of Q but the last */
	memset(ff1->chain, 0, 16);
	mac_block(key, ff1->chain, p);
	for (size_t off = 0; off + 16 < q_len; off += 16)
		mac_block(key, ff1->chain, q + off);
	memcpy(ff1->last, q + q_len - 16, 16);
	return true;
}

/*
 * Steps 6.i-6.iv: y = NUM(S) for round i, with other the value of the half
 * that goes into Q; returned already reduced mod modulus (what step 6.vi
 * uses it for).  S is R's first d bytes: d <= 16, so one block.
 */
static uint64_t
round_value(const Ff1 *ff1, int i, uint64_t other, uint64_t modulus)
{
	uint8_t		block[16];
	uint8_t		r[16];
	uint64_t	y = 0;

	for (int k = 0; k < 16; k++)
		block[k] = ff1->chain[k] ^ ff1->last[k];
	block[15 - ff1->b] ^= (uint8_t) i;
	for (int k = 0; k < ff1->b; k++)
		block[15 - k] ^= (uint8_t) (other >> (8 * k));
	aes_block(ff1->key, block, r);

	if ((modulus & (modulus - 1)) == 0)
	{
		/* radix 256 and every power of two: the low bits */
		for (int k = 0; k < ff1->d; k++)
			y = y << 8 | r[k];
		return y & (modulus - 1);
	}
	/* Horner, reducing only when the next byte could overflow */
	for (int k = 0; k < ff1->d; k++)
	{
		if (y >= HALF_LIMIT)
			y %= modulus;
		y = y << 8 | r[k];
	}
	return y % modulus;
}

static uint64_t
num(const Ff1 *ff1, const uint16_t *x, int count)
{
	uint64_t	value = 0;

	for (int i = 0; i < count; i++)
		value = value * ff1->radix + x[i];
	return value;
}

/* STR: shifts for a power of two (flakeid's radix 256), not a division per numeral */
static void
str(const Ff1 *ff1, uint64_t value, int count, uint16_t *out)
{
	if (ff1->radix_bits > 0)
	{
		for (int i = count - 1; i >= 0; i--, value >>= ff1->radix_bits)
			out[i] = (uint16_t) (value & (ff1->radix - 1));
		return;
	}
	for (int i = count - 1; i >= 0; i--, value /= ff1->radix)
		out[i] = (uint16_t) (value % ff1->radix);
}

void
ff1_encrypt(const Ff1 *ff1, const uint16_t *in, uint16_t *out)
{
	uint64_t	a = num(ff1, in, ff1->u);	/* step 2 */
	uint64_t	b = num(ff1, in + ff1->u, ff1->v);

	for (int i = 0; i < FF1_ROUNDS; i++)
	{
		uint64_t	modulus = i % 2 == 0 ? ff1->radix_u : ff1->radix_v;	/* 6.v */
		uint64_t	y = round_value(ff1, i, b, modulus);
		uint64_t	c = a + y;	/* 6.vi: both below modulus <= 2^56 */

		if (c >= modulus)
			c -= modulus;
		a = b;					/* 6.viii, 6.ix */
		b = c;
	}
	str(ff1, a, ff1->u, out);	/* step 7 */
	str(ff1, b, ff1->v, out + ff1->u);
}

void
ff1_decrypt(const Ff1 *ff1, const uint16_t *in, uint16_t *out)
{
	uint64_t	a = num(ff1, in, ff1->u);
	uint64_t	b = num(ff1, in + ff1->u, ff1->v);

	for (int i = FF1_ROUNDS - 1; i >= 0; i--)
	{
		uint64_t	modulus = i % 2 == 0 ? ff1->radix_u : ff1->radix_v;
		uint64_t	y = round_value(ff1, i, a, modulus);
		uint64_t	c = b >= y ? b - y : b + modulus - y;	/* Algorithm 8, 6.vi */

		b = a;
		a = c;
	}
	str(ff1, a, ff1->u, out);
	str(ff1, b, ff1->v, out + ff1->u);
}
