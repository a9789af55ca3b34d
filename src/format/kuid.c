/*
 * kuid.c — the Erlang uid library's k-ordered ids (see kuid.h)
 */
#include "kuid.h"

#include "bytes.h"
#include "rules/counter.h"
#include "format.h"
#include "uuid8.h"

#define US_PER_SEC		INT64_C(1000000)
#define SECS_PER_MEGA	INT64_C(1000000)

_Static_assert(KUID_SEQ_MAX <= COUNTER_SEQ_MASK, "kuid sequences exceed the counter word");

/* spec §6: '.' 0-9 A-Z '_' a-z, increasing in ASCII, so text order is byte order */
static FlakeAlphabet kuid_alphabet = {
	.symbols = ".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz",
	.bits_per_symbol = 6,
};

const FlakeTextLayout kuid_text = {
	.alphabet = &kuid_alphabet,
	.nbytes = KUID_SIZE,
	.nchars = KUID_TEXT_LEN,
	.spare_bits_first = false,
};

const FlakeTextLayout kuid96_text = {
	.alphabet = &kuid_alphabet,
	.nbytes = KUID96_SIZE,
	.nchars = KUID96_TEXT_LEN,
	.spare_bits_first = false,
};

/* the low 24 bits shared by both layouts: Tick 10 | Seq 14 */
static uint32_t
tick_seq(const KuidFields *f)
{
	return ((uint32_t) (f->tick & 0x3FF) << 14) | (f->seq & 0x3FFF);
}

static void
split_tick_seq(uint32_t bits, KuidFields *f)
{
	f->tick = (bits >> 14) & 0x3FF;
	f->seq = bits & 0x3FFF;
}

/* spec §2 */
void
kuid_pack(const KuidFields *f, uint8_t *out)
{
	be_put(out, 8, ((uint64_t) (f->mega & KUID_FIELD_MAX) << 44) |
		   ((uint64_t) (f->sec & KUID_FIELD_MAX) << 24) | tick_seq(f));
}

void
kuid_unpack(const uint8_t *in, KuidFields *f)
{
	uint64_t	v = be_get(in, 8);

	f->mega = (uint32_t) (v >> 44);
	f->sec = (uint32_t) (v >> 24) & KUID_FIELD_MAX;
	split_tick_seq((uint32_t) v & 0xFFFFFF, f);
}

/* Bit fields written and read most significant first, across byte boundaries. */
static void
put_bits(uint8_t *out, int *pos, uint64_t value, int nbits)
{
	for (int b = nbits - 1; b >= 0; b--, (*pos)++)
	{
		uint8_t		bit = (uint8_t) ((value >> b) & 1);

		out[*pos / 8] = (uint8_t) ((out[*pos / 8] & ~(0x80 >> (*pos % 8))) | (bit << (7 - *pos % 8)));
	}
}

static uint64_t
get_bits(const uint8_t *in, int *pos, int nbits)
{
	uint64_t	value = 0;

	for (int b = 0; b < nbits; b++, (*pos)++)
		value = (value << 1) | ((in[*pos / 8] >> (7 - *pos % 8)) & 1);
	return value;
}

/* spec §3: Mega 20 | SecHi 20-I | Node 32 | SecLo I | Tick 10 | Seq 14 */
void
kuid96_pack_interval(const KuidFields *f, uint32_t node, int interval, uint8_t *out)
{
	uint32_t	sec = f->sec & KUID_FIELD_MAX;
	int			pos = 0;

	put_bits(out, &pos, f->mega & KUID_FIELD_MAX, 20);
	put_bits(out, &pos, sec >> interval, 20 - interval);
	put_bits(out, &pos, node, 32);
	put_bits(out, &pos, sec, interval);
	put_bits(out, &pos, tick_seq(f), 24);
}

void
kuid96_unpack_interval(const uint8_t *in, int interval, KuidFields *f, uint32_t *node)
{
	int			pos = 0;
	uint32_t	sec_hi;

	f->mega = (uint32_t) get_bits(in, &pos, 20);
	sec_hi = (uint32_t) get_bits(in, &pos, 20 - interval);
	*node = (uint32_t) get_bits(in, &pos, 32);
	f->sec = (sec_hi << interval) | (uint32_t) get_bits(in, &pos, interval);
	split_tick_seq((uint32_t) get_bits(in, &pos, 24), f);
}

/* I = 8, the type's own: every boundary but Tick|Seq is byte aligned (the hot path) */
void
kuid96_pack(const KuidFields *f, uint32_t node, uint8_t *out)
{
	uint32_t	sec = f->sec & KUID_FIELD_MAX;

	be_put(out, 4, ((uint64_t) (f->mega & KUID_FIELD_MAX) << 12) | (sec >> KUID_INTERVAL));
	be_put(out + 4, 4, node);
	be_put(out + 8, 4, ((uint64_t) (sec & 0xFF) << 24) | tick_seq(f));
}

