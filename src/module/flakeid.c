/*
 * flakeid.c — the module: its magic and _PG_init, which starts the
 * generator subsystem: each module's init, bottom of the stack first
 * (docs/DESIGN.md, "The generator stack")
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include "backfill/backfill.h"
#include "base/clock.h"
#include "base/epoch.h"
#include "base/identity.h"
#include "base/settings.h"
#include "base/stats.h"
#include "durable/deep_record.h"
#include "durable/issued_ahead.h"
#include "durable/wal_record.h"
#include "generator/counters.h"
#include "generator/resume.h"
#include "horizon/horizon.h"
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
	/*
	 * Every generator module's settings, its part of shared memory, the WAL
	 * resource manager and the renewer.
	 */
	identity_init();
	clock_init();
	epoch_init();
	stats_init();
	mark_init();
	wal_record_init();
	deep_record_init();
	ahead_init();
	counters_init();
	horizon_init();
	backfill_init();
	mark_redo_init();
	resume_init();
	renewer_register();
	settings_check_all_defined();
	identity_log_settings();
	MarkGUCPrefixReserved("flakeid");
}
