/*
 * test_persisted.c — the codec of everything flakeid persists: a fixture
 * of every version that releases wrote (test/fixtures/README), each read,
 * and each damaged (truncated, a bad checksum or length, a bad version, a
 * foreign system identifier); the current versions written and read back;
 * unknown entries skipped or refused by their flag; and random damage that
 * never reads as anything but a verdict.
 *
 * Usage: test_persisted [VECTORS-DIR] (the fixtures are in VECTORS-DIR/../fixtures).  Prints TAP.
 */
#include "tap.h"
#include "../../src/persisted/persisted.h"
#include "../../src/persisted/persisted_wire.h"

#ifndef PERSISTED_MARK_MAX
#define PERSISTED_MARK_MAX	INT64_C(253402300800000000)	/* for the negative control on a tree without it */
#endif

typedef enum Kind
{
	STATE,
	RECORD,
	PREPARED
} Kind;

static char fixtures[4096];
static uint8_t file[PERSISTED_FILE_MAX];

static size_t
read_fixture(const char *name)
{
	char		path[4200];
	FILE	   *f;
	size_t		size;

	snprintf(path, sizeof(path), "%s/%s", fixtures, name);
	f = fopen(path, "rb");
	if (f == NULL)
		return 0;
	size = fread(file, 1, sizeof(file), f);
	fclose(f);
	return size;
}

static PersistedState state;
static PersistedRecord record;
static int	holdings_seen;
static PersistedHolding first_holding;

static bool
count_holding(void *arg, const PersistedHolding *holding)
{
	(void) arg;
	if (holdings_seen++ == 0)
		first_holding = *holding;
	return true;
}

#define OTHER_SYSTEM	UINT64_C(12345)
#define NO_CHECK		SIZE_MAX	/* 1.1's MARK record has no checksum and no length of its own */

static PersistedHolding saved_seen;	/* a prepared file's SAVED entry (1.4) */
static uint64_t system_seen;	/* and its SYSTEM entry */
static uint32_t timeline_seen;	/* and its TIMELINE entry */

/* the verdict on `bytes` as `kind` (a record of `info`), *version set for files */
static PersistedVerdict
judge(Kind kind, uint8_t info, const uint8_t *bytes, size_t size, uint64_t system, uint32_t *version)
{
	*version = 0;
	holdings_seen = 0;
	switch (kind)
	{
		case STATE:
			return persisted_state_decode(bytes, size, system, &state, version);
		case RECORD:
			return persisted_record_decode(info, bytes, size, &record);
		case PREPARED:
			return persisted_prepared_decode(bytes, size, count_holding, NULL, &saved_seen, &system_seen, &timeline_seen, version);
	}
	return PERSISTED_DAMAGED;
}

static const char *
verdict_name(PersistedVerdict verdict)
{
	static const char *const names[] = {"OK", "DAMAGED", "TOO_NEW", "FOREIGN"};

	return names[verdict];
}

/*
 * One fixture: read as `version` with `system` (0: a file that records
 * none), then damaged each way.  `version_at` is the offset of the field
 * a later release would change (-1: none); `check_at` an offset whose
 * change a checksum or length must catch (NO_CHECK: none can).
 */
static void
test_fixture(const char *name, Kind kind, uint8_t info, uint32_t version, uint64_t system, int version_at,
			 size_t check_at, bool (*check) (void), const char *what)
{
	size_t		size = read_fixture(name);
	uint8_t		copy[PERSISTED_FILE_MAX];
	uint32_t	read_version = 0;
	PersistedVerdict verdict;

	if (!tap_ok(size > 0, "fixture %s is there", name))
		return;
	verdict = judge(kind, info, file, size, system ? system : OTHER_SYSTEM, &read_version);
	tap_ok(verdict == PERSISTED_OK && (kind == RECORD || read_version == version) && check(),
		   "fixture %s (version %u): read, %s (%s)", name, version, what, verdict_name(verdict));
	verdict = judge(kind, info, file, size - 1, OTHER_SYSTEM, &read_version);
	tap_ok(verdict == PERSISTED_DAMAGED, "fixture %s truncated by a byte: DAMAGED (%s)", name, verdict_name(verdict));
	if (check_at != NO_CHECK)
	{
		memcpy(copy, file, size);
		copy[check_at] ^= 0x40;
		verdict = judge(kind, info, copy, size, OTHER_SYSTEM, &read_version);
		tap_ok(verdict == PERSISTED_DAMAGED, "fixture %s with byte %zu changed: DAMAGED (%s)", name, check_at,
			   verdict_name(verdict));
	}
	if (version_at >= 0)
	{
		uint32_t	later = kind == RECORD ? 0 : 99;

		memcpy(copy, file, size);
		memcpy(copy + version_at, &later, 4);
		verdict = judge(kind, info, copy, size, OTHER_SYSTEM, &read_version);
		tap_ok(verdict == (kind == RECORD || (kind == PREPARED && version == 1) ? PERSISTED_DAMAGED : PERSISTED_TOO_NEW),
			   "fixture %s with version %u: %s (%s)", name, later,
			   kind == STATE || (kind == PREPARED && version > 1) ? "TOO_NEW" : "DAMAGED", verdict_name(verdict));
	}
	if (system != 0)
	{
		verdict = judge(kind, info, file, size, system + 1, &read_version);
		tap_ok(verdict == PERSISTED_FOREIGN && state.system_identifier == system,
			   "fixture %s read by another cluster: FOREIGN, naming its system identifier (%s)", name,
			   verdict_name(verdict));
	}
}

