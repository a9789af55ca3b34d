/*
 * vclock.h — the uid library's vector clocks (docs/spec/kuid.md §8) on kuid96
 *
 * A clock is a list of kuid96 entries, at most one per node.  Two entries
 * of one node compare as the library's term order does (time, then
 * sequence), which for kuid96 bytes of one node is memcmp order.  Clocks
 * are arrays of KUID96_SIZE-byte entries; the functions that need an order
 * by node take one sorted by vclock_sort.  Pure C, no PostgreSQL headers,
 * and no allocation: the caller gives the buffers.
 */
#ifndef FLAKEID_FORMAT_VCLOCK_H
#define FLAKEID_FORMAT_VCLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kuid.h"

typedef struct VclockEntry
{
	uint8_t		id[KUID96_SIZE];
} VclockEntry;

extern uint32_t vclock_node(const VclockEntry *entry);

/* Sorts by node (then by entry, so that the order is total). */
extern void vclock_sort(VclockEntry *clock, size_t n);

/* In a clock sorted by node: true, with *node set, if some node has two entries. */
extern bool vclock_duplicate_node(const VclockEntry *sorted, size_t n, uint32_t *node);

/*
 * join: per node the larger entry, sorted by node (the library's keysort
 * and merge).  `out` has room for na + nb entries; returns the count.
 */
extern size_t vclock_join(const VclockEntry *a_sorted, size_t na, const VclockEntry *b_sorted, size_t nb,
						  VclockEntry *out);

/*
 * descend: every entry of b has an entry of its node in a that is at least
 * as large; true when b is empty.  With `ignore`, the entries of node
 * `ignored` in either clock do not count (descend/3).
 */
extern bool vclock_descends(const VclockEntry *a_sorted, size_t na, const VclockEntry *b, size_t nb,
							bool ignore, uint32_t ignored);

/* diff: how an entry of b stands against a */
typedef enum VclockStanding
{
	VCLOCK_COVERED,				/* a has the node, with an entry at least as large */
	VCLOCK_UNKNOWN_NODE,		/* a has no entry of the node */
	VCLOCK_AHEAD				/* a has the node, with a smaller entry */
} VclockStanding;

extern VclockStanding vclock_standing(const VclockEntry *a_sorted, size_t na, const VclockEntry *entry,
									  const VclockEntry **in_a);

#endif
