/*
 * views.c — flakeid_generators(), flakeid_identities() and
 * flakeid_horizon_holders(): what the generators did, what this server's
 * IDs carry, and who holds the horizon back
 */
#include "postgres.h"

#include "access/transam.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "base/clock.h"
#include "base/identity.h"
#include "base/settings.h"
#include "base/shmem.h"
#include "base/stats.h"
#include "base/table.h"
#include "generator/counters.h"
#include "generator/horizon_cells.h"
#include "horizon/horizon.h"

/* "partition 7, sequences 0..65535": the identities, then the other settings it writes */
static char *
describe_settings(const GeneratorDef *def)
{
	StringInfoData text;

	initStringInfo(&text);
	for (int i = 0; i < def->nidentities; i++)
		appendStringInfo(&text, "%s%s", i > 0 ? ", " : "", identity_describe(def->identities[i]));
	if (def->describe_settings)
		appendStringInfo(&text, "%s%s", def->nidentities > 0 ? ", " : "", def->describe_settings());
	/* SHOW gives the default a refused value left in place: say what the configuration asked for */
	for (int i = 0; i < SETTING_COUNT; i++)
	{
		char	   *refused = setting_read_by((SettingId) i, def->id) ? settings_describe_rejected((SettingId) i) : NULL;

		if (refused)
			appendStringInfo(&text, "%s%s", text.len > 0 ? "; " : "", refused);
	}
	return text.data;
}

