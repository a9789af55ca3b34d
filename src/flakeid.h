/*
 * flakeid.h — shared declarations of the PostgreSQL glue
 */
#ifndef FLAKEID_H
#define FLAKEID_H

#include "postgres.h"

#include "datatype/timestamp.h"

#define FLAKEID_PRELOAD_HINT "Add flakeid to shared_preload_libraries and restart the server."

/* time (flakeid.c) */
#define FLAKEID_PG_EPOCH_UNIX_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

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
struct FlakeFormat;
pg_noreturn extern void flakeid_time_out_of_range(const struct FlakeFormat *format);

/* <type>_fields: the format's fields and the time, as jsonb (fields.c) */
struct FlakeFormat;
extern Datum flakeid_fields_jsonb(const struct FlakeFormat *format, const uint8 *id, TimestampTz time);

/* secure random bytes from a per-backend buffer (random.c) */
extern void flakeid_random_bytes(void *out, size_t n);

/* --- generators (generator.h lists their modules) -------------------------- */

typedef enum GeneratorId
{
	GEN_SNO,
	GEN_SIQ,					/* one counter per named kind (the variant) */
	GEN_KUID,					/* shared by kuid and kuid96 */
	GEN_SNOWFLAKE,
	GEN_COUNT
} GeneratorId;

/* What every generator issues: a time unit of its format, a sequence, sno's tick-tock. */
typedef struct GeneratedId
{
	uint64		unit;			/* the format's generator unit (FlakeFormat.units_at) */
	uint32		sequence;
	bool		ticktock;		/* sno only; false for the others */
} GeneratedId;

/*
 * The next ID of a generator (variant: the siq kind's index, else 0).
 * Unique on this server whatever the clock does (API.md "Generators").
 * Lock-free while the clock moves forward.  May sleep until the next unit
 * when a unit's pool is used up (interruptible), take flakeid's LWLock and
 * fsync the state file when the saved mark needs renewing or sno's clock is
 * behind.  Raises 55000 without the preload or on a standby with a derived
 * identity, 22023 for a bad pool setting, 22008 for a clock outside the
 * format's range, XX001 for a damaged state file.
 */
extern GeneratedId flakeid_generate(GeneratorId gen, int variant);

/*
 * A back-fill (*_new_at) ID for the caller's time: `key` is the time field
 * the ID stores, `live_unit` the live generator's unit that stores the same
 * field (they differ for snowflakes under another epoch), `ts` names it in
 * errors.  No two calls on one server, in any session or parallel worker,
 * and none after a restart, return the same (variant, key, sequence); a
 * unit the live generator may still use is drawn from it (so the ID is a
 * live one, sno's tick-tock included), and a later one is refused (22023).
 * Past a unit's pool it raises 54000, never wraps.  Refuses what
 * flakeid_generate refuses.  May take an LWLock of the ledger (no I/O under
 * it) and flakeid_lock with fsyncs to save a lower back-fill low-water.
 */
extern GeneratedId flakeid_generate_backfill(GeneratorId gen, int variant, uint64 key, uint64 live_unit,
											 TimestampTz ts);
/* from _PG_init while preloading: back-fill's shared ledger */
extern void flakeid_backfill_init(void);

typedef enum IdentityKind
{
	IDENTITY_SNO_PARTITION,
	IDENTITY_SIQ_SHARD,
	IDENTITY_KUID_NODE,
	IDENTITY_SNOWFLAKE_WORKER,
	IDENTITY_SNOWFLAKE_PROCESS,
	IDENTITY_COUNT
} IdentityKind;

/*
 * The identity this server writes into IDs: the setting, or one derived
 * from the system identifier and timeline (cached per backend).  Raises
 * 55000 for a derived identity during recovery, or without the preload.
 */
extern uint32 flakeid_identity(IdentityKind kind);
/* whether the preload set up the shared state (generator.c) */
extern bool flakeid_shared_state_loaded(void);
/* a fresh kuid96 (kuid.c), as kuid96_new() gives */
extern void flakeid_kuid96_next(uint8 *out);
/* the hash of flakeid.siq_domain (checked as ASCII when set) */
extern uint32 flakeid_siq_domain_hash(void);
/* flakeid.snowflake_epoch_ms; raises 22023 when its configured value was refused */
extern int64 flakeid_snowflake_epoch_ms(void);
/* the same without the check: what the configuration gave (or the default) */
extern int64 flakeid_configured_snowflake_epoch_ms(void);
/* the precise clock, shifted by flakeid.debug_clock_offset_ms */
extern int64 flakeid_clock_unix_us(void);

/* module start (flakeid.c calls these from _PG_init) */
extern void flakeid_generators_init(void);

#endif
