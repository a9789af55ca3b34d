/*
 * persisted_wire.h — the codec's own helpers (persisted.h): bytes in and
 * out, and the entries every format of 1.3 on is made of
 * (persisted_entries.c; the structures they fill, persisted_bounds.c).  Not
 * for the rest of the tree.
 *
 * An entry: tag (uint16), flags (uint16), payload length (uint32), payload.
 */
#ifndef FLAKEID_FORMAT_PERSISTED_WIRE_H
#define FLAKEID_FORMAT_PERSISTED_WIRE_H

#include <string.h>

#include "persisted.h"

#define PERSISTED_REQUIRED	0x0001	/* an entry flag: refuse the whole if its tag is unknown */

typedef enum EntryTag
{
	ENTRY_EPOCH = 1,			/* int64 snowflake epoch (ms) */
	ENTRY_SYSTEM = 2,			/* uint64 system identifier */
	ENTRY_MARKS = 3,			/* side, sno tick-tock, count, int64 marks */
	ENTRY_LOW = 4,				/* side, slot name, uint32 low */
	ENTRY_DEEP = 5,				/* side, slot name, uint64 first, last, uint32 low */
	ENTRY_HOLDING = 6,			/* uint64 full xid, count, (slot name, uint64 unit)... */
	ENTRY_DEEP_RECORD = 7,		/* uint32 the identifier of the flakeid.deep that goes with the state (1.4) */
	ENTRY_DEEP_UNIT = 8,		/* slot name, uint64 unit, uint32 low: a DEEP record (1.4) */
	ENTRY_FLOOR = 9,			/* side, int64 back-fill floor (Unix µs); 1.4, only when set */
	ENTRY_SAVED = 10,			/* as HOLDING, the WAL position first: what a save of flakeid.prepared knew (1.4) */
	ENTRY_TIMELINE = 11,		/* uint32: the timeline of SAVED's WAL position (1.4) */
	ENTRY_STOPPED = 12,			/* uint64 the clean stop's checkpoint (0: saved while running), uint64 flakeid.deep's size (1.4) */
	ENTRY_AHEAD = 13,			/* side, slot name, uint32 count, (uint64 low, high)...: units issued ahead (1.4) */
	ENTRY_MARK = 14				/* side, generator name, int64 mark: a monotonic generator's own (1.5; not required) */
} EntryTag;

#define SIDE_OWN		0
#define SIDE_UPSTREAM	1

/* the 18 counter slots of 1.2's fixed layouts (state file 3, BOUNDS, prepared file 1), in order */
#define LEGACY_SLOTS	18
extern const char *const persisted_legacy_slots[LEGACY_SLOTS];

typedef struct Writer
{
	uint8_t    *out;
	size_t		room;
	size_t		size;
	bool		full;			/* something did not fit: the result is 0 */
} Writer;

static inline void
put(Writer *w, const void *data, size_t n)
{
	if (w->full || n > w->room - w->size)
	{
		w->full = true;
		return;
	}
	memcpy(w->out + w->size, data, n);
	w->size += n;
}

#define PUT_AS(w, type, value)	do { type v_ = (value); put((w), &v_, sizeof(v_)); } while (0)

typedef struct Reader
{
	const uint8_t *p;
	size_t		left;
	bool		short_read;		/* a read past the end */
} Reader;

static inline bool
get(Reader *r, void *data, size_t n)
{
	if (r->short_read || n > r->left)
	{
		r->short_read = true;
		memset(data, 0, n);
		return false;
	}
	memcpy(data, r->p, n);
	r->p += n;
	r->left -= n;
	return true;
}

/* starts an entry; entry_end fills in its length (entry_begin_flags: with these flags, not REQUIRED) */
extern size_t entry_begin(Writer *w, EntryTag tag);
extern size_t entry_begin_flags(Writer *w, EntryTag tag, uint16_t flags);
extern void entry_end(Writer *w, size_t at);

extern void entries_put_bounds(Writer *w, uint8_t side, const PersistedBounds *bounds);
extern void entries_put_holding(Writer *w, EntryTag tag, const PersistedHolding *holding);
extern void entries_put_deep_unit(Writer *w, const PersistedDeepUnit *deep_unit);

/* whether a slot's name is one: 1 to 31 printable ASCII characters */
extern bool persisted_name_ok(const char *name, size_t length);

/* where the entries read go: any pointer may be NULL (that entry is then damage) */
typedef struct EntrySink
{
	uint64_t   *system_identifier;
	int64_t    *snowflake_epoch_ms;
	PersistedBounds *sides[2];	/* SIDE_OWN, SIDE_UPSTREAM */
	bool		(*holding) (void *arg, const PersistedHolding *holding);
	void	   *arg;
	uint32_t   *seen;			/* if not NULL: ENTRY_SEEN bits of the entries read are set */
	uint32_t   *deep_record;	/* ENTRY_DEEP_RECORD */
	PersistedDeepUnit *deep_unit;	/* ENTRY_DEEP_UNIT */
	PersistedHolding *saved;	/* ENTRY_SAVED (one) */
	uint32_t   *timeline;		/* ENTRY_TIMELINE */
	uint64_t   *stopped;		/* ENTRY_STOPPED: its two values */
} EntrySink;

/* the bit of a known tag in EntrySink.seen, and of a MARKS entry of each side */
#define ENTRY_SEEN(tag)			(UINT32_C(1) << (tag))
#define ENTRY_SEEN_MARKS(side)	(UINT32_C(1) << (16 + (side)))

/* reads every entry of bytes[0..size) into `sink` */
extern PersistedVerdict entries_read(const uint8_t *bytes, size_t size, const EntrySink *sink);

/* 1.1's state (40 bytes): the body of state file version 2, and the MARK record */
#define STATE11_SIZE	40
extern PersistedVerdict persisted_read_state11(const uint8_t *body, PersistedBounds *bounds,
											   int64_t *snowflake_epoch_ms);

/* 1.2's fixed bounds (104 bytes, in state file 3 and BOUNDS): low-waters by position */
#define BOUNDS12_SIZE	104
extern PersistedVerdict persisted_read_bounds12(const uint8_t *image, PersistedBounds *bounds);

/* zlib's CRC-32, of state file versions 1 to 3 */
extern uint32_t persisted_crc32(const void *data, size_t size);

#endif
