/*
 * tap.h — minimal TAP producer and TSV reader for the C unit tests
 */
#ifndef FLAKEID_TAP_H
#define FLAKEID_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/format/codec.h"

static int	tap_count;
static int	tap_failed;

static inline bool
tap_ok(bool pass, const char *fmt, ...)
{
	va_list		ap;

	tap_count++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return pass;
}

static inline void
tap_diag(const char *fmt, ...)
{
	va_list		ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* splitmix64: reproducible random test data (set tap_random_state to seed) */
static uint64_t tap_random_state;

static inline uint64_t
tap_random(void)
{
	uint64_t	z = (tap_random_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static inline void
tap_random_bytes(uint8_t *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = (uint8_t) tap_random();
}

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed == 0 ? 0 : 1;
}

/* A TSV file: '#' lines are comments, the first other line names the columns. */
#define TSV_MAX_COLS 32

typedef struct Tsv
{
	FILE	   *file;
	char	   *header[TSV_MAX_COLS];
	int			ncols;
	char	   *cell[TSV_MAX_COLS];
	char		line[65536];
	char		header_line[4096];
	int			lineno;
} Tsv;

static inline int
tsv_split(char *line, char **cells)
{
	int			n = 0;
	char	   *p = line;

	line[strcspn(line, "\r\n")] = '\0';
	for (;;)
	{
		char	   *tab = strchr(p, '\t');

		if (n < TSV_MAX_COLS)
			cells[n++] = p;
		if (tab == NULL)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return n;
}

static inline bool
tsv_next(Tsv *t)
{
	while (fgets(t->line, sizeof(t->line), t->file))
	{
		t->lineno++;
		if (t->line[0] == '#' || t->line[0] == '\n')
			continue;
		return tsv_split(t->line, t->cell) >= t->ncols;
	}
	return false;
}

static inline Tsv *
tsv_open(const char *dir, const char *name)
{
	char		path[1024];
	Tsv		   *t = calloc(1, sizeof(Tsv));

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	t->file = fopen(path, "r");
	if (t->file == NULL)
	{
		printf("Bail out! cannot open %s\n", path);
		exit(2);
	}
	while (fgets(t->header_line, sizeof(t->header_line), t->file))
	{
		t->lineno++;
		if (t->header_line[0] != '#')
			break;
	}
	t->ncols = tsv_split(t->header_line, t->header);
	return t;
}

static inline const char *
tsv_get(Tsv *t, const char *column)
{
	for (int i = 0; i < t->ncols; i++)
		if (strcmp(t->header[i], column) == 0)
			return t->cell[i];
	printf("Bail out! no column %s\n", column);
	exit(2);
}

static inline void
tsv_close(Tsv *t)
{
	fclose(t->file);
	free(t);
}

/* Hex string to bytes; returns the byte count, or -1 on bad hex. */
static inline int
hex_to_bytes(const char *hex, uint8_t *out, int max)
{
	int			n = 0;

	for (; hex[0] && hex[1]; hex += 2)
	{
		unsigned	byte;

		if (n >= max || sscanf(hex, "%2x", &byte) != 1)
			return -1;
		out[n++] = (uint8_t) byte;
	}
	return hex[0] ? -1 : n;
}

static inline void
bytes_to_hex(const uint8_t *in, int n, char *out)
{
	for (int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", in[i]);
}

/* Floor division, for instants before 1970. */
static inline int64_t
floor_div(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static inline int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t		era;
	unsigned	yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned) (y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t) doe - 719468;
}

/* "2020-02-29T12:34:56.789Z" (UTC, any fraction) to Unix microseconds, fraction floored. */
static inline int64_t
rfc3339_to_unix_us(const char *s)
{
	int			y,
				mo,
				d,
				h,
				mi,
				sec,
				consumed = 0;
	int64_t		us = 0;

	if (sscanf(s, "%d-%d-%dT%d:%d:%d%n", &y, &mo, &d, &h, &mi, &sec, &consumed) != 6)
		return INT64_MIN;
	s += consumed;
	if (*s == '.')
	{
		int64_t		scale = 100000;

		for (s++; *s >= '0' && *s <= '9'; s++, scale /= 10)
			us += (*s - '0') * scale;
	}
	return ((days_from_civil(y, (unsigned) mo, (unsigned) d) * 86400 + h * 3600 + mi * 60 + sec)
			* INT64_C(1000000)) + us;
}

/* Both directions of a text layout: bytes encode to text, text decodes to bytes. */
static inline bool
codec_round_trip(const FlakeTextLayout *layout, const uint8_t *bytes, const char *text)
{
	char		encoded[64] = {0};
	uint8_t		decoded[32];

	flake_encode(layout, bytes, encoded);
	if (strcmp(encoded, text) != 0)
	{
		tap_diag("encoded %s, expected %s", encoded, text);
		return false;
	}
	return flake_decode(layout, text, strlen(text), decoded) &&
		memcmp(decoded, bytes, (size_t) layout->nbytes) == 0;
}

/* Python-style escapes in vector text (\xNN, \n, \t, \\) to bytes; returns the length. */
static inline size_t
unescape(const char *in, char *out)
{
	size_t		n = 0;

	while (*in)
	{
		unsigned	byte;

		if (in[0] == '\\' && in[1] == 'x' && sscanf(in + 2, "%2x", &byte) == 1)
		{
			out[n++] = (char) byte;
			in += 4;
		}
		else if (in[0] == '\\' && (in[1] == 'n' || in[1] == 't' || in[1] == '\\'))
		{
			out[n++] = in[1] == 'n' ? '\n' : in[1] == 't' ? '\t' : '\\';
			in += 2;
		}
		else
			out[n++] = *in++;
	}
	out[n] = '\0';
	return n;
}

/*
 * One row of a verdict file (our accept/reject decision for a reference
 * library's decoder input): a binary row (hex after `binary_prefix`) is
 * accepted when exactly `width` bytes long, as a receiver does; a text row
 * (Python escapes) goes to `parse`, or to the layout's strict decoder when
 * `parse` is NULL.  True when the outcome is the verdict and an accepted
 * value is the expected one (hex in `value_hex`).
 */
static inline bool
verdict_holds(Tsv *t, const char *binary_prefix, int width, const FlakeTextLayout *layout,
			  bool (*parse) (const char *in, size_t len, uint8_t *out))
{
	const char *input = tsv_get(t, "input");
	bool		accept = strcmp(tsv_get(t, "verdict"), "accept") == 0;
	uint8_t		expected[32] = {0},
				out[32];
	bool		got;

	if (accept && hex_to_bytes(tsv_get(t, "value_hex"), expected, width) != width)
	{
		tap_diag("bad value in verdict file (line %d)", t->lineno);
		return false;
	}
	if (strcmp(tsv_get(t, "form"), "binary") == 0)
	{
		uint8_t		raw[64];

		got = hex_to_bytes(input + strlen(binary_prefix), raw, sizeof(raw)) == width;
		if (got)
			memcpy(out, raw, width);
	}
	else
	{
		char		raw[256];
		size_t		len = unescape(input, raw);

		got = parse ? parse(raw, len, out) : flake_decode(layout, raw, len, out);
	}
	return got == accept && (!accept || memcmp(out, expected, width) == 0);
}

#endif
