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

#include "utils/guc.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "generator.h"

#define MAX_REJECTED 16

typedef struct RejectedSetting
{
	const char *name;
	char	   *value;			/* as the configuration wrote it */
} RejectedSetting;

static RejectedSetting rejected[MAX_REJECTED];
static int	nrejected = 0;

/* the configured text of a setting not defined yet, or NULL when none was configured */
static char *
configured_text(const char *name)
{
	const char *text = GetConfigOption(name, true, false);

	return text ? MemoryContextStrdup(TopMemoryContext, text) : NULL;
}

static void
remember_if_rejected(const char *name, char *configured, bool took)
{
	if (configured == NULL || took)
		return;
	if (nrejected < MAX_REJECTED)
		rejected[nrejected++] = (RejectedSetting) {name, configured};
	ereport(WARNING,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for parameter \"%s\": \"%s\"", name, configured),
			 errdetail("The generators that read this setting refuse to generate until it is corrected and the server restarted.")));
}

void
define_int_setting(const char *name, const char *description, const char *hint,
				   int *value, int boot, int min, int max, GucContext context, int flags,
				   GucIntCheckHook check)
{
	char	   *configured = configured_text(name);
	int			parsed;

	DefineCustomIntVariable(name, description, hint, value, boot, min, max, context, flags, check, NULL, NULL);
	remember_if_rejected(name, configured,
						 configured && parse_int(configured, &parsed, flags, NULL) && parsed == *value);
}

void
define_bool_setting(const char *name, const char *description, const char *hint,
					bool *value, bool boot, GucContext context, int flags)
{
	char	   *configured = configured_text(name);
	bool		parsed;

	DefineCustomBoolVariable(name, description, hint, value, boot, context, flags, NULL, NULL, NULL);
	remember_if_rejected(name, configured,
						 configured && parse_bool(configured, &parsed) && parsed == *value);
}

void
define_string_setting(const char *name, const char *description, const char *hint,
					  char **value, const char *boot, GucContext context, int flags,
					  GucStringCheckHook check, GucStringAssignHook assign)
{
	char	   *configured = configured_text(name);

	DefineCustomStringVariable(name, description, hint, value, boot, context, flags, check, assign, NULL);
	remember_if_rejected(name, configured, configured && *value && strcmp(configured, *value) == 0);
}

void
settings_refuse_rejected(const char *name, const char *generator)
{
	for (int i = 0; i < nrejected; i++)
		if (strcmp(rejected[i].name, name) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for parameter \"%s\": \"%s\"", name, rejected[i].value),
					 errdetail("The server refused this configured value at start and kept the default, which the %s generator does not use in its place.",
							   generator),
					 errhint("Correct %s in the server's configuration and restart the server.", name)));
}

char *
settings_describe_rejected(const char *name)
{
	for (int i = 0; i < nrejected; i++)
		if (strcmp(rejected[i].name, name) == 0)
			return psprintf("%s = '%s' refused", name, rejected[i].value);
	return NULL;
}
