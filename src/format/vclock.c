/*
 * vclock.c — the uid library's vector clocks on kuid96 (see vclock.h)
 */
#include "vclock.h"

#include <stdlib.h>
#include <string.h>

uint32_t
vclock_node(const VclockEntry *entry)
{
	uint32_t	node;
	KuidFields	fields;

	kuid96_unpack(entry->id, &fields, &node);
	return node;
}

static int
compare_entries(const void *a, const void *b)
{
	uint32_t	na = vclock_node(a),
				nb = vclock_node(b);

	if (na != nb)
		return na < nb ? -1 : 1;
	return memcmp(a, b, KUID96_SIZE);
}

void
vclock_sort(VclockEntry *clock, size_t n)
{
	if (n > 1)
		qsort(clock, n, sizeof(VclockEntry), compare_entries);
}

bool
vclock_duplicate_node(const VclockEntry *sorted, size_t n, uint32_t *node)
{
	for (size_t i = 1; i < n; i++)
		if (vclock_node(&sorted[i]) == vclock_node(&sorted[i - 1]))
		{
			*node = vclock_node(&sorted[i]);
			return true;
		}
	return false;
}

/* In a clock sorted by node: the entry of `node`, or NULL. */
static const VclockEntry *
vclock_find(const VclockEntry *sorted, size_t n, uint32_t node)
{
	size_t		low = 0,
				high = n;

	while (low < high)
	{
		size_t		mid = low + (high - low) / 2;
		uint32_t	found = vclock_node(&sorted[mid]);

		if (found == node)
			return &sorted[mid];
		if (found < node)
			low = mid + 1;
		else
			high = mid;
	}
	return NULL;
}

size_t
vclock_join(const VclockEntry *a, size_t na, const VclockEntry *b, size_t nb, VclockEntry *out)
{
	size_t		i = 0,
				j = 0,
				n = 0;

	while (i < na || j < nb)
	{
		if (j == nb || (i < na && vclock_node(&a[i]) < vclock_node(&b[j])))
			out[n++] = a[i++];
		else if (i == na || vclock_node(&b[j]) < vclock_node(&a[i]))
			out[n++] = b[j++];
		else
		{
			/* one node: the larger entry (time, then sequence) */
			out[n++] = memcmp(a[i].id, b[j].id, KUID96_SIZE) >= 0 ? a[i] : b[j];
			i++;
			j++;
		}
	}
	return n;
}

VclockStanding
vclock_standing(const VclockEntry *a, size_t na, const VclockEntry *entry, const VclockEntry **in_a)
{
	const VclockEntry *mine = vclock_find(a, na, vclock_node(entry));

	*in_a = mine;
	if (mine == NULL)
		return VCLOCK_UNKNOWN_NODE;
	return memcmp(entry->id, mine->id, KUID96_SIZE) <= 0 ? VCLOCK_COVERED : VCLOCK_AHEAD;
}

bool
vclock_descends(const VclockEntry *a, size_t na, const VclockEntry *b, size_t nb, bool ignore, uint32_t ignored)
{
	for (size_t j = 0; j < nb; j++)
	{
		const VclockEntry *mine;

		if (ignore && vclock_node(&b[j]) == ignored)
			continue;
		if (vclock_standing(a, na, &b[j], &mine) != VCLOCK_COVERED)
			return false;
	}
	return true;
}
