/*
 * test_sno.c — the sno format layer against the reference vectors
 *
 * Usage: test_sno VECTOR_DIR.  Prints TAP.
 */
#include <string.h>
#include "tap.h"
#include "../../src/format/sno.h"

static const char *vectors;

static void
test_codec(void)
{
	Tsv		   *t = tsv_open(vectors, "sno_codec.tsv");

	while (tsv_next(t))
	{
		const char *label = tsv_get(t, "label");
		const char *encoded = tsv_get(t, "encoded");
		uint8_t		bytes[SNO_SIZE];
		SnoFields	f;
		bool		pass;

		if (hex_to_bytes(tsv_get(t, "hex"), bytes, SNO_SIZE) != SNO_SIZE)
		{
			tap_ok(false, "codec %s: bad hex in vector", label);
			continue;
		}
		sno_unpack(bytes, &f);
		pass = codec_round_trip(&sno_text, bytes, encoded) &&
			f.units == strtoull(tsv_get(t, "units39"), NULL, 10) &&
			f.ticktock == strtoul(tsv_get(t, "ticktock"), NULL, 10) &&
			f.meta == strtoul(tsv_get(t, "meta"), NULL, 10) &&
			f.partition == strtoul(tsv_get(t, "partition_u16"), NULL, 10) &&
			f.sequence == strtoul(tsv_get(t, "sequence"), NULL, 10) &&
			sno_unix_us_from_units(f.units) / 1000 == strtoll(tsv_get(t, "time_unix_ms"), NULL, 10);
		if (pass)
		{
			uint8_t		repacked[SNO_SIZE];

			sno_pack(&f, repacked);
			pass = memcmp(repacked, bytes, SNO_SIZE) == 0;
		}
		tap_ok(pass, "codec %s (line %d)", label, t->lineno);
	}
	tsv_close(t);
}

static void
test_time(void)
{
	Tsv		   *t = tsv_open(vectors, "sno_time.tsv");

	while (tsv_next(t))
	{
		const char *label = tsv_get(t, "label");
		int64_t		unix_ns = strtoll(tsv_get(t, "input_unix_ns"), NULL, 10);
		int64_t		unix_us = floor_div(unix_ns, 1000);
		bool		in_range = strcmp(tsv_get(t, "in_range"), "yes") == 0;
		uint64_t	units = 0;
		bool		accepted = sno_units_from_unix_us(unix_us, &units);

		if (!in_range)
		{
			tap_ok(!accepted, "time %s: out of range is rejected", label);
			continue;
		}
		if (accepted)
		{
			SnoFields	f = {.units = units};
			uint8_t		bytes[SNO_SIZE];
			char		hex[2 * SNO_SIZE + 1];
			char		text[SNO_TEXT_LEN + 1] = {0};

			sno_pack(&f, bytes);
			bytes_to_hex(bytes, SNO_SIZE, hex);
			flake_encode(&sno_text, bytes, text);
			accepted = units == strtoull(tsv_get(t, "units39"), NULL, 10) &&
				strcmp(hex, tsv_get(t, "id_hex")) == 0 &&
				strcmp(text, tsv_get(t, "encoded")) == 0 &&
				sno_unix_us_from_units(units) * 1000 == strtoll(tsv_get(t, "timestamp_ns"), NULL, 10);
		}
		tap_ok(accepted, "time %s (line %d)", label, t->lineno);
	}
	tsv_close(t);
}

static void
test_invalid(void)
{
	Tsv		   *t = tsv_open(vectors, "sno_invalid.tsv");

	while (tsv_next(t))
	{
		const char *api = tsv_get(t, "api");
		const char *label = tsv_get(t, "label");
		bool		expect_accept = strncmp(tsv_get(t, "strict_reimplementation"), "accept", 6) == 0;
		uint8_t		input[64],
					out[SNO_SIZE];
		int			len = hex_to_bytes(tsv_get(t, "input_hex"), input, sizeof(input));
		bool		accepted;

		if (strcmp(api, "FromEncodedString") == 0 || strcmp(api, "FromEncodedBytes") == 0)
			accepted = flake_decode(&sno_text, (const char *) input, (size_t) len, out);
		else if (strcmp(api, "FromBinaryBytes") == 0)
			accepted = len == SNO_SIZE;	/* every 10-byte string is an ID */
		else
			continue;			/* JSON and database/sql Scan are Go API, not ours */
		tap_ok(len >= 0 && accepted == expect_accept, "invalid %s %s: %s", api, label,
			   expect_accept ? "accepted" : "rejected");
	}
	tsv_close(t);
}

