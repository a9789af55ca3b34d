/*
 * flakeid.h — shared declarations of the PostgreSQL glue
 */
#ifndef FLAKEID_H
#define FLAKEID_H

#include "postgres.h"

#include "datatype/timestamp.h"

#define FLAKEID_PRELOAD_HINT "Add flakeid to shared_preload_libraries and restart the server."

/* settings (flakeid.c) */
extern int	flakeid_sno_partition_setting;
extern int	flakeid_sno_sequence_min;
extern int	flakeid_sno_sequence_max;
extern bool flakeid_sno_coarse_clock;
extern int	flakeid_siq_shard_setting;
extern char *flakeid_siq_domain_setting;
extern char *flakeid_kuid_node_setting;
extern int	flakeid_kuid_node_fingerprint;	/* of flakeid.kuid_node; -1 = derived */
extern int	flakeid_snowflake_worker_setting;
extern int	flakeid_snowflake_process_setting;
extern int64 flakeid_snowflake_epoch_ms;
extern int	flakeid_debug_clock_offset_ms;

/* time (flakeid.c) */
#define FLAKEID_PG_EPOCH_UNIX_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

extern int64 flakeid_clock_unix_us(void);
extern int64 flakeid_coarse_clock_resolution_us(void);	/* 0: none */
extern int64 flakeid_coarse_clock_unix_us(void);
extern int64 flakeid_unix_us_from_timestamptz(TimestampTz ts, const char *type_name);

static inline TimestampTz
flakeid_timestamptz_from_unix_us(int64 unix_us)
{
	return (TimestampTz) (unix_us - FLAKEID_PG_EPOCH_UNIX_US);
}

extern void flakeid_check_field(int64 value, int64 max, const char *field, const char *type_name);
/* 18 replaced the trailing pg_attribute_noreturn() with the prefix pg_noreturn */
#if PG_VERSION_NUM < 180000
#define pg_noreturn pg_attribute_noreturn()
#endif
pg_noreturn extern void flakeid_time_out_of_range(const char *type_name, const char *range);

/* secure random bytes from a per-backend buffer (random.c) */
extern void flakeid_random_bytes(void *out, size_t n);

/* persisted generator state (state.c) */
typedef struct FlakeidPersisted
{
	int64		mark_unix_us;	/* every ID issued so far lies before this instant */
	int64		sno_other_bound_unix_us;	/* sno IDs with the other tick-tock lie before this */
	uint32		sno_ticktock;	/* the tick-tock in use */
	uint32		padding;
} FlakeidPersisted;

extern bool flakeid_state_load(FlakeidPersisted *state);
extern void flakeid_state_save(const FlakeidPersisted *state);

/* generators (generator.c) */
extern void flakeid_shmem_request(void);
extern void flakeid_shmem_startup(void);
extern void flakeid_log_identities(void);

/* sno generator: the issued counter word (unit | tick-tock | sequence) */
extern uint64 flakeid_sno_next_word(void);
/* the n-th back-fill sequence draw */
extern unsigned flakeid_sno_next_static_sequence(void);
extern unsigned flakeid_sno_partition(void);

/* siq generator: returns the tick, sets the serial; kind indexes siq_kinds */
extern uint64 flakeid_siq_next(int kind, unsigned *serial);
extern unsigned flakeid_siq_next_static_serial(int kind);
extern unsigned flakeid_siq_shard(void);

/* kuid generator, shared by kuid and kuid96: returns the linear tick unit, sets the sequence */
extern uint64 flakeid_kuid_next(unsigned *seq);
extern unsigned flakeid_kuid_next_static_seq(void);
extern uint32 flakeid_kuid_node(void);

/* snowflake generator: returns the ms since the configured epoch, sets the sequence */
extern uint64 flakeid_snowflake_next(unsigned *sequence);
extern unsigned flakeid_snowflake_next_static_sequence(void);
extern unsigned flakeid_snowflake_worker(void);
extern unsigned flakeid_snowflake_process(void);

#endif
