/*
 * test_kuid.c — the kuid/kuid96 format layer against the Erlang library's
 * vectors (uid.tsv at interval 8, uid_node_hash.tsv), our input verdicts,
 * and the linear tick count the generator advances.
 *
 * Usage: test_kuid VECTOR_DIR.  Prints TAP.
 */
#include "tap.h"
#include "../../src/rules/counter.h"
#include "../../src/format/kuid.h"

static const char *vectors;

static unsigned long long
column(Tsv *t, const char *name)
{
	return strtoull(tsv_get(t, name), NULL, 10);
}

static bool
same_fields(const KuidFields *a, const KuidFields *b)
{
	return a->mega == b->mega && a->sec == b->sec && a->tick == b->tick && a->seq == b->seq;
}

/* the fields a uid.tsv row's decoded term holds */
static KuidFields
row_fields(Tsv *t)
{
	return (KuidFields) {
		.mega = (uint32_t) column(t, "mega"),
		.sec = (uint32_t) column(t, "sec"),
		.tick = (unsigned) (column(t, "micro") >> 10),
		.seq = (unsigned) column(t, "seq"),
	};
}

/*
 * Every local row and every interval-8 global row: text both ways, the
 * fields and node of the decoded term, repacking, the time formula, and —
 * for times a clock can give — the fields from the time.
 */
static void
test_vectors(void)
{
	Tsv		   *t = tsv_open(vectors, "uid.tsv");
	int			rows = 0;

	while (tsv_next(t))
	{
		bool		local = strcmp(tsv_get(t, "kind"), "local") == 0;
		const char *hex = tsv_get(t, "hex");
		const FlakeTextLayout *layout = local ? &kuid_text : &kuid96_text;
		int			width = local ? KUID_SIZE : KUID96_SIZE;
		uint8_t		bytes[KUID96_SIZE],
					again[KUID96_SIZE];
		KuidFields	f,
					expected,
					from_time;
		uint32_t	node = 0;
		int64_t		time_us = strtoll(tsv_get(t, "time_us"), NULL, 10);
		bool		pass;

		if (!local && strcmp(tsv_get(t, "drift"), "8") != 0)
			continue;			/* another interval: not our format */
		rows++;
		if (hex_to_bytes(hex, bytes, width) != width)
		{
			tap_ok(false, "uid %s: bad hex in vector (line %d)", hex, t->lineno);
			continue;
		}
		expected = row_fields(t);
		if (local)
		{
			kuid_unpack(bytes, &f);
			kuid_pack(&f, again);
		}
		else
		{
			kuid96_unpack(bytes, &f, &node);
			kuid96_pack(&f, node, again);
		}
		pass = codec_round_trip(layout, bytes, tsv_get(t, "b64")) &&
			same_fields(&f, &expected) &&
			column(t, "micro") % KUID_TICK_US == 0 &&
			(local || node == strtoul(tsv_get(t, "node_hex"), NULL, 16)) &&
			memcmp(again, bytes, width) == 0 &&
			kuid_unix_us_from_fields(&f) == time_us;
		if (pass && f.sec < 1000000 && f.tick < KUID_TICKS_PER_SEC)
		{
			/* a time the clock can give floors back to exactly these fields */
			pass = kuid_fields_from_unix_us(time_us, &from_time) &&
				(from_time.seq = f.seq, same_fields(&from_time, &f)) &&
				kuid_fields_from_unix_us(time_us + KUID_TICK_US - 1 - (f.tick == 976 ? 448 : 0), &from_time) &&
				from_time.tick == f.tick && from_time.sec == f.sec;
		}
		tap_ok(pass, "uid %s %s (line %d)", tsv_get(t, "kind"), hex, t->lineno);
	}
	tap_ok(rows > 0, "uid.tsv: %d local and interval-8 rows checked", rows);
	tsv_close(t);
}

