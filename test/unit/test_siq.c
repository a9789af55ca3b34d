/*
 * test_siq.c — the siq format layer against the reference vectors, and the
 * monotonic counter rule its generator uses
 *
 * Usage: test_siq VECTOR_DIR.  Prints TAP.
 */
#include <ctype.h>

#include "tap.h"
#include "../../src/rules/counter.h"
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

/* Every form of every siq.tsv row, both ways: siq_format_form writes the column, siq_parse_form reads it back. */
static void
test_forms(void)
{
	static const char *const columns[SIQ_FORM_COUNT] = {
		[SIQ_FORM_DEC] = "dec", [SIQ_FORM_HEX] = "hex", [SIQ_FORM_OCT] = "oct",
		[SIQ_FORM_BASE64] = "base64", [SIQ_FORM_CB32] = "cb32", [SIQ_FORM_0C] = "cb32_0c",
		[SIQ_FORM_B32L] = "b32l", [SIQ_FORM_U] = "u", [SIQ_FORM_DID] = "did",
	};
	Tsv		   *t = tsv_open(vectors, "siq.tsv");

	while (tsv_next(t))
	{
		uint8_t		bytes[SIQ_SIZE],
					parsed[SIQ_SIZE];
		bool		pass = hex_to_bytes(tsv_get(t, "bytes14_hex"), bytes, SIQ_SIZE) == SIQ_SIZE;

		for (int f = 0; f < SIQ_FORM_COUNT && pass; f++)
		{
			const char *expected = tsv_get(t, columns[f]);
			char		text[SIQ_FORM_MAX_LEN];
			size_t		len = siq_format_form(bytes, (SiqForm) f, text);

			pass = len == strlen(expected) && memcmp(text, expected, len) == 0 &&
				siq_parse_form(expected, len, (SiqForm) f, parsed) && memcmp(parsed, bytes, SIQ_SIZE) == 0;
			if (!pass)
				tap_diag("form %s: wrote \"%.*s\", expected \"%s\"", siq_form_names[f], (int) len, text, expected);
		}
		tap_ok(pass, "siq forms of %s (line %d)", tsv_get(t, "bytes14_hex"), t->lineno);
	}
	tsv_close(t);
}

