/*
 * identity_internal.h — what identity.c, identity_settings.c and
 * citus_group.c share: the settings' values, the shared part of the derived
 * identities, and this node's Citus group.  Only those three include this.
 */
#ifndef FLAKEID_IDENTITY_INTERNAL_H
#define FLAKEID_IDENTITY_INTERNAL_H

/* the settings' values (identity_settings.c); -1, or an empty name, derives */
extern int	identity_sno_partition_setting;
extern int	identity_sno_sequence_min;
extern int	identity_sno_sequence_max;
extern int	identity_siq_shard_setting;
extern char *identity_siq_domain_setting;
extern char *identity_kuid_node_setting;
extern int	identity_kuid_node_fingerprint_value;	/* of identity_kuid_node_setting; -1 = derived */
extern int	identity_snowflake_worker_setting;
extern int	identity_snowflake_process_setting;

/* asks for the shared part of the derived identities (identity.c), from identity_init */
extern void identity_request_shared(void);

/*
 * citus_group.c: whether this server runs Citus (shared_preload_libraries
 * names it) but this backend cannot read its group: its database has no
 * citus extension.
 */
extern bool citus_group_out_of_reach(void);

/*
 * This node's group when the backend's database has Citus and the group is
 * an active primary in the node's own pg_dist_node; false otherwise.  Runs a
 * query through SPI, the same whoever calls; raises if Citus's catalog
 * cannot be read.
 */
extern bool citus_group(int32 *group);

#endif							/* FLAKEID_IDENTITY_INTERNAL_H */
