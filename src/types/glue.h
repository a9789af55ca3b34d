/*
 * glue.h — what the types' SQL glue shares: time conversion, field checks,
 * the fields as jsonb, random bytes; and the generators as the types call
 * them
 */
#ifndef FLAKEID_GLUE_H
#define FLAKEID_GLUE_H

#include "datatype/timestamp.h"

#include "backfill/backfill.h"
#include "base/clock.h"
#include "base/epoch.h"
#include "base/identity.h"
#include "base/shmem.h"
#include "format/format.h"
#include "generator/generator.h"
#include "horizon/horizon.h"

/* time (glue.c): a finite timestamptz in Unix µs; 22008 for an infinite one */
extern int64 flakeid_unix_us_from_timestamptz(TimestampTz ts, const char *type_name);

extern void flakeid_check_field(int64 value, int64 max, const char *field, const char *type_name);
/* 18 replaced the trailing pg_attribute_noreturn() with the prefix pg_noreturn */
#if PG_VERSION_NUM < 180000
#define pg_noreturn pg_attribute_noreturn()
#endif
struct FlakeFormat;
pg_noreturn extern void flakeid_time_out_of_range(const struct FlakeFormat *format);

/* <type>_fields: the format's fields and the time, as jsonb (glue.c) */
extern Datum flakeid_fields_jsonb(const struct FlakeFormat *format, const uint8 *id, TimestampTz time);

/* secure random bytes from a per-backend buffer (glue.c) */
extern void flakeid_random_bytes(void *out, size_t n);

/* Makes a palloc'd copy of an ID; the result is a by-reference Datum. */
static inline Datum
fixed_datum(const FlakeFormat *info, const uint8 *bytes)
{
	uint8	   *result = palloc(info->width);

	memcpy(result, bytes, info->width);
	return PointerGetDatum(result);
}

/* the SQL function prefix_suffix whose body is `body` (the types' one-statement functions) */
#define FIXED_FN(prefix, suffix, body) \
	PG_FUNCTION_INFO_V1(prefix##_##suffix); \
	Datum prefix##_##suffix(PG_FUNCTION_ARGS) { body; }

/* a fresh kuid96 (kuid_type.c), as kuid96_new() gives */
extern void flakeid_kuid96_next(uint8 *out);

#endif
