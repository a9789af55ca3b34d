/*
 * clock.h — the clocks the generators read, and the time base they share
 * with the types: Unix microseconds
 */
#ifndef FLAKEID_CLOCK_H
#define FLAKEID_CLOCK_H

#include "postgres.h"

#include "datatype/timestamp.h"

#include "generator/defs.h"

/* PostgreSQL's epoch (2000-01-01) in Unix microseconds */
#define FLAKEID_PG_EPOCH_UNIX_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

static inline TimestampTz
flakeid_timestamptz_from_unix_us(int64 unix_us)
{
	return (TimestampTz) (unix_us - FLAKEID_PG_EPOCH_UNIX_US);
}

/* defines the clock settings (from _PG_init, while preloading) */
extern void clock_init(void);

/* the precise clock, shifted by flakeid.debug_clock_offset_ms */
extern int64 flakeid_clock_unix_us(void);

/*
 * Unix microseconds from the clock a generator reads: the coarse clock
 * where the generator and flakeid.sno_coarse_clock allow it and it ticks at
 * least once a unit, else the precise one; never blocks.
 */
extern int64 clock_read(const GeneratorDef *def);

/* for flakeid_generators: "precise" or "coarse (4000 us)" */
extern char *clock_describe(const GeneratorDef *def);

#endif
