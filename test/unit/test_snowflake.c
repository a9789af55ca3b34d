/*
 * test_snowflake.c — the snowflake layout against the suou vectors: every
 * row whose value is non-negative and below 2^64, read from its 64 bits.
 *
 * Usage: test_snowflake VECTOR_DIR.  Prints TAP.
 */
#include "tap.h"
#include "../../src/format/snowflake.h"

static const char *vectors;

/* suou's SnowflakeEpoch constants (CET midnights), which the derived columns use */
static const struct
{
	const char *column;
	int64_t		epoch_ms;
}			suou_epochs[] = {
	{"unix_ms_if_JAN_1_2015(derived)", INT64_C(1420066800000)},
	{"unix_ms_if_JAN_1_2020(derived)", INT64_C(1577833200000)},
	{"unix_ms_if_JAN_1_2025(derived)", INT64_C(1735686000000)},
};

static void
test_vectors(void)
{
	Tsv		   *t = tsv_open(vectors, "snowflake.tsv");
	int			rows = 0;

	while (tsv_next(t))
	{
		const char *value = tsv_get(t, "value");
		uint8_t		bytes[8];
		uint64_t	v = 0,
					ms = 0;
		SnowflakeFields f;
		bool		pass;

		if (value[0] == '-')
			continue;			/* negative: not a snowflake (the selection) */
		rows++;
		if (hex_to_bytes(tsv_get(t, "bytes8_hex(two-complement)"), bytes, 8) != 8)
		{
			tap_ok(false, "snowflake %s: bad hex in vector", value);
			continue;
		}
		for (int i = 0; i < 8; i++)
			v = (v << 8) | bytes[i];
		snowflake_unpack(v, &f);
		pass = strtoull(value, NULL, 10) == v &&
			f.ms == strtoull(tsv_get(t, "ts_ms_since_epoch"), NULL, 10) &&
			f.worker == strtoul(tsv_get(t, "worker"), NULL, 10) &&
			f.process == strtoul(tsv_get(t, "shard"), NULL, 10) &&
			f.sequence == strtoul(tsv_get(t, "sequence"), NULL, 10) &&
			snowflake_pack(&f) == v;
		for (size_t e = 0; e < sizeof(suou_epochs) / sizeof(suou_epochs[0]); e++)
			pass &= snowflake_unix_us_from_ms(f.ms, suou_epochs[e].epoch_ms * 1000) ==
				strtoll(tsv_get(t, suou_epochs[e].column), NULL, 10) * 1000;
		/* construction: the start of the millisecond floors back to it, below 2^41 ms only */
		if (f.ms < SNOWFLAKE_MS_LIMIT)
			pass &= snowflake_ms_from_unix_us(snowflake_unix_us_from_ms(f.ms, 0) + 999, 0, &ms) && ms == f.ms;
		else
			pass &= !snowflake_ms_from_unix_us(snowflake_unix_us_from_ms(f.ms, 0), 0, &ms);
		tap_ok(pass, "snowflake %s (line %d)", value, t->lineno);
	}
	tap_ok(rows > 0, "snowflake.tsv: %d non-negative rows checked", rows);
	tsv_close(t);
}

static void
test_range(void)
{
	uint64_t	ms = 0;
	int64_t		discord = SNOWFLAKE_DISCORD_EPOCH_MS * 1000;

	tap_ok(!snowflake_ms_from_unix_us(discord - 1, discord, &ms), "a time before the epoch is refused");
	tap_ok(snowflake_ms_from_unix_us(discord, discord, &ms) && ms == 0, "the epoch is ms 0");
	tap_ok(snowflake_ms_from_unix_us(discord + (int64_t) (SNOWFLAKE_MS_LIMIT * 1000) - 1, discord, &ms) &&
		   ms == SNOWFLAKE_MS_LIMIT - 1 &&
		   snowflake_pack(&(SnowflakeFields) {ms, 31, 31, 4095}) == (uint64_t) INT64_MAX,
		   "the last constructible millisecond gives the largest bigint");
	tap_ok(!snowflake_ms_from_unix_us(discord + (int64_t) (SNOWFLAKE_MS_LIMIT * 1000), discord, &ms),
		   "2^41 ms after the epoch is refused (the value would be negative as bigint)");
	tap_ok(snowflake_ms_from_unix_us(INT64_MAX, INT64_MIN + 1, &ms) == false,
		   "a difference beyond int64 does not overflow into a valid ms");
}

int
main(int argc, char **argv)
{
	vectors = argc > 1 ? argv[1] : "test/vectors";
	test_vectors();
	test_range();
	return tap_done();
}