/* --- what each fixture holds (test/fixtures/README) ------------------------- */

static bool
v1_holds(void)
{
	return state.own.marks[0] == INT64_C(2208988803866103) && state.own.marks[1] == INT64_C(2208988803866103)
		&& state.own.sno_ticktock == 0 && state.snowflake_epoch_ms == -1 && state.system_identifier == 0;
}

/* the values make_fixtures.sh's runs left (test/fixtures/README), clocks at 2040-01-01 */
#define FIXTURE_12_SYSTEM	UINT64_C(9487534662079940036)
#define DEFAULT_EPOCH		INT64_C(1420070400000)

static bool
v2_holds(void)
{
	return state.own.marks[0] == INT64_C(2208988810222874) && state.own.marks[1] == INT64_C(2208988810218046)
		&& state.own.marks[2] == 0 && state.snowflake_epoch_ms == DEFAULT_EPOCH && state.system_identifier == 0
		&& state.own.nlows == 0;
}

static bool
v3_holds(void)
{
	return state.own.marks[0] == INT64_C(2208988807019001) && state.own.marks[1] == INT64_C(2208988807012001)
		&& state.snowflake_epoch_ms == DEFAULT_EPOCH && state.own.nlows == 1
		&& strcmp(state.own.lows[0].slot, "snowflake") == 0 && state.own.lows[0].low == 4094
		&& state.upstream.nlows == 0 && state.upstream.marks[0] == 0;
}

/* the first record of each: sno's first save, before any snowflake recorded an epoch */
static bool
mark_holds(void)
{
	return record.bounds.marks[0] == 0 && record.bounds.marks[1] == INT64_C(2208988810218046)
		&& record.snowflake_epoch_ms == -1;
}

static bool
bounds_holds(void)
{
	return record.bounds.marks[0] == 0 && record.bounds.marks[1] == INT64_C(2208988806464216)
		&& record.snowflake_epoch_ms == -1 && record.bounds.nlows == 0;
}

static bool
prepared_holds(void)
{
	return holdings_seen == 1 && first_holding.full_xid == 726 && first_holding.nunits == 2
		&& strcmp(first_holding.units[0].slot, "sno") == 0 && first_holding.units[0].unit == UINT64_C(236671201134)
		&& strcmp(first_holding.units[1].slot, "snowflake") == 0
		&& first_holding.units[1].unit == UINT64_C(2208988804542);
}

/* --- the current versions ------------------------------------------------------ */

static void
fill_bounds(PersistedBounds *bounds, int64_t base)
{
	persisted_bounds_empty(bounds);
	for (int m = 0; m < PERSISTED_MARKS; m++)
		bounds->marks[m] = base + m;
	bounds->sno_ticktock = 1;
	persisted_add_low(bounds, "sno", 60000);
	persisted_add_low(bounds, "siq user", 2000);
	persisted_add_low(bounds, "a generator of 1.9", 7);
	persisted_add_deep(bounds, "snowflake", 100, 200, 0);
	persisted_add_generator_mark(bounds, "siq", base - 7);
	persisted_add_generator_mark(bounds, "snowflake", base);
}

