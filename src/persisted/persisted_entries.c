/*
 * persisted_entries.c — the entries that flakeid's files and WAL records of
 * 1.3 on are made of, and the checksums (persisted.h, persisted_wire.h); the
 * structures they fill are built in persisted_bounds.c
 */
#include "persisted_wire.h"

#include <zlib.h>

const char *const persisted_legacy_slots[LEGACY_SLOTS] = {
	"sno",
	"siq ternary", "siq multi", "siq manytomany", "siq content", "siq thread", "siq message", "siq user",
	"siq tag", "siq group", "siq event", "siq channel", "siq invite", "siq application", "siq collection",
	"siq premium",
	"kuid", "snowflake",
};

/* --- writing ------------------------------------------------------------------- */

size_t
entry_begin_flags(Writer *w, EntryTag tag, uint16_t flags)
{
	size_t		at;

	PUT_AS(w, uint16_t, (uint16_t) tag);
	PUT_AS(w, uint16_t, flags);
	at = w->size;
	PUT_AS(w, uint32_t, 0);
	return at;
}

size_t
entry_begin(Writer *w, EntryTag tag)
{
	return entry_begin_flags(w, tag, PERSISTED_REQUIRED);
}

void
entry_end(Writer *w, size_t at)
{
	uint32_t	length = (uint32_t) (w->size - at - sizeof(uint32_t));

	if (!w->full)
		memcpy(w->out + at, &length, sizeof(length));
}

static void
put_name(Writer *w, const char *name)
{
	uint8_t		length = (uint8_t) strlen(name);

	put(w, &length, 1);
	put(w, name, length);
}

/* starts an entry of one side's slot: the side and the slot's name, its fields to follow */
static size_t
slot_entry_begin(Writer *w, EntryTag tag, uint8_t side, const char *slot)
{
	size_t		at = entry_begin(w, tag);

	put(w, &side, 1);
	put_name(w, slot);
	return at;
}

void
entries_put_bounds(Writer *w, uint8_t side, const PersistedBounds *bounds)
{
	size_t		at = entry_begin(w, ENTRY_MARKS);

	put(w, &side, 1);
	PUT_AS(w, uint32_t, bounds->sno_ticktock);
	PUT_AS(w, uint32_t, PERSISTED_MARKS);
	put(w, bounds->marks, sizeof(bounds->marks));
	entry_end(w, at);
	/*
	 * (not required: a release before 1.5 skips them and resumes every
	 * monotonic generator after marks[0], their latest, as it always did;
	 * never a repeat, only the excursion of one carried to the others)
	 */
	for (uint32_t i = 0; i < bounds->ngenerator_marks; i++)
	{
		at = entry_begin_flags(w, ENTRY_MARK, 0);
		put(w, &side, 1);
		put_name(w, bounds->generator_marks[i].generator);
		PUT_AS(w, int64_t, bounds->generator_marks[i].mark);
		entry_end(w, at);
	}
	for (uint32_t i = 0; i < bounds->nlows; i++)
	{
		at = slot_entry_begin(w, ENTRY_LOW, side, bounds->lows[i].slot);
		PUT_AS(w, uint32_t, bounds->lows[i].low);
		entry_end(w, at);
	}
	for (uint32_t i = 0; i < bounds->ndeep; i++)
	{
		const PersistedDeep *deep = &bounds->deep[i];

		at = slot_entry_begin(w, ENTRY_DEEP, side, deep->slot);
		PUT_AS(w, uint64_t, deep->first);
		PUT_AS(w, uint64_t, deep->last);
		PUT_AS(w, uint32_t, deep->low);
		entry_end(w, at);
	}
	/* (required, as every entry: a release that could not refuse back-fill there refuses the file) */
	for (uint32_t i = 0; i < bounds->nahead; i++)
	{
		const PersistedAhead *ahead = &bounds->ahead[i];

		at = slot_entry_begin(w, ENTRY_AHEAD, side, ahead->slot);
		PUT_AS(w, uint32_t, ahead->runs.count);
		for (uint32_t r = 0; r < ahead->runs.count; r++)
		{
			PUT_AS(w, uint64_t, ahead->runs.runs[r].low);
			PUT_AS(w, uint64_t, ahead->runs.runs[r].high);
		}
		entry_end(w, at);
	}
	/* (required, as every entry: a release that cannot honour a floor refuses the file) */
	if (bounds->backfill_floor_us != 0)
	{
		at = entry_begin(w, ENTRY_FLOOR);
		put(w, &side, 1);
		PUT_AS(w, int64_t, bounds->backfill_floor_us);
		entry_end(w, at);
	}
}

