/*
 * persisted_deep.c — flakeid.deep, back-fill's deep units (persisted.h)
 *
 *   version 1 (1.4): a header (magic "FLKD", the version, the file's
 *              identifier (random, not 0: flakeid.state names the file
 *              that goes with it), a CRC-32C of the 12 bytes before it),
 *              then entries of 48
 *              bytes appended one at a time: the slot's name NUL-padded to
 *              32 bytes, the unit (uint64), the low-water (uint32), a
 *              CRC-32C of the 44 bytes before it.  A unit may have several
 *              entries (each save lowers it); the lowest is its low-water.
 *              The server rewrites the file whole, one entry per unit, when
 *              it has grown to twice that.
 */
#include "persisted_wire.h"

#define DEEP_MAGIC		0x464C4B44	/* "FLKD" */
#define ENTRY_CRC_AT	(PERSISTED_DEEP_ENTRY - 4)

/* the length of a name of at most `room` bytes (strnlen is not C11) */
static size_t
name_length(const char *name, size_t room)
{
	size_t		length = 0;

	while (length < room && name[length] != '\0')
		length++;
	return length;
}

bool
persisted_deep_unit_set(PersistedDeepUnit *deep_unit, const char *slot, uint64_t unit, uint32_t low)
{
	size_t		length = name_length(slot, PERSISTED_NAME_MAX);

	memset(deep_unit, 0, sizeof(*deep_unit));
	if (!persisted_name_ok(slot, length))
		return false;
	memcpy(deep_unit->slot, slot, length);
	deep_unit->unit = unit;
	deep_unit->low = low;
	return true;
}

void
persisted_deep_header_encode(uint8_t *out, uint32_t file_id)
{
	uint32_t	header[3] = {DEEP_MAGIC, PERSISTED_DEEP_VERSION, file_id};
	uint32_t	crc;

	memcpy(out, header, sizeof(header));
	crc = persisted_crc32c(out, sizeof(header));
	memcpy(out + sizeof(header), &crc, 4);
}

void
persisted_deep_entry_encode(const PersistedDeepUnit *deep_unit, uint8_t *out)
{
	uint32_t	crc;

	memset(out, 0, PERSISTED_NAME_MAX);
	memcpy(out, deep_unit->slot, name_length(deep_unit->slot, PERSISTED_NAME_MAX - 1));
	memcpy(out + PERSISTED_NAME_MAX, &deep_unit->unit, 8);
	memcpy(out + PERSISTED_NAME_MAX + 8, &deep_unit->low, 4);
	crc = persisted_crc32c(out, ENTRY_CRC_AT);
	memcpy(out + ENTRY_CRC_AT, &crc, 4);
}

/* one entry; false when its checksum or its name is not one a save writes */
static bool
entry_decode(const uint8_t *entry, PersistedDeepUnit *deep_unit)
{
	uint32_t	crc;
	size_t		length;

	memcpy(&crc, entry + ENTRY_CRC_AT, 4);
	if (crc != persisted_crc32c(entry, ENTRY_CRC_AT))
		return false;
	memset(deep_unit, 0, sizeof(*deep_unit));
	length = name_length((const char *) entry, PERSISTED_NAME_MAX);
	if (!persisted_name_ok((const char *) entry, length))
		return false;
	for (size_t i = length; i < PERSISTED_NAME_MAX; i++)
		if (entry[i] != 0)
			return false;		/* the name is padded with NULs */
	memcpy(deep_unit->slot, entry, length);
	memcpy(&deep_unit->unit, entry + PERSISTED_NAME_MAX, 8);
	memcpy(&deep_unit->low, entry + PERSISTED_NAME_MAX + 8, 4);
	return true;
}

PersistedVerdict
persisted_deep_decode(const uint8_t *file, size_t size,
					  bool (*each) (void *arg, const PersistedDeepUnit *deep_unit), void *arg,
					  uint32_t *version, uint32_t *file_id, size_t *good_size)
{
	uint32_t	header[3];
	uint32_t	crc;
	size_t		count,
				tail;

	*version = 0;
	*file_id = 0;
	*good_size = 0;
	if (size < PERSISTED_DEEP_HEADER)
		return PERSISTED_DAMAGED;
	memcpy(header, file, sizeof(header));
	memcpy(&crc, file + sizeof(header), 4);
	if (header[0] != DEEP_MAGIC || crc != persisted_crc32c(file, sizeof(header)) || header[1] == 0)
		return PERSISTED_DAMAGED;
	*version = header[1];
	if (header[1] > PERSISTED_DEEP_VERSION)
		return PERSISTED_TOO_NEW;
	if (header[2] == 0)
		return PERSISTED_DAMAGED;
	*file_id = header[2];
	count = (size - PERSISTED_DEEP_HEADER) / PERSISTED_DEEP_ENTRY;
	tail = (size - PERSISTED_DEEP_HEADER) % PERSISTED_DEEP_ENTRY;
	*good_size = PERSISTED_DEEP_HEADER;
	for (size_t i = 0; i < count; i++)
	{
		PersistedDeepUnit deep_unit;

		if (!entry_decode(file + PERSISTED_DEEP_HEADER + i * PERSISTED_DEEP_ENTRY, &deep_unit))
			return i + 1 == count && tail == 0 ? PERSISTED_OK : PERSISTED_DAMAGED;	/* a torn last entry */
		if (!each(arg, &deep_unit))
			return PERSISTED_DAMAGED;
		*good_size += PERSISTED_DEEP_ENTRY;
	}
	return PERSISTED_OK;
}
