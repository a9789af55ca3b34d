/*
 * epoch.c — the snowflake epoch in one place: the setting, and the epoch
 * the issued snowflakes were issued under (epoch.h says why it matters)
 *
 * The issued epoch lives in shared memory and is changed at start or under
 * flakeid_lock; marks.c saves it with the marks.
 */
#include "postgres.h"

#include <ctype.h>
#include <errno.h>

#include "base/epoch.h"
#include "base/settings.h"
#include "base/shmem.h"
#include "format/snowflake.h"

typedef struct EpochShared
{
	int64		issued_under_ms;	/* of the snowflakes issued (saved with the marks) */
	bool		refused;		/* the configured epoch is later */
} EpochShared;

static EpochShared *epoch_shared = NULL;
static char *snowflake_epoch_ms_setting = NULL;
static int64 snowflake_epoch_ms = SNOWFLAKE_DISCORD_EPOCH_MS;

/* the epoch may lie anywhere from 1970 to the end of year 9999 */
#define SNOWFLAKE_EPOCH_MS_LIMIT INT64CONST(253402300800000)

/*
 * A string setting, because settings hold 32-bit integers at most: the
 * value is parsed here and handed to the assign hook through `extra`.
 */
static bool
check_snowflake_epoch_ms(char **newval, void **extra, GucSource source pg_attribute_unused())
{
	char	   *end;
	long long	ms;
	int64	   *parsed;

	errno = 0;
	ms = strtoll(*newval, &end, 10);
	if (errno != 0 || end == *newval || *end != '\0' || !isdigit((unsigned char) **newval) ||
		ms >= SNOWFLAKE_EPOCH_MS_LIMIT)
	{
		GUC_check_errdetail("The epoch is a whole number of milliseconds since 1970-01-01 00:00:00 UTC, before the year 10000.");
		return false;
	}
	/* `extra` is freed by the GUC machinery: guc_malloc from 16 on, malloc before */
#if PG_VERSION_NUM >= 160000
	parsed = guc_malloc(LOG, sizeof(int64));
#else
	parsed = malloc(sizeof(int64));
#endif
	if (parsed == NULL)
		return false;
	*parsed = (int64) ms;
	*extra = parsed;
	return true;
}

static void
assign_snowflake_epoch_ms(const char *newval pg_attribute_unused(), void *extra)
{
	snowflake_epoch_ms = *(int64 *) extra;
}

static void
epoch_shared_init(void *part)
{
	((EpochShared *) part)->issued_under_ms = -1;
}

void
epoch_init(void)
{
	ShmemPart	part = {.name = "flakeid snowflake epoch", .size = sizeof(EpochShared), .address = (void **) &epoch_shared, .init = epoch_shared_init};

	define_string_setting(SETTING_SNOWFLAKE_EPOCH_MS,
						  "Epoch of snowflake IDs, in milliseconds since 1970-01-01 00:00:00 UTC.",
						  "The default is Discord's epoch, 2015-01-01 00:00:00 UTC.",
						  &snowflake_epoch_ms_setting, CppAsString2(SNOWFLAKE_DISCORD_EPOCH_MS_VALUE),
						  PGC_POSTMASTER, 0, check_snowflake_epoch_ms, assign_snowflake_epoch_ms);
	shmem_request_part(&part);
}

int64
flakeid_snowflake_epoch_ms(void)
{
	settings_refuse_rejected(SETTING_SNOWFLAKE_EPOCH_MS, "snowflake");
	return snowflake_epoch_ms;
}

int64
flakeid_configured_snowflake_epoch_ms(void)
{
	return snowflake_epoch_ms;
}

int64
epoch_issued_under(void)
{
	return epoch_shared->issued_under_ms;
}

static void
judge_configured(void)
{
	int64		issued_under = epoch_shared->issued_under_ms;

	epoch_shared->refused = issued_under >= 0 && snowflake_epoch_ms > issued_under;
}

void
epoch_set_issued_under(int64 epoch_ms)
{
	epoch_shared->issued_under_ms = epoch_ms;
	judge_configured();
}

bool
epoch_take_earlier(int64 epoch_ms)
{
	if (epoch_ms < 0 || (epoch_shared->issued_under_ms >= 0 && epoch_ms >= epoch_shared->issued_under_ms))
		return false;
	epoch_set_issued_under(epoch_ms);
	return true;
}

bool
epoch_needs_saving(void)
{
	return !epoch_shared->refused && epoch_shared->issued_under_ms != snowflake_epoch_ms;
}

void
epoch_refuse_if_later(void)
{
	if (epoch_shared->refused)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("flakeid.snowflake_epoch_ms is later than the epoch of the snowflakes already issued"),
				 errdetail("Snowflakes were issued with epoch " INT64_FORMAT " ms; with epoch " INT64_FORMAT " ms new values could repeat them.",
						   epoch_shared->issued_under_ms, snowflake_epoch_ms),
				 errhint("Set flakeid.snowflake_epoch_ms back to " INT64_FORMAT " (or earlier) and restart the server.",
						 epoch_shared->issued_under_ms)));
}

void
epoch_warn_if_refused(void)
{
	if (epoch_shared->refused)
		ereport(WARNING,
				(errmsg("flakeid.snowflake_epoch_ms was moved from " INT64_FORMAT " to " INT64_FORMAT " after snowflakes were issued; snowflake generation will be refused",
						epoch_shared->issued_under_ms, snowflake_epoch_ms)));
}

char *
epoch_describe(void)
{
	return psprintf("epoch " INT64_FORMAT " ms", snowflake_epoch_ms);
}
