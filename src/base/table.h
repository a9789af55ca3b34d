/*
 * table.h — the table of generators: each one's format, rule, identities,
 * pool and counter slots, as data that every layer above reads
 */
#ifndef FLAKEID_TABLE_H
#define FLAKEID_TABLE_H

#include "base/defs.h"

extern const GeneratorDef generator_defs[GEN_COUNT];

/* "sno", "siq user": a generator variant as flakeid_generators names it (palloc'd) */
extern char *generator_variant_label(const GeneratorDef *def, int variant);

/*
 * A counter slot's name, as flakeid's files and WAL records name it (the
 * label of its generator variant: "sno", "siq user", "kuid", "snowflake"),
 * and the slot of a name (-1: none of this flakeid's).  No allocation: the
 * postmaster calls them at start.
 */
extern const char *generator_slot_name(int slot);
extern int	generator_slot_by_name(const char *name);

#endif
