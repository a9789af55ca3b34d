/*
 * sno.c — the sno format (docs/spec/sno.md)
 */
#include "sno.h"

#include "bytes.h"
#include "format.h"
#include "uuid8.h"

/* sno's generator state must fit the counter word (counter.h) */
_Static_assert(SNO_UNIT_LIMIT - 1 <= COUNTER_MAX_UNIT, "sno units exceed the counter word");
_Static_assert(SNO_MAX_SEQUENCE <= COUNTER_SEQ_MASK, "sno sequences exceed the counter word");

static FlakeAlphabet sno_alphabet = {
	.symbols = "23456789abcdefghijklmnopqrstuvwx",
	.bits_per_symbol = 5,
};

const FlakeTextLayout sno_text = {
	.alphabet = &sno_alphabet,
	.nbytes = SNO_SIZE,
	.nchars = SNO_TEXT_LEN,
	.spare_bits_first = false,
};

/* spec §1: units (39) | tick-tock (1) | meta (8) | partition (16) | sequence (16) */
void
sno_pack(const SnoFields *fields, uint8_t *out)
{
	uint64_t	block = (fields->units << 1) | (fields->ticktock & 1);

	be_put(out, 5, block);
	out[5] = (uint8_t) fields->meta;
	be_put(out + 6, 2, fields->partition);
	be_put(out + 8, 2, fields->sequence);
}

void
sno_unpack(const uint8_t *in, SnoFields *fields)
{
	uint64_t	block = be_get(in, 5);

	fields->units = block >> 1;
	fields->ticktock = (unsigned) (block & 1);
	fields->meta = in[5];
	fields->partition = (unsigned) be_get(in + 6, 2);
	fields->sequence = (unsigned) be_get(in + 8, 2);
}

bool
sno_units_from_unix_us(int64_t unix_us, uint64_t *units)
{
	int64_t		offset;

	if (unix_us < SNO_EPOCH_UNIX_US)
		return false;
	offset = unix_us - SNO_EPOCH_UNIX_US;	/* non-negative: / floors */
	if ((uint64_t) (offset / SNO_UNIT_US) >= SNO_UNIT_LIMIT)
		return false;
	*units = (uint64_t) (offset / SNO_UNIT_US);
	return true;
}

int64_t
sno_unix_us_from_units(uint64_t units)
{
	return SNO_EPOCH_UNIX_US + (int64_t) units * SNO_UNIT_US;
}

bool
sno_pool_is_valid(int seq_min, int seq_max)
{
	return seq_min >= 0 && seq_max <= SNO_MAX_SEQUENCE &&
		seq_min <= seq_max && seq_max - seq_min + 1 >= SNO_MIN_POOL;
}

CounterOutcome
sno_decide(uint64_t word, uint64_t now, const CounterPool *pool,
		   const SnoTimeline *timeline, SnoDecision *decision)
{
	CounterOutcome outcome;
	uint64_t	unit = counter_unit(word);

	/*
	 * Every ISSUE under a timeline publishes next_timeline, also when the
	 * clock turns out not to be behind (the server decides again under its
	 * lock with a fresh word and clock): it must then be the timeline as it
	 * was.  Left unset, it once copied stack garbage into the shared
	 * timeline, after which sno waited out steps back instead of toggling.
	 */
	if (timeline != NULL)
		decision->next_timeline = *timeline;
	outcome = counter_advance(word, now, pool, &decision->next_word, &decision->wait_past);
	if (outcome != COUNTER_BEHIND || timeline == NULL)
		return outcome;

	/*
	 * Clock regression (spec §5.1 step 4).  Taking up the other tick-tock
	 * value is safe only strictly after every unit that value was used in,
	 * which is wall_safe; otherwise wait (sno_unsafe_wait_past).
	 */
	if (now <= timeline->wall_safe)
	{
		decision->wait_past = sno_unsafe_wait_past(timeline->wall_safe, word);
		return COUNTER_WAIT;
	}
	decision->next_timeline.wall_safe = unit;
	decision->next_timeline.drifts = timeline->drifts + 1;
	/* the other tick-tock is the word's toggled, whatever the count of drifts says */
	decision->next_word = counter_word(now, !counter_flag(word), pool->seq_min);
	return COUNTER_ISSUE;
}

static void
sno_repack(const uint8_t *in, uint8_t *out)
{
	SnoFields	fields;

	sno_unpack(in, &fields);
	sno_pack(&fields, out);
}

static const TimeLayout sno_time_layout = {
	SNO_SIZE, SNO_EPOCH_UNIX_US, true, 5,
	{{39, SNO_UNIT_US, NULL}, {1, 0, NULL}, {8, 0, NULL}, {16, 0, NULL}, {16, 0, NULL}}
};

static int
sno_fields(const uint8_t *in, FlakeField *out)
{
	SnoFields	f;

	sno_unpack(in, &f);
	out[0] = flake_number("meta", f.meta);
	out[1] = flake_number("partition", f.partition);
	out[2] = flake_number("sequence", f.sequence);
	out[3] = flake_number("ticktock", f.ticktock);
	return 4;
}

const FlakeFormat sno_format = {
	.id = FLAKE_SNO, .name = "sno", .width = SNO_SIZE,
	.text = &sno_text, .repack = sno_repack, .fields = sno_fields,
	.time = &sno_time_layout, .time_range = "2010-01-01 00:00:00+00, 2079-09-07 15:47:35.552+00",
	.units_at = sno_units_from_unix_us, .unit_start = sno_unix_us_from_units, .unit_us = SNO_UNIT_US,
	/* unit and tick-tock | meta, partition | sequence */
	.abbrev = {.time_bytes = 5, .identity_bytes = 3}, .uuid_tag = UUID8_TAG_SNO,
};
