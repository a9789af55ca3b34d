/*
 * settings.h — every flakeid.* setting in one table: its name, the module
 * that defines it, and the generators that read it
 *
 * The owner defines its settings from its init function with the define_*
 * functions below, which take the name from the table; generator_prepare
 * (generator.c) refuses a generator whose settings were refused, and the
 * flakeid_generators view names those, both from the readers here.
 */
#ifndef FLAKEID_SETTINGS_H
#define FLAKEID_SETTINGS_H

#include "utils/guc.h"

#include "base/defs.h"

typedef enum SettingId
{
	SETTING_SNO_PARTITION,
	SETTING_SNO_SEQUENCE_MIN,
	SETTING_SNO_SEQUENCE_MAX,
	SETTING_SNO_COARSE_CLOCK,
	SETTING_SIQ_SHARD,
	SETTING_SIQ_DOMAIN,
	SETTING_KUID_NODE,
	SETTING_SNOWFLAKE_WORKER,
	SETTING_SNOWFLAKE_PROCESS,
	SETTING_SNOWFLAKE_EPOCH_MS,
	SETTING_GENERATE_ON_STANDBY,
	SETTING_ALLOW_DEBUG_CLOCK_OFFSET,
	SETTING_DEBUG_CLOCK_OFFSET_MS,
	SETTING_DEBUG_PAUSE_AT,
	SETTING_DEBUG_PAUSE_MS,
	SETTING_ACCEPT_STATE_FROM,
	SETTING_MARK_SYNCHRONOUS,
	SETTING_START_AFRESH,
	SETTING_ACCEPT_BACKFILL_LOSS,
	SETTING_TAKE_OVER_FROM,
	SETTING_BACKFILL_DEEP_UNITS_MAX,
	SETTING_PROMOTION_KEEPS_IDENTITIES,
	SETTING_COUNT
} SettingId;

typedef struct SettingDef
{
	const char *name;
	const char *owner;			/* the module that defines it */
	uint32		readers;		/* bit (1 << GeneratorId) of each generator it refuses when refused */
} SettingDef;

extern const SettingDef setting_defs[SETTING_COUNT];

/* whether a refusal of the setting refuses the generator */
static inline bool
setting_read_by(SettingId id, GeneratorId generator)
{
	return (setting_defs[id].readers & (1u << generator)) != 0;
}

/* DefineCustom*Variable for the table's setting, remembering a configured value that was refused */
extern void define_int_setting(SettingId id, const char *description, const char *hint,
							   int *value, int boot, int min, int max, GucContext context, int flags,
							   GucIntCheckHook check);
extern void define_bool_setting(SettingId id, const char *description, const char *hint,
								bool *value, bool boot, GucContext context, int flags);
extern void define_string_setting(SettingId id, const char *description, const char *hint,
								  char **value, const char *boot, GucContext context, int flags,
								  GucStringCheckHook check, GucStringAssignHook assign);

/* from _PG_init, after every module's init: raises if a setting of the table was not defined */
extern void settings_check_all_defined(void);

/* "flakeid.x = 'value' refused" when the configured value was refused, else NULL (palloc'd) */
extern char *settings_describe_rejected(SettingId id);

/* raises 22023, naming the setting and its configured value, if that value was refused */
extern void settings_refuse_rejected(SettingId id, const char *generator);

/* the same for every setting `generator` reads */
extern void settings_refuse_rejected_for(GeneratorId generator, const char *name);

#endif
