/*
 * test_mask.c — FF1 (format/ff1.h) against NIST's samples, the mask tokens
 * (format/mask.h) against a second implementation's vectors, round trips,
 * statistics a reviewer can read, and the key file's parser.
 *
 * Usage: test_mask VECTOR_DIR [IDS].  Prints TAP.  IDS (default 1000000,
 * or $FLAKEID_MASK_IDS: `make valgrind-unittest` takes fewer) is per type,
 * both the random IDs that go through 3 purposes under 2 keys and the
 * consecutive IDs of the statistics, whose bounds are 5 standard deviations
 * at that count (at 1 M: 0.0025 for a bit's frequency, 0.005 for rho).
 */
#include "tap.h"

#include <math.h>
#include <time.h>

#include "../../src/format/ff1.h"
#include "../../src/format/format.h"
#include "../../src/format/mask.h"

static const char *vectors;
static long round_trip_ids = 1000000;	/* and the statistics' count */

static const char digits36[] = "0123456789abcdefghijklmnopqrstuvwxyz";

static int
numerals(const char *text, uint16_t *out)
{
	int			n = 0;

	for (; *text; text++)
		out[n++] = (uint16_t) (strchr(digits36, *text) - digits36);
	return n;
}

/* NIST SP 800-38G FF1 samples 1-9 (AES-128, -192, -256), both directions */
static void
test_nist_samples(void)
{
	Tsv		   *t = tsv_open(vectors, "ff1_nist.tsv");

	while (tsv_next(t))
	{
		const char *sample = tsv_get(t, "sample");
		uint8_t		key_bytes[32],
					tweak[FF1_MAX_TWEAK];
		int			key_len = hex_to_bytes(tsv_get(t, "key"), key_bytes, sizeof(key_bytes));
		int			tweak_len = hex_to_bytes(tsv_get(t, "tweak"), tweak, sizeof(tweak));
		unsigned	radix = (unsigned) atoi(tsv_get(t, "radix"));
		uint16_t	pt[FF1_MAX_NUMERALS],
					ct[FF1_MAX_NUMERALS],
					out[FF1_MAX_NUMERALS];
		int			n = numerals(tsv_get(t, "plaintext"), pt);
		char		text[FF1_MAX_NUMERALS + 1];
		Ff1Key		key;
		Ff1			ff1;

		numerals(tsv_get(t, "ciphertext"), ct);
		if (!tap_ok(ff1_key_init(&key, key_bytes, (size_t) key_len) &&
					ff1_prepare(&ff1, &key, radix, n, tweak, (size_t) tweak_len),
					"NIST FF1 sample %s: key and parameters accepted", sample))
			continue;
		ff1_encrypt(&ff1, pt, out);
		for (int i = 0; i < n; i++)
			text[i] = digits36[out[i]];
		text[n] = '\0';
		tap_ok(strcmp(text, tsv_get(t, "ciphertext")) == 0, "NIST FF1 sample %s (AES-%d, radix %u): encrypts to %s (got %s)",
			   sample, key_len * 8, radix, tsv_get(t, "ciphertext"), text);
		ff1_decrypt(&ff1, ct, out);
		tap_ok(memcmp(out, pt, n * sizeof(uint16_t)) == 0, "NIST FF1 sample %s: decrypts back", sample);
		ff1_key_free(&key);
	}
	tsv_close(t);
}

/* what ff1_prepare refuses: outside FF1's domain, or halves beyond 2^56 */
static void
test_ff1_limits(void)
{
	uint8_t		key_bytes[32] = {0};
	Ff1Key		key;
	Ff1			ff1;

	ff1_key_init(&key, key_bytes, 32);
	tap_ok(!ff1_prepare(&ff1, &key, 10, 5, NULL, 0), "FF1 refuses radix^n < 1,000,000 (10^5)");
	tap_ok(ff1_prepare(&ff1, &key, 10, 6, NULL, 0), "FF1 takes radix^n = 1,000,000 (10^6)");
	tap_ok(!ff1_prepare(&ff1, &key, 1, 30, NULL, 0), "FF1 refuses radix 1");
	tap_ok(!ff1_prepare(&ff1, &key, 65537, 4, NULL, 0), "FF1 refuses radix 2^16 + 1");
	tap_ok(ff1_prepare(&ff1, &key, 256, 14, NULL, 0), "radix 256, 14 numerals: halves of 2^56");
	tap_ok(!ff1_prepare(&ff1, &key, 256, 15, NULL, 0), "radix 256, 15 numerals: a half beyond 2^56 is refused");
	ff1_key_free(&key);
	tap_ok(!ff1_key_init(&key, key_bytes, 31), "an AES key of 31 bytes is refused");
}

