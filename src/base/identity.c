/*
 * identity.c — what makes this server's IDs its own: the identity settings
 * (sno partition, siq shard and domain, kuid node, snowflake worker and
 * process) and sno's sequence pool, as they resolve (their definitions
 * and checks: identity_settings.c)
 *
 * An identity setting of -1 (or an empty kuid node name) is derived, once
 * per server start, by the first backend that needs it:
 *
 *   - on a node of a Citus cluster (Citus in the backend's database, and
 *     the node's own group a primary in its pg_dist_node), from the node's
 *     group id: distinct groups give distinct identities by construction,
 *     and a group too large for an identity's bits is an error, never a
 *     chance;
 *   - otherwise from the cluster's system identifier and timeline, which
 *     suits a single server: a promoted standby is on a new timeline and so
 *     gets a new identity.  Other servers that mint IDs into the same data
 *     must set distinct identities.
 *
 * A setting always wins.  A standby never derives (it shares its primary's
 * system identifier and Citus group).
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "base/identity.h"
#include "base/identity_internal.h"
#include "base/settings.h"
#include "base/shmem.h"
#include "base/table.h"
#include "format/sno.h"

/*
 * An identity: its setting's value, or -1 to derive it.  From the cluster
 * fingerprint it takes `mask` wide bits from `shift`; from a Citus group,
 * (group >> group_shift) & mask, for groups below group_limit (snowflake's
 * worker and process together carry the group's 10 bits).  A named identity
 * (kuid's Erlang node name) is configured as text and used through its
 * fingerprint.
 */
typedef struct IdentityDef
{
	SettingId	setting;
	const char *label;			/* for the view: "partition 4660" */
	const char *type_name;		/* the type that carries it */
	int		   *value;
	char	  **name;			/* the setting, when it is a name */
	int			shift;
	uint32		mask;
	int			group_shift;
	int32		group_limit;
} IdentityDef;

/* each identity takes its own bits of the 64-bit cluster fingerprint */
static const IdentityDef identities[IDENTITY_COUNT] = {
	[IDENTITY_SNO_PARTITION] = {SETTING_SNO_PARTITION, "partition", "sno", &identity_sno_partition_setting, NULL, 0, 0xFFFF, 0, 1 << 16},
	[IDENTITY_SIQ_SHARD] = {SETTING_SIQ_SHARD, "shard", "siq", &identity_siq_shard_setting, NULL, 16, 0xFF, 0, 1 << 8},
	[IDENTITY_KUID_NODE] = {SETTING_KUID_NODE, "node", "kuid96", &identity_kuid_node_fingerprint_value, &identity_kuid_node_setting, 32, 0xFFFFFFFF, 0, 1 << 28},
	[IDENTITY_SNOWFLAKE_WORKER] = {SETTING_SNOWFLAKE_WORKER, "worker", "snowflake", &identity_snowflake_worker_setting, NULL, 24, 0x1F, 5, 1 << 10},
	[IDENTITY_SNOWFLAKE_PROCESS] = {SETTING_SNOWFLAKE_PROCESS, "process", "snowflake", &identity_snowflake_process_setting, NULL, 29, 0x1F, 0, 1 << 10},
};

/*
 * A derived identity in shared memory, one atomic word so that every backend
 * sees one value and where it came from: the value + 1 (bits 0-32, 0 = not
 * derived yet), its source (bits 33-34) and the Citus group (bits 35-63).
 */
typedef enum IdentitySource
{
	SOURCE_SYSTEM_IDENTIFIER = 1,
	SOURCE_CITUS_GROUP = 2
} IdentitySource;

#define DERIVED_VALUE(word)		((uint32) (((word) & UINT64CONST(0x1FFFFFFFF)) - 1))
#define DERIVED_SOURCE(word)	((IdentitySource) (((word) >> 33) & 3))
#define DERIVED_GROUP(word)		((int32) ((word) >> 35))

static uint64
derived_word(uint32 value, IdentitySource source, int32 group)
{
	return ((uint64) value + 1) | ((uint64) source << 33) | ((uint64) group << 35);
}

/* the derived identities, in shared memory */
typedef struct IdentityShared
{
	pg_atomic_uint64 derived[IDENTITY_COUNT];	/* derived_word(); 0 = not derived yet */
} IdentityShared;

static IdentityShared *identity_shared = NULL;

