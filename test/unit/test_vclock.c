/*
 * test_vclock.c — the vector clock operations (docs/spec/kuid.md §8): examples
 * from the library's definitions, then the algebra on random clocks
 *
 * Usage: test_vclock.  Prints TAP.
 */
#include "tap.h"
#include "../../src/format/vclock.h"

#define MAX_ENTRIES 8

typedef struct Clock
{
	VclockEntry e[MAX_ENTRIES * 3];
	size_t		n;
} Clock;

static VclockEntry
entry(uint32_t node, uint32_t sec, unsigned seq)
{
	VclockEntry v;
	KuidFields	f = {.mega = 1700, .sec = sec, .tick = 0, .seq = seq};

	kuid96_pack(&f, node, v.id);
	return v;
}

/* a clock over nodes 1..6 with few distinct times, so that ties and overlaps are common */
static Clock
random_clock(void)
{
	Clock		c = {.n = 0};

	for (uint32_t node = 1; node <= 6; node++)
		if (tap_random() % 2)
			c.e[c.n++] = entry(node, (uint32_t) (tap_random() % 3), (unsigned) (tap_random() % 3));
	/* an unsorted input, as users give them */
	for (size_t i = c.n; i > 1; i--)
	{
		size_t		j = (size_t) (tap_random() % i);
		VclockEntry tmp = c.e[i - 1];

		c.e[i - 1] = c.e[j];
		c.e[j] = tmp;
	}
	return c;
}

static Clock
sorted(Clock c)
{
	vclock_sort(c.e, c.n);
	return c;
}

static Clock
join(Clock a, Clock b)
{
	Clock		out;

	a = sorted(a);
	b = sorted(b);
	out.n = vclock_join(a.e, a.n, b.e, b.n, out.e);
	return out;
}

static bool
descends(Clock a, Clock b)
{
	a = sorted(a);
	return vclock_descends(a.e, a.n, b.e, b.n, false, 0);
}

static bool
same(Clock a, Clock b)
{
	return a.n == b.n && memcmp(a.e, b.e, a.n * sizeof(VclockEntry)) == 0;
}

/* the library's definitions, on small cases */
static void
test_examples(void)
{
	Clock		a = {.e = {entry(2, 5, 0), entry(1, 7, 3)}, .n = 2};
	Clock		b = {.e = {entry(3, 1, 0), entry(1, 7, 4)}, .n = 2};
	Clock		empty = {.n = 0};
	Clock		j = join(a, b);
	Clock		dup = {.e = {entry(4, 1, 0), entry(9, 1, 0), entry(4, 2, 0)}, .n = 3};
	const VclockEntry *mine;
	uint32_t	node = 0;

	tap_ok(j.n == 3 && vclock_node(&j.e[0]) == 1 && vclock_node(&j.e[1]) == 2 && vclock_node(&j.e[2]) == 3 &&
		   memcmp(j.e[0].id, entry(1, 7, 4).id, KUID96_SIZE) == 0,
		   "join: one entry per node, sorted by node, the later sequence of a shared time wins");
	tap_ok(descends(a, empty) && descends(empty, empty) && !descends(empty, a),
		   "descend: anything descends the empty clock; the empty clock descends only it");
	tap_ok(!descends(a, b) && !descends(b, a) && descends(j, a) && descends(j, b), "descend: concurrent clocks, and their join");
	a = sorted(a);
	tap_ok(vclock_descends(a.e, a.n, b.e, b.n, true, 3) == false &&
		   vclock_descends(sorted(j).e, j.n, b.e, b.n, true, 1), "descend/3 ignores the given node's entries");
	tap_ok(vclock_standing(a.e, a.n, &b.e[0], &mine) == VCLOCK_UNKNOWN_NODE && mine == NULL &&
		   vclock_standing(a.e, a.n, &b.e[1], &mine) == VCLOCK_AHEAD && vclock_node(mine) == 1 &&
		   vclock_standing(a.e, a.n, &a.e[0], &mine) == VCLOCK_COVERED, "diff: unknown node, ahead, covered");
	dup = sorted(dup);
	tap_ok(vclock_duplicate_node(dup.e, dup.n, &node) && node == 4 && !vclock_duplicate_node(a.e, a.n, &node),
		   "a node with two entries is found");
}

/* the algebra on 10,000 random clocks per law */
static void
test_laws(void)
{
	int			failures[6] = {0};
	const char *laws[6] = {
		"join is commutative", "join is associative", "join is idempotent",
		"a join descends both inputs", "descend is reflexive",
		"every entry of b is covered by a exactly when a descends b"
	};

	tap_random_state = 19;
	for (int i = 0; i < 10000; i++)
	{
		Clock		a = random_clock(),
					b = random_clock(),
					c = random_clock();
		Clock		sa = sorted(a);
		bool		all_covered = true;

		failures[0] += !same(join(a, b), join(b, a));
		failures[1] += !same(join(join(a, b), c), join(a, join(b, c)));
		failures[2] += !same(join(a, a), sa);
		failures[3] += !(descends(join(a, b), a) && descends(join(a, b), b));
		failures[4] += !descends(a, a);
		for (size_t k = 0; k < b.n; k++)
		{
			const VclockEntry *mine;

			all_covered = all_covered && vclock_standing(sa.e, sa.n, &b.e[k], &mine) == VCLOCK_COVERED;
		}
		failures[5] += all_covered != descends(a, b);
	}
	for (int law = 0; law < 6; law++)
		tap_ok(failures[law] == 0, "%s (10,000 random clocks; %d failures)", laws[law], failures[law]);
}

int
main(void)
{
	test_examples();
	test_laws();
	return tap_done();
}