/* the tokens of test/vectors/mask.tsv (derive_mask_vectors.py: Python integers and another AES) */
/*
 * The key check value: AES-256 of a zero block under the zero key is
 * dc95c078a2408989ad48a21492842087 (FIPS-197's known answer, as
 * `openssl enc -aes-256-ecb -nopad` gives it); two keys one bit apart
 * have other check values.
 */
static void
test_key_check_value(void)
{
	uint8_t		key_bytes[MASK_KEY_BYTES] = {0};
	uint8_t		a[FF1_CHECK_VALUE_BYTES],
				b[FF1_CHECK_VALUE_BYTES];
	Ff1Key		key;

	ff1_key_init(&key, key_bytes, MASK_KEY_BYTES);
	ff1_key_check_value(&key, a);
	ff1_key_free(&key);
	tap_ok(a[0] == 0xdc && a[1] == 0x95 && a[2] == 0xc0, "the zero key's check value is dc95c0 (AES-256 of a zero block)");
	key_bytes[31] = 1;
	ff1_key_init(&key, key_bytes, MASK_KEY_BYTES);
	ff1_key_check_value(&key, b);
	ff1_key_free(&key);
	tap_ok(memcmp(a, b, sizeof(a)) != 0, "a key one bit apart has another check value");
}

static void
test_token_vectors(void)
{
	Tsv		   *t = tsv_open(vectors, "mask.tsv");
	int			rows = 0,
				encoded = 0,
				decoded = 0;

	while (tsv_next(t))
	{
		const char *type = tsv_get(t, "type");
		const char *purpose = tsv_get(t, "purpose");
		const char *expected = tsv_get(t, "token");
		int			key_id = atoi(tsv_get(t, "key_id"));
		uint8_t		key_bytes[MASK_KEY_BYTES],
					id[MASK_MAX_WIDTH],
					tweak[MASK_TWEAK_BYTES],
					enciphered[MASK_MAX_WIDTH],
					back[MASK_MAX_WIDTH];
		int			width = hex_to_bytes(tsv_get(t, "id"), id, sizeof(id));
		char		token[MASK_MAX_TOKEN_LEN + 1] = {0},
					why[256];
		int			read_id = -1;
		Ff1Key		key;
		Ff1			ff1;

		rows++;
		hex_to_bytes(tsv_get(t, "key"), key_bytes, sizeof(key_bytes));
		if (!ff1_key_init(&key, key_bytes, MASK_KEY_BYTES) || !mask_tweak(type, purpose, strlen(purpose), tweak) ||
			!mask_prepare(&ff1, &key, tweak, width))
			continue;
		mask_encode(&ff1, key_id, id, token);
		if (strcmp(token, expected) == 0)
			encoded++;
		else
			tap_diag("%s %s/%s: %s, expected %s", type, tsv_get(t, "id"), purpose, token, expected);
		if (mask_token_read(type, expected, strlen(expected), width, &read_id, enciphered, why, sizeof(why)) &&
			read_id == key_id && (mask_decode(&ff1, enciphered, back), memcmp(back, id, width) == 0))
			decoded++;
		ff1_key_free(&key);
	}
	tsv_close(t);
	tap_ok(rows > 200 && encoded == rows, "mask.tsv: %d of %d tokens as the second implementation writes them", encoded, rows);
	tap_ok(decoded == rows, "mask.tsv: %d of %d tokens read back to their key ID and ID", decoded, rows);
}