/*
 * Every global row at its own interval (kuid96_encode/decode): the bytes
 * unpack to the row's fields and node and pack back, and an interval-8
 * value re-encoded at the row's interval gives the row's bytes.  At I = 8
 * the bit-wise path agrees with the type's byte-aligned one.
 */
static void
test_intervals(void)
{
	Tsv		   *t = tsv_open(vectors, "uid.tsv");
	int			rows = 0;

	while (tsv_next(t))
	{
		const char *drift = tsv_get(t, "drift");
		int			interval = atoi(drift);
		uint8_t		bytes[KUID96_SIZE],
					own[KUID96_SIZE],
					again[KUID96_SIZE];
		KuidFields	f,
					g,
					expected;
		uint32_t	node,
					node8;
		bool		pass;

		if (strcmp(tsv_get(t, "kind"), "global") != 0)
			continue;
		rows++;
		if (hex_to_bytes(tsv_get(t, "hex"), bytes, KUID96_SIZE) != KUID96_SIZE ||
			interval < KUID_INTERVAL_MIN || interval > KUID_INTERVAL_MAX)
		{
			tap_ok(false, "uid interval %s: bad row (line %d)", drift, t->lineno);
			continue;
		}
		expected = row_fields(t);
		kuid96_unpack_interval(bytes, interval, &f, &node);
		kuid96_pack(&f, node, own);	/* the type's own form */
		kuid96_unpack(own, &g, &node8);
		kuid96_pack_interval(&g, node8, interval, again);
		pass = same_fields(&f, &expected) &&
			node == strtoul(tsv_get(t, "node_hex"), NULL, 16) &&
			same_fields(&g, &f) && node8 == node &&
			memcmp(again, bytes, KUID96_SIZE) == 0;
		if (interval == KUID_INTERVAL)
			pass = pass && memcmp(own, bytes, KUID96_SIZE) == 0;
		tap_ok(pass, "uid global at interval %d: %s (line %d)", interval, tsv_get(t, "hex"), t->lineno);
	}
	tap_ok(rows > 0, "uid.tsv: %d global rows checked at their own intervals", rows);
	tsv_close(t);
}

static void
test_node_hash(void)
{
	Tsv		   *t = tsv_open(vectors, "uid_node_hash.tsv");

	while (tsv_next(t))
	{
		uint8_t		name[1024];
		int			len = hex_to_bytes(tsv_get(t, "atom_utf8_hex"), name, sizeof(name));
		uint32_t	hash = kuid_node_fingerprint((const char *) name, (size_t) len);

		tap_ok(len >= 0 && hash == strtoul(tsv_get(t, "phash2_u32"), NULL, 10) &&
			   hash == strtoul(tsv_get(t, "node_hex"), NULL, 16),
			   "phash2 of atom %s = %s (line %d)", tsv_get(t, "atom_utf8_hex"), tsv_get(t, "phash2_u32"), t->lineno);
	}
	tsv_close(t);
}

static void
test_input_verdicts(void)
{
	Tsv		   *t = tsv_open(vectors, "uid_invalid_verdicts.tsv");

	while (tsv_next(t))
	{
		bool		local = strcmp(tsv_get(t, "type"), "kuid") == 0;
		bool		accept = strcmp(tsv_get(t, "verdict"), "accept") == 0;

		tap_ok(verdict_holds(t, "", local ? KUID_SIZE : KUID96_SIZE, local ? &kuid_text : &kuid96_text, NULL),
			   "%s \"%s\" as %s: %s", tsv_get(t, "function"), tsv_get(t, "input"), tsv_get(t, "type"),
			   accept ? "accepted, right value" : "rejected");
	}
	tsv_close(t);
}

