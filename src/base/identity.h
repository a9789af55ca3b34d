/*
 * identity.h — what makes this server's IDs its own: the identity settings
 * (sno partition, siq shard and domain, kuid node, snowflake worker and
 * process), sno's sequence pool and flakeid.generate_on_standby
 */
#ifndef FLAKEID_IDENTITY_H
#define FLAKEID_IDENTITY_H

#include "base/defs.h"

/* defines the identity and pool settings, asks for the shared part (from _PG_init, while preloading) */
extern void identity_init(void);

/* logs at start which identities are set and which derived; WARNING for a bad sno pool */
extern void identity_log_settings(void);

/* flakeid.generate_on_standby */
extern bool identity_generate_on_standby(void);

/* flakeid.promotion_keeps_identities (reloadable) */
extern bool identity_promotion_keeps(void);

/*
 * Each identity as this server generates with it: the setting (kuid_node:
 * its fingerprint), or the derived value (derived already, or as it will
 * be from the system identifier and timeline); -1 where it is derived and
 * not known yet (during recovery)
 */
extern void identity_effective(int64 values[IDENTITY_COUNT]);

/*
 * On a server promoted from a standby: the generators (a bit per
 * GeneratorId, GEN_KUID for kuid96) whose every identity is set here to the
 * value its upstream generated with (`upstream`, as identity_effective
 * gave it there; every value when !known), and PROMOTED_PLAIN_KUID always
 * (kuid writes no identity): beside the upstream, if it still runs, they
 * would issue its IDs from the marks both share.  Never 0: only
 * flakeid.promotion_keeps_identities ends kuid's refusal.
 */
extern uint32 identity_promotion_conflicts(const int64 upstream[IDENTITY_COUNT], bool known);

/*
 * The identity this server writes into IDs: the setting, or one derived
 * from the node's Citus group or the system identifier and timeline
 * (cached per backend).  Raises 55000 for a derived identity during
 * recovery, or without the preload; 22023 for a refused setting.
 */
extern uint32 flakeid_identity(IdentityKind kind);

/* the hash of flakeid.siq_domain (checked as ASCII when set) */
extern uint32 flakeid_siq_domain_hash(void);

/* flakeid.sno_sequence_min..max; raises 22023 naming both when they are not a pool */
extern CounterPool identity_sno_pool(void);

/* --- for the views ---------------------------------------------------------- */

/*
 * "partition 4660", "partition 2 (derived from Citus group 2)", "partition
 * 123 (derived from the system identifier and timeline)" or "partition
 * derived, not yet resolved"; never resolves a derived one
 */
extern char *identity_describe(IdentityKind kind);
/*
 * The identity flakeid_identity gives, or false with *why_not where that
 * would refuse for one of two reasons a view must show rather than raise:
 * a setting the server refused at start, or a derived one not resolved
 * during recovery (a standby derives none).  Other refusals still raise.
 */
extern bool identity_peek(IdentityKind kind, uint32 *value, char **why_not);
/* "set by flakeid.siq_shard" or where the derived value came from */
extern char *identity_describe_origin(IdentityKind kind);
/* "partition" */
extern const char *identity_label(IdentityKind kind);
/* how many bits an ID gives the identity */
extern int	identity_bits(IdentityKind kind);
extern char *identity_describe_sno_pool(void);
extern char *identity_describe_siq_domain(void);

#endif