/* token shapes: length, the marker, and what a reader refuses */
static void
test_token_shapes(void)
{
	uint8_t		key_bytes[MASK_KEY_BYTES] = {7};
	uint8_t		tweak[MASK_TWEAK_BYTES],
				id[MASK_MAX_WIDTH] = {0},
				enciphered[MASK_MAX_WIDTH];
	char		token[MASK_MAX_TOKEN_LEN + 1],
				bad[MASK_MAX_TOKEN_LEN + 2],
				why[256];
	Ff1Key		key;
	int			key_id;

	ff1_key_init(&key, key_bytes, MASK_KEY_BYTES);
	for (int f = 0; f < FLAKE_FORMAT_COUNT; f++)
	{
		const FlakeFormat *format = flake_formats[f];
		int			width = format->width;
		int			len = mask_token_length(width);
		Ff1			ff1;

		mask_tweak(format->name, "", 0, tweak);
		mask_prepare(&ff1, &key, tweak, width);
		mask_encode(&ff1, MASK_MAX_KEY_ID, id, token);
		token[len] = '\0';
		tap_ok(token[0] == 'U', "%s: a token (%s) starts with U", format->name, token);
		if (format->text)
			tap_ok(len != format->text->nchars || strchr(format->text->alphabet->symbols, 'U') == NULL,
				   "%s: a token (%d characters) differs from the type's text (%d) in length or alphabet",
				   format->name, len, format->text->nchars);
		tap_ok(mask_token_read(format->name, token, len, width, &key_id, enciphered, why, sizeof(why)) &&
			   key_id == MASK_MAX_KEY_ID, "%s: key ID 1023 reads back", format->name);
		tap_ok(!mask_token_read(format->name, token, len - 1, width, &key_id, enciphered, why, sizeof(why)) &&
			   strstr(why, "this text has") != NULL, "%s: one character short is refused (%s)", format->name, why);
		memcpy(bad, token, len);
		bad[len] = 'A';
		tap_ok(!mask_token_read(format->name, bad, len + 1, width, &key_id, enciphered, why, sizeof(why)),
			   "%s: one character long is refused", format->name);
		memcpy(bad, token, len);
		bad[3] = '=';
		tap_ok(!mask_token_read(format->name, bad, len, width, &key_id, enciphered, why, sizeof(why)) &&
			   strstr(why, "(character 4)") != NULL, "%s: a character outside base64url is refused (%s)", format->name, why);
		memcpy(bad, token, len);
		bad[0] = 'V';
		tap_ok(!mask_token_read(format->name, bad, len, width, &key_id, enciphered, why, sizeof(why)) &&
			   strstr(why, "starts with") != NULL, "%s: another first character is refused (%s)", format->name, why);
		if ((8 * (width + MASK_HEADER_BYTES)) % 6 != 0)
		{
			memcpy(bad, token, len);
			bad[len - 1] = bad[len - 1] == '_' ? '-' : '_';
			tap_ok(!mask_token_read(format->name, bad, len, width, &key_id, enciphered, why, sizeof(why)) &&
				   strstr(why, "last character") != NULL, "%s: set spare bits are refused (%s)", format->name, why);
		}
	}
	ff1_key_free(&key);
}

/* id += 1, big-endian */
static void
increment(uint8_t *id, int width)
{
	for (int i = width - 1; i >= 0 && ++id[i] == 0; i--)
		;
}

/*
 * Random IDs round-trip under 3 purposes and 2 keys; tokens of one ID differ
 * across purposes and keys (their enciphered bytes, at least).
 */