/* What siq_parse_form refuses: every shape the forms do not write. */
static void
test_form_refusals(void)
{
	static const struct
	{
		SiqForm		form;
		const char *text;
		bool		accept;
	}			cases[] = {
		{SIQ_FORM_DEC, "0", true}, {SIQ_FORM_DEC, "", false}, {SIQ_FORM_DEC, "007", false},
		{SIQ_FORM_DEC, "+5", false}, {SIQ_FORM_DEC, "-1", false}, {SIQ_FORM_DEC, " 42", false},
		{SIQ_FORM_DEC, "1_000", false},
		{SIQ_FORM_DEC, "5192296858534827628530496329220095", true},
		{SIQ_FORM_DEC, "5192296858534827628530496329220096", false},	/* 2^112 */
		{SIQ_FORM_DEC, "99999999999999999999999999999999999", false},
		{SIQ_FORM_HEX, "0", true}, {SIQ_FORM_HEX, "5E0BD2F0000000000000000007", true},
		{SIQ_FORM_HEX, "05e", false}, {SIQ_FORM_HEX, "0x5e", false}, {SIQ_FORM_HEX, "", false},
		{SIQ_FORM_HEX, "10000000000000000000000000000", false},	/* 29 digits */
		{SIQ_FORM_OCT, "17777777777777777777777777777777777777", true},
		{SIQ_FORM_OCT, "37777777777777777777777777777777777777", false},	/* past 112 bits */
		{SIQ_FORM_OCT, "8", false},
		{SIQ_FORM_BASE64, "AABeC9LwAAAAAAAAAAAH", true}, {SIQ_FORM_BASE64, "aabeC9LwAAAAAAAAAAAH", false},
		{SIQ_FORM_BASE64, "AQAAAAAAAAAAAAAAAAAA", false},	/* 2^112: the leading byte is not zero */
		{SIQ_FORM_BASE64, "AABeC9LwAAAAAAAAAAAH=", false}, {SIQ_FORM_BASE64, "AABeC9LwAAAAAAAAAA+H", false},
		{SIQ_FORM_CB32, "", true}, {SIQ_FORM_CB32, "0", false}, {SIQ_FORM_CB32, "5w2yjy000000000000007", true},
		{SIQ_FORM_CB32, "O5W2YJY000000000000007", false}, {SIQ_FORM_CB32, "40000000000000000000000", false},
		{SIQ_FORM_CB32, "U", false},
		{SIQ_FORM_0C, "0", true}, {SIQ_FORM_0C, "", false}, {SIQ_FORM_0C, "00", false}, {SIQ_FORM_0C, "5", false},
		{SIQ_FORM_B32L, "aaaf4c6s6aaaaaaaaaaaaaah", true}, {SIQ_FORM_B32L, "AAAF4C6S6AAAAAAAAAAAAAAH", true},
		{SIQ_FORM_B32L, "eaaaaaaaaaaaaaaaaaaaaaaa", false}, {SIQ_FORM_B32L, "aaaf4c6s6aaaaaaaaaaaaaa", false},
		{SIQ_FORM_U, "iuxvojaaf4c6s6aaaaaaaaaaaaaah", true}, {SIQ_FORM_U, "iuxvojaaf4c6s6aaaaaaaaaaaaaab", false},
		{SIQ_FORM_U, "did:siq:iuxvojaaf4c6s6aaaaaaaaaaaaaah", false},
		{SIQ_FORM_DID, "did:siq:iuxvojaaf4c6s6aaaaaaaaaaaaaah", true},
		{SIQ_FORM_DID, "iuxvojaaf4c6s6aaaaaaaaaaaaaah", false},
		{SIQ_FORM_DID, "DID:SIQ:iuxvojaaf4c6s6aaaaaaaaaaaaaah", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		uint8_t		out[SIQ_SIZE];
		bool		got = siq_parse_form(cases[i].text, strlen(cases[i].text), cases[i].form, out);

		tap_ok(got == cases[i].accept, "siq_parse_form(\"%s\", %s) %s", cases[i].text,
			   siq_form_names[cases[i].form], cases[i].accept ? "accepts" : "refuses");
	}
	tap_ok(siq_form_lookup("did", 3) == SIQ_FORM_DID && siq_form_lookup("DID", 3) < 0 &&
		   siq_form_lookup("x", 1) < 0, "form names: exact and lowercase");
}

/* Every millisecond-epoch row of snowflake_to_siq.tsv (the seconds rows are the library's unit bug). */
static void
test_from_snowflake(void)
{
	Tsv		   *t = tsv_open(vectors, "snowflake_to_siq.tsv");
	int			rows = 0;

	while (tsv_next(t))
	{
		char		lower[32];
		const char *type = tsv_get(t, "target_type");
		uint8_t		expected[SIQ_SIZE],
					got[SIQ_SIZE];
		uint32_t	domain;
		SiqFields	f;
		int			kind;
		bool		pass;

		if (strncmp(tsv_get(t, "epoch_unit"), "milliseconds", 12) != 0)
			continue;
		rows++;
		for (size_t i = 0; i <= strlen(type) && i < sizeof(lower); i++)
			lower[i] = (char) tolower((unsigned char) type[i]);
		kind = siq_kind_lookup(lower, strlen(lower));
		pass = kind >= 0 && hex_to_bytes(tsv_get(t, "siq_hex28") + 0, expected, SIQ_SIZE) == SIQ_SIZE &&
			siq_hash_domain(tsv_get(t, "domain"), strlen(tsv_get(t, "domain")), &domain) &&
			siq_from_snowflake_fields(strtoull(tsv_get(t, "snowflake"), NULL, 10),
							   strtoll(tsv_get(t, "epoch_arg"), NULL, 10) * 1000, domain,
							   siq_kinds[kind].value, &f);
		if (pass)
		{
			siq_pack(&f, got);
			pass = memcmp(got, expected, SIQ_SIZE) == 0 && f.t56 == strtoull(tsv_get(t, "siq_ts56"), NULL, 10);
		}
		tap_ok(pass, "siq_from_snowflake %s %s (line %d)", tsv_get(t, "snowflake"), type, t->lineno);
	}
	tap_ok(rows > 0, "snowflake_to_siq.tsv: %d millisecond-epoch rows", rows);
	tsv_close(t);
}

int
main(int argc, char **argv)
{
	vectors = argc > 1 ? argv[1] : "test/vectors";
	test_vectors();
	test_forms();
	test_form_refusals();
	test_from_snowflake();
	test_domains();
	test_input_verdicts();
	test_kinds();
	test_monotonic_counter();
	return tap_done();
}
