/*
 * persisted_state.c — flakeid.state, every version (persisted.h)
 *
 *   version 1 (1.0): magic, version, the mark (of every generator), sno's
 *              other bound and tick-tock, padding, CRC-32 (zlib) of the
 *              32 bytes before it; 40 bytes with the struct's tail padding
 *   version 2 (1.1): header (magic, version, body length, reserved); the
 *              body (the mark of the monotonic generators, sno's mark and
 *              other bound, the snowflake epoch, sno's tick-tock, padding);
 *              CRC-32 of header and body
 *   version 3 (1.2): the same header; the body: system identifier,
 *              snowflake epoch, and twice (own, upstream) the three marks,
 *              sno's tick-tock and a back-fill low-water for each of 1.2's
 *              18 slots (persisted_legacy_slots), padded; CRC-32
 *   version 4 (1.3): the same header; the body is entries (SYSTEM, EPOCH,
 *              MARKS, LOW and DEEP per side); CRC-32C of header and body.
 *              From 1.4 on a required DEEP_RECORD entry says that
 *              flakeid.deep goes with the file (1.3 refuses it as too new
 *              rather than forget the deep units kept there)
 */
#include "persisted_wire.h"

#define STATE_MAGIC		0x464C4B31	/* "FLK1" */
#define HEADER_SIZE		16
#define V1_SIZE			40
#define V1_CRC_AT		32
#define V2_BODY			40
#define V3_BOUNDS		104			/* int64 marks[3], uint32 tick-tock, uint32 lows[18], padding */
#define V3_BODY			(16 + 2 * V3_BOUNDS)
#define LOW_NONE_V3		(UINT32_C(1) << 16)	/* 1.2's BACKFILL_LOW_NONE: COUNTER_SEQ_MASK + 1 */

typedef struct Header
{
	uint32_t	magic;
	uint32_t	version;
	uint32_t	body_length;
	uint32_t	reserved;
} Header;

/* versions 1 and 2 kept sno's marks as the one of the tick-tock in use and the other's bound */
static void
set_sno_marks(PersistedBounds *bounds, int64_t monotonic, int64_t in_use, int64_t other, uint32_t ticktock)
{
	bool		flag = (ticktock & 1) != 0;

	bounds->marks[0] = monotonic;
	bounds->marks[flag ? 2 : 1] = in_use;
	bounds->marks[flag ? 1 : 2] = other;
	bounds->sno_ticktock = flag ? 1 : 0;
}

static PersistedVerdict
read_v1(const uint8_t *file, size_t size, PersistedState *state)
{
	int64_t		mark,
				other;
	uint32_t	ticktock,
				crc;

	if (size != V1_SIZE)
		return PERSISTED_DAMAGED;
	memcpy(&crc, file + V1_CRC_AT, 4);
	if (crc != persisted_crc32(file, V1_CRC_AT))
		return PERSISTED_DAMAGED;
	memcpy(&mark, file + 8, 8);
	memcpy(&other, file + 16, 8);
	memcpy(&ticktock, file + 24, 4);
	/* 1.0 had one mark for every generator, and kept no epoch */
	set_sno_marks(&state->own, mark, mark, other, ticktock);
	return PERSISTED_OK;
}

/* the body of a file of version 2 on, when the header's length and the checksum match */
static const uint8_t *
body_of(const uint8_t *file, size_t size, size_t body_length, bool crc32c)
{
	Header		header;
	uint32_t	crc;

	if (size < HEADER_SIZE + 4)
		return NULL;
	memcpy(&header, file, sizeof(header));
	if (header.body_length != body_length || size != HEADER_SIZE + body_length + 4)
		return NULL;
	memcpy(&crc, file + HEADER_SIZE + body_length, 4);
	if (crc != (crc32c ? persisted_crc32c(file, HEADER_SIZE + body_length)
				: persisted_crc32(file, HEADER_SIZE + body_length)))
		return NULL;
	return file + HEADER_SIZE;
}

PersistedVerdict
persisted_read_state11(const uint8_t *body, PersistedBounds *bounds, int64_t *snowflake_epoch_ms)
{
	int64_t		monotonic,
				in_use,
				other;
	uint32_t	ticktock;

	memcpy(&monotonic, body, 8);
	memcpy(&in_use, body + 8, 8);
	memcpy(&other, body + 16, 8);
	memcpy(snowflake_epoch_ms, body + 24, 8);
	memcpy(&ticktock, body + 32, 4);
	set_sno_marks(bounds, monotonic, in_use, other, ticktock);
	return PERSISTED_OK;
}

static PersistedVerdict
read_v2(const uint8_t *file, size_t size, PersistedState *state)
{
	const uint8_t *body = body_of(file, size, V2_BODY, false);

	return body ? persisted_read_state11(body, &state->own, &state->snowflake_epoch_ms) : PERSISTED_DAMAGED;
}

PersistedVerdict
persisted_read_bounds12(const uint8_t *image, PersistedBounds *bounds)
{
	uint32_t	ticktock;

	memcpy(bounds->marks, image, sizeof(bounds->marks));
	memcpy(&ticktock, image + 24, 4);
	bounds->sno_ticktock = ticktock & 1;
	for (int s = 0; s < LEGACY_SLOTS; s++)
	{
		uint32_t	low;

		memcpy(&low, image + 28 + 4 * s, 4);
		if (low != LOW_NONE_V3 && !persisted_add_low(bounds, persisted_legacy_slots[s], low))
			return PERSISTED_DAMAGED;
	}
	return PERSISTED_OK;
}

