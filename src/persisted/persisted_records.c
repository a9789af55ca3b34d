/*
 * persisted_records.c — flakeid's WAL records and flakeid.prepared, every
 * version (persisted.h)
 *
 * WAL records (a record has no checksum of ours: the WAL's covers it):
 *   MARK (1.1)     1.1's state, 40 bytes
 *   BOUNDS (1.2)   version, length, snowflake epoch, 1.2's fixed bounds;
 *                  a later version appended fields, which are skipped
 *   ISSUED (1.3)   version, length, entries: EPOCH, and MARKS, LOW and
 *                  DEEP of the writer's own side
 *   PREPARED (1.3) version, length, one HOLDING entry
 *   DEEP (1.4)     version, length, one DEEP_UNIT entry: a deep unit of
 *                  back-fill lowered (flakeid.deep)
 *
 * flakeid.prepared:
 *   version 1 (1.2)  magic "FLKP", 1.2's slot count (18), the count of
 *                  holdings, a CRC-32C of them; each holding a 32-bit xid,
 *                  padding, and the lowest unit of each slot by position
 *                  (UINT64_MAX: none)
 *   version 2 (1.3)  magic "FLKH", the version, the body's length,
 *                  reserved; HOLDING entries; CRC-32C of header and body.
 *                  From 1.4 SYSTEM (the cluster's), TIMELINE and SAVED entries come
 *                  first (1.3's reader has no place for either, and
 *                  refuses the file): the file is saved after the
 *                  PREPARE, and SAVED says what the save knew
 */
#include "persisted_wire.h"

#define RECORD_HEADER		8	/* uint32 version, uint32 length (the record's, header included) */
#define BOUNDS12_RECORD		(RECORD_HEADER + 8 + BOUNDS12_SIZE)
#define ISSUED_VERSION		1
#define PREPARED_RECORD_VERSION 1
#define DEEP_RECORD_VERSION	1

#define PREPARED_MAGIC_V1	0x464C4B50	/* "FLKP" */
#define PREPARED_MAGIC		0x464C4B48	/* "FLKH" */
#define PREPARED_V1_ENTRY	(8 + 8 * LEGACY_SLOTS)
#define UNIT_NONE			UINT64_MAX

typedef struct FileHeader
{
	uint32_t	magic;
	uint32_t	version;		/* version 1 of flakeid.prepared: the slot count */
	uint32_t	length;			/* the body's; version 1: the count of holdings */
	uint32_t	reserved;		/* version 1: the CRC-32C of the holdings */
} FileHeader;

/* --- the WAL ---------------------------------------------------------------------- */

/* a record's version and length, the length being the record's own */
static bool
record_header(const uint8_t *data, size_t size, uint32_t *version)
{
	uint32_t	length;

	if (size < RECORD_HEADER)
		return false;
	memcpy(version, data, 4);
	memcpy(&length, data + 4, 4);
	return *version >= 1 && length == size;
}

/* the one holding of a PREPARED record */
static bool
take_holding(void *arg, const PersistedHolding *holding)
{
	PersistedRecord *record = arg;

	if (holding->full_xid == 0 || record->holding.full_xid != 0)
		return false;			/* an invalid transaction, or a second holding */
	record->holding = *holding;
	return true;
}

