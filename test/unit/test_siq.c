/*
 * test_siq.c — the siq format layer against the reference vectors, and the
 * monotonic counter rule its generator uses
 *
 * Usage: test_siq VECTOR_DIR.  Prints TAP.
 */
#include <ctype.h>

#include "tap.h"
#include "../../src/format/counter.h"
#include "../../src/format/siq.h"

static const char *vectors;

static bool
parses_to(const char *text, const uint8_t *expected)
{
	uint8_t		out[SIQ_SIZE];

	return siq_parse(text, strlen(text), out) && memcmp(out, expected, SIQ_SIZE) == 0;
}

static void
test_vectors(void)
{
	Tsv		   *t = tsv_open(vectors, "siq.tsv");

	while (tsv_next(t))
	{
		const char *hex = tsv_get(t, "bytes14_hex");
		const char *cb32 = tsv_get(t, "cb32");
		const char *type = tsv_get(t, "type(derived)");
		uint8_t		bytes[SIQ_SIZE];
		char		padded[SIQ_TEXT_LEN + 1],
					did[SIQ_DID_LEN + 1] = {0};
		char		lower_type[32];
		SiqFields	f;
		unsigned	serial,
					value;
		uint64_t	t56_again = 0;
		const char *name;
		bool		pass;

		if (hex_to_bytes(hex, bytes, SIQ_SIZE) != SIQ_SIZE)
		{
			tap_ok(false, "siq %s: bad hex in vector", hex);
			continue;
		}
		/* canonical text: the library's Crockford numeral, zero-padded to 23 */
		snprintf(padded, sizeof(padded), "%*s", SIQ_TEXT_LEN, cb32);
		for (char *p = padded; *p == ' '; p++)
			*p = '0';
		siq_format_did(bytes, did);
		siq_unpack(bytes, &f);
		value = siq_low_kind_value(f.low, &serial);
		name = siq_kind_name(value);
		for (size_t i = 0; i <= strlen(type) && i < sizeof(lower_type); i++)
			lower_type[i] = (char) tolower((unsigned char) type[i]);

		pass = codec_round_trip(&siq_text, bytes, padded) &&
			(cb32[0] == '\0' || parses_to(cb32, bytes)) &&
			parses_to(tsv_get(t, "cb32_0c"), bytes) &&
			parses_to(tsv_get(t, "did"), bytes) &&
			strcmp(did, tsv_get(t, "did")) == 0 &&
			f.t56 == strtoull(tsv_get(t, "ts56"), NULL, 10) &&
			f.shard == strtoul(tsv_get(t, "shard"), NULL, 10) &&
			f.domain == strtoul(tsv_get(t, "domain_hash_hex"), NULL, 16) &&
			f.low == strtoul(tsv_get(t, "low16_hex"), NULL, 16) &&
			siq_kind_width(value) == strtoul(tsv_get(t, "qual_width(derived)"), NULL, 10) &&
			serial == strtoul(tsv_get(t, "serial(derived)"), NULL, 10) &&
			((name == NULL) == (siq_kind_lookup(lower_type, strlen(lower_type)) < 0)) &&
			(name == NULL || strcmp(name, lower_type) == 0) &&
			siq_low_word(value, serial) == f.low &&
		/* time: rounded up to the microsecond, it encodes back to the same tick */
			siq_unix_us_ceil_from_t56(f.t56) == strtoll(tsv_get(t, "unix_us_ceil(derived)"), NULL, 10) &&
			siq_t56_from_unix_us(siq_unix_us_ceil_from_t56(f.t56), &t56_again) && t56_again == f.t56;
		tap_ok(pass, "siq %s (line %d)", hex, t->lineno);
	}
	tsv_close(t);
}

static void
test_domains(void)
{
	Tsv		   *t = tsv_open(vectors, "siq_domains.tsv");

	while (tsv_next(t))
	{
		const char *domain = tsv_get(t, "domain");
		const char *expected = tsv_get(t, "make_domain_hash_hex");
		const char *last4 = tsv_get(t, "last4_hex");
		uint32_t	hash = 0;
		bool		ascii = siq_hash_domain(domain, strlen(domain), &hash);

		if (strcmp(expected, "UnicodeEncodeError") == 0)
		{
			tap_ok(!ascii, "domain \"%s\": not ASCII, refused", domain);
			continue;
		}
		/* the plain hash; local ids are the SQL function's (checked through SQL) */
		if (domain[0] == '\0' || strcmp(domain, "0") == 0)
			tap_ok(ascii && hash == 0, "domain \"%s\" hashes to 0", domain);
		else
			tap_ok(ascii && hash == strtoul(last4, NULL, 16), "domain \"%s\" hashes to %s", domain, last4);
	}
	tsv_close(t);
}