void
kuid96_unpack(const uint8_t *in, KuidFields *f, uint32_t *node)
{
	uint64_t	high = be_get(in, 4);
	uint64_t	low = be_get(in + 8, 4);

	f->mega = (uint32_t) (high >> 12);
	f->sec = (uint32_t) (((high & 0xFFF) << KUID_INTERVAL) | (low >> 24));
	split_tick_seq((uint32_t) low & 0xFFFFFF, f);
	*node = (uint32_t) be_get(in + 4, 4);
}

/* unpack then pack (FlakeFormat.repack) */
static void
kuid_repack(const uint8_t *in, uint8_t *out)
{
	KuidFields	fields;

	kuid_unpack(in, &fields);
	kuid_pack(&fields, out);
}

static void
kuid96_repack(const uint8_t *in, uint8_t *out)
{
	KuidFields	fields;
	uint32_t	node;

	kuid96_unpack(in, &fields, &node);
	kuid96_pack(&fields, node, out);
}

bool
kuid_fields_from_unix_us(int64_t unix_us, KuidFields *f)
{
	int64_t		seconds;

	if (unix_us < 0 || unix_us / US_PER_SEC / SECS_PER_MEGA >= KUID_MEGA_LIMIT)
		return false;
	seconds = unix_us / US_PER_SEC;
	f->mega = (uint32_t) (seconds / SECS_PER_MEGA);
	f->sec = (uint32_t) (seconds % SECS_PER_MEGA);
	f->tick = (unsigned) ((unix_us % US_PER_SEC) / KUID_TICK_US);
	f->seq = 0;
	return true;
}

int64_t
kuid_unix_us_from_fields(const KuidFields *f)
{
	/* at most (2^20·10^6 + 2^20)·10^6 + 1023·1024 < 2^60: no overflow */
	return ((int64_t) f->mega * SECS_PER_MEGA + f->sec) * US_PER_SEC + (int64_t) f->tick * KUID_TICK_US;
}

uint64_t
kuid_unit_from_fields(const KuidFields *f)
{
	return ((uint64_t) f->mega * SECS_PER_MEGA + f->sec) * KUID_TICKS_PER_SEC + f->tick;
}

void
kuid_fields_from_unit(uint64_t unit, KuidFields *f)
{
	uint64_t	seconds = unit / KUID_TICKS_PER_SEC;

	f->mega = (uint32_t) (seconds / SECS_PER_MEGA);
	f->sec = (uint32_t) (seconds % SECS_PER_MEGA);
	f->tick = (unsigned) (unit % KUID_TICKS_PER_SEC);
	f->seq = 0;
}

/*
 * The unit of (mega, sec, tick), a second past the megasecond taken as the
 * megasecond's last unit: every unit after that one has a greater Mega,
 * as every ID that sorts after such a bit pattern must.
 */
static uint64_t
unit_within_mega(uint32_t mega, uint32_t sec, unsigned tick)
{
	KuidFields	c = {.mega = mega, .sec = sec, .tick = tick};

	if (sec >= SECS_PER_MEGA)
	{
		c.sec = SECS_PER_MEGA - 1;
		c.tick = KUID_TICKS_PER_SEC - 1;
	}
	return kuid_unit_from_fields(&c);
}

/* a tick past the second (no clock gives one) bounds like the second's last tick */
uint64_t
kuid_unit_bound(const KuidFields *f)
{
	if (f->sec < SECS_PER_MEGA && f->tick >= KUID_TICKS_PER_SEC)
		return unit_within_mega(f->mega, f->sec, KUID_TICKS_PER_SEC - 1);
	return unit_within_mega(f->mega, f->sec, f->tick);
}

uint64_t
kuid96_unit_bound(const KuidFields *f, uint32_t id_node, uint32_t own_node)
{
	uint32_t	window = f->sec >> KUID_INTERVAL << KUID_INTERVAL;	/* its first second */
	uint32_t	window_end = window + (UINT32_C(1) << KUID_INTERVAL) - 1;
	uint64_t	first;

	if (id_node == own_node)
		return kuid_unit_bound(f);
	if (id_node > own_node)		/* after the window's last unit (or the megasecond's, which may end first) */
		return unit_within_mega(f->mega, window_end, KUID_TICKS_PER_SEC - 1);
	/*
	 * a lower node: from the window's first unit on (the bound is the unit
	 * before it), unless the window lies past the megasecond, whose units
	 * all sort below it
	 */
	first = unit_within_mega(f->mega, window, 0);
	return window < SECS_PER_MEGA && first > 0 ? first - 1 : first;
}

/*
 * spec §5: the PJW/ELF hash of the atom's text, where a UTF-8 sequence for
 * U+0080..U+00FF counts as its single Latin-1 byte (atoms keep Latin-1
 * text in that form).
 */
