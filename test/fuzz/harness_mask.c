/*
 * harness_mask.c — libFuzzer harness for what the masks read from outside
 * (src/format/mask.h): tokens, which any role may pass to <type>_unmask,
 * and the key file's text; under AddressSanitizer and
 * UndefinedBehaviorSanitizer.
 *
 * The first input byte picks: 0-5 a token for that format's width (the
 * rest of the input is the token), 6 and above the key file's text.  A
 * token that reads must unmask and mask again to exactly itself under a
 * fixed key (every accepted token is the canonical one of its ID); a key
 * file that parses must give distinct key IDs of 0-1023, and a refusal must
 * name a line and never quote the file.  Any mismatch aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/format/format.h"
#include "../../src/format/mask.h"

static void
check_token(const FlakeFormat *format, const char *token, size_t len)
{
	static Ff1Key key;
	static bool ready;
	uint8_t		tweak[MASK_TWEAK_BYTES] = {0},
				enciphered[MASK_MAX_WIDTH],
				id[MASK_MAX_WIDTH];
	char		again[MASK_MAX_TOKEN_LEN],
				why[320];
	int			key_id;
	Ff1			ff1;

	if (!ready)
	{
		uint8_t		bytes[MASK_KEY_BYTES] = {1, 2, 3};

		ready = ff1_key_init(&key, bytes, MASK_KEY_BYTES);
	}
	if (!mask_token_read(format->name, token, len, format->width, &key_id, enciphered, why, sizeof(why)))
	{
		if (why[0] == '\0')
			abort();			/* a refusal says why */
		return;
	}
	if (key_id < 0 || key_id > MASK_MAX_KEY_ID || !mask_prepare(&ff1, &key, tweak, format->width))
		abort();
	mask_decode(&ff1, enciphered, id);
	mask_encode(&ff1, key_id, id, again);
	if (len != (size_t) mask_token_length(format->width) || memcmp(again, token, len) != 0)
	{
		fprintf(stderr, "%s: an accepted token does not round-trip\n", format->name);
		abort();
	}
}

static void
check_key_file(const char *text, size_t len)
{
	static MaskKeyLine keys[MASK_MAX_KEYS];
	char		why[200] = "";
	int			count = mask_keys_parse(text, len, keys, MASK_MAX_KEYS, why, sizeof(why));

	if (count < 0)
	{
		if (strncmp(why, "line ", 5) != 0)
			abort();
		/* never the file's content: no run of 8 of its bytes in the reason */
		for (size_t i = 0; i + 8 <= len; i++)
			if (memchr(text + i, '\n', 8) == NULL && memmem(why, strlen(why), text + i, 8) != NULL)
			{
				fprintf(stderr, "a refusal quotes the file: %s\n", why);
				abort();
			}
		return;
	}
	if (count > MASK_MAX_KEYS)
		abort();
	for (int i = 0; i < count; i++)
	{
		if (keys[i].id < 0 || keys[i].id > MASK_MAX_KEY_ID)
			abort();
		for (int j = 0; j < i; j++)
			if (keys[i].id == keys[j].id)
				abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] < FLAKE_FORMAT_COUNT)
		check_token(flake_formats[data[0]], (const char *) data + 1, size - 1);
	else
		check_key_file((const char *) data + 1, size - 1);
	return 0;
}
