/*
 * citus_group.c — what this node's Citus metadata says, for the derived
 * identities (identity.c)
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "utils/guc.h"
#include "utils/varlena.h"

#include "base/identity_internal.h"

/* whether shared_preload_libraries names Citus ("citus" or a path ending in "/citus") */
static bool
citus_preloaded(void)
{
	char	   *libraries = pstrdup(GetConfigOption("shared_preload_libraries", false, false));
	List	   *names = NIL;
	ListCell   *cell;
	bool		found = false;

	if (!SplitDirectoriesString(libraries, ',', &names))
		return false;
	foreach(cell, names)
	{
		const char *name = (const char *) lfirst(cell);
		const char *base = strrchr(name, '/');

		found |= strcmp(base ? base + 1 : name, "citus") == 0;
	}
	return found;
}

/*
 * This node's group id when the backend's database has Citus and the group
 * is a primary in the node's own pg_dist_node: a coordinator registered in
 * its metadata, or a worker the coordinator added.  A node outside a cluster
 * (a worker not yet added sees group 0, the coordinator's) gives false.
 * Runs a query; raises if Citus's catalog cannot be read.
 *
 * The query is the same whoever calls: every name and operator in it is
 * qualified and search_path is pinned to pg_catalog for it (1.2 resolved
 * "=" through the caller's search_path, so a role with CREATE on a schema
 * ran its own operator inside the derivation); it runs as the caller, whose
 * privileges on Citus's catalog (readable by PUBLIC) are all it needs.
 */
bool
citus_group(int32 *group)
{
	bool		member = false;
	int			nest_level;

	if (!IsTransactionState() || !OidIsValid(get_extension_oid("citus", true)))
		return false;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	nest_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	if (SPI_execute("SELECT l.groupid FROM pg_catalog.pg_dist_local_group l"
					" WHERE EXISTS (SELECT FROM pg_catalog.pg_dist_node n"
					" WHERE n.groupid OPERATOR(pg_catalog.=) l.groupid"
					" AND n.noderole OPERATOR(pg_catalog.=) 'primary' AND n.isactive)",
					true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read this node's Citus group");
	AtEOXact_GUC(true, nest_level);
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull && SPI_gettypeid(SPI_tuptable->tupdesc, 1) == INT4OID)
		{
			*group = DatumGetInt32(value);
			member = *group >= 0;
		}
	}
	SPI_finish();
	return member;
}


bool
citus_group_out_of_reach(void)
{
	return citus_preloaded() && (!IsTransactionState() || !OidIsValid(get_extension_oid("citus", true)));
}
