/*
 * test_uuid8.c — the UUIDv8 embedding: round trips, order, fixed bits,
 * refusals, for every ID width flakeid has
 */
#include "tap.h"

#include "../../src/format/uuid8.h"

static int
sign(int c)
{
	return (c > 0) - (c < 0);
}

static void
test_width(const char *name, int width, uint8_t tag)
{
	enum
	{
		N = 20000
	};
	int			round_trip_failures = 0,
				order_failures = 0,
				fixed_bit_failures = 0,
				bit_spread_failures = 0;
	uint8_t		a[UUID8_MAX_ID_WIDTH],
				b[UUID8_MAX_ID_WIDTH],
				back[UUID8_MAX_ID_WIDTH],
				ua[UUID8_SIZE],
				ub[UUID8_SIZE];

	for (int n = 0; n < N; n++)
	{
		tap_random_bytes(a, width);
		memcpy(b, a, width);
		/* b: a with a random tail redrawn, so pairs differ at every depth */
		for (int i = (int) (tap_random() % width); i < width; i++)
			b[i] = (uint8_t) tap_random();
		uuid8_from_id(a, width, tag, ua);
		uuid8_from_id(b, width, tag, ub);
		if (!uuid8_to_id(ua, width, tag, back) || memcmp(back, a, width) != 0)
			round_trip_failures++;
		if (sign(memcmp(a, b, width)) != sign(memcmp(ua, ub, UUID8_SIZE)))
			order_failures++;
		if ((ua[6] >> 4) != 8 || (ua[8] >> 6) != 2 || ua[15] != tag)
			fixed_bit_failures++;
	}
	tap_ok(round_trip_failures == 0, "%s: %d random IDs come back from their UUID (%d failures)", name, N, round_trip_failures);
	tap_ok(order_failures == 0, "%s: %d random pairs compare as their UUIDs do (%d failures)", name, N, order_failures);
	tap_ok(fixed_bit_failures == 0, "%s: version 8, variant 10, tag %d in every UUID", name, tag);

	/* each ID bit moves exactly one UUID bit, and never a fixed one */
	memset(a, 0, width);
	uuid8_from_id(a, width, tag, ua);
	for (int bit = 0; bit < width * 8; bit++)
	{
		int			changed = 0;

		memset(b, 0, width);
		b[bit / 8] = (uint8_t) (0x80 >> (bit % 8));
		uuid8_from_id(b, width, tag, ub);
		for (int u = 0; u < UUID8_SIZE * 8; u++)
			if (((ua[u / 8] ^ ub[u / 8]) >> (7 - u % 8)) & 1)
			{
				changed++;
				if ((u >= 48 && u < 52) || u == 64 || u == 65 || u >= 120)
					changed += 100;
			}
		if (changed != 1)
			bit_spread_failures++;
	}
	tap_ok(bit_spread_failures == 0, "%s: each of the %d ID bits lands on its own free UUID bit", name, width * 8);

	/* refusals: another tag, a version or variant bit, a bit past the ID */
	tap_random_bytes(a, width);
	uuid8_from_id(a, width, tag, ua);
	memcpy(ub, ua, UUID8_SIZE);
	ub[15] = (uint8_t) (tag + 1);
	tap_ok(!uuid8_to_id(ub, width, tag, back), "%s: a UUID with another type's tag is refused", name);
	memcpy(ub, ua, UUID8_SIZE);
	ub[6] ^= 0x10;
	tap_ok(!uuid8_to_id(ub, width, tag, back), "%s: version 9 is refused", name);
	memcpy(ub, ua, UUID8_SIZE);
	ub[8] ^= 0x40;
	tap_ok(!uuid8_to_id(ub, width, tag, back), "%s: variant 11 is refused", name);
	memcpy(ub, ua, UUID8_SIZE);
	ub[14] ^= 0x01;				/* bit 119: past every ID (at most 112 bits end at 117) */
	tap_ok(!uuid8_to_id(ub, width, tag, back), "%s: a set bit past the ID is refused", name);
	{
		/* a random version-4 UUID (what gen_random_uuid makes) */
		for (int i = 0; i < UUID8_SIZE; i++)
			ub[i] = (uint8_t) tap_random();
		ub[6] = (uint8_t) ((ub[6] & 0x0F) | 0x40);
		ub[8] = (uint8_t) ((ub[8] & 0x3F) | 0x80);
		tap_ok(!uuid8_to_id(ub, width, tag, back), "%s: a version-4 UUID is refused", name);
	}
}

int
main(void)
{
	tap_random_state = UINT64_C(0x9E3779B97F4A7C15);
	test_width("sno", 10, UUID8_TAG_SNO);
	test_width("flax", 12, UUID8_TAG_FLAX);
	test_width("siq", 14, UUID8_TAG_SIQ);
	test_width("kuid", 8, UUID8_TAG_KUID);
	test_width("kuid96", 12, UUID8_TAG_KUID96);
	return tap_done();
}
