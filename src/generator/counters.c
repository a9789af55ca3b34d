/*
 * counters.c — the counter words in shared memory, and resuming them
 *
 * Restarts: every issued ID lies before the saved mark (marks.c).  At start
 * each counter resumes in the unit holding the mark with its sequence used
 * up, so nothing issued before a stop or a crash can be issued again.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/wait_event.h"

#include "base/clock.h"
#include "base/shmem.h"
#include "base/table.h"
#include "durable/issued_ahead.h"
#include "generator/counters.h"

CounterShared *counter_shared = NULL;

StaticAssertDecl(sizeof(CounterSlot) % PG_CACHE_LINE_SIZE == 0, "counter slots fill whole cache lines");

static void
counters_shared_init(void *part)
{
	CounterShared *shared = (CounterShared *) part;

	for (int s = 0; s < GEN_SLOT_COUNT; s++)
	{
		pg_atomic_init_u64(&shared->slots[s].word.value, 0);
		pg_atomic_init_u64(&shared->slots[s].resumed_word.value, 0);
		pg_atomic_init_u64(&shared->slots[s].closed_word.value, 0);
		pg_atomic_init_u64(&shared->slots[s].closed_replaced.value, 0);
		pg_atomic_init_u64(&shared->slots[s].closings.value, 0);
	}
	pg_atomic_init_u64(&shared->sno_wall_safe.value, 0);
	pg_atomic_init_u64(&shared->sno_floor.value, 0);
}

void
counters_init(void)
{
	shmem_request_part(&(ShmemPart) {.name = "flakeid counters", .size = sizeof(CounterShared), .address = (void **) &counter_shared, .init = counters_shared_init});
}

/*
 * Each counter whose last used unit is below the one holding its
 * generator's own mark (never another generator's: defs.h, MarkId) moves
 * to that unit with its sequence used up, so its next ID is in a
 * later unit than anything issued before the mark (a clock behind counts
 * on from there, or for sno follows its timeline).  Counters never move
 * down.
 */
static void
resume_monotonic(const int64 marks[MARK_COUNT])
{
	for (int g = 0; g < GEN_COUNT; g++)
	{
		const GeneratorDef *def = &generator_defs[g];
		uint64		unit;

		if (def->ticktock || (unit = mark_unit(def->format, marks[def->mark])) == 0)
			continue;
		for (int v = 0; v < def->variants; v++)
		{
			pg_atomic_uint64 *counter = slot_word(def->first_slot + v);
			uint64		word = pg_atomic_read_u64(counter);

			while (counter_unit(word) < unit)
				if (pg_atomic_compare_exchange_u64(counter, &word, counter_word(unit, false, COUNTER_SEQ_MASK)))
					break;
		}
	}
}

/*
 * Unless sno's counter already lies in the unit of its tick-tock's mark or
 * later, moves it to the unit of the mark of `flag` (its pool used up).
 * Returns the tick-tock the counter carries afterwards.  The other value
 * may be taken up again only after its mark (docs/spec/sno.md §5.1).
 */
static bool
resume_sno(const int64 sno_marks[2], bool flag)
{
	const GeneratorDef *def = &generator_defs[GEN_SNO];
	pg_atomic_uint64 *counter = slot_word(def->first_slot);
	uint64		word = pg_atomic_read_u64(counter);
	uint64		resume = counter_word(mark_unit(def->format, sno_marks[flag]), flag, COUNTER_SEQ_MASK);
	SnoTimeline timeline = counter_shared->sno_timeline;

	/*
	 * A counter at or above the mark of its own tick-tock keeps it (the other
	 * value's mark bounds the timeline); a failed exchange returns the word
	 * another backend published, judged the same way.
	 */
	for (;;)
	{
		if (counter_unit(word) >= mark_unit(def->format, sno_marks[counter_flag(word)]))
		{
			flag = counter_flag(word);
			break;
		}
		if (pg_atomic_compare_exchange_u64(counter, &word, resume))
			break;
	}
	timeline.wall_safe = Max(timeline.wall_safe, mark_unit(def->format, sno_marks[flag ? 0 : 1]));
	if ((timeline.drifts & 1) != (flag ? 1 : 0))
		timeline.drifts++;
	sno_timeline_publish(&timeline);
	return flag;
}

/*
 * The units from the clock's to the mark, of every counter, for this
 * lifetime (issued_ahead.h; sno: for the marks of tick-tock 0, back-fill's, and of
 * `flag`, the one it resumes with; the other's may be no more than a
 * reserve, renewed ahead of the clock with nothing issued under it): the
 * earlier lifetime, or the primary before a promotion, may have issued in
 * them at its own clock, ahead of this server's, and the counter resumes at
 * the mark (units it issued in ahead of its clock are in the saved runs,
 * taken up before this; a file of flakeid 1.3 has none).  With the clock past the mark, the mark's own unit: the
 * counter resumes there with its pool taken as used up, and the earlier
 * lifetime's IDs in it are not counted either (1.4's third round of fresh
 * eyes: back-fill there was refused as "every sequence of its pool was
 * issued", 54000, after a restart that followed 40,000 of 65,536).  A clock
 * outside the format's range counts as its first unit.
 */
static void
record_resumed_ahead(const int64 marks[MARK_COUNT], bool flag)
{
	for (int g = 0; g < GEN_COUNT; g++)
	{
		const GeneratorDef *def = &generator_defs[g];
		uint64		now = 0;

		(void) def->format->units_at(clock_read(def), &now);
		for (int f = 0; f < 2; f++)
		{
			uint64		mark = mark_unit(def->format, marks[mark_of(def, counter_word(0, f == 1 && flag, 0))]);

			if (mark == 0)
				continue;		/* nothing was issued */
			for (int v = 0; v < def->variants; v++)
				ahead_record_resumed(def->first_slot + v, Min(now, mark), mark);
		}
	}
}