static void
test_current(void)
{
	PersistedState written,
				read_back;
	PersistedHolding holding = {0},
				second = {0},
				saved;
	const PersistedHolding *holdings[2] = {&holding, &second};
	uint8_t		out[PERSISTED_FILE_MAX];
	size_t		size;
	uint32_t	version = 0;
	PersistedVerdict verdict;

	persisted_state_empty(&written);
	written.system_identifier = 7712022856918133675u;
	written.snowflake_epoch_ms = 1288834974657;
	fill_bounds(&written.own, 1000);
	fill_bounds(&written.upstream, 2000);
	size = persisted_state_encode(&written, out, sizeof(out));
	verdict = persisted_state_decode(out, size, written.system_identifier, &read_back, &version);
	tap_ok(size > 0 && verdict == PERSISTED_OK && version == PERSISTED_STATE_VERSION &&
		   memcmp(&written, &read_back, sizeof(written)) == 0,
		   "a state file of version %u (%zu bytes) reads back as written, names and deep ranges included",
		   PERSISTED_STATE_VERSION, size);
	tap_ok(persisted_state_encode(&written, out, size - 1) == 0, "a buffer a byte short is refused, not overrun");

	size = persisted_issued_encode(&written.own, 42, out, sizeof(out));
	verdict = persisted_record_decode(PERSISTED_RECORD_ISSUED, out, size, &record);
	tap_ok(verdict == PERSISTED_OK && record.snowflake_epoch_ms == 42 &&
		   memcmp(&record.bounds, &written.own, sizeof(written.own)) == 0,
		   "an ISSUED record reads back as written");
	tap_ok(persisted_record_decode(0x70, out, size, &record) == PERSISTED_TOO_NEW,
		   "a record of an info code this code does not know: TOO_NEW");

	holding.full_xid = (UINT64_C(3) << 32) | 1234;
	persisted_add_unit(&holding, "sno", 99);
	persisted_add_unit(&holding, "kuid", 98);
	second.full_xid = 77;
	size = persisted_prepared_record_encode(&holding, out, sizeof(out));
	verdict = persisted_record_decode(PERSISTED_RECORD_PREPARED, out, size, &record);
	tap_ok(verdict == PERSISTED_OK && memcmp(&record.holding, &holding, sizeof(holding)) == 0,
		   "a PREPARED record reads back as written, with a 64-bit transaction id");
	size = persisted_prepared_encode(holdings, 2, NULL, 0, 0, out, sizeof(out));
	verdict = persisted_prepared_decode(out, size, count_holding, NULL, &saved_seen, &system_seen, &timeline_seen, &version);
	tap_ok(verdict == PERSISTED_OK && version == PERSISTED_PREPARED_VERSION && holdings_seen == 2 &&
		   memcmp(&first_holding, &holding, sizeof(holding)) == 0 && saved_seen.full_xid == 0 && system_seen == 0,
		   "a prepared file of version %u with two holdings and no SAVED entry (1.3's) reads back as written",
		   PERSISTED_PREPARED_VERSION);

	/* 1.4: what the save knew, first, required (1.3 refuses the file as too new) */
	memset(&saved, 0, sizeof(saved));
	saved.full_xid = UINT64_C(0x16B3F28);
	persisted_add_unit(&saved, "sno", 12345);
	persisted_add_unit(&saved, "snowflake", 678);
	holdings_seen = 0;
	size = persisted_prepared_encode(holdings, 2, &saved, 7712022856918133675u, 3, out, sizeof(out));
	verdict = persisted_prepared_decode(out, size, count_holding, NULL, &saved_seen, &system_seen, &timeline_seen, &version);
	tap_ok(verdict == PERSISTED_OK && holdings_seen == 2 && memcmp(&saved_seen, &saved, sizeof(saved)) == 0 &&
		   system_seen == 7712022856918133675u && timeline_seen == 3,
		   "a prepared file with SYSTEM, TIMELINE and SAVED entries reads back as written: the cluster, the timeline, the WAL position, the floors");
	tap_ok(out[16] == 2 && out[17] == 0 && (out[18] & 1) == 1 && out[32] == 11 && (out[34] & 1) == 1 && out[44] == 10,
		   "SYSTEM comes first (tag 2), then TIMELINE (tag 11), then SAVED (tag 10), marked required");
	saved.full_xid = 0;
	size = persisted_prepared_encode(holdings, 2, &saved, 0, 0, out, sizeof(out));
	tap_ok(persisted_prepared_decode(out, size, count_holding, NULL, &saved_seen, &system_seen, &timeline_seen, &version) == PERSISTED_DAMAGED,
		   "a SAVED entry at WAL position 0 is damage");
}

/* flakeid.deep and the DEEP record (1.4) */
static PersistedDeepUnit deep_seen[8];
static int	deep_count;

static bool
take_deep(void *arg, const PersistedDeepUnit *deep_unit)
{
	(void) arg;
	if (deep_count < 8)
		deep_seen[deep_count] = *deep_unit;
	deep_count++;
	return true;
}

static PersistedVerdict
decode_deep(const uint8_t *bytes, size_t size, size_t *good_size)
{
	uint32_t	version = 0,
				file_id = 0;

	deep_count = 0;
	return persisted_deep_decode(bytes, size, take_deep, NULL, &version, &file_id, good_size);
}