void
entries_put_deep_unit(Writer *w, const PersistedDeepUnit *deep_unit)
{
	size_t		at = entry_begin(w, ENTRY_DEEP_UNIT);

	put_name(w, deep_unit->slot);
	PUT_AS(w, uint64_t, deep_unit->unit);
	PUT_AS(w, uint32_t, deep_unit->low);
	entry_end(w, at);
}

void
entries_put_holding(Writer *w, EntryTag tag, const PersistedHolding *holding)
{
	size_t		at = entry_begin(w, tag);

	PUT_AS(w, uint64_t, holding->full_xid);
	PUT_AS(w, uint32_t, holding->nunits);
	for (uint32_t i = 0; i < holding->nunits; i++)
	{
		put_name(w, holding->units[i].slot);
		PUT_AS(w, uint64_t, holding->units[i].unit);
	}
	entry_end(w, at);
}

/* --- reading ------------------------------------------------------------------- */

static bool
get_name(Reader *r, char *name)
{
	uint8_t		length = 0;

	if (!get(r, &length, 1) || length >= PERSISTED_NAME_MAX || !get(r, name, length))
		return false;
	name[length] = '\0';
	return persisted_name_ok(name, length);
}

static PersistedBounds *
get_side(Reader *r, const EntrySink *sink)
{
	uint8_t		side = 0;

	if (!get(r, &side, 1) || side > SIDE_UPSTREAM)
		return NULL;
	return sink->sides[side];
}

static bool
read_marks(Reader *r, const EntrySink *sink)
{
	PersistedBounds *bounds = get_side(r, sink);
	uint32_t	ticktock = 0,
				count = 0;

	if (bounds == NULL || !get(r, &ticktock, 4) || !get(r, &count, 4) || count != PERSISTED_MARKS)
		return false;
	if (sink->seen != NULL)
		*sink->seen |= ENTRY_SEEN_MARKS(bounds == sink->sides[SIDE_OWN] ? SIDE_OWN : SIDE_UPSTREAM);
	bounds->sno_ticktock = ticktock & 1;
	return get(r, bounds->marks, sizeof(bounds->marks));
}

static bool
read_low_or_deep(Reader *r, const EntrySink *sink, bool deep)
{
	PersistedBounds *bounds = get_side(r, sink);
	char		name[PERSISTED_NAME_MAX];
	uint64_t	first = 0,
				last = 0;
	uint32_t	low = 0;

	if (bounds == NULL || !get_name(r, name))
		return false;
	if (!deep)
		return get(r, &low, 4) && persisted_add_low(bounds, name, low);
	return get(r, &first, 8) && get(r, &last, 8) && get(r, &low, 4) &&
		persisted_add_deep(bounds, name, first, last, low);
}

static bool
read_floor(Reader *r, const EntrySink *sink)
{
	PersistedBounds *bounds = get_side(r, sink);
	int64_t		floor = 0;

	/* (a floor is a time a clock read: never 0 or below, never past the marks' limit) */
	if (bounds == NULL || !get(r, &floor, 8) || floor <= 0 || floor >= PERSISTED_MARK_MAX)
		return false;
	bounds->backfill_floor_us = floor;
	return true;
}

static bool
read_generator_mark(Reader *r, const EntrySink *sink)
{
	PersistedBounds *bounds = get_side(r, sink);
	char		name[PERSISTED_NAME_MAX];
	int64_t		mark = 0;

	/* (the range a save writes, as marks_possible holds the MARKS entry's to it) */
	return bounds != NULL && get_name(r, name) && get(r, &mark, 8) && mark >= 0 && mark < PERSISTED_MARK_MAX &&
		persisted_add_generator_mark(bounds, name, mark);
}

static bool
read_ahead(Reader *r, const EntrySink *sink)
{
	PersistedBounds *bounds = get_side(r, sink);
	char		name[PERSISTED_NAME_MAX];
	UnitRuns	runs;

	unit_runs_clear(&runs);
	if (bounds == NULL || !get_name(r, name) || !get(r, &runs.count, 4) || runs.count == 0 ||
		runs.count > UNIT_RUNS_MAX)
		return false;
	for (uint32_t i = 0; i < runs.count; i++)
		if (!get(r, &runs.runs[i].low, 8) || !get(r, &runs.runs[i].high, 8))
			return false;
	return persisted_add_ahead(bounds, name, &runs);	/* (valid runs, one entry per slot) */
}

