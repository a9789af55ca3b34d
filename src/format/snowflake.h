/*
 * snowflake.h — Discord-style snowflakes (docs/spec/siq-and-snowflake.md Part B)
 *
 *   ms since the epoch 42 | worker 5 | process 5 | sequence 12
 *
 * held in a plain 64-bit integer.  Extractors read all 64 bits unsigned;
 * construction stops at 2^41 ms so that values stay non-negative as bigint.
 * Pure C, no PostgreSQL headers.
 */
#ifndef FLAKEID_FORMAT_SNOWFLAKE_H
#define FLAKEID_FORMAT_SNOWFLAKE_H

#include <stdbool.h>
#include <stdint.h>

#define SNOWFLAKE_MS_LIMIT		(UINT64_C(1) << 41)	/* construction range, exclusive */
#define SNOWFLAKE_MAX_WORKER	31
#define SNOWFLAKE_MAX_PROCESS	31
#define SNOWFLAKE_MAX_SEQUENCE	4095
#define SNOWFLAKE_DISCORD_EPOCH_MS_VALUE 1420070400000	/* 2015-01-01T00:00:00Z */
#define SNOWFLAKE_DISCORD_EPOCH_MS	((int64_t) SNOWFLAKE_DISCORD_EPOCH_MS_VALUE)

typedef struct SnowflakeFields
{
	uint64_t	ms;				/* since the epoch; < 2^42 read, < 2^41 built */
	unsigned	worker;
	unsigned	process;
	unsigned	sequence;
} SnowflakeFields;

extern uint64_t snowflake_pack(const SnowflakeFields *fields);
extern void snowflake_unpack(uint64_t value, SnowflakeFields *fields);

/* Floors an instant to its millisecond since the epoch; false outside [epoch, epoch + 2^41 ms). */
extern bool snowflake_ms_from_unix_us(int64_t unix_us, int64_t epoch_unix_us, uint64_t *ms);
/*
 * The generator's unit (Unix milliseconds) as ms since an epoch; false when
 * it lies outside [epoch, epoch + 2^41 ms).
 */
extern bool snowflake_ms_from_unit(uint64_t unit, int64_t epoch_ms, uint64_t *ms);
/* The start of the millisecond (ms < 2^42 and a sane epoch cannot overflow). */
extern int64_t snowflake_unix_us_from_ms(uint64_t ms, int64_t epoch_unix_us);

#endif