/* --- the generator under a scripted clock -------------------------------- */

#define TRACE_T UINT64_C(78883200000)	/* 2020-01-01T00:00:00Z in sno units */
#define TRACE_PARTITION 0x0102

typedef struct TestGenerator
{
	uint64_t	word;
	SnoTimeline timeline;
	CounterPool pool;
	uint64_t	static_calls;
} TestGenerator;

/*
 * New() as the server runs it: lock-free attempt first, the timeline only
 * when the clock is behind; a WAIT consumes the next scripted clock reading.
 * Returns false if the script runs out before an ID is issued.
 */
static bool
generator_new(TestGenerator *g, const uint64_t *clock, int nreads, int *consumed,
			  unsigned meta, SnoFields *out)
{
	*consumed = 0;
	while (*consumed < nreads)
	{
		uint64_t	now = clock[(*consumed)++];
		SnoDecision d;
		CounterOutcome o = sno_decide(g->word, now, &g->pool, NULL, &d);

		if (o == COUNTER_BEHIND)
		{
			o = sno_decide(g->word, now, &g->pool, &g->timeline, &d);
			if (o == COUNTER_ISSUE)
				g->timeline = d.next_timeline;
		}
		if (o != COUNTER_ISSUE)
			continue;
		g->word = d.next_word;
		out->units = counter_unit(g->word);
		out->ticktock = counter_flag(g->word);
		out->sequence = counter_seq(g->word);
		out->meta = meta;
		out->partition = TRACE_PARTITION;
		return true;
	}
	return false;
}