/*
 * Also raises sno's floor to its marks: a horizon given before the restart
 * (or on the primary, before a promotion) lies at or below them while sno
 * issues (each issue renews its mark past it), and the floor is the only
 * thing that keeps sno's tick-tock from toggling below a horizon; shared
 * memory forgot it.  A fault campaign found it (seeds 3003 and 3037): after
 * a clock step back and a restart, sno toggled to the clock, below the
 * cursors of pollers that had read a horizon before, and 2,867 committed
 * rows were never delivered.  So after a restart sno counts on from its
 * mark until the clock reaches it, as the other generators do.
 */
bool
counters_resume(const int64 marks[MARK_COUNT], bool flag)
{
	const FlakeFormat *sno = generator_defs[GEN_SNO].format;
	uint64		sno_mark0 = mark_unit(sno, marks[MARK_SNO_FLAG0]);
	uint64		sno_mark1 = mark_unit(sno, marks[MARK_SNO_FLAG1]);

	/* (before the counters move: back-fill that sees them moved sees the record) */
	record_resumed_ahead(marks, flag);
	pg_memory_barrier();
	resume_monotonic(marks);
	/* (+1: a horizon given at C closed the counter through C - 1, the unit of a mark saved after it) */
	counters_raise_sno_floor(Max(sno_mark0, sno_mark1) + 1);
	flag = resume_sno(&marks[MARK_SNO_FLAG0], flag);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		pg_atomic_write_u64(&counter_shared->slots[s].resumed_word.value, pg_atomic_read_u64(slot_word(s)));
	return flag;
}

void
counters_latest_unit_starts(int64 latest[MARK_COUNT], bool closings)
{
	for (int m = 0; m < MARK_COUNT; m++)
		latest[m] = 0;
	for (int g = 0; g < GEN_COUNT; g++)
	{
		const GeneratorDef *def = &generator_defs[g];

		for (int v = 0; v < def->variants; v++)
		{
			CounterSlot *slot = &counter_shared->slots[def->first_slot + v];
			uint64		word = pg_atomic_read_u64(&slot->word.value);

			/* a counter that issued nothing since it was resumed needs no renewal */
			if (word != 0 && word != pg_atomic_read_u64(&slot->resumed_word.value) &&
				(closings || word != pg_atomic_read_u64(&slot->closed_word.value)))
			{
				int64		start = def->format->unit_start(counter_unit(word));

				latest[mark_of(def, word)] = Max(latest[mark_of(def, word)], start);
			}
		}
	}
}

uint64
generator_clock_unit(const GeneratorDef *def)
{
	uint64		unit;

	if (!def->format->units_at(clock_read(def), &unit))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the system clock is outside the time range of the %s generator", def->name)));
	return unit;
}

uint64
counters_live_floor(const GeneratorDef *def, int slot)
{
	uint64		word = pg_atomic_read_u64(slot_word(slot));

	pg_read_barrier();
	return word != 0 ? counter_unit(word) : generator_clock_unit(def);
}

bool
counters_await_closed(int slot, uint64 word)
{
	CounterSlot *c = &counter_shared->slots[slot];

	for (;;)
	{
		pg_read_barrier();		/* (the caller's read of `word`, or the last look, before these) */
		if (counters_closed(slot, word))
			return true;
		if (pg_atomic_read_u64(&c->closings.value) == 0 || pg_atomic_read_u64(&c->word.value) != word)
		{
			/* (a closing counts itself down after its raise: read closed_word after the count) */
			pg_read_barrier();
			return counters_closed(slot, word);
		}
		pgstat_report_wait_start(PG_WAIT_EXTENSION);
		pg_usleep(10L);
		pgstat_report_wait_end();
		CHECK_FOR_INTERRUPTS();
	}
}

bool
counters_closed_live_top(int slot, uint64 word, const CounterPool *pool, int64 *live_top)
{
	uint64		replaced;

	/* the closing raised its record before its compare-and-swap, which put `word` there */
	pg_read_barrier();
	replaced = pg_atomic_read_u64(&counter_shared->slots[slot].closed_replaced.value);
	/*
	 * A record of a later unit: the live counter issued there after `word`
	 * was read, and a later closing replaced the record.  The unit is a
	 * past one now, whose live IDs the server no longer counts, as when the
	 * counter is found past it (from_live_counter).  Refusing it as a pool
	 * used up was false: a back-fill one unit behind the clock, overtaken by
	 * a live ID and a second horizon (test/t/041_backfill_closed_unit.pl).
	 */
	if (counter_unit(replaced) > counter_unit(word))
	{
		*live_top = (int64) pool->seq_min - 1;
		return true;
	}
	/* the word the closing replaced was the counter's last in that unit, if it reached the unit */
	*live_top = counter_unit(replaced) == counter_unit(word) ?
		(int64) counter_seq(replaced) : (int64) pool->seq_min - 1;
	if (counter_flag(replaced))
	{
		/*
		 * sno on tick-tock 1: its IDs never meet back-fill's (tick-tock 0).
		 * Those of tick-tock 0 lie at or below the highest unit of the
		 * timeline it left (wall_safe, with flakeid_lock held: a toggle
		 * takes it), and that timeline resumes only above it: a unit past
		 * it holds none, one at or below it an unknown number (the record
		 * compares whole words, the flag above the sequence).
		 */
		const SnoTimeline *timeline = &counter_shared->sno_timeline;

		if ((timeline->drifts & 1) == 0 || counter_unit(word) <= timeline->wall_safe)
			return false;
		*live_top = (int64) pool->seq_min - 1;
	}
	return true;
}