/* one row of the view: a generator variant */
static void
put_row(ReturnSetInfo *rsinfo, const GeneratorDef *def, int variant)
{
	uint64		word = pg_atomic_read_u64(slot_word(def->first_slot + variant));
	SlotCounts	counts = stats_read(def->first_slot + variant);
	Datum		values[8];
	bool		nulls[8] = {false};

	values[0] = CStringGetTextDatum(generator_variant_label(def, variant));
	values[1] = CStringGetTextDatum(describe_settings(def));
	values[2] = Int64GetDatum(counts.issued);
	values[3] = Int64GetDatum(counts.exhausted_waits);
	values[4] = Int64GetDatum(counts.clock_regressions);
	values[5] = Int32GetDatum(counter_flag(word) ? 1 : 0);
	nulls[5] = !def->ticktock;
	/* the start of the last used unit; nothing before the first ID or saved mark */
	values[6] = TimestampTzGetDatum(flakeid_timestamptz_from_unix_us(def->format->unit_start(counter_unit(word))));
	nulls[6] = word == 0;
	values[7] = CStringGetTextDatum(clock_describe(def));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

PG_FUNCTION_INFO_V1(flakeid_generators);
Datum
flakeid_generators(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	shmem_require("flakeid_generators()");
	stats_flush();				/* this backend's own IDs count at once */
	InitMaterializedSRF(fcinfo, 0);
	for (int g = 0; g < GEN_COUNT; g++)
		for (int v = 0; v < generator_defs[g].variants; v++)
			put_row(rsinfo, &generator_defs[g], v);
	return (Datum) 0;
}

/*
 * What a type's IDs carry to tell this server's from another's: its
 * identities (resolved, so derived ones are derived now), and the bits they
 * put into every ID as one number, so that flakeid_cluster_identities() can
 * compare nodes.  kuid carries none.
 */
typedef struct TypeIdentities
{
	const char *type_name;
	int			count;
	IdentityKind kinds[2];		/* in the order the type's bits carry them */
	bool		with_domain;	/* siq IDs also carry the domain hash, above the shard */
} TypeIdentities;

static const TypeIdentities type_identities[] = {
	{"sno", 1, {IDENTITY_SNO_PARTITION}, false},
	{"siq", 1, {IDENTITY_SIQ_SHARD}, true},
	{"kuid", 0, {0}, false},
	{"kuid96", 1, {IDENTITY_KUID_NODE}, false},
	{"snowflake", 2, {IDENTITY_SNOWFLAKE_WORKER, IDENTITY_SNOWFLAKE_PROCESS}, false},
};

PG_FUNCTION_INFO_V1(flakeid_identities);
Datum
flakeid_identities(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	shmem_require("flakeid_identities()");
	InitMaterializedSRF(fcinfo, 0);
	for (int t = 0; t < (int) lengthof(type_identities); t++)
	{
		const TypeIdentities *type = &type_identities[t];
		StringInfoData text;
		StringInfoData source;
		StringInfoData refused;
		int64		carried = 0;
		Datum		values[4];
		bool		nulls[4] = {false};

		initStringInfo(&text);
		initStringInfo(&source);
		initStringInfo(&refused);
		for (int i = 0; i < type->count; i++)
		{
			IdentityKind kind = type->kinds[i];
			uint32		value = 0;
			char	   *why_not = NULL;
			char	   *origin;

			/* (a type one of whose identities cannot be had: no value, and the source says why) */
			if (!identity_peek(kind, &value, &why_not))
			{
				appendStringInfo(&refused, "%s%s", refused.len > 0 ? "; " : "", why_not);
				continue;
			}
			origin = identity_describe_origin(kind);
			appendStringInfo(&text, "%s%s %u", i > 0 ? ", " : "", identity_label(kind), value);
			if (i == 0 || strcmp(origin, source.data) != 0)
				appendStringInfo(&source, "%s%s", i > 0 ? "; " : "", origin);
			carried = (carried << identity_bits(kind)) | value;
		}
		/* (siq's domain is part of its identity: one refused, none is had: the twenty-eighth auditor) */
		if (type->with_domain && settings_describe_rejected(SETTING_SIQ_DOMAIN) != NULL)
			appendStringInfo(&refused, "%s%s at start: the siq generator refuses to generate until it is corrected and the server restarted",
							 refused.len > 0 ? "; " : "", settings_describe_rejected(SETTING_SIQ_DOMAIN));
		if (type->with_domain && refused.len == 0)
		{
			appendStringInfo(&text, ", %s", identity_describe_siq_domain());
			carried |= (int64) flakeid_siq_domain_hash() << identity_bits(IDENTITY_SIQ_SHARD);
		}
		values[0] = CStringGetTextDatum(type->type_name);
		values[1] = CStringGetTextDatum(text.data);
		values[2] = Int64GetDatum(carried);
		values[3] = CStringGetTextDatum(refused.len > 0 ? refused.data : type->count > 0 ? source.data
										: "none: kuid IDs carry no node; kuid96 is the form for several servers");
		nulls[1] = nulls[2] = type->count == 0 || refused.len > 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* the rows of one process's cells or one prepared transaction's holding: one per generator variant held */
static void
put_holder_rows(ReturnSetInfo *rsinfo, const uint64 units[GEN_SLOT_COUNT], int pid, TransactionId xid, bool prepared)
{
	for (int g = 0; g < GEN_COUNT; g++)
	{
		const GeneratorDef *def = &generator_defs[g];

		for (int v = 0; v < def->variants; v++)
		{
			uint64		unit = units[def->first_slot + v];
			Datum		values[5];
			bool		nulls[5] = {false};

			if (unit == HORIZON_NONE)
				continue;
			values[0] = CStringGetTextDatum(generator_variant_label(def, v));
			values[1] = Int32GetDatum(pid);
			nulls[1] = prepared;
			values[2] = TransactionIdGetDatum(xid);
			nulls[2] = !TransactionIdIsValid(xid);
			values[3] = TimestampTzGetDatum(flakeid_timestamptz_from_unix_us(def->format->unit_start(unit)));
			values[4] = BoolGetDatum(prepared);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
}

/*
 * Who holds each generator's horizon back: every open transaction that has
 * issued IDs (its backend's pid, its top transaction ID if it has one) and
 * every prepared transaction that did, with the start of the unit held,
 * which is when its first ID's counter stood there.  A parallel worker's
 * IDs count for its leader.
 */
PG_FUNCTION_INFO_V1(flakeid_horizon_holders);
Datum
flakeid_horizon_holders(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	PreparedHolding *holdings;
	int			nholdings;
	uint64		units[GEN_SLOT_COUNT];

	shmem_require("flakeid_horizon_holders()");
	nholdings = horizon_prepared_holdings(&holdings);
	InitMaterializedSRF(fcinfo, 0);
	for (int p = 0; p < horizon_cells_nprocs(); p++)
	{
		int			pid;
		TransactionId xid;

		if (horizon_cells_of_process(p, units, &pid, &xid))
			put_holder_rows(rsinfo, units, pid, xid, false);
	}
	for (int i = 0; i < nholdings; i++)
		put_holder_rows(rsinfo, holdings[i].unit, 0, XidFromFullTransactionId(holdings[i].fxid), true);
	return (Datum) 0;
}
