/*
 * table.h — the table of generators: each one's format, rule, identities,
 * pool and counter slots, as data that every layer above reads
 */
#ifndef FLAKEID_TABLE_H
#define FLAKEID_TABLE_H

#include "postgres.h"

#include "generator/defs.h"

extern const GeneratorDef generator_defs[GEN_COUNT];

/* "sno", "siq user": a generator variant as flakeid_generators names it (palloc'd) */
extern char *generator_variant_label(const GeneratorDef *def, int variant);

#endif