/* The generator's linear tick count: dense, ordered like the IDs, and reversible. */
static void
test_units(void)
{
	KuidFields	f = {.mega = 1700, .sec = 999999, .tick = 976},
				g;
	uint64_t	unit = kuid_unit_from_fields(&f);
	bool		ok = true;
	uint8_t		prev[KUID_SIZE] = {0},
				cur[KUID_SIZE];

	kuid_fields_from_unit(unit + 1, &g);
	tap_ok(g.mega == 1701 && g.sec == 0 && g.tick == 0,
		   "the unit after tick 976 of the last second of a megasecond is tick 0 of the next megasecond");
	/* a walk over 3 seconds of units: each maps back, packs in increasing order */
	for (uint64_t u = unit - 2000; u < unit + 1000; u++)
	{
		kuid_fields_from_unit(u, &g);
		kuid_pack(&g, cur);
		ok &= kuid_unit_from_fields(&g) == u && g.tick < KUID_TICKS_PER_SEC && memcmp(prev, cur, KUID_SIZE) < 0;
		memcpy(prev, cur, KUID_SIZE);
	}
	tap_ok(ok, "3000 consecutive units map back and pack in strictly increasing order");

	/* the last microsecond of a second is in tick 976; the range ends at 2^20 megaseconds */
	tap_ok(kuid_fields_from_unix_us(INT64_C(1700000000999999), &g) && g.tick == 976 && g.sec == 0 && g.mega == 1700,
		   "999999 us into a second is tick 976");
	tap_ok(!kuid_fields_from_unix_us(-1, &g), "times before 1970 are outside the range");
	tap_ok(kuid_fields_from_unix_us(INT64_C(1048575999999999999), &g) && g.mega == 1048575 &&
		   !kuid_fields_from_unix_us(INT64_C(1048576000000000000), &g),
		   "the range ends at 2^20 megaseconds");
}

/*
 * The shared generator state with kuid's pool (0..16383 per tick): with a
 * scripted clock, sequences reset per tick, an exhausted tick waits, and
 * a clock behind counts on; every ID packs into a strictly larger kuid.
 */
static void
test_generator(void)
{
	CounterPool pool = {0, KUID_SEQ_MAX};
	KuidFields	f = {.mega = 1700, .sec = 999999, .tick = 975};
	uint64_t	base = kuid_unit_from_fields(&f);
	uint64_t	word = 0,
				next = 0,
				wait = 0;
	uint8_t		prev[KUID_SIZE] = {0},
				cur[KUID_SIZE];
	int			issued = 0,
				waits = 0;
	bool		increasing = true,
				resets = true;

	/*
	 * The clock sits in tick 975 for 24000 calls (1.5 pools), in tick 976 for
	 * 26000 more, then a second behind for one more pool.
	 */
	for (int i = 0; i < 50000 + KUID_SEQ_MAX + 1; i++)
	{
		uint64_t	now = i < 24000 ? base : i < 50000 ? base + 1 : base - KUID_TICKS_PER_SEC;

		if (counter_advance_monotonic(word, now, &pool, &next, &wait) != COUNTER_ISSUE)
		{
			waits++;
			continue;
		}
		resets &= counter_unit(next) == counter_unit(word) || counter_seq(next) == 0;
		word = next;
		kuid_fields_from_unit(counter_unit(word), &f);
		f.seq = counter_seq(word);
		kuid_pack(&f, cur);
		increasing &= memcmp(prev, cur, KUID_SIZE) < 0;
		memcpy(prev, cur, KUID_SIZE);
		issued++;
	}
	tap_ok(waits == (24000 - (KUID_SEQ_MAX + 1)) + (26000 - (KUID_SEQ_MAX + 1)),
		   "an exhausted tick waits (%d waits) instead of wrapping", waits);
	tap_ok(increasing && resets, "%d IDs strictly increasing; the sequence restarts at 0 in every new tick", issued);
	kuid_fields_from_unit(counter_unit(word), &f);
	tap_ok(f.mega == 1701 && f.sec == 0 && f.tick == 0 && counter_seq(word) == KUID_SEQ_MAX,
		   "a clock a second behind moves on past tick 976 into the next second, not back");
}