static void
test_deep(void)
{
	PersistedDeepUnit units[3],
				scratch;
	PersistedState written,
				read_back;
	uint8_t		out[PERSISTED_DEEP_HEADER + 3 * PERSISTED_DEEP_ENTRY];
	uint8_t		stamp[PERSISTED_FILE_MAX];
	size_t		size,
				good = 0;
	uint32_t	version = 0,
				file_id = 0;

	tap_ok(persisted_deep_unit_set(&units[0], "snowflake", UINT64_C(1500000000000), 0) &&
		   persisted_deep_unit_set(&units[1], "siq user", 77, 1024) &&
		   persisted_deep_unit_set(&units[2], "a generator of 1.9", UINT64_MAX, 4095),
		   "deep units of three slots");
	tap_ok(!persisted_deep_unit_set(&scratch, "", 1, 1) &&
		   !persisted_deep_unit_set(&scratch, "a name of thirty-two characters!", 1, 1),
		   "a name that is not a slot's is refused");
	persisted_deep_header_encode(out, 0);
	tap_ok(decode_deep(out, PERSISTED_DEEP_HEADER, &good) == PERSISTED_DAMAGED,
		   "a header without the file's identifier (0): DAMAGED");
	persisted_deep_header_encode(out, 0xC0FFEE);
	tap_ok(persisted_deep_decode(out, PERSISTED_DEEP_HEADER, take_deep, NULL, &version, &file_id, &good) == PERSISTED_OK &&
		   file_id == 0xC0FFEE, "the file's identifier reads back");
	for (int i = 0; i < 3; i++)
		persisted_deep_entry_encode(&units[i], out + PERSISTED_DEEP_HEADER + i * PERSISTED_DEEP_ENTRY);
	tap_ok(decode_deep(out, PERSISTED_DEEP_HEADER, &good) == PERSISTED_OK && deep_count == 0 &&
		   good == PERSISTED_DEEP_HEADER, "an empty flakeid.deep: its header only");
	tap_ok(decode_deep(out, sizeof(out), &good) == PERSISTED_OK && deep_count == 3 && good == sizeof(out) &&
		   memcmp(deep_seen, units, sizeof(units)) == 0, "three entries read back as written");
	tap_ok(decode_deep(out, sizeof(out) - 5, &good) == PERSISTED_OK && deep_count == 2 &&
		   good == sizeof(out) - PERSISTED_DEEP_ENTRY, "a torn last entry (short) is not read, the others are");
	out[sizeof(out) - 10] ^= 1;
	tap_ok(decode_deep(out, sizeof(out), &good) == PERSISTED_OK && deep_count == 2 &&
		   good == sizeof(out) - PERSISTED_DEEP_ENTRY, "a torn last entry (a bad checksum) is not read");
	out[sizeof(out) - 10] ^= 1;
	out[PERSISTED_DEEP_HEADER + PERSISTED_DEEP_ENTRY + 3] ^= 1;
	tap_ok(decode_deep(out, sizeof(out), &good) == PERSISTED_DAMAGED, "a bad entry before the last: DAMAGED");
	tap_ok(decode_deep(out, sizeof(out) - 1, &good) == PERSISTED_DAMAGED,
		   "and so it stays with a torn tail after it");
	out[PERSISTED_DEEP_HEADER + PERSISTED_DEEP_ENTRY + 3] ^= 1;
	tap_ok(decode_deep(out, PERSISTED_DEEP_HEADER - 1, &good) == PERSISTED_DAMAGED, "a short header: DAMAGED");
	out[0] ^= 1;
	tap_ok(decode_deep(out, sizeof(out), &good) == PERSISTED_DAMAGED, "a bad magic number: DAMAGED");
	out[0] ^= 1;
	out[4] = 2;
	{
		uint32_t	crc = persisted_crc32c(out, 12);

		memcpy(out + 12, &crc, 4);
	}
	tap_ok(persisted_deep_decode(out, sizeof(out), take_deep, NULL, &version, &file_id, &good) == PERSISTED_TOO_NEW &&
		   version == 2, "a later version of flakeid.deep: TOO_NEW");

	size = persisted_deep_record_encode(&units[1], stamp, sizeof(stamp));
	tap_ok(size > 0 && size <= 64 && persisted_record_decode(PERSISTED_RECORD_DEEP, stamp, size, &record) == PERSISTED_OK &&
		   memcmp(&record.deep_unit, &units[1], sizeof(units[1])) == 0,
		   "a DEEP record (%zu bytes) reads back as written", size);
	tap_ok(persisted_deep_record_encode(&units[1], stamp, size - 1) == 0, "a buffer a byte short is refused");
	tap_ok(persisted_record_decode(PERSISTED_RECORD_DEEP, stamp, 8, &record) == PERSISTED_DAMAGED,
		   "a DEEP record without its unit: DAMAGED");

	persisted_state_empty(&written);
	written.system_identifier = 99;
	written.deep_record = PERSISTED_DEEP_VERSION;
	size = persisted_state_encode(&written, stamp, sizeof(stamp));
	tap_ok(persisted_state_decode(stamp, size, 99, &read_back, &version) == PERSISTED_OK &&
		   read_back.deep_record == PERSISTED_DEEP_VERSION, "a state file naming flakeid.deep reads back as written");
	written.deep_record = 0;
	size = persisted_state_encode(&written, stamp, sizeof(stamp));
	tap_ok(persisted_state_decode(stamp, size, 99, &read_back, &version) == PERSISTED_OK &&
		   read_back.deep_record == 0, "one that does not (as 1.3 wrote) reads as naming none");
	tap_ok(!read_back.has_stop, "a state file without STOPPED (as 1.3 wrote) reads as carrying no seal");

	written.has_stop = true;
	written.stop_checkpoint = UINT64_C(0x1A2B3C4D5E);
	written.stop_deep_size = 16 + 48 * 3;
	size = persisted_state_encode(&written, stamp, sizeof(stamp));
	tap_ok(persisted_state_decode(stamp, size, 99, &read_back, &version) == PERSISTED_OK && read_back.has_stop &&
		   read_back.stop_checkpoint == UINT64_C(0x1A2B3C4D5E) && read_back.stop_deep_size == 16 + 48 * 3,
		   "a clean stop's seal (STOPPED) reads back as written");
	written.stop_checkpoint = 0;
	written.stop_deep_size = 0;
	size = persisted_state_encode(&written, stamp, sizeof(stamp));
	tap_ok(persisted_state_decode(stamp, size, 99, &read_back, &version) == PERSISTED_OK && read_back.has_stop &&
		   read_back.stop_checkpoint == 0, "and a running save's (0)");
	tap_ok(persisted_state_decode(stamp, size - 8 - 4, 99, &read_back, &version) == PERSISTED_DAMAGED,
		   "a STOPPED entry cut short: DAMAGED");
}

