/*
 * glue.c — what the types' SQL glue shares (glue.h): the errors of a time
 * outside a type's range and of a field out of range, a timestamptz in
 * Unix µs, the fields as jsonb, and secure random bytes
 */
#include "postgres.h"

#include <openssl/rand.h>

#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "types/glue.h"

void
flakeid_time_out_of_range(const FlakeFormat *format)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("timestamp out of range for type %s", format->name),
			 errdetail("%s holds times in [%s).", format->name, format->time_range)));
}

int64
flakeid_unix_us_from_timestamptz(TimestampTz ts, const char *type_name)
{
	if (TIMESTAMP_NOT_FINITE(ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("infinite timestamp cannot be stored in type %s", type_name)));
	/* PostgreSQL's finite range is far from int64's limits: no overflow */
	return (int64) ts + FLAKEID_PG_EPOCH_UNIX_US;
}

void
flakeid_check_field(int64 value, int64 max, const char *field, const char *type_name)
{
	if (value < 0 || value > max)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value %lld is out of range for field \"%s\" of type %s", (long long) value, field, type_name),
				 errdetail("The field takes values from 0 to %lld.", (long long) max)));
}

/*
 * <type>_fields(id): an ID at a glance, as jsonb.
 *
 * Every field the format's description lists (format/format.h), plus the
 * time.  The time is written in UTC whatever the session's TimeZone, so the
 * functions stay IMMUTABLE (the epoch-reading snowflake_fields(bigint) is
 * STABLE for its setting only).
 */

/*
 * PostgreSQL 19 builds jsonb through a JsonbInState that holds the finished
 * value in its result field; earlier majors pass a JsonbParseState stack and
 * return the value from each push.  JsonbBuilder is the one shape this file
 * writes against: zero-initialised, pushed into, its result read at the end.
 */
#if PG_VERSION_NUM >= 190000
typedef JsonbInState JsonbBuilder;

static inline void
builder_push(JsonbBuilder *builder, JsonbIteratorToken token, JsonbValue *value)
{
	pushJsonbValue(builder, token, value);
}
#else
typedef struct JsonbBuilder
{
	JsonbParseState *parseState;
	JsonbValue *result;
} JsonbBuilder;

static inline void
builder_push(JsonbBuilder *builder, JsonbIteratorToken token, JsonbValue *value)
{
	builder->result = pushJsonbValue(&builder->parseState, token, value);
}
#endif

static void
push_key(JsonbBuilder *builder, const char *key)
{
	JsonbValue	v = {.type = jbvString};

	v.val.string.val = (char *) key;
	v.val.string.len = (int) strlen(key);
	builder_push(builder, WJB_KEY, &v);
}

static void
push_string(JsonbBuilder *builder, const char *text)
{
	JsonbValue	v = {.type = text ? jbvString : jbvNull};

	if (text)
	{
		v.val.string.val = (char *) text;
		v.val.string.len = (int) strlen(text);
	}
	builder_push(builder, WJB_VALUE, &v);
}

Datum
flakeid_fields_jsonb(const FlakeFormat *format, const uint8 *id, TimestampTz time)
{
	JsonbBuilder builder = {0};
	FlakeField	fields[FLAKE_MAX_FIELDS];
	int			count = format->fields(id, fields);
	const int	utc = 0;

	Assert(count <= FLAKE_MAX_FIELDS);
	builder_push(&builder, WJB_BEGIN_OBJECT, NULL);
	push_key(&builder, "time");
	push_string(&builder, JsonEncodeDateTime(NULL, TimestampTzGetDatum(time), TIMESTAMPTZOID, &utc));
	for (int i = 0; i < count; i++)
	{
		push_key(&builder, fields[i].name);
		if (fields[i].is_text)
			push_string(&builder, fields[i].text);
		else
		{
			JsonbValue	v = {.type = jbvNumeric};

			v.val.numeric = int64_to_numeric(fields[i].number);
			builder_push(&builder, WJB_VALUE, &v);
		}
	}
	builder_push(&builder, WJB_END_OBJECT, NULL);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(builder.result));
}

/*
 * A per-backend buffer of cryptographically secure random bytes.
 *
 * OpenSSL's RAND_bytes costs about the same per call whatever the size up to
 * a few KB (~1.5 us here), so drawing 7 bytes per ID straight from it would
 * dominate flax_new().  Each backend keeps a 4 KB block and refills it when
 * used up.  Bytes are handed out once.  A forked child must not replay its
 * parent's block, so the block belongs to the pid that filled it.
 */

#define RANDOM_BLOCK 4096

static uint8 block[RANDOM_BLOCK];
static size_t block_used = RANDOM_BLOCK;
static int	block_owner = 0;

void
flakeid_random_bytes(void *out, size_t n)
{
	Assert(n <= RANDOM_BLOCK);
	if (unlikely(block_owner != MyProcPid || block_used + n > RANDOM_BLOCK))
	{
		if (RAND_bytes(block, RANDOM_BLOCK) != 1)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate secure random bytes")));
		block_used = 0;
		block_owner = MyProcPid;
	}
	memcpy(out, block + block_used, n);
	block_used += n;
}