static PersistedVerdict
read_v3(const uint8_t *file, size_t size, PersistedState *state)
{
	const uint8_t *body = body_of(file, size, V3_BODY, false);

	if (body == NULL)
		return PERSISTED_DAMAGED;
	memcpy(&state->system_identifier, body, 8);
	/* 1.2 always wrote its cluster's: a version 3 file naming none was not written by it */
	if (state->system_identifier == 0)
		return PERSISTED_DAMAGED;
	memcpy(&state->snowflake_epoch_ms, body + 8, 8);
	if (persisted_read_bounds12(body + 16, &state->own) != PERSISTED_OK)
		return PERSISTED_DAMAGED;
	return persisted_read_bounds12(body + 16 + V3_BOUNDS, &state->upstream);
}

static PersistedVerdict
read_v4(const uint8_t *file, size_t size, PersistedState *state)
{
	const uint32_t needed = ENTRY_SEEN(ENTRY_SYSTEM) | ENTRY_SEEN_MARKS(SIDE_OWN) | ENTRY_SEEN_MARKS(SIDE_UPSTREAM);
	Header		header;
	const uint8_t *body;
	uint32_t	seen = 0;
	uint64_t	stopped[2] = {0, 0};
	EntrySink	sink = {&state->system_identifier, &state->snowflake_epoch_ms, {&state->own, &state->upstream},
	NULL, NULL, &seen, &state->deep_record, NULL, NULL, NULL, stopped};
	PersistedVerdict verdict;

	if (size < HEADER_SIZE)
		return PERSISTED_DAMAGED;
	memcpy(&header, file, sizeof(header));
	if (header.body_length > size || (body = body_of(file, size, header.body_length, true)) == NULL)
		return PERSISTED_DAMAGED;
	verdict = entries_read(body, header.body_length, &sink);
	/* every save writes these: without them the file would read as a first start, or as no one's */
	if (verdict == PERSISTED_OK && ((seen & needed) != needed || state->system_identifier == 0))
		return PERSISTED_DAMAGED;
	state->has_stop = (seen & ENTRY_SEEN(ENTRY_STOPPED)) != 0;
	state->stop_checkpoint = stopped[0];
	state->stop_deep_size = stopped[1];
	return verdict;
}

/* whether every mark is one a save could have written (persisted.h) */
static bool
marks_possible(const PersistedBounds *bounds)
{
	for (int m = 0; m < PERSISTED_MARKS; m++)
		if (bounds->marks[m] < 0 || bounds->marks[m] >= PERSISTED_MARK_MAX)
			return false;
	return persisted_generator_marks_possible(bounds);
}

PersistedVerdict
persisted_state_decode(const uint8_t *file, size_t size, uint64_t system_identifier, PersistedState *state,
					   uint32_t *version)
{
	static PersistedVerdict (*const readers[]) (const uint8_t *, size_t, PersistedState *) = {
		NULL, read_v1, read_v2, read_v3, read_v4
	};
	Header		header = {0};
	PersistedVerdict verdict;

	persisted_state_empty(state);
	*version = 0;
	if (size >= 8)
		memcpy(&header, file, 8);
	if (size < 8 || header.magic != STATE_MAGIC || header.version == 0)
		return PERSISTED_DAMAGED;
	*version = header.version;
	if (header.version > PERSISTED_STATE_VERSION)
		return PERSISTED_TOO_NEW;
	verdict = readers[header.version](file, size, state);
	if (verdict == PERSISTED_OK && !(marks_possible(&state->own) && marks_possible(&state->upstream)))
		verdict = PERSISTED_DAMAGED;
	if (verdict != PERSISTED_OK)
		persisted_state_empty(state);
	else if (state->system_identifier != 0 && state->system_identifier != system_identifier)
		return PERSISTED_FOREIGN;
	return verdict;
}

size_t
persisted_state_encode(const PersistedState *state, uint8_t *out, size_t room)
{
	Writer		w = {out, room, 0, false};
	Header		header = {STATE_MAGIC, PERSISTED_STATE_VERSION, 0, 0};
	size_t		at;
	uint32_t	crc;

	put(&w, &header, sizeof(header));
	at = entry_begin(&w, ENTRY_SYSTEM);
	PUT_AS(&w, uint64_t, state->system_identifier);
	entry_end(&w, at);
	at = entry_begin(&w, ENTRY_EPOCH);
	PUT_AS(&w, int64_t, state->snowflake_epoch_ms);
	entry_end(&w, at);
	if (state->deep_record != 0)
	{
		at = entry_begin(&w, ENTRY_DEEP_RECORD);
		PUT_AS(&w, uint32_t, state->deep_record);
		entry_end(&w, at);
	}
	entries_put_bounds(&w, SIDE_OWN, &state->own);
	entries_put_bounds(&w, SIDE_UPSTREAM, &state->upstream);
	if (state->has_stop)
	{
		at = entry_begin(&w, ENTRY_STOPPED);
		PUT_AS(&w, uint64_t, state->stop_checkpoint);
		PUT_AS(&w, uint64_t, state->stop_deep_size);
		entry_end(&w, at);
	}
	if (w.full)
		return 0;
	header.body_length = (uint32_t) (w.size - HEADER_SIZE);
	memcpy(out, &header, sizeof(header));
	crc = persisted_crc32c(out, w.size);
	put(&w, &crc, 4);
	return w.full ? 0 : w.size;
}