/*
 * Where the first entry of `tag` in a state file begins (entries from byte
 * 16 on: tag, flags, length, payload), if it is required and of a tag after
 * 1.3's last (1.3 then refuses the file as too new); 0 otherwise.
 */
/* the entry at `at` of bytes ending at `end`: its tag and flags, and where the next begins (false: none) */
static bool
entry_at(const uint8_t *out, size_t at, size_t end, uint16_t *tag, uint16_t *flags, size_t *next)
{
	uint32_t	length;

	if (at + 8 > end)
		return false;
	memcpy(tag, out + at, 2);
	memcpy(flags, out + at + 2, 2);
	memcpy(&length, out + at + 4, 4);
	*next = at + 8 + length;
	return true;
}

static size_t
first_entry_required(const uint8_t *out, size_t size, uint16_t wanted)
{
	uint16_t	tag,
				flags;

	for (size_t at = 16, next; entry_at(out, at, size - 4, &tag, &flags, &next); at = next)
		if (tag == wanted)
			return (flags & PERSISTED_REQUIRED) != 0 && tag > ENTRY_HOLDING ? at : 0;
	return 0;
}

/* a 1.3 reader: a state file of 1.4 naming flakeid.deep carries a required entry of a tag 1.3 did not know */
static void
test_deep_required(void)
{
	PersistedState written;
	uint8_t		out[PERSISTED_FILE_MAX];
	size_t		size;
	bool		found = false;

	persisted_state_empty(&written);
	written.system_identifier = 99;
	written.deep_record = PERSISTED_DEEP_VERSION;
	size = persisted_state_encode(&written, out, sizeof(out));
	found = first_entry_required(out, size, ENTRY_DEEP_RECORD) != 0;
	tap_ok(found, "the DEEP_RECORD entry is required and of a tag after 1.3's last (1.3 refuses the file as too new)");
}

/*
 * Runs of units issued ahead of the clock (1.4, ENTRY_AHEAD): written by
 * slot name in the state file and an ISSUED record, read back as written;
 * a required entry of a tag after 1.3's last; runs that are not ascending,
 * disjoint and apart, none, too many, or twice for one slot: DAMAGED.
 */
static void
test_ahead(void)
{
	PersistedState written,
				read_back;
	PersistedBounds bounds;
	UnitRuns	runs,
				bad;
	uint8_t		out[PERSISTED_FILE_MAX];
	size_t		size,
				at;
	uint32_t	version = 0;
	bool		required;

	unit_runs_clear(&runs);
	runs.count = 2;
	runs.runs[0] = (UnitRun) {UINT64_C(1764300000000), UINT64_C(1764300000041)};
	runs.runs[1] = (UnitRun) {UINT64_C(1764300009000), UINT64_C(1764300011000)};
	persisted_state_empty(&written);
	written.system_identifier = 99;
	tap_ok(persisted_add_ahead(&written.own, "snowflake", &runs) && persisted_add_ahead(&written.own, "siq user", &runs) &&
		   persisted_add_ahead(&written.upstream, "snowflake", &runs), "runs of two slots, and of the primary's side");
	tap_ok(!persisted_add_ahead(&written.own, "snowflake", &runs), "a second entry for one slot is refused");
	bad = runs;
	bad.runs[1].low = bad.runs[0].high + 1;
	tap_ok(!persisted_add_ahead(&written.own, "kuid", &bad), "touching runs are refused (they are one run)");
	bad = runs;
	bad.count = 0;
	tap_ok(!persisted_add_ahead(&written.own, "kuid", &bad), "no run: refused (a slot without runs has no entry)");
	size = persisted_state_encode(&written, out, sizeof(out));
	tap_ok(size > 0 && persisted_state_decode(out, size, 99, &read_back, &version) == PERSISTED_OK &&
		   read_back.own.nahead == 2 && read_back.upstream.nahead == 1 &&
		   memcmp(&read_back.own.ahead[0], &written.own.ahead[0], sizeof(PersistedAhead)) == 0 &&
		   strcmp(read_back.own.ahead[1].slot, "siq user") == 0 &&
		   read_back.own.ahead[1].runs.runs[1].high == UINT64_C(1764300011000),
		   "a state file with runs issued ahead reads back as written (%zu bytes)", size);
	at = first_entry_required(out, size, ENTRY_AHEAD);
	required = at != 0 && memcmp(out + at + 10, "snowflake", 9) == 0;
	if (required)
	{
		/* the first: own, "snowflake", 2 runs; its second run's low end moved onto the first run */
		uint64_t	low = UINT64_C(1764300000041);
		uint8_t		copy[PERSISTED_FILE_MAX];
		uint32_t	crc;

		memcpy(copy, out, size);
		memcpy(copy + at + 8 + 1 + 1 + strlen("snowflake") + 4 + 16, &low, 8);
		crc = persisted_crc32c(copy, size - 4);
		memcpy(copy + size - 4, &crc, 4);
		tap_ok(persisted_state_decode(copy, size, 99, &read_back, &version) == PERSISTED_DAMAGED,
			   "runs that overlap, read from a file: DAMAGED");
	}
	else
		tap_ok(false, "runs that overlap, read from a file: DAMAGED (no AHEAD entry found)");
	tap_ok(required, "the AHEAD entry is required and of a tag after 1.3's last (1.3 refuses the file as too new)");

	persisted_bounds_empty(&bounds);
	unit_runs_clear(&runs);
	for (uint32_t i = 0; i < UNIT_RUNS_MAX; i++)
		runs.runs[i] = (UnitRun) {UINT64_C(1000) * i, UINT64_C(1000) * i + 500};
	runs.count = UNIT_RUNS_MAX;
	for (int slot = 0; slot < 18; slot++)
	{
		char		name[PERSISTED_NAME_MAX];

		snprintf(name, sizeof(name), "slot %d", slot);
		(void) persisted_add_ahead(&bounds, name, &runs);
	}
	size = persisted_issued_encode(&bounds, 1288834974657, out, 32768);
	tap_ok(size > 0 && persisted_record_decode(PERSISTED_RECORD_ISSUED, out, size, &record) == PERSISTED_OK &&
		   record.bounds.nahead == 18 && record.bounds.ahead[17].runs.count == UNIT_RUNS_MAX,
		   "an ISSUED record with %d runs for each of 18 slots fits the WAL record's room (%zu of 32768 bytes)",
		   UNIT_RUNS_MAX, size);
}