uint32_t
kuid_node_fingerprint(const char *name, size_t len)
{
	const uint8_t *p = (const uint8_t *) name;
	uint32_t	h = 0;

	for (size_t i = 0; i < len; i++)
	{
		uint32_t	v = p[i];
		uint32_t	g;

		if ((v == 0xC2 || v == 0xC3) && i + 1 < len && (p[i + 1] & 0xC0) == 0x80)
			v = ((v << 6) | (p[++i] & 0x3F)) & 0xFF;
		h = (h << 4) + v;
		g = h & 0xF0000000u;
		if (g != 0)
		{
			h ^= g >> 24;
			h ^= g;
		}
	}
	return h;
}

/* the generator's unit: ticks counted linearly, within the counter word */
static bool
kuid_units_at(int64_t unix_us, uint64_t *unit)
{
	KuidFields	fields;

	if (!kuid_fields_from_unix_us(unix_us, &fields))
		return false;
	*unit = kuid_unit_from_fields(&fields);
	return *unit <= COUNTER_MAX_UNIT;
}

static int64_t
kuid_unit_start(uint64_t unit)
{
	KuidFields	fields;

	kuid_fields_from_unit(unit, &fields);
	return kuid_unix_us_from_fields(&fields);
}

/*
 * kuid's Sec (20 bits) may exceed 999,999 and its Tick (10 bits) 976, and
 * kuid_time adds them as they are, so a later ID can have an earlier time:
 * not monotone.  kuid96 also puts the node between its seconds' bits.
 */
static const TimeLayout kuid_time_layout = {
	KUID_SIZE, 0, false, 4,
	{{20, INT64_C(1000000000000), NULL}, {20, 1000000, NULL}, {10, KUID_TICK_US, NULL}, {14, 0, NULL}}
};

static const TimeLayout kuid96_time_layout = {
	KUID96_SIZE, 0, false, 6,
	{{20, INT64_C(1000000000000), NULL}, {12, INT64_C(256000000), NULL}, {32, 0, NULL},
	 {8, 1000000, NULL}, {10, KUID_TICK_US, NULL}, {14, 0, NULL}}
};

#define KUID_TIME_RANGE "1970-01-01 00:00:00+00, 35198-01-19 07:06:40+00"

/* the raw time fields too: a pattern no clock gives (Sec >= 10^6, Tick > 976) shows as it is */
static int
put_kuid_fields(const KuidFields *f, FlakeField *out)
{
	out[0] = flake_number("mega", f->mega);
	out[1] = flake_number("sec", f->sec);
	out[2] = flake_number("tick", f->tick);
	out[3] = flake_number("seq", f->seq);
	return 4;
}

static int
kuid_fields(const uint8_t *in, FlakeField *out)
{
	KuidFields	f;

	kuid_unpack(in, &f);
	return put_kuid_fields(&f, out);
}

static int
kuid96_fields(const uint8_t *in, FlakeField *out)
{
	KuidFields	f;
	uint32_t	node;

	kuid96_unpack(in, &f, &node);
	out[0] = flake_number("node", node);
	return 1 + put_kuid_fields(&f, out + 1);
}

const FlakeFormat kuid_format = {
	.id = FLAKE_KUID, .name = "kuid", .width = KUID_SIZE,
	.text = &kuid_text, .repack = kuid_repack, .fields = kuid_fields,
	.time = &kuid_time_layout, .time_range = KUID_TIME_RANGE,
	.units_at = kuid_units_at, .unit_start = kuid_unit_start, .unit_us = KUID_TICK_US,
	.uuid_tag = UUID8_TAG_KUID,
};

/* kuid96 IDs come from kuid's generator (README, "Reference"): the same units */
const FlakeFormat kuid96_format = {
	.id = FLAKE_KUID96, .name = "kuid96", .width = KUID96_SIZE,
	.text = &kuid96_text, .repack = kuid96_repack, .fields = kuid96_fields,
	.time = &kuid96_time_layout, .time_range = KUID_TIME_RANGE,
	.units_at = kuid_units_at, .unit_start = kuid_unit_start, .unit_us = KUID_TICK_US,
	/* Mega, SecHi | node | SecLo, Tick, Seq: time splits around the node; Mega < 4096 until 2099 */
	.abbrev = {.time_bytes = 4, .identity_bytes = 4, .spare_bytes = 1}, .uuid_tag = UUID8_TAG_KUID96,
};

static bool
node_name_char(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '-';
}

bool
kuid_node_name_valid(const char *name)
{
	const unsigned char *p = (const unsigned char *) name;

	if (!node_name_char(*p))
		return false;
	while (node_name_char(*p))
		p++;
	if (*p != '@' || p[1] == '\0')
		return false;
	for (p++; *p != '\0';)
	{
		if (*p >= 0x21 && *p <= 0x7F)
			p++;
		else if ((*p == 0xC2 || *p == 0xC3) && (p[1] & 0xC0) == 0x80)
			p += 2;				/* U+0080..U+00FF */
		else
			return false;
	}
	return true;
}
