/*
 * citus_group.h — this node's Citus group, for the derived identities
 */
#ifndef FLAKEID_CITUS_GROUP_H
#define FLAKEID_CITUS_GROUP_H

/*
 * Whether this server runs Citus (shared_preload_libraries names it) but
 * this backend cannot read its group: its database has no citus extension.
 */
extern bool citus_group_out_of_reach(void);

/*
 * This node's group when the backend's database has Citus and the group is
 * an active primary in the node's own pg_dist_node; false otherwise.  Runs a
 * query through SPI, the same whoever calls; raises if Citus's catalog
 * cannot be read.
 */
extern bool citus_group(int32 *group);

#endif