/* an entry of tag 99 appended to an ISSUED record, with or without the required flag */
static void
test_unknown_entries(void)
{
	PersistedBounds bounds;
	uint8_t		out[PERSISTED_FILE_MAX];
	size_t		size;

	fill_bounds(&bounds, 5000);
	for (int required = 0; required <= 1; required++)
	{
		uint16_t	tag = 99,
					flags = required ? PERSISTED_REQUIRED : 0;
		uint32_t	length = 3,
					total;

		size = persisted_issued_encode(&bounds, 1, out, sizeof(out));
		memcpy(out + size, &tag, 2);
		memcpy(out + size + 2, &flags, 2);
		memcpy(out + size + 4, &length, 4);
		memcpy(out + size + 8, "abc", 3);
		total = (uint32_t) size + 11;
		memcpy(out + 4, &total, 4);
		tap_ok(persisted_record_decode(PERSISTED_RECORD_ISSUED, out, total, &record) ==
			   (required ? PERSISTED_TOO_NEW : PERSISTED_OK),
			   "an unknown entry %s: %s", required ? "marked required" : "not marked required",
			   required ? "TOO_NEW (dropping it could repeat an ID)" : "skipped");
	}
}

/*
 * 1.5's MARK entries, a monotonic generator's own mark each: not required,
 * so that 1.4 reads the file (and a 1.5 primary's records) and resumes
 * every monotonic generator after MARKS' first mark, their latest; one per
 * generator, in the marks' range.
 */
static void
test_generator_marks(void)
{
	PersistedBounds bounds;
	uint8_t		out[PERSISTED_FILE_MAX];
	size_t		size;
	int			entries = 0,
				required = 0;
	uint16_t	tag,
				flags;

	persisted_bounds_empty(&bounds);
	bounds.marks[0] = INT64_C(2000000000000000);
	tap_ok(persisted_add_generator_mark(&bounds, "kuid", INT64_C(2000000000000000)) &&
		   persisted_add_generator_mark(&bounds, "snowflake", INT64_C(1800000000000000)) &&
		   !persisted_add_generator_mark(&bounds, "kuid", 5) && !persisted_add_generator_mark(&bounds, "", 5),
		   "a generator's mark: one per generator, a name that is one");
	size = persisted_issued_encode(&bounds, 1, out, sizeof(out));
	for (size_t at = 8, next; entry_at(out, at, size, &tag, &flags, &next); at = next)
		if (tag == ENTRY_MARK)
		{
			entries++;
			required += (flags & PERSISTED_REQUIRED) != 0;
		}
	tap_ok(entries == 2 && required == 0, "an ISSUED record carries each generator's mark, in %d entries none required",
		   entries);
	tap_ok(persisted_record_decode(PERSISTED_RECORD_ISSUED, out, size, &record) == PERSISTED_OK &&
		   record.bounds.ngenerator_marks == 2 && record.bounds.generator_marks[1].mark == INT64_C(1800000000000000) &&
		   strcmp(record.bounds.generator_marks[1].generator, "snowflake") == 0,
		   "and reads back as written");
	for (int bad = 0; bad < 4; bad++)
	{
		static const char *const what[] = {"below 0", "at the marks' limit", "named twice", "above MARKS' first (1.4 would resume below it)"};
		Writer		w = {out + size, sizeof(out) - size, 0, false};
		uint8_t		side = 0;
		uint32_t	total;
		size_t		at = entry_begin_flags(&w, ENTRY_MARK, 0);

		put(&w, &side, 1);
		put(&w, bad == 2 ? "\x04kuid" : "\x03siq", bad == 2 ? 5 : 4);
		PUT_AS(&w, int64_t, bad == 0 ? -1 : bad == 1 ? PERSISTED_MARK_MAX : bad == 2 ? 7 : INT64_C(2000000000000001));
		entry_end(&w, at);
		total = (uint32_t) (size + w.size);
		memcpy(out + 4, &total, 4);
		tap_ok(persisted_record_decode(PERSISTED_RECORD_ISSUED, out, total, &record) == PERSISTED_DAMAGED,
			   "a generator's mark %s: DAMAGED", what[bad]);
		total = (uint32_t) size;
		memcpy(out + 4, &total, 4);
	}
}