static void
identity_shared_init(void *part)
{
	for (int i = 0; i < IDENTITY_COUNT; i++)
		pg_atomic_init_u64(&((IdentityShared *) part)->derived[i], 0);
}

/* the name of an identity's setting */
#define SETTING_NAME(id)	(setting_defs[(id)->setting].name)

/* per-backend cache of resolved identities: value + 1, 0 = not resolved yet */
static uint64 identity_cached[IDENTITY_COUNT];

/* the shared part of the derived identities (identity_init, identity_settings.c) */
void
identity_request_shared(void)
{
	shmem_request_part(&(ShmemPart) {.name = "flakeid identities", .size = sizeof(IdentityShared), .address = (void **) &identity_shared, .init = identity_shared_init});
}

static uint64 derived_identity_seed(void);

void
identity_effective(int64 values[IDENTITY_COUNT])
{
	for (int i = 0; i < IDENTITY_COUNT; i++)
	{
		const IdentityDef *id = &identities[i];
		uint64		derived = identity_shared != NULL ? pg_atomic_read_u64(&identity_shared->derived[i]) : 0;

		/*
		 * Set; or derived (as this server derived it, or as it will from the
		 * system identifier and the timeline it writes on: what the first
		 * derivation gives outside Citus); or not known (-1: during
		 * recovery, where no timeline of its own is written yet).
		 */
		if (*id->value >= 0)
			values[i] = *id->value;
		else if (derived != 0)
			values[i] = DERIVED_VALUE(derived);
		else if (!RecoveryInProgress())
			values[i] = (int64) ((derived_identity_seed() >> id->shift) & id->mask);
		else
			values[i] = -1;
	}
}

uint32
identity_promotion_conflicts(const int64 upstream[IDENTITY_COUNT], bool known)
{
	/* kuid writes no identity, and so is always the upstream's */
	uint32		conflicts = PROMOTED_PLAIN_KUID;
	int64		now[IDENTITY_COUNT];

	identity_effective(now);

	for (int g = 0; g < GEN_COUNT; g++)
	{
		const GeneratorDef *def = &generator_defs[g];
		/* (kuid96's node is resolved by kuid96 itself: GEN_KUID names none) */
		static const IdentityKind kuid96_node[1] = {IDENTITY_KUID_NODE};
		const IdentityKind *kinds = g == GEN_KUID ? kuid96_node : def->identities;
		int			nkinds = g == GEN_KUID ? 1 : def->nidentities;
		bool		same = true;

		/*
		 * Every identity the generator writes equal to the upstream's, as
		 * each generates with it: set, or derived (a derived one is the
		 * timeline's, which the promotion changed, but it is a few bits of
		 * a hash, so the next timeline's equals it by chance: one cluster
		 * in 32 for a snowflake worker; and a value set here may be the
		 * one the upstream derived: 1.5's reviewer).  With the upstream's
		 * unknown (a witness of 1.4), every identity set here is taken for
		 * its own, and a derived one for the timeline's.
		 */
		for (int i = 0; i < nkinds; i++)
		{
			IdentityKind kind = kinds[i];

			if (known ? (upstream[kind] < 0 || upstream[kind] != now[kind]) : *identities[kind].value < 0)
				same = false;
		}
		if (same)
			conflicts |= 1u << g;
	}
	return conflicts;
}

/* Logged once at server start, so the log says which identities are derived. */
void
identity_log_settings(void)
{
	for (int i = 0; i < IDENTITY_COUNT; i++)
	{
		const IdentityDef *id = &identities[i];
		char	   *refused = settings_describe_rejected(id->setting);

		if (refused != NULL)
			ereport(LOG,
					(errmsg("%s: the %s generator refuses to generate until it is corrected", refused, id->type_name),
					 errdetail("PostgreSQL kept the default in its place, which flakeid does not derive an identity from.")));
		else if (*id->value < 0)
			ereport(LOG,
					(errmsg("%s is not set: it will be derived from this node's Citus group, or outside a Citus cluster from the system identifier and timeline",
							SETTING_NAME(id)),
					 errdetail("Servers outside one Citus cluster that mint %s IDs into the same data must each set a distinct %s.",
							   id->type_name, SETTING_NAME(id))));
		else if (id->name)
			ereport(LOG, (errmsg("%s = '%s' (fingerprint %d)", SETTING_NAME(id), *id->name, *id->value)));
		else
			ereport(LOG, (errmsg("%s = %d", SETTING_NAME(id), *id->value)));
	}
	if (!sno_pool_is_valid(identity_sno_sequence_min, identity_sno_sequence_max))
		ereport(WARNING,
				(errmsg("flakeid.sno_sequence_min (%d) and flakeid.sno_sequence_max (%d) do not form a valid pool; sno generation will fail",
						identity_sno_sequence_min, identity_sno_sequence_max),
				 errhint("Set flakeid.sno_sequence_min <= flakeid.sno_sequence_max with at least %d values between them.",
						 SNO_MIN_POOL)));
}

