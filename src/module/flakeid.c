/*
 * flakeid.c — the module: its magic, _PG_init, and the type glue's shared
 * helpers
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "format/format.h"
#include "module/module.h"
#include "types/glue.h"
#include "types/mask_keys.h"

PG_MODULE_MAGIC;

extern void _PG_init(void);

void
_PG_init(void)
{
	/*
	 * Without preloading there is no shared state: the types and pure
	 * functions work, the stateful generators refuse (shmem_require).
	 * PostgreSQL also forbids defining PGC_POSTMASTER settings after startup
	 * (it is FATAL), so the identity and pool settings exist only when
	 * preloaded; otherwise they keep their defaults and are never read.
	 * Masks need no shared state: their setting exists either way.
	 */
	flakeid_mask_init();
	if (!process_shared_preload_libraries_in_progress)
		return;
	generator_module_init();
#if PG_VERSION_NUM >= 150000
	MarkGUCPrefixReserved("flakeid");
#else
	EmitWarningsOnPlaceholders("flakeid");
#endif
}

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