/* a HOLDING entry (to sink->holding), or the one SAVED entry (into sink->saved) */
static bool
read_holding(Reader *r, const EntrySink *sink, bool saved)
{
	PersistedHolding holding;
	uint32_t	count = 0;

	memset(&holding, 0, sizeof(holding));
	if ((saved ? sink->saved == NULL || sink->saved->full_xid != 0 : sink->holding == NULL) ||
		!get(r, &holding.full_xid, 8) || !get(r, &count, 4) || count > PERSISTED_SLOTS_MAX)
		return false;
	for (uint32_t i = 0; i < count; i++)
	{
		char		name[PERSISTED_NAME_MAX];
		uint64_t	unit = 0;

		if (!get_name(r, name) || !get(r, &unit, 8) || !persisted_add_unit(&holding, name, unit))
			return false;
	}
	if (!saved)
		return sink->holding(sink->arg, &holding);
	*sink->saved = holding;
	return holding.full_xid != 0;	/* (a WAL position: never 0) */
}

static bool
read_deep_unit(Reader *r, const EntrySink *sink)
{
	PersistedDeepUnit *deep_unit = sink->deep_unit;

	return deep_unit != NULL && deep_unit->slot[0] == '\0' && get_name(r, deep_unit->slot) &&
		get(r, &deep_unit->unit, 8) && get(r, &deep_unit->low, 4);	/* (one per record) */
}

/* one entry's payload; false when it is damaged */
static bool
read_payload(uint16_t tag, Reader *r, const EntrySink *sink)
{
	switch ((EntryTag) tag)
	{
		case ENTRY_EPOCH:
			return sink->snowflake_epoch_ms != NULL && get(r, sink->snowflake_epoch_ms, 8);
		case ENTRY_SYSTEM:
			return sink->system_identifier != NULL && get(r, sink->system_identifier, 8);
		case ENTRY_MARKS:
			return read_marks(r, sink);
		case ENTRY_LOW:
			return read_low_or_deep(r, sink, false);
		case ENTRY_DEEP:
			return read_low_or_deep(r, sink, true);
		case ENTRY_HOLDING:
			return read_holding(r, sink, false);
		case ENTRY_SAVED:
			return read_holding(r, sink, true);
		case ENTRY_TIMELINE:
			return sink->timeline != NULL && get(r, sink->timeline, 4) && *sink->timeline != 0;
		case ENTRY_STOPPED:
			return sink->stopped != NULL && get(r, &sink->stopped[0], 8) && get(r, &sink->stopped[1], 8);
		case ENTRY_DEEP_RECORD:
			return sink->deep_record != NULL && get(r, sink->deep_record, 4) && *sink->deep_record != 0;
		case ENTRY_DEEP_UNIT:
			return read_deep_unit(r, sink);
		case ENTRY_FLOOR:
			return read_floor(r, sink);
		case ENTRY_AHEAD:
			return read_ahead(r, sink);
		case ENTRY_MARK:
			return read_generator_mark(r, sink);
	}
	return false;
}

static bool
tag_known(uint16_t tag)
{
	return tag >= ENTRY_EPOCH && tag <= ENTRY_MARK;
}

PersistedVerdict
entries_read(const uint8_t *bytes, size_t size, const EntrySink *sink)
{
	Reader		r = {bytes, size, false};

	while (r.left > 0)
	{
		uint16_t	tag = 0,
					flags = 0;
		uint32_t	length = 0;
		Reader		payload;

		if (!get(&r, &tag, 2) || !get(&r, &flags, 2) || !get(&r, &length, 4) || length > r.left)
			return PERSISTED_DAMAGED;
		payload = (Reader) {r.p, length, false};
		r.p += length;
		r.left -= length;
		if (!tag_known(tag))
		{
			if (flags & PERSISTED_REQUIRED)
				return PERSISTED_TOO_NEW;
			continue;			/* a later minor's hint: skipped */
		}
		/* a known entry is read whole: a payload longer than ours is damage, not news */
		if (!read_payload(tag, &payload, sink) || payload.left != 0)
			return PERSISTED_DAMAGED;
		if (sink->seen != NULL)
			*sink->seen |= ENTRY_SEEN(tag);
	}
	return PERSISTED_OK;
}

/* --- checksums ----------------------------------------------------------------- */

uint32_t
persisted_crc32c(const void *data, size_t size)
{
	static uint32_t table[256];
	static bool ready = false;
	const uint8_t *p = data;
	uint32_t	crc = 0xFFFFFFFF;

	if (!ready)
	{
		/* written before `ready`, and the same by every caller: a race is harmless */
		for (uint32_t i = 0; i < 256; i++)
		{
			uint32_t	c = i;

			for (int k = 0; k < 8; k++)
				c = (c & 1) ? (c >> 1) ^ 0x82F63B78 : c >> 1;
			table[i] = c;
		}
		ready = true;
	}
	for (size_t i = 0; i < size; i++)
		crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
	return crc ^ 0xFFFFFFFF;
}

uint32_t
persisted_crc32(const void *data, size_t size)
{
	return (uint32_t) crc32(0L, (const Bytef *) data, (uInt) size);
}