/* flakeid.kuid_node's check: OTP's node name syntax, name@host */
static void
test_node_names(void)
{
	static const struct
	{
		const char *name;
		bool		valid;
	}			cases[] = {
		{"pg@db1", true}, {"nonode@nohost", true}, {"a_b-C9@h", true}, {"pg@h\xC3\xB4te", true},
		{"pg@a@b", true}, {"nohost", false}, {"@host", false}, {"name@", false}, {"", false},
		{"na me@host", false}, {"na\xC3\xAFve@host", false}, {"pg@ho st", false},
		{"pg@\xE6\x97\xA5", false}, {"pg@h\xC3", false}, {"pg@h\xC4\x80", false},
	};
	int			wrong = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (kuid_node_name_valid(cases[i].name) != cases[i].valid)
		{
			wrong++;
			tap_diag("kuid_node_name_valid(\"%s\") is not %d", cases[i].name, cases[i].valid);
		}
	tap_ok(wrong == 0, "node names: %zu of OTP's syntax and not, each judged by that syntax (%d wrong)",
		   sizeof(cases) / sizeof(cases[0]), wrong);
}

/*
 * advance_past's bound, over random IDs of every bit pattern (seconds and
 * ticks no clock gives among them) and nodes below, equal to and above this
 * server's: the first unit after the bound packs after the ID whatever its
 * sequence, and the bound itself, when the ID is one a clock could give,
 * packs at or before it with sequence 0 (the bound is not further than it
 * must be).
 */
static void
test_advance_bound(void)
{
	int			after_wrong = 0,
				tight_wrong = 0,
				checked = 0;

	tap_random_state = 4949;
	for (int i = 0; i < 200000; i++)
	{
		KuidFields	id = {.mega = (uint32_t) (tap_random() % 4) + 1700,
			.sec = (uint32_t) (tap_random() % 8 == 0 ? tap_random() % (KUID_FIELD_MAX + 1) : tap_random() % 1000000),
			.tick = (unsigned) (tap_random() % 8 == 0 ? tap_random() % (KUID_TICK_MAX + 1) : tap_random() % KUID_TICKS_PER_SEC),
		.seq = (unsigned) (tap_random() % (KUID_SEQ_MAX + 1))};
		uint32_t	own = 1000 + (uint32_t) (tap_random() % 3);
		uint32_t	node = 1001;
		bool		wide = i % 2 == 1;
		uint64_t	bound = wide ? kuid96_unit_bound(&id, node, own) : kuid_unit_bound(&id);
		KuidFields	next;
		uint8_t		a[KUID96_SIZE],
					b[KUID96_SIZE];
		int			width = wide ? KUID96_SIZE : KUID_SIZE;

		kuid_fields_from_unit(bound + 1, &next);
		next.seq = 0;
		if (wide)
		{
			kuid96_pack(&id, node, a);
			kuid96_pack(&next, own, b);
		}
		else
		{
			kuid_pack(&id, a);
			kuid_pack(&next, b);
		}
		after_wrong += memcmp(b, a, width) <= 0;
		if (id.sec < 1000000 && id.tick < KUID_TICKS_PER_SEC)
		{
			KuidFields	at;

			kuid_fields_from_unit(bound, &at);
			at.seq = 0;
			if (wide)
				kuid96_pack(&at, own, b);
			else
				kuid_pack(&at, b);
			tight_wrong += memcmp(b, a, width) > 0;
			checked++;
		}
	}
	tap_ok(after_wrong == 0, "advance_past's bound: for 200000 random kuid and kuid96 IDs the next unit's first ID sorts after the ID (%d wrong)", after_wrong);
	tap_ok(tight_wrong == 0 && checked > 100000, "advance_past's bound: for the %d a clock could give, the bound's own first ID does not (%d wrong)", checked, tight_wrong);
}

int
main(int argc, char **argv)
{
	vectors = argc > 1 ? argv[1] : "test/vectors";
	test_vectors();
	test_intervals();
	test_node_hash();
	test_input_verdicts();
	test_units();
	test_generator();
	test_node_names();
	test_advance_bound();
	return tap_done();
}