PersistedVerdict
persisted_record_decode(uint8_t info, const uint8_t *data, size_t size, PersistedRecord *record)
{
	uint32_t	version = 0;
	EntrySink	sink = {NULL, &record->snowflake_epoch_ms, {&record->bounds, NULL}, NULL, record, NULL, NULL, NULL, NULL, NULL, NULL};
	PersistedVerdict verdict;

	memset(record, 0, sizeof(*record));
	record->info = info;
	record->snowflake_epoch_ms = -1;
	switch (info)
	{
		case PERSISTED_RECORD_MARK:
			if (size != STATE11_SIZE)
				return PERSISTED_DAMAGED;
			return persisted_read_state11(data, &record->bounds, &record->snowflake_epoch_ms);
		case PERSISTED_RECORD_BOUNDS:
			if (size < BOUNDS12_RECORD || !record_header(data, size, &version))
				return PERSISTED_DAMAGED;
			memcpy(&record->snowflake_epoch_ms, data + RECORD_HEADER, 8);
			return persisted_read_bounds12(data + RECORD_HEADER + 8, &record->bounds);
		case PERSISTED_RECORD_ISSUED:
			if (!record_header(data, size, &version))
				return PERSISTED_DAMAGED;
			verdict = entries_read(data + RECORD_HEADER, size - RECORD_HEADER, &sink);
			if (verdict == PERSISTED_OK && !persisted_generator_marks_possible(&record->bounds))
				return PERSISTED_DAMAGED;
			return verdict;
		case PERSISTED_RECORD_PREPARED:
			if (!record_header(data, size, &version))
				return PERSISTED_DAMAGED;
			sink = (EntrySink) {NULL, NULL, {NULL, NULL}, take_holding, record, NULL, NULL, NULL, NULL, NULL, NULL};
			verdict = entries_read(data + RECORD_HEADER, size - RECORD_HEADER, &sink);
			if (verdict != PERSISTED_OK)
				return verdict;
			return record->holding.full_xid != 0 ? PERSISTED_OK : PERSISTED_DAMAGED;	/* one holding */
		case PERSISTED_RECORD_DEEP:
			if (!record_header(data, size, &version))
				return PERSISTED_DAMAGED;
			sink = (EntrySink) {NULL, NULL, {NULL, NULL}, NULL, NULL, NULL, NULL, &record->deep_unit, NULL, NULL, NULL};
			verdict = entries_read(data + RECORD_HEADER, size - RECORD_HEADER, &sink);
			if (verdict != PERSISTED_OK)
				return verdict;
			return record->deep_unit.slot[0] != '\0' ? PERSISTED_OK : PERSISTED_DAMAGED;	/* one unit */
	}
	return PERSISTED_TOO_NEW;	/* an info code of a later release */
}

/* `body` (entries) after a record header of `version` */
static size_t
record_finish(Writer *w, uint32_t version)
{
	uint32_t	length = (uint32_t) w->size;

	if (w->full)
		return 0;
	memcpy(w->out, &version, 4);
	memcpy(w->out + 4, &length, 4);
	return w->size;
}

size_t
persisted_issued_encode(const PersistedBounds *bounds, int64_t snowflake_epoch_ms, uint8_t *out, size_t room)
{
	Writer		w = {out, room, 0, false};
	size_t		at;

	PUT_AS(&w, uint64_t, 0);	/* the header, filled in last */
	at = entry_begin(&w, ENTRY_EPOCH);
	PUT_AS(&w, int64_t, snowflake_epoch_ms);
	entry_end(&w, at);
	entries_put_bounds(&w, SIDE_OWN, bounds);
	return record_finish(&w, ISSUED_VERSION);
}

size_t
persisted_prepared_record_encode(const PersistedHolding *holding, uint8_t *out, size_t room)
{
	Writer		w = {out, room, 0, false};

	PUT_AS(&w, uint64_t, 0);
	entries_put_holding(&w, ENTRY_HOLDING, holding);
	return record_finish(&w, PREPARED_RECORD_VERSION);
}

size_t
persisted_deep_record_encode(const PersistedDeepUnit *deep_unit, uint8_t *out, size_t room)
{
	Writer		w = {out, room, 0, false};

	PUT_AS(&w, uint64_t, 0);
	entries_put_deep_unit(&w, deep_unit);
	return record_finish(&w, DEEP_RECORD_VERSION);
}

/* --- flakeid.prepared ---------------------------------------------------------- */