static void
test_round_trips(void)
{
	static const char *const purposes[] = {"", "orders", "invoices"};
	uint8_t		key_bytes[2][MASK_KEY_BYTES];
	Ff1Key		keys[2];

	tap_random_state = 64;
	for (int k = 0; k < 2; k++)
	{
		tap_random_bytes(key_bytes[k], MASK_KEY_BYTES);
		ff1_key_init(&keys[k], key_bytes[k], MASK_KEY_BYTES);
	}
	for (int f = 0; f < FLAKE_FORMAT_COUNT; f++)
	{
		const FlakeFormat *format = flake_formats[f];
		int			width = format->width;
		int			len = mask_token_length(width);
		Ff1			ff1[6];
		long		failures = 0,
					alike = 0;
		clock_t		start = clock();

		for (int c = 0; c < 6; c++)
		{
			uint8_t		tweak[MASK_TWEAK_BYTES];

			mask_tweak(format->name, purposes[c % 3], strlen(purposes[c % 3]), tweak);
			mask_prepare(&ff1[c], &keys[c / 3], tweak, width);
		}
		for (long i = 0; i < round_trip_ids; i++)
		{
			uint8_t		id[MASK_MAX_WIDTH],
						enciphered[6][MASK_MAX_WIDTH],
						back[MASK_MAX_WIDTH];
			char		token[MASK_MAX_TOKEN_LEN],
						why[256];
			int			key_id;

			tap_random_bytes(id, width);
			for (int c = 0; c < 6; c++)
			{
				mask_encode(&ff1[c], c / 3 + 1, id, token);
				if (!mask_token_read(format->name, token, len, width, &key_id, enciphered[c], why, sizeof(why)) ||
					key_id != c / 3 + 1)
				{
					failures++;
					continue;
				}
				mask_decode(&ff1[c], enciphered[c], back);
				if (memcmp(back, id, width) != 0)
					failures++;
				for (int e = 0; e < c; e++)
					if (memcmp(enciphered[e], enciphered[c], width) == 0)
						alike++;
			}
		}
		tap_ok(failures == 0, "%s: %ld random IDs x 3 purposes x 2 keys round-trip (%ld failures, %.1f s)",
			   format->name, round_trip_ids, failures, (double) (clock() - start) / CLOCKS_PER_SEC);
		/* 15 pairs per ID; at 8 bytes a chance pair is 2^-64 */
		tap_ok(alike == 0, "%s: no two of an ID's 6 tokens (purpose x key) encipher alike (%ld)", format->name, alike);
	}
	for (int k = 0; k < 2; k++)
		ff1_key_free(&keys[k]);
}

typedef struct Ranked
{
	char		token[MASK_MAX_TOKEN_LEN + 1];
	long		index;
} Ranked;

static int
compare_tokens(const void *a, const void *b)
{
	return strcmp(((const Ranked *) a)->token, ((const Ranked *) b)->token);
}

/*
 * 1 M consecutive IDs (a random start, +1 each): every enciphered bit is
 * set within 0.5 % of half the time (|f - 0.5| <= 0.0025, 5 standard
 * deviations at n = 1 M); Spearman's rank correlation between ID order and
 * token order (strcmp, as a reader sorts them) is within 0.005 of 0 (5
 * sigma); consecutive IDs' tokens share their first enciphered byte about
 * 1 time in 256, as unrelated tokens do.
 */
static void
test_statistics(void)
{
	const long	n = round_trip_ids;
	const double bit_bound = 5 * 0.5 / sqrt((double) n);	/* 5 sigma of a frequency */
	const double rho_bound = 5 / sqrt((double) n - 1);	/* 5 sigma of rho under independence */
	uint8_t		key_bytes[MASK_KEY_BYTES];
	Ff1Key		key;
	Ranked	   *ranked = malloc(sizeof(Ranked) * n);

	tap_random_state = 1964;
	tap_random_bytes(key_bytes, MASK_KEY_BYTES);
	ff1_key_init(&key, key_bytes, MASK_KEY_BYTES);
	for (int f = 0; f < FLAKE_FORMAT_COUNT; f++)
	{
		const FlakeFormat *format = flake_formats[f];
		int			width = format->width;
		int			len = mask_token_length(width);
		long		ones[8 * MASK_MAX_WIDTH] = {0};
		long		same_first = 0;
		double		worst = 0,
					sum_d2 = 0,
					rho;
		int			worst_bit = 0;
		uint8_t		id[MASK_MAX_WIDTH],
					tweak[MASK_TWEAK_BYTES],
					previous[MASK_MAX_WIDTH] = {0};
		Ff1			ff1;

		mask_tweak(format->name, "orders", 6, tweak);
		mask_prepare(&ff1, &key, tweak, width);
		tap_random_bytes(id, width);
		for (long i = 0; i < n; i++, increment(id, width))
		{
			uint8_t		enciphered[MASK_MAX_WIDTH];
			char		why[256];
			int			key_id;

			mask_encode(&ff1, 5, id, ranked[i].token);
			ranked[i].token[len] = '\0';
			ranked[i].index = i;
			mask_token_read(format->name, ranked[i].token, len, width, &key_id, enciphered, why, sizeof(why));
			for (int bit = 0; bit < 8 * width; bit++)
				ones[bit] += enciphered[bit / 8] >> (7 - bit % 8) & 1;
			if (i > 0 && enciphered[0] == previous[0])
				same_first++;
			memcpy(previous, enciphered, width);
		}
		for (int bit = 0; bit < 8 * width; bit++)
		{
			double		off = fabs((double) ones[bit] / n - 0.5);

			if (off > worst)
				worst = off, worst_bit = bit;
		}
		tap_ok(worst <= bit_bound, "%s: over %ld consecutive IDs every token bit is set %.2f%%-%.2f%% of the time (worst: bit %d, off by %.4f <= %.4f)",
			   format->name, n, 100 * (0.5 - worst), 100 * (0.5 + worst), worst_bit, worst, bit_bound);
		qsort(ranked, n, sizeof(Ranked), compare_tokens);
		for (long r = 0; r < n; r++)
		{
			double		d = (double) (r - ranked[r].index);

			sum_d2 += d * d;
		}
		rho = 1 - 6 * sum_d2 / ((double) n * ((double) n * n - 1));
		tap_ok(fabs(rho) <= rho_bound, "%s: Spearman's rho of ID order and token order is %.5f (|rho| <= %.4f)",
			   format->name, rho, rho_bound);
		tap_ok(fabs(same_first - n / 256.0) <= 5 * sqrt(n / 256.0),
			   "%s: consecutive IDs' tokens share their first enciphered byte %ld times in %ld (chance: %ld)",
			   format->name, same_first, n - 1, n / 256);
	}
	ff1_key_free(&key);
	free(ranked);
}