/* --- resolving ----------------------------------------------------------------------- */

/*
 * A 64-bit fingerprint of this cluster and timeline (splitmix64 finaliser),
 * from which derived identities take their bits.
 */
static uint64
derived_identity_seed(void)
{
	uint64		x;

	x = GetSystemIdentifier() ^ ((uint64) GetWALInsertionTimeLine() * UINT64CONST(0x9E3779B97F4A7C15));
	x = (x ^ (x >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64CONST(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

/* the identity of `id` derived from this server: its Citus group, else its system identifier */
static uint64
derive_identity(const IdentityDef *id)
{
	int32		group;

	if (citus_group(&group))
	{
		if (group >= id->group_limit)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot derive %s from Citus group %d", SETTING_NAME(id), group),
					 errdetail("%s IDs have room for %d distinct nodes when %s is derived from the group.",
							   id->type_name, id->group_limit, SETTING_NAME(id)),
					 errhint("Set %s on every node to a value no other node uses.", SETTING_NAME(id))));
		return derived_word((uint32) ((group >> id->group_shift) & id->mask), SOURCE_CITUS_GROUP, group);
	}

	/*
	 * On a server that runs Citus, a database without it cannot see the
	 * group, and the first derivation is the server's until it stops: 1.2
	 * let a first call in such a database fix the system identifier's
	 * identity, which two nodes' groups do not keep apart.
	 */
	if (citus_group_out_of_reach())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot derive %s in a database without Citus on a server that runs Citus", SETTING_NAME(id)),
				 errdetail("The identity is derived once per start from this node's Citus group, which only a database with the citus extension can read."),
				 errhint("Generate the first ID after each start in the database with the citus extension, or set %s on every node to a value no other node uses.",
						 SETTING_NAME(id))));
	return derived_word((uint32) ((derived_identity_seed() >> id->shift) & id->mask), SOURCE_SYSTEM_IDENTIFIER, 0);
}

uint32
flakeid_identity(IdentityKind kind)
{
	const IdentityDef *id = &identities[kind];
	uint64		derived;

	if (likely(identity_cached[kind] != 0))
		return (uint32) (identity_cached[kind] - 1);
	settings_refuse_rejected(id->setting, id->type_name);
	if (*id->value >= 0)
	{
		return (uint32) ((identity_cached[kind] = (uint64) *id->value + 1) - 1);
	}

	shmem_require(SETTING_NAME(id));
	derived = pg_atomic_read_u64(&identity_shared->derived[kind]);
	if (derived == 0)
	{
		uint64		expected = 0;

		/*
		 * A standby shares the primary's system identifier and timeline, so a
		 * derived identity there would collide with the primary's.
		 */
		if (RecoveryInProgress())
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot generate IDs with a derived identity during recovery"),
					 errdetail("%s is derived from the system identifier, which a standby shares with its primary.",
							   SETTING_NAME(id)),
					 errhint("Set %s to a value no other server uses, or generate IDs on the primary.",
							 SETTING_NAME(id))));
		derived = derive_identity(id);

		/*
		 * The first derivation wins: backends in databases with and without
		 * Citus could derive differently, and a server has one identity.
		 */
		if (!pg_atomic_compare_exchange_u64(&identity_shared->derived[kind], &expected, derived))
			derived = expected;
		else if (DERIVED_SOURCE(derived) == SOURCE_CITUS_GROUP)
			ereport(LOG,
					(errmsg("derived %s = %u from Citus group %d", SETTING_NAME(id), DERIVED_VALUE(derived),
							DERIVED_GROUP(derived))));
		else
			ereport(LOG,
					(errmsg("derived %s = %u from system identifier " UINT64_FORMAT " and the current timeline",
							SETTING_NAME(id), DERIVED_VALUE(derived), GetSystemIdentifier())));
	}
	identity_cached[kind] = (uint64) DERIVED_VALUE(derived) + 1;
	return DERIVED_VALUE(derived);
}