static int
parse_clock_reads(const char *s, uint64_t *reads)
{
	int			n = 0;

	while (*s == 'T')
	{
		char	   *end;

		reads[n++] = TRACE_T + (uint64_t) strtoll(s + 1, &end, 10);
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

static uint64_t
trace_field(const char *state, const char *key)
{
	const char *p = strstr(state, key);

	if (p == NULL)
		return UINT64_MAX;
	p += strlen(key);
	if (p[0] == 'T')
		return TRACE_T + (uint64_t) strtoll(p + 1, NULL, 10);
	return strtoull(p, NULL, 10);
}

static void
test_generator_trace(void)
{
	Tsv		   *t = tsv_open(vectors, "sno_generator_trace.tsv");
	TestGenerator g = {0};
	char		scenario[64] = "";

	while (tsv_next(t))
	{
		const char *call = tsv_get(t, "call");
		const char *step = tsv_get(t, "step");
		unsigned	meta = (unsigned) strtoul(tsv_get(t, "meta"), NULL, 10);
		uint8_t		bytes[SNO_SIZE];
		char		hex[2 * SNO_SIZE + 1];
		SnoFields	f;

		if (strcmp(scenario, tsv_get(t, "scenario")) != 0)
		{
			/* a fresh generator per scenario, with the pool the trace used */
			snprintf(scenario, sizeof(scenario), "%s", tsv_get(t, "scenario"));
			memset(&g, 0, sizeof(g));
			g.pool = (CounterPool) {0, 65535};
			if (strncmp(scenario, "s2", 2) == 0 || strncmp(scenario, "s5", 2) == 0)
				g.pool = (CounterPool) {0, 5};
			else if (strncmp(scenario, "s3", 2) == 0)
				g.pool = (CounterPool) {10, 15};
		}
		if (strcmp(scenario, "s5_overflow_frozen_clock") == 0 &&
			strstr(tsv_get(t, "note"), "DUPLICATE") != NULL)
			continue;			/* the upstream duplicate: replaced by test_frozen_clock */

		if (strcmp(call, "Snapshot") == 0)
		{
			/* restore into a new generator from the snapshot's fields (spec §5.6) */
			const char *state = tsv_get(t, "generator_state_after");

			memset(&g.timeline, 0, sizeof(g.timeline));
			g.word = counter_word(trace_field(state, "WallHi="),
								  trace_field(state, "Drifts=") & 1,
								  (uint32_t) trace_field(state, "Sequence="));
			g.timeline.wall_safe = trace_field(state, "WallSafe=");
			g.timeline.drifts = trace_field(state, "Drifts=");
			tap_ok(trace_field(state, "WallHi=") != UINT64_MAX, "trace %s step %s: snapshot restored", scenario, step);
			continue;
		}
		if (strncmp(call, "NewWithTime(", 12) == 0)
		{
			uint64_t	units = 0;

			sno_units_from_unix_us(rfc3339_to_unix_us(call + 12), &units);
			f = (SnoFields) {units, 0, meta, TRACE_PARTITION,
			sno_static_sequence(g.static_calls++, &g.pool)};
		}
		else
		{
			uint64_t	reads[16];
			int			nreads = parse_clock_reads(tsv_get(t, "clock_reads"), reads);
			int			consumed;

			if (!generator_new(&g, reads, nreads, &consumed, meta, &f) || consumed != nreads)
			{
				tap_ok(false, "trace %s step %s: issued after exactly %d clock reads", scenario, step, nreads);
				continue;
			}
		}
		sno_pack(&f, bytes);
		bytes_to_hex(bytes, SNO_SIZE, hex);
		if (!tap_ok(strcmp(hex, tsv_get(t, "id_hex")) == 0, "trace %s step %s: %s", scenario, step, call))
			tap_diag("got %s, expected %s", hex, tsv_get(t, "id_hex"));
	}
	tsv_close(t);
}

/*
 * spec §5.4 / trace s5: with the clock frozen in a unit whose pool is used up,
 * upstream reissues a sequence.  Ours must keep waiting, however many frozen
 * readings come, and issue only once the clock reaches the next unit.
 */
static void
test_frozen_clock(void)
{
	TestGenerator g = {.pool = {0, 5}};
	uint64_t	frozen[1000];
	uint64_t	issued[16];
	int			nissued = 0,
				consumed;
	SnoFields	f;
	bool		unique = true;

	for (int i = 0; i < 1000; i++)
		frozen[i] = TRACE_T;
	for (int i = 0; i < 6; i++)
	{
		generator_new(&g, frozen, 1, &consumed, 5, &f);
		issued[nissued++] = f.units << 17 | f.ticktock << 16 | f.sequence;
	}
	tap_ok(!generator_new(&g, frozen, 1000, &consumed, 5, &f),
		   "frozen clock: an exhausted pool issues nothing in 1000 readings of the same unit");
	frozen[0] = TRACE_T + 1;
	tap_ok(generator_new(&g, frozen, 1, &consumed, 5, &f) && f.units == TRACE_T + 1 && f.sequence == 0,
		   "frozen clock: the next unit starts at the pool minimum");
	issued[nissued++] = f.units << 17 | f.ticktock << 16 | f.sequence;
	for (int i = 0; i < nissued; i++)
		for (int j = i + 1; j < nissued; j++)
			unique &= issued[i] != issued[j];
	tap_ok(unique, "frozen clock: no duplicate among %d IDs", nissued);
}

/*
 * Random clock walks with steps back and forth: no (unit, tick-tock,
 * sequence) is ever issued twice, and between regressions IDs increase.
 */
static int
compare_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static void
test_random_clock_walk(void)
{
	enum
	{
		N = 200000
	};
	static uint64_t ids[N];
	TestGenerator g = {.pool = {3, 9}};
	uint64_t	clock = TRACE_T,
				rng = 0x5eed;
	int			n = 0,
				dups = 0,
				regressions = 0;
	SnoFields	f;

	while (n < N)
	{
		uint64_t	reads[64];
		int			consumed;

		/* xorshift: mostly stay or step forward, sometimes jump back up to 20 units */
		for (int i = 0; i < 64; i++)
		{
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			if (rng % 50 == 0)
				clock -= rng % 21;
			else if (rng % 3 == 0)
				clock += 1;
			reads[i] = clock;
		}
		if (generator_new(&g, reads, 64, &consumed, 0, &f))
			ids[n++] = f.units << 17 | f.ticktock << 16 | f.sequence;
	}
	regressions = (int) g.timeline.drifts;
	qsort(ids, N, sizeof(ids[0]), compare_u64);
	for (int i = 1; i < N; i++)
		dups += ids[i] == ids[i - 1];
	tap_ok(dups == 0 && regressions > 100,
		   "random clock walk: %d IDs, %d tick-tock toggles, %d duplicates", N, regressions, dups);
}

/*
 * The server's second decision, under its lock, re-reads the word and the
 * clock: a clock that looked behind may not be any more.  That ISSUE must
 * carry the timeline unchanged (it once carried whatever was on the stack).
 */
static void
test_decide_again_not_behind(void)
{
	CounterPool pool = {0, 65535};
	SnoTimeline timeline = {.wall_safe = TRACE_T - 10, .drifts = 1};
	uint64_t	word = counter_word(TRACE_T, true, 7);
	SnoDecision d;
	CounterOutcome o;

	for (int later = 0; later <= 3; later += 3)
	{
		memset(&d, 0xA5, sizeof(d));
		o = sno_decide(word, TRACE_T + later, &pool, &timeline, &d);
		tap_ok(o == COUNTER_ISSUE && d.next_timeline.wall_safe == timeline.wall_safe &&
			   d.next_timeline.drifts == timeline.drifts,
			   "decided again with the timeline, the clock %s the word's unit: the timeline is kept",
			   later ? "past" : "in");
	}
	o = sno_decide(d.next_word, TRACE_T - 5, &pool, &d.next_timeline, &d);
	tap_ok(o == COUNTER_ISSUE && !counter_flag(d.next_word) && counter_unit(d.next_word) == TRACE_T - 5,
		   "after that, a step back past wall_safe toggles at once");
}

/*
 * A clock behind the word inside the unsafe period waits until it passes
 * wall_safe or reaches the word's unit, whichever comes first.  After a
 * restart the word sits at sno's own mark, which may be well before the
 * bound of the other tick-tock: waiting for that bound would stall sno
 * for the rest of a step back.
 */
static void
test_unsafe_wait_ends_at_word(void)
{
	CounterPool pool = {0, 65535};
	SnoTimeline timeline = {.wall_safe = TRACE_T + 2500, .drifts = 1};
	uint64_t	word = counter_word(TRACE_T + 500, true, COUNTER_SEQ_MASK);
	SnoDecision d = {0};

	tap_ok(sno_decide(word, TRACE_T, &pool, &timeline, &d) == COUNTER_WAIT && d.wait_past == TRACE_T + 499,
		   "behind the word, inside the unsafe period: waits only until the word's unit (%llu units, not %llu)",
		   (unsigned long long) (d.wait_past - TRACE_T + 1), (unsigned long long) (timeline.wall_safe - TRACE_T + 1));
	timeline.wall_safe = TRACE_T + 100;
	tap_ok(sno_decide(word, TRACE_T, &pool, &timeline, &d) == COUNTER_WAIT && d.wait_past == TRACE_T + 100,
		   "with the unsafe period ending first, waits until it ends (then toggles)");
	timeline.wall_safe = TRACE_T + 2500;
	tap_ok(sno_decide(word, TRACE_T + 500, &pool, &timeline, &d) == COUNTER_WAIT && d.wait_past == TRACE_T + 500,
		   "at the word's unit with its pool used up, the same tick-tock goes on in the next unit");
	tap_ok(sno_decide(word, TRACE_T + 501, &pool, &timeline, &d) == COUNTER_ISSUE &&
		   counter_flag(d.next_word) && counter_unit(d.next_word) == TRACE_T + 501 && d.next_timeline.drifts == 1,
		   "past the word's unit, it issues with the same tick-tock and no toggle");
}

/*
 * A scripted counter word and clock for counter_take, as one backend (B)
 * sees them while another (L) runs between two of B's reads.
 */
typedef struct ScriptedSlot
{
	uint64_t	word;
	uint64_t	clock;
	SnoTimeline timeline;
	CounterPool pool;
	int			clock_reads;
	int			step_after_read;	/* L runs right after this clock read of B's (1-based) */
	uint64_t	step_back;
	uint64_t	l_issued;
} ScriptedSlot;

static uint64_t
scripted_load(void *arg)
{
	return ((ScriptedSlot *) arg)->word;
}

/*
 * B reads the clock; then, before B goes on, the clock steps back and L
 * (under the lock) finds it behind and toggles the tick-tock.
 */
static uint64_t
scripted_clock(void *arg)
{
	ScriptedSlot *slot = (ScriptedSlot *) arg;
	uint64_t	now = slot->clock;

	if (++slot->clock_reads == slot->step_after_read)
	{
		SnoDecision d;

		slot->clock -= slot->step_back;
		if (sno_decide(slot->word, slot->clock, &slot->pool, &slot->timeline, &d) == COUNTER_ISSUE)
		{
			slot->word = slot->l_issued = d.next_word;
			slot->timeline = d.next_timeline;
		}
	}
	return now;
}

static bool
scripted_exchange(void *arg, uint64_t *word, uint64_t next)
{
	ScriptedSlot *slot = (ScriptedSlot *) arg;

	if (slot->word != *word)
	{
		*word = slot->word;
		return false;
	}
	slot->word = next;
	return true;
}

/*
 * The interleaving a review reproduced with threads (issue 17): B reads the
 * clock at unit U and is descheduled; the clock steps back D units; L
 * toggles the tick-tock at U - D, leaving wall_safe at U.  Had B read the
 * clock before the word, it would now issue (U, toggled tick-tock), and
 * every later caller, its clock inside (U - D, U], would wait about D.
 * counter_take reads the word first, so B's first decision is on the old
 * word and loses the exchange, and it decides again with the clock stepped
 * back: the first step back goes on without waiting, as the README says.
 */
static void
test_step_back_interleaving(void)
{
	const uint64_t U = TRACE_T,
				D = 250;		/* 1 s of 4 ms units */
	ScriptedSlot slot = {
		.word = counter_word(U, false, 5), .clock = U,
		.timeline = {.wall_safe = U - 1000, .drifts = 0}, .pool = {0, 65535},
		.step_after_read = 1, .step_back = D,
	};
	CounterAccess access = {scripted_load, scripted_clock, scripted_exchange, &slot};
	CounterTaken b = {0},
				c = {0};
	CounterOutcome outcome;
	SnoDecision d;

	outcome = counter_take(&access, counter_advance, &slot.pool, &b);
	tap_ok(slot.l_issued == counter_word(U - D, true, 0),
		   "interleaving: L toggled the tick-tock at U - D while B was between its reads");
	tap_ok(outcome == COUNTER_ISSUE && counter_unit(b.next_word) == U - D &&
		   counter_flag(b.next_word) && b.next_word != slot.l_issued,
		   "B, descheduled across the step, issues in L's unit and tick-tock, not (U, toggled)");

	/* a later caller, its clock one unit on from the step */
	slot.clock = U - D + 1;
	outcome = counter_take(&access, counter_advance, &slot.pool, &c);
	if (outcome == COUNTER_BEHIND)
	{
		outcome = sno_decide(slot.word, c.now, &slot.pool, &slot.timeline, &d);
		c.next_word = d.next_word;
	}
	tap_ok(outcome == COUNTER_ISSUE && counter_unit(c.next_word) == U - D + 1,
		   "the next caller issues at once (outcome %d, not a wait of about %d units)", (int) outcome, (int) D);
}

/* the monotonic rule cannot move past the last unit the word holds: it ends, never wraps */
static void
test_monotonic_end(void)
{
	CounterPool pool = {0, 3};
	uint64_t	next = 0,
				wait = 0;

	tap_ok(counter_advance_monotonic(counter_word(COUNTER_MAX_UNIT, false, 3), 5, &pool, &next, &wait) == COUNTER_END,
		   "monotonic: a used-up pool in the last unit is END, not unit 0");
	tap_ok(counter_advance_monotonic(counter_word(COUNTER_MAX_UNIT - 1, false, 3), 5, &pool, &next, &wait) == COUNTER_ISSUE &&
		   next == counter_word(COUNTER_MAX_UNIT, false, 0),
		   "monotonic: the unit before the last still moves on to the last");
}

static void
test_pool_rules(void)
{
	tap_ok(sno_pool_is_valid(0, 65535), "pool 0..65535 is valid");
	tap_ok(sno_pool_is_valid(0, 3), "pool of 4 values is valid (README, not upstream's 6)");
	tap_ok(!sno_pool_is_valid(0, 2), "pool of 3 values is rejected");
	tap_ok(!sno_pool_is_valid(10, 5), "min > max is rejected");
	tap_ok(!sno_pool_is_valid(7, 7), "identical bounds are rejected");
	tap_ok(sno_pool_is_valid(65532, 65535), "pool at the top of the range");
}

int
main(int argc, char **argv)
{
	vectors = argc > 1 ? argv[1] : "test/vectors";
	test_codec();
	test_time();
	test_invalid();
	test_generator_trace();
	test_frozen_clock();
	test_random_clock_walk();
	test_decide_again_not_behind();
	test_unsafe_wait_ends_at_word();
	test_step_back_interleaving();
	test_monotonic_end();
	test_pool_rules();
	return tap_done();
}