static int
parse(const char *text, MaskKeyLine *keys, char *why)
{
	return mask_keys_parse(text, strlen(text), keys, MASK_MAX_KEYS, why, 256);
}

static void
test_key_file(void)
{
	static const char k1[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
	static const struct
	{
		const char *text;
		const char *why;
	}			refused[] = {
		{"1 00", "line 1: the key is not 64 hexadecimal digits"},
		{"\n\n7 %s0", "line 3: the key is longer than 64"},
		{"1024 %s", "line 1: the key ID is above 1023"},
		{"x1 %s", "line 1: it does not start with a key ID"},
		{"1\t%s junk", "line 1: something follows the key"},
		{"1,%s", "line 1: the key ID is not followed by a space"},
		{"1 %s\n# rotated\n1 %s\n", "line 3: its key ID is on an earlier line too"},
	};
	MaskKeyLine keys[MASK_MAX_KEYS];
	char		why[256],
				text[512];
	int			count;

	snprintf(text, sizeof(text), "# flakeid mask keys\n\n  2 %s\r\n1\t%s  \n", k1, k1);
	count = parse(text, keys, why);
	tap_ok(count == 2 && keys[0].id == 2 && keys[1].id == 1 && keys[0].key[31] == 0x1f,
		   "key file: comments, blank lines, tabs and CRLF; the first key is first (%d keys)", count);
	tap_ok(parse("", keys, why) == 0 && parse("# none yet\n", keys, why) == 0, "key file: an empty file holds no key");
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
	{
		snprintf(text, sizeof(text), refused[i].text, k1, k1);
		count = parse(text, keys, why);
		tap_ok(count == -1 && strstr(why, refused[i].why) != NULL && strstr(why, "0001020304") == NULL,
			   "key file refused: %s (why: %s, no key in it)", refused[i].why, why);
	}
	{
		char	   *many = malloc(65 * 80);

		many[0] = '\0';
		for (int i = 0; i < 65; i++)
			snprintf(many + strlen(many), 80, "%d %s\n", i, k1);
		tap_ok(parse(many, keys, why) == -1 && strstr(why, "line 65") != NULL, "key file: a 65th key is refused (%s)", why);
		free(many);
	}
}

int
main(int argc, char **argv)
{
	vectors = argc > 1 ? argv[1] : "test/vectors";
	if (argc > 2)
		round_trip_ids = atol(argv[2]);
	else if (getenv("FLAKEID_MASK_IDS"))
		round_trip_ids = atol(getenv("FLAKEID_MASK_IDS"));
	test_nist_samples();
	test_ff1_limits();
	test_token_vectors();
	test_key_check_value();
	test_token_shapes();
	test_key_file();
	test_round_trips();
	test_statistics();
	return tap_done();
}