static PersistedVerdict
prepared_v1(const uint8_t *file, size_t size, const FileHeader *header,
			bool (*each) (void *arg, const PersistedHolding *holding), void *arg)
{
	size_t		count = header->length;

	if (header->version != LEGACY_SLOTS || count > (SIZE_MAX - sizeof(*header)) / PREPARED_V1_ENTRY ||
		size != sizeof(*header) + count * PREPARED_V1_ENTRY ||
		persisted_crc32c(file + sizeof(*header), count * PREPARED_V1_ENTRY) != header->reserved)
		return PERSISTED_DAMAGED;
	for (size_t i = 0; i < count; i++)
	{
		const uint8_t *entry = file + sizeof(*header) + i * PREPARED_V1_ENTRY;
		PersistedHolding holding;
		uint32_t	xid;

		memset(&holding, 0, sizeof(holding));
		memcpy(&xid, entry, 4);
		holding.full_xid = xid;
		for (int s = 0; s < LEGACY_SLOTS; s++)
		{
			uint64_t	unit;

			memcpy(&unit, entry + 8 + 8 * s, 8);
			if (unit != UNIT_NONE)
				(void) persisted_add_unit(&holding, persisted_legacy_slots[s], unit);
		}
		if (!each(arg, &holding))
			return PERSISTED_DAMAGED;
	}
	return PERSISTED_OK;
}

PersistedVerdict
persisted_prepared_decode(const uint8_t *file, size_t size,
						  bool (*each) (void *arg, const PersistedHolding *holding), void *arg,
						  PersistedHolding *saved, uint64_t *system, uint32_t *timeline, uint32_t *version)
{
	FileHeader	header;
	EntrySink	sink = {system, NULL, {NULL, NULL}, each, arg, NULL, NULL, NULL, saved, timeline, NULL};
	uint32_t	crc;

	*version = 0;
	*system = 0;
	*timeline = 0;
	memset(saved, 0, sizeof(*saved));
	if (size < sizeof(header))
		return PERSISTED_DAMAGED;
	memcpy(&header, file, sizeof(header));
	if (header.magic == PREPARED_MAGIC_V1)
	{
		*version = 1;
		return prepared_v1(file, size, &header, each, arg);
	}
	if (header.magic != PREPARED_MAGIC || header.version == 0)
		return PERSISTED_DAMAGED;
	*version = header.version;
	if (header.version > PERSISTED_PREPARED_VERSION)
		return PERSISTED_TOO_NEW;
	if (header.version != PERSISTED_PREPARED_VERSION || header.reserved != 0 ||
		size != sizeof(header) + (size_t) header.length + 4)
		return PERSISTED_DAMAGED;
	memcpy(&crc, file + sizeof(header) + header.length, 4);
	if (crc != persisted_crc32c(file, sizeof(header) + header.length))
		return PERSISTED_DAMAGED;
	return entries_read(file + sizeof(header), header.length, &sink);
}

size_t
persisted_prepared_encode(const PersistedHolding *const *holdings, uint32_t count, const PersistedHolding *saved,
						  uint64_t system, uint32_t timeline, uint8_t *out, size_t room)
{
	Writer		w = {out, room, 0, false};
	FileHeader	header = {PREPARED_MAGIC, PERSISTED_PREPARED_VERSION, 0, 0};
	uint32_t	crc;

	put(&w, &header, sizeof(header));
	if (system != 0)
	{
		size_t		at = entry_begin(&w, ENTRY_SYSTEM);

		PUT_AS(&w, uint64_t, system);
		entry_end(&w, at);
	}
	if (timeline != 0)
	{
		size_t		at = entry_begin(&w, ENTRY_TIMELINE);

		PUT_AS(&w, uint32_t, timeline);
		entry_end(&w, at);
	}
	if (saved != NULL)
		entries_put_holding(&w, ENTRY_SAVED, saved);
	for (uint32_t i = 0; i < count; i++)
		entries_put_holding(&w, ENTRY_HOLDING, holdings[i]);
	if (w.full)
		return 0;
	header.length = (uint32_t) (w.size - sizeof(header));
	memcpy(out, &header, sizeof(header));
	crc = persisted_crc32c(out, w.size);
	put(&w, &crc, 4);
	return w.full ? 0 : w.size;
}