static void
test_input_verdicts(void)
{
	Tsv		   *t = tsv_open(vectors, "siq_invalid_verdicts.tsv");

	while (tsv_next(t))
	{
		bool		accept = strcmp(tsv_get(t, "verdict"), "accept") == 0;

		/* binary input: a siq is exactly 14 bytes */
		tap_ok(verdict_holds(t, "bytes:", SIQ_SIZE, &siq_text, siq_parse),
			   "%s \"%s\": %s", tsv_get(t, "function"), tsv_get(t, "input"),
			   accept ? "accepted, right value" : "rejected");
	}
	tsv_close(t);
}

static void
test_kinds(void)
{
	tap_ok(siq_kind_lookup("USER", 4) >= 0 && siq_kind_lookup("User", 4) == siq_kind_lookup("user", 4),
		   "kind names are case-insensitive");
	tap_ok(siq_kind_lookup("users", 5) < 0 && siq_kind_lookup("", 0) < 0, "unknown kinds are refused");
	tap_ok(siq_kind_serial_max(9) == 8191 && siq_kind_serial_max(22) == 4095 && siq_kind_serial_max(32) == 2047,
		   "serial widths 13, 12 and 11 bits");
	for (int i = 0; i < 18; i++)
	{
		unsigned	value = siq_kinds[i].value,
					serial;
		unsigned	max = siq_kind_serial_max(value);
		bool		ok = true;

		for (unsigned s = 0; s <= max; s += (max / 7))
			ok &= siq_low_kind_value(siq_low_word(value, s), &serial) == value && serial == s;
		tap_ok(ok, "kind %u (%s): low words decode to kind and serial", value,
			   siq_kinds[i].name ? siq_kinds[i].name : "unassigned");
	}
}

/*
 * The monotonic counter rule (counter_advance_monotonic) with a scripted
 * clock: serials reset per tick, an exhausted tick waits for the clock, a
 * clock behind counts on from the last tick (moving to the next one when
 * used up) and never issues a duplicate or goes backwards.
 */
static void
test_monotonic_counter(void)
{
	CounterPool pool = {0, 3};
	uint64_t	word = 0,
				next = 0,
				wait = 0,
				last = 0;
	uint64_t	clock[] = {100, 100, 100, 100, 100, 101, 101, 90, 90, 90, 90, 90, 90, 95, 103};
	int			issued = 0,
				waits = 0;
	bool		increasing = true;

	for (size_t i = 0; i < sizeof(clock) / sizeof(clock[0]); i++)
	{
		if (counter_advance_monotonic(word, clock[i], &pool, &next, &wait) == COUNTER_ISSUE)
		{
			increasing &= issued == 0 || next > last;
			last = word = next;
			issued++;
		}
		else
			waits++;
		if (i == 4)
			tap_ok(waits == 1 && wait == 100 && counter_unit(word) == 100 && counter_seq(word) == 3,
				   "a used-up tick waits for the clock (4 serials issued in tick 100)");
		if (i == 5)
			tap_ok(counter_unit(word) == 101 && counter_seq(word) == 0, "the next tick starts at serial 0");
		if (i == 8)
			tap_ok(counter_unit(word) == 101 && counter_seq(word) == 3,
				   "a clock behind counts on in the last used tick");
		if (i == 9)
			tap_ok(counter_unit(word) == 102 && counter_seq(word) == 0,
				   "a clock behind moves to the next tick when the pool is used up, without waiting");
	}
	tap_ok(increasing && issued == 14 && waits == 1, "14 IDs, strictly increasing, one wait");
	/* tick 103 was borrowed at serial 0 while the clock read 95: reaching it counts on, never repeats */
	tap_ok(counter_unit(word) == 103 && counter_seq(word) == 1,
		   "the clock reaching a borrowed tick counts on in it instead of reissuing serial 0");
}

int
main(int argc, char **argv)
{
	vectors = argc > 1 ? argv[1] : "test/vectors";
	test_vectors();
	test_domains();
	test_input_verdicts();
	test_kinds();
	test_monotonic_counter();
	return tap_done();
}
