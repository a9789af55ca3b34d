/*
 * table.c — the table of generators
 *
 * Adding a generator is a row here, a GeneratorId (defs.h), and the
 * settings it reads in settings.c's table.
 */
#include "postgres.h"

#include "base/epoch.h"
#include "base/identity.h"
#include "base/table.h"
#include "format/kuid.h"
#include "format/snowflake.h"
#include "persisted/persisted.h"

static CounterPool
siq_pool(int kind)
{
	return (CounterPool) {0, siq_kind_serial_max(siq_kinds[kind].value)};
}

static const char *
siq_kind_label(int kind)
{
	return siq_kinds[kind].name;
}

static CounterPool
kuid_pool(int variant pg_attribute_unused())
{
	return (CounterPool) {0, KUID_SEQ_MAX};
}

static CounterPool
snowflake_pool(int variant pg_attribute_unused())
{
	return (CounterPool) {0, SNOWFLAKE_MAX_SEQUENCE};
}

static CounterPool
sno_pool(int variant pg_attribute_unused())
{
	return identity_sno_pool();
}

const GeneratorDef generator_defs[GEN_COUNT] = {
	[GEN_SNO] = {
		.name = "sno", .id = GEN_SNO, .format = &sno_format, .ticktock = true, .mark = MARK_SNO_FLAG0, .coarse_clock = true,
		.variants = 1, .first_slot = 0,
		.nidentities = 1, .identities = {IDENTITY_SNO_PARTITION},
		.pool = sno_pool, .describe_settings = identity_describe_sno_pool,
	},
	[GEN_SIQ] = {
		.name = "siq", .id = GEN_SIQ, .format = &siq_format, .mark = MARK_SIQ,
		.variants = SIQ_NAMED_KINDS, .first_slot = 1,
		.nidentities = 1, .identities = {IDENTITY_SIQ_SHARD},
		.pool = siq_pool, .variant_name = siq_kind_label, .describe_settings = identity_describe_siq_domain,
	},
	/* kuid96 resolves its node itself: kuid IDs carry none */
	[GEN_KUID] = {
		.name = "kuid", .id = GEN_KUID, .format = &kuid_format, .mark = MARK_KUID,
		.variants = 1, .first_slot = 1 + SIQ_NAMED_KINDS,
		.pool = kuid_pool,
	},
	[GEN_SNOWFLAKE] = {
		.name = "snowflake", .id = GEN_SNOWFLAKE, .format = &snowflake_format, .mark = MARK_SNOWFLAKE, .records_epoch = true,
		.variants = 1, .first_slot = 2 + SIQ_NAMED_KINDS,
		.nidentities = 2, .identities = {IDENTITY_SNOWFLAKE_WORKER, IDENTITY_SNOWFLAKE_PROCESS},
		.pool = snowflake_pool, .describe_settings = epoch_describe,
	},
};

StaticAssertDecl(3 + SIQ_NAMED_KINDS == GEN_SLOT_COUNT, "every generator variant has a slot");

char *
generator_variant_label(const GeneratorDef *def, int variant)
{
	return def->variant_name ? psprintf("%s %s", def->name, def->variant_name(variant)) : pstrdup(def->name);
}

static char slot_names[GEN_SLOT_COUNT][PERSISTED_NAME_MAX];

const char *
generator_slot_name(int slot)
{
	Assert(slot >= 0 && slot < GEN_SLOT_COUNT);
	if (slot_names[0][0] == '\0')
		for (int g = 0; g < GEN_COUNT; g++)
		{
			const GeneratorDef *def = &generator_defs[g];

			for (int v = 0; v < def->variants; v++)
				if (def->variant_name)
					snprintf(slot_names[def->first_slot + v], PERSISTED_NAME_MAX, "%s %s", def->name,
							 def->variant_name(v));
				else
					strlcpy(slot_names[def->first_slot + v], def->name, PERSISTED_NAME_MAX);
		}
	return slot_names[slot];
}

int
generator_slot_by_name(const char *name)
{
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		if (strcmp(generator_slot_name(s), name) == 0)
			return s;
	return -1;
}
