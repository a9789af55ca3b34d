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

#include "flakeid.h"
#include "format/format.h"

static void
push_key(JsonbParseState **state, const char *key)
{
	JsonbValue	v = {.type = jbvString};

	v.val.string.val = (char *) key;
	v.val.string.len = (int) strlen(key);
	pushJsonbValue(state, WJB_KEY, &v);
}

static void
push_string(JsonbParseState **state, const char *text)
{
	JsonbValue	v = {.type = text ? jbvString : jbvNull};

	if (text)
	{
		v.val.string.val = (char *) text;
		v.val.string.len = (int) strlen(text);
	}
	pushJsonbValue(state, WJB_VALUE, &v);
}

Datum
flakeid_fields_jsonb(const FlakeFormat *format, const uint8 *id, TimestampTz time)
{
	JsonbParseState *state = NULL;
	FlakeField	fields[FLAKE_MAX_FIELDS];
	int			count = format->fields(id, fields);
	const int	utc = 0;
	JsonbValue *result;

	Assert(count <= FLAKE_MAX_FIELDS);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	push_key(&state, "time");
	push_string(&state, JsonEncodeDateTime(NULL, TimestampTzGetDatum(time), TIMESTAMPTZOID, &utc));
	for (int i = 0; i < count; i++)
	{
		push_key(&state, fields[i].name);
		if (fields[i].is_text)
			push_string(&state, fields[i].text);
		else
		{
			JsonbValue	v = {.type = jbvNumeric};

			v.val.numeric = int64_to_numeric(fields[i].number);
			pushJsonbValue(&state, WJB_VALUE, &v);
		}
	}
	result = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(result));
}
