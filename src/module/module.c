/*
 * module.c — starts the generator subsystem: each module's init, bottom of
 * the stack first (docs/DESIGN.md, "The generator stack")
 */
#include "postgres.h"

#include "backfill/backfill.h"
#include "base/clock.h"
#include "base/epoch.h"
#include "base/identity.h"
#include "base/settings.h"
#include "base/stats.h"
#include "durable/deep_record.h"
#include "durable/issued_ahead.h"
#include "durable/marks.h"
#include "durable/wal_record.h"
#include "generator/counters.h"
#include "generator/resume.h"
#include "horizon/horizon.h"
#include "module/module.h"
#include "module/renewer.h"
#include "module/wal_redo.h"

void
generator_module_init(void)
{
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
}
