/*
 * settings.c — defining flakeid's settings so that a value the
 * configuration asked for is never silently replaced
 *
 * postgresql.conf is read before shared_preload_libraries are loaded, so a
 * flakeid.* line first becomes a placeholder holding the text as written.
 * When the module then defines the setting, PostgreSQL applies that text at
 * WARNING level and, if it is refused (out of range, malformed, a check hook
 * says no), keeps the default.  A default identity, epoch or pool could
 * repeat another server's IDs, so each define_* here reads the placeholder
 * first, and remembers a value that did not take.  Generators that read a
 * remembered setting refuse (settings_refuse_rejected) until the
 * configuration is corrected and the server restarted.
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/memutils.h"

#include "base/settings.h"

#define READ_BY(g)	(1u << (g))
#define READ_BY_ALL	((1u << GEN_COUNT) - 1)

const SettingDef setting_defs[SETTING_COUNT] = {
	[SETTING_SNO_PARTITION] = {"flakeid.sno_partition", "identity.c", READ_BY(GEN_SNO)},
	[SETTING_SNO_SEQUENCE_MIN] = {"flakeid.sno_sequence_min", "identity.c", READ_BY(GEN_SNO)},
	[SETTING_SNO_SEQUENCE_MAX] = {"flakeid.sno_sequence_max", "identity.c", READ_BY(GEN_SNO)},
	[SETTING_SNO_COARSE_CLOCK] = {"flakeid.sno_coarse_clock", "clock.c", READ_BY(GEN_SNO)},
	[SETTING_SIQ_SHARD] = {"flakeid.siq_shard", "identity.c", READ_BY(GEN_SIQ)},
	[SETTING_SIQ_DOMAIN] = {"flakeid.siq_domain", "identity.c", READ_BY(GEN_SIQ)},
	/* kuid IDs carry no node: kuid96 checks it as it resolves the node (identity.c) */
	[SETTING_KUID_NODE] = {"flakeid.kuid_node", "identity.c", 0},
	[SETTING_SNOWFLAKE_WORKER] = {"flakeid.snowflake_worker", "identity.c", READ_BY(GEN_SNOWFLAKE)},
	[SETTING_SNOWFLAKE_PROCESS] = {"flakeid.snowflake_process", "identity.c", READ_BY(GEN_SNOWFLAKE)},
	[SETTING_SNOWFLAKE_EPOCH_MS] = {"flakeid.snowflake_epoch_ms", "epoch.c", READ_BY(GEN_SNOWFLAKE)},
	[SETTING_GENERATE_ON_STANDBY] = {"flakeid.generate_on_standby", "identity.c", 0},
	[SETTING_ALLOW_DEBUG_CLOCK_OFFSET] = {"flakeid.allow_debug_clock_offset", "clock.c", 0},
	[SETTING_DEBUG_CLOCK_OFFSET_MS] = {"flakeid.debug_clock_offset_ms", "clock.c", 0},
	[SETTING_DEBUG_PAUSE_AT] = {"flakeid.debug_pause_at", "clock.c", 0},
	[SETTING_DEBUG_PAUSE_MS] = {"flakeid.debug_pause_ms", "clock.c", 0},
	[SETTING_ACCEPT_STATE_FROM] = {"flakeid.accept_state_from", "marks_setup.c", 0},
	/* every generator's bounds are saved through it: a refused "on" must not become off */
	[SETTING_MARK_SYNCHRONOUS] = {"flakeid.mark_synchronous", "wal_record.c", READ_BY_ALL},
	[SETTING_START_AFRESH] = {"flakeid.start_afresh", "marks_setup.c", 0},
	/*
	 * A refused value is kept off, the safe side; back-fill below the floor,
	 * the one call it decides, names it (backfill_refuse_below_floor).  Read
	 * by no generator as a whole: 1.4's auditor found every live generator
	 * refused for a junk value of a setting no live ID reads.
	 */
	[SETTING_ACCEPT_BACKFILL_LOSS] = {"flakeid.accept_backfill_loss", "marks_setup.c", 0},
	[SETTING_TAKE_OVER_FROM] = {"flakeid.take_over_from", "marks_setup.c", 0},
	/* a refused value leaves the default bound: back-fill refuses more or fewer new deep units, never repeats */
	[SETTING_BACKFILL_DEEP_UNITS_MAX] = {"flakeid.backfill_deep_units_max", "deep_record.c", 0},
	/* a refused value is kept off, the safe side: a promoted server's inherited identities stay refused */
	[SETTING_PROMOTION_KEEPS_IDENTITIES] = {"flakeid.promotion_keeps_identities", "identity.c", 0},
};

