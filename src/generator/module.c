/*
 * module.c — starts the generator subsystem: each module's init, bottom of
 * the stack first (docs/DESIGN.md, "The generator stack")
 */
#include "postgres.h"

#include "generator/ahead.h"
#include "generator/backfill.h"
#include "generator/clock.h"
#include "generator/counters.h"
#include "generator/deep_record.h"
#include "generator/epoch.h"
#include "generator/horizon.h"
#include "generator/identity.h"
#include "generator/mark_redo.h"
#include "generator/marks.h"
#include "generator/module.h"
#include "generator/renewer.h"
#include "generator/resume.h"
#include "generator/settings.h"
#include "generator/stats.h"
#include "generator/wal_record.h"

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