/* a version 1 file (1.0's layout) with these marks and a good checksum */
static size_t
craft_v1(uint8_t *out, int64_t mark, int64_t other)
{
	uint32_t	magic = 0x464C4B31,
				version = 1,
				zero = 0,
				crc;

	memset(out, 0, 40);
	memcpy(out, &magic, 4);
	memcpy(out + 4, &version, 4);
	memcpy(out + 8, &mark, 8);
	memcpy(out + 16, &other, 8);
	memcpy(out + 24, &zero, 4);
	crc = persisted_crc32(out, 32);
	memcpy(out + 32, &crc, 4);
	return 40;
}

/*
 * A version 4 body of the entries a save writes, less `drop` (a tag, or
 * ENTRY_MARKS for the upstream side's MARKS), in a file with a good
 * header and checksum
 */
static size_t
craft_v4_without(uint8_t *out, uint16_t drop, uint64_t system)
{
	PersistedBounds bounds;
	Writer		w = {out, PERSISTED_FILE_MAX, 0, false};
	uint32_t	header[4] = {0x464C4B31, PERSISTED_STATE_VERSION, 0, 0},
				crc;
	size_t		at;

	fill_bounds(&bounds, 3000);
	put(&w, header, sizeof(header));
	if (drop != ENTRY_SYSTEM)
	{
		at = entry_begin(&w, ENTRY_SYSTEM);
		PUT_AS(&w, uint64_t, system);
		entry_end(&w, at);
	}
	at = entry_begin(&w, ENTRY_EPOCH);
	PUT_AS(&w, int64_t, 1);
	entry_end(&w, at);
	entries_put_bounds(&w, SIDE_OWN, &bounds);
	if (drop != ENTRY_MARKS)
		entries_put_bounds(&w, SIDE_UPSTREAM, &bounds);
	header[2] = (uint32_t) (w.size - 16);
	memcpy(out, header, sizeof(header));
	crc = persisted_crc32c(out, w.size);
	put(&w, &crc, 4);
	return w.size;
}