/* the configured text of each refused setting (NULL: it took, or none was configured) */
static char *rejected[SETTING_COUNT];
static bool defined[SETTING_COUNT];

/* the configured text of a setting not defined yet, or NULL when none was configured */
static char *
configured_text(const char *name)
{
	const char *text = GetConfigOption(name, true, false);

	return text ? MemoryContextStrdup(TopMemoryContext, text) : NULL;
}

static void
remember_if_rejected(SettingId id, char *configured, bool took)
{
	defined[id] = true;
	if (configured == NULL || took)
		return;
	rejected[id] = configured;
	ereport(WARNING,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for parameter \"%s\": \"%s\"", setting_defs[id].name, configured),
			 errdetail("The generators that read this setting refuse to generate until it is corrected and the server restarted.")));
}

void
define_int_setting(SettingId id, const char *description, const char *hint,
				   int *value, int boot, int min, int max, GucContext context, int flags,
				   GucIntCheckHook check)
{
	const char *name = setting_defs[id].name;
	char	   *configured = configured_text(name);
	int			parsed;

	DefineCustomIntVariable(name, description, hint, value, boot, min, max, context, flags, check, NULL, NULL);
	remember_if_rejected(id, configured,
						 configured && parse_int(configured, &parsed, flags, NULL) && parsed == *value);
}

void
define_bool_setting(SettingId id, const char *description, const char *hint,
					bool *value, bool boot, GucContext context, int flags)
{
	const char *name = setting_defs[id].name;
	char	   *configured = configured_text(name);
	bool		parsed;

	DefineCustomBoolVariable(name, description, hint, value, boot, context, flags, NULL, NULL, NULL);
	remember_if_rejected(id, configured,
						 configured && parse_bool(configured, &parsed) && parsed == *value);
}

void
define_string_setting(SettingId id, const char *description, const char *hint,
					  char **value, const char *boot, GucContext context, int flags,
					  GucStringCheckHook check, GucStringAssignHook assign)
{
	const char *name = setting_defs[id].name;
	char	   *configured = configured_text(name);

	DefineCustomStringVariable(name, description, hint, value, boot, context, flags, check, assign, NULL);
	remember_if_rejected(id, configured, configured && *value && strcmp(configured, *value) == 0);
}

void
settings_check_all_defined(void)
{
	for (int i = 0; i < SETTING_COUNT; i++)
		if (!defined[i])
			elog(ERROR, "flakeid: %s, which %s owns, was not defined", setting_defs[i].name, setting_defs[i].owner);
}

void
settings_refuse_rejected(SettingId id, const char *generator)
{
	if (unlikely(rejected[id] != NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"%s\": \"%s\"", setting_defs[id].name, rejected[id]),
				 errdetail("The server refused this configured value at start and kept the default, which the %s generator does not use in its place.",
						   generator),
				 errhint("Correct %s in the server's configuration and restart the server.", setting_defs[id].name)));
}

void
settings_refuse_rejected_for(GeneratorId generator, const char *name)
{
	for (int i = 0; i < SETTING_COUNT; i++)
		if (setting_read_by((SettingId) i, generator))
			settings_refuse_rejected((SettingId) i, name);
}

char *
settings_describe_rejected(SettingId id)
{
	return rejected[id] ? psprintf("%s = '%s' refused", setting_defs[id].name, rejected[id]) : NULL;
}
