/*
 * ff1.h — NIST SP 800-38G FF1 format-preserving encryption over AES
 *
 * FF1 (SP 800-38G Rev. 1, Algorithms 7 and 8) enciphers a string of n
 * numerals in a radix into another such string: a keyed permutation of the
 * radix^n strings, chosen by a tweak of any length.  flakeid's masks
 * (mask.h) use it in radix 256, one numeral per byte of an ID, so that a
 * token enciphers exactly the ID's bytes; the unit test checks NIST's
 * published samples (radix 10 and 36) against the same code.
 *
 * Within one Feistel round flakeid keeps the two halves as 64-bit
 * integers, so a half holds at most 2^56 values: radix^ceil(n/2) <= 2^56
 * (every ID width up to 14 bytes in radix 256, NIST's samples too).
 * ff1_prepare refuses anything else, and anything FF1 itself forbids
 * (radix outside [2, 2^16], radix^n < 1,000,000).
 *
 * The block cipher is OpenSSL's AES (EVP, ECB of single blocks: FF1's PRF
 * is a CBC-MAC with a zero IV, which is a chain of single-block calls).
 * Pure C: no PostgreSQL headers.
 */
#ifndef FLAKEID_FORMAT_FF1_H
#define FLAKEID_FORMAT_FF1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FF1_MAX_NUMERALS	64
#define FF1_MAX_TWEAK		64	/* bytes; flakeid's masks use 16 */

/* an AES key, expanded once (key_len 16, 24 or 32 bytes) */
typedef struct Ff1Key
{
	void	   *cipher;			/* EVP_CIPHER_CTX */
} Ff1Key;

/* false when OpenSSL refuses (out of memory, a bad length) */
extern bool ff1_key_init(Ff1Key *key, const uint8_t *bytes, size_t key_len);
/* wipes the expanded key; a key that was never set up is ignored */
extern void ff1_key_free(Ff1Key *key);

/*
 * The key's check value: the first FF1_CHECK_VALUE_BYTES of AES of a zero
 * block under it (the key check value of key ceremonies, which
 * `openssl enc -aes-256-ecb -nopad -K KEY` of 16 zero bytes gives too).
 * It tells two keys apart without showing either.
 */
#define FF1_CHECK_VALUE_BYTES	3
extern void ff1_key_check_value(const Ff1Key *key, uint8_t out[FF1_CHECK_VALUE_BYTES]);

/*
 * One (key, radix, length, tweak): what every round shares, computed once.
 * chain is the CBC-MAC of P and of Q's blocks before its last, which holds
 * the round number and the other half.
 */
typedef struct Ff1
{
	Ff1Key	   *key;
	unsigned	radix;
	int			radix_bits;		/* log2(radix) for a power of two (256: 8), else 0 */
	int			n,
				u,
				v,
				b,
				d;
	uint64_t	radix_u,		/* radix^u, radix^v */
				radix_v;
	uint8_t		chain[16];
	uint8_t		last[16];		/* Q's last block, round and half left zero */
} Ff1;

extern bool ff1_prepare(Ff1 *ff1, Ff1Key *key, unsigned radix, int n, const uint8_t *tweak, size_t tweak_len);

/* n numerals, each < radix, in and out (which may be the same array) */
extern void ff1_encrypt(const Ff1 *ff1, const uint16_t *in, uint16_t *out);
extern void ff1_decrypt(const Ff1 *ff1, const uint16_t *in, uint16_t *out);

#endif
