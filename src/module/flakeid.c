/*
 * flakeid.c — the module: its magic and _PG_init
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "module/module.h"
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
