/*
 * fields.c — <type>_fields(id): an ID at a glance, as jsonb
 *
 * Every field the format's description lists (format/format.h), plus the
 * time.  The time is written in UTC whatever the session's TimeZone, so the
 * functions stay IMMUTABLE (the epoch-reading snowflake_fields(bigint) is
 * STABLE for its setting only).
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "types/glue.h"

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