/* files no save could have written, with good checksums: marks out of range, v4 entries missing */
static void
test_impossible_files(void)
{
	static const struct
	{
		int64_t		mark;
		const char *what;
	}			marks[] = {
		{INT64_MAX, "INT64_MAX"}, {-1, "-1"}, {INT64_MIN, "INT64_MIN"}, {PERSISTED_MARK_MAX, "PERSISTED_MARK_MAX"}
	};
	uint8_t		out[PERSISTED_FILE_MAX];
	uint32_t	version;
	PersistedVerdict verdict;
	size_t		size;

	size = craft_v1(out, INT64_C(3502828800000000), 0);
	verdict = persisted_state_decode(out, size, OTHER_SYSTEM, &state, &version);
	tap_ok(verdict == PERSISTED_OK && state.own.marks[0] == INT64_C(3502828800000000),
		   "a crafted version 1 file with a mark in 2081: the codec reads it (its clock is the caller's) (%s)",
		   verdict_name(verdict));
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
	{
		size = craft_v1(out, marks[i].mark, 0);
		verdict = persisted_state_decode(out, size, OTHER_SYSTEM, &state, &version);
		tap_ok(verdict == PERSISTED_DAMAGED && state.own.marks[0] == 0,
			   "a version 1 file with the mark %s: DAMAGED, read as nothing (%s)", marks[i].what, verdict_name(verdict));
		size = craft_v1(out, 1000, marks[i].mark);
		verdict = persisted_state_decode(out, size, OTHER_SYSTEM, &state, &version);
		tap_ok(verdict == PERSISTED_DAMAGED, "a version 1 file with sno's other mark %s: DAMAGED (%s)", marks[i].what,
			   verdict_name(verdict));
	}
	size = craft_v4_without(out, 0, OTHER_SYSTEM);
	verdict = persisted_state_decode(out, size, OTHER_SYSTEM, &state, &version);
	tap_ok(verdict == PERSISTED_OK, "a crafted version 4 file with every entry a save writes: OK (%s)", verdict_name(verdict));
	size = craft_v4_without(out, ENTRY_SYSTEM, OTHER_SYSTEM);
	verdict = persisted_state_decode(out, size, OTHER_SYSTEM, &state, &version);
	tap_ok(verdict == PERSISTED_DAMAGED, "a version 4 body without SYSTEM: DAMAGED (%s)", verdict_name(verdict));
	size = craft_v4_without(out, 0, 0);
	verdict = persisted_state_decode(out, size, OTHER_SYSTEM, &state, &version);
	tap_ok(verdict == PERSISTED_DAMAGED, "a version 4 body whose SYSTEM is 0: DAMAGED (%s)", verdict_name(verdict));
	size = craft_v4_without(out, ENTRY_MARKS, OTHER_SYSTEM);
	verdict = persisted_state_decode(out, size, OTHER_SYSTEM, &state, &version);
	tap_ok(verdict == PERSISTED_DAMAGED, "a version 4 body without the upstream MARKS: DAMAGED (%s)",
		   verdict_name(verdict));
	{
		/* the body cut after its SYSTEM and EPOCH entries (16 bytes each): no MARKS at all */
		uint32_t	body = 32,
					crc;

		size = craft_v4_without(out, 0, OTHER_SYSTEM);
		memcpy(out + 8, &body, 4);
		crc = persisted_crc32c(out, 16 + body);
		memcpy(out + 16 + body, &crc, 4);
		verdict = persisted_state_decode(out, 16 + body + 4, OTHER_SYSTEM, &state, &version);
	}
	tap_ok(verdict == PERSISTED_DAMAGED, "a version 4 body with no MARKS entry: DAMAGED (%s)", verdict_name(verdict));
}

/* random damage to each current format: every decode ends in a verdict, and damage never reads as OK silently */
static void
test_random_damage(uint64_t seed)
{
	PersistedState written;
	uint8_t		good[PERSISTED_FILE_MAX],
				bad[PERSISTED_FILE_MAX];
	size_t		size;
	int			ok_after_damage = 0,
				trials = 20000;

	tap_random_state = seed;
	persisted_state_empty(&written);
	written.system_identifier = 1;
	fill_bounds(&written.own, 10);
	size = persisted_state_encode(&written, good, sizeof(good));
	for (int t = 0; t < trials; t++)
	{
		size_t		bad_size = size;
		uint32_t	version;

		memcpy(bad, good, size);
		for (int k = 1 + (int) (tap_random() % 4); k > 0; k--)
			bad[tap_random() % size] ^= (uint8_t) (1 + tap_random() % 255);
		if (tap_random() % 4 == 0)
			bad_size = tap_random() % size;
		ok_after_damage += persisted_state_decode(bad, bad_size, 1, &state, &version) == PERSISTED_OK;
	}
	/* CRC-32C catches every damage of up to 4 bytes in a file this short */
	tap_ok(ok_after_damage == 0, "%d random damages of a state file (seed %llu): none read as OK (%d)", trials,
		   (unsigned long long) seed, ok_after_damage);
}

int
main(int argc, char **argv)
{
	const char *vectors = argc > 1 ? argv[1] : "test/vectors";
	const char *seed_text = getenv("FLAKEID_SEED");

	snprintf(fixtures, sizeof(fixtures), "%s/../fixtures", vectors);
	test_fixture("flakeid-1.0.state", STATE, 0, 1, 0, 4, 32, v1_holds, "the mark of 2040-01-01 00:00:03.866103");
	test_fixture("flakeid-1.1.state", STATE, 0, 2, 0, 4, 20, v2_holds, "its marks and the snowflake epoch");
	test_fixture("flakeid-1.2.state", STATE, 0, 3, FIXTURE_12_SYSTEM, 4, 40, v3_holds,
				 "its marks, the system identifier, and snowflake's back-fill low-water by name");
	test_fixture("flakeid-1.1.mark-record", RECORD, PERSISTED_RECORD_MARK, 0, 0, -1, NO_CHECK, mark_holds,
				 "sno's mark, no epoch yet");
	test_fixture("flakeid-1.2.bounds-record", RECORD, PERSISTED_RECORD_BOUNDS, 1, 0, 0, 4, bounds_holds,
				 "sno's mark, no epoch yet");
	test_fixture("flakeid-1.2.prepared", PREPARED, 0, 1, 0, 4, 16, prepared_holds,
				 "one holding (xid 726) of sno and snowflake, by name");
	test_current();
	test_deep();
	test_deep_required();
	test_ahead();
	test_unknown_entries();
	test_generator_marks();
	test_impossible_files();
	test_random_damage(seed_text ? strtoull(seed_text, NULL, 10) : 20261125);
	return tap_done();
}
