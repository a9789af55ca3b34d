/*
 * identity_internal.h — what identity.c and identity_settings.c share: the
 * settings' values and the shared part of the derived identities.  Only
 * base/identity*.c include this.
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

#endif							/* FLAKEID_IDENTITY_INTERNAL_H */