/* the pool settings are fixed at server start: checked once per backend */
CounterPool
identity_sno_pool(void)
{
	static bool checked = false;

	if (unlikely(!checked))
	{
		if (!sno_pool_is_valid(identity_sno_sequence_min, identity_sno_sequence_max))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("flakeid.sno_sequence_min (%d) and flakeid.sno_sequence_max (%d) do not form a valid sequence pool",
							identity_sno_sequence_min, identity_sno_sequence_max),
					 errhint("Set flakeid.sno_sequence_min <= flakeid.sno_sequence_max with at least %d values between them, and restart the server.",
							 SNO_MIN_POOL)));
		checked = true;
	}
	return (CounterPool) {(uint32) identity_sno_sequence_min, (uint32) identity_sno_sequence_max};
}

/* the configured domain's hash, computed once per backend (the check hook refused non-ASCII) */
uint32
flakeid_siq_domain_hash(void)
{
	static bool done = false;
	static uint32 hash;

	if (unlikely(!done))
	{
		const char *domain = identity_siq_domain_setting ? identity_siq_domain_setting : "";

		if (!siq_hash_domain(domain, strlen(domain), &hash))
			ereport(ERROR,
					(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
					 errmsg("flakeid.siq_domain is not ASCII")));
		done = true;
	}
	return hash;
}

/* --- for the view ------------------------------------------------------------------- */

/* where a derived identity came from, for the view and flakeid_identities */
static char *
describe_source(uint64 derived)
{
	if (DERIVED_SOURCE(derived) == SOURCE_CITUS_GROUP)
		return psprintf("derived from Citus group %d", DERIVED_GROUP(derived));
	return pstrdup("derived from the system identifier and timeline");
}

char *
identity_describe(IdentityKind kind)
{
	const IdentityDef *id = &identities[kind];
	uint64		derived;

	if (*id->value >= 0)		/* "partition 4660", a node name with its fingerprint */
		return id->name ? psprintf("%s '%s' (fingerprint %d)", id->label, *id->name, *id->value)
			: psprintf("%s %d", id->label, *id->value);
	derived = pg_atomic_read_u64(&identity_shared->derived[kind]);
	if (derived == 0)
		return psprintf("%s derived, not yet resolved", id->label);
	return psprintf("%s %u (%s)", id->label, DERIVED_VALUE(derived), describe_source(derived));
}

const char *
identity_label(IdentityKind kind)
{
	return identities[kind].label;
}

int
identity_bits(IdentityKind kind)
{
	return pg_leftmost_one_pos32(identities[kind].mask) + 1;
}

/* (flakeid_identities() raised these two, and listed no type: 1.5's twenty-third auditor) */
bool
identity_peek(IdentityKind kind, uint32 *value, char **why_not)
{
	const IdentityDef *id = &identities[kind];
	char	   *refused = settings_describe_rejected(id->setting);

	if (refused != NULL)
	{
		*why_not = psprintf("%s at start: the %s generator refuses to generate until it is corrected and the server restarted",
							refused, id->type_name);
		return false;
	}
	if (*id->value < 0 && identity_cached[kind] == 0 &&
		pg_atomic_read_u64(&identity_shared->derived[kind]) == 0 && RecoveryInProgress())
	{
		*why_not = psprintf("derived, not during recovery: a standby shares its primary's system identifier (to generate here, set %s to a value no other server uses, and flakeid.generate_on_standby)",
							SETTING_NAME(id));
		return false;
	}
	*value = flakeid_identity(kind);
	return true;
}

char *
identity_describe_origin(IdentityKind kind)
{
	const IdentityDef *id = &identities[kind];

	if (*id->value >= 0)
		return psprintf("set by %s", SETTING_NAME(id));
	return describe_source(pg_atomic_read_u64(&identity_shared->derived[kind]));
}

char *
identity_describe_sno_pool(void)
{
	return psprintf("sequences %d..%d", identity_sno_sequence_min, identity_sno_sequence_max);
}

char *
identity_describe_siq_domain(void)
{
	return psprintf("domain '%s'", identity_siq_domain_setting ? identity_siq_domain_setting : "");
}
