/*
 * persisted.h — everything flakeid writes to disk and to the WAL, as bytes:
 * one pure, versioned codec (no PostgreSQL headers, no I/O)
 *
 * Three things persist (docs/FORMATS.md, "What flakeid persists"):
 *
 *   flakeid.state   what bounds the IDs a server issued: versions 1 (1.0),
 *                   2 (1.1), 3 (1.2) are read; version 4 (1.3) is written
 *   the WAL         MARK (1.1) and BOUNDS (1.2) are read; ISSUED (1.3:
 *                   a save's bounds) and PREPARED (1.3: a prepared
 *                   transaction's holding) are written
 *   flakeid.prepared  the holdings of prepared transactions: version 1
 *                   (1.2) is read, version 2 (1.3) written, with a SAVED
 *                   entry from 1.4
 *   flakeid.deep    back-fill's deep units, one entry per unit
 *                   (deep_table.h), appended to: version 1 (1.4)
 *                   written; the WAL record DEEP carries each entry
 *
 * From 1.3 on, the three share one layout of entries: a tag, flags and a
 * length, then the payload.  Per-generator data names its counter slot
 * ("sno", "siq user", "kuid", "snowflake"), so a new generator is a new
 * name, not a new format.  An entry whose tag this code does not know is
 * skipped, unless its writer marked it required (PERSISTED_REQUIRED):
 * then the whole file or record is refused as too new, since dropping it
 * could repeat an ID.  A name this code does not know is the caller's to
 * judge (the generators refuse it).
 *
 * Files end in a CRC-32C of everything before it (versions 1 to 3 of the
 * state file used zlib's CRC-32, which is still read).  Integers are in
 * the host's byte order, as PostgreSQL's own control files are: a data
 * directory never moves between byte orders.
 */
#ifndef FLAKEID_FORMAT_PERSISTED_H
#define FLAKEID_FORMAT_PERSISTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/deep_units.h"
#include "rules/unit_runs.h"

#define PERSISTED_NAME_MAX		32	/* a slot's name, its NUL included */
#define PERSISTED_SLOTS_MAX		64	/* the slots one bounds or holding may name */
#define PERSISTED_MARKS			3	/* the monotonic generators' latest mark, sno's two (MARKS entry) */
#define PERSISTED_GENERATOR_MARKS 8	/* the monotonic generators' own marks one bounds may name (1.5) */
#define PERSISTED_STATE_VERSION	4
#define PERSISTED_PREPARED_VERSION 2
#define PERSISTED_MARK_MAX		INT64_C(253402300800000000) /* 10000-01-01 in Unix µs: no save reaches it */
#define PERSISTED_AHEAD_SLOTS	32	/* the slots one bounds may name runs of units issued ahead for */
#define PERSISTED_FILE_MAX		65536	/* no state file is larger (a prepared file grows with max_prepared_xacts) */

/* the WAL records' info codes (XLogRecGetInfo without XLR_INFO_MASK) */
#define PERSISTED_RECORD_MARK		0x00	/* 1.1 */
#define PERSISTED_RECORD_BOUNDS		0x10	/* 1.2 */
#define PERSISTED_RECORD_ISSUED		0x20	/* 1.3 on: a save's bounds */
#define PERSISTED_RECORD_PREPARED	0x30	/* 1.3 on: a prepared transaction's holding */
#define PERSISTED_RECORD_DEEP		0x40	/* 1.4 on: one deep unit of back-fill, lowered */

#define PERSISTED_DEEP_VERSION	1	/* flakeid.deep */
#define PERSISTED_DEEP_HEADER	16	/* magic, version, reserved, CRC-32C of the 12 bytes before */
#define PERSISTED_DEEP_ENTRY	48	/* slot name (32, NUL-padded), uint64 unit, uint32 low, CRC-32C */

typedef enum PersistedVerdict
{
	PERSISTED_OK,
	PERSISTED_DAMAGED,			/* not what any version writes, or a bad checksum */
	PERSISTED_TOO_NEW,			/* a later version, or a required entry this code does not know */
	PERSISTED_FOREIGN			/* a state file of another cluster (its system identifier) */
} PersistedVerdict;

/* a back-fill low-water of one slot */
typedef struct PersistedLow
{
	char		slot[PERSISTED_NAME_MAX];
	uint32_t	low;
} PersistedLow;

/* a deep range of back-fill (deep_units.h), of one slot */
typedef struct PersistedDeep
{
	char		slot[PERSISTED_NAME_MAX];
	uint64_t	first;
	uint64_t	last;
	uint32_t	low;
} PersistedDeep;

/* the units one slot's live counter issued in ahead of the clock (unit_runs.h) */
typedef struct PersistedAhead
{
	char		slot[PERSISTED_NAME_MAX];
	UnitRuns	runs;
} PersistedAhead;

/* the mark of one monotonic generator, by the generator's name (1.5) */
typedef struct PersistedGeneratorMark
{
	char		generator[PERSISTED_NAME_MAX];
	int64_t		mark;			/* Unix µs; 0: none */
} PersistedGeneratorMark;

/* what bounds the IDs of one server (state.h, IssuedBounds), by slot name */
typedef struct PersistedBounds
{
	/*
	 * marks[0] bounds the IDs of every monotonic generator (siq, kuid,
	 * snowflake): up to 1.4 they shared it.  From 1.5 each has its own,
	 * written beside it in `generator_marks` (a MARK entry a release
	 * before 1.5 skips), and marks[0] is the latest of them, so that such
	 * a release resumes every one after it, as it always did.
	 */
	int64_t		marks[PERSISTED_MARKS]; /* Unix µs; 0: none */
	uint32_t	ngenerator_marks;
	PersistedGeneratorMark generator_marks[PERSISTED_GENERATOR_MARKS];
	uint32_t	sno_ticktock;
	uint32_t	nlows;
	PersistedLow lows[PERSISTED_SLOTS_MAX];
	uint32_t	ndeep;
	PersistedDeep deep[DEEP_UNITS_MAX];
	int64_t		backfill_floor_us;	/* Unix µs: back-fill before it was lost (1.4); 0: none */
	uint32_t	nahead;			/* 1.4: the slots with units issued ahead of the clock */
	PersistedAhead ahead[PERSISTED_AHEAD_SLOTS];
} PersistedBounds;

/* one deep unit of back-fill (deep_table.h): an entry of flakeid.deep, a DEEP record */
typedef struct PersistedDeepUnit
{
	char		slot[PERSISTED_NAME_MAX];
	uint64_t	unit;
	uint32_t	low;
} PersistedDeepUnit;

/* flakeid.state */
typedef struct PersistedState
{
	uint64_t	system_identifier;	/* of the cluster that wrote it; 0: not recorded (versions 1, 2) */
	int64_t		snowflake_epoch_ms; /* -1: none, or not known (version 1) */
	/*
	 * the identifier of the flakeid.deep that goes with the file (its
	 * header's; a required entry, so that 1.3 refuses it); 0: none (files
	 * before 1.4, or before the first save that names one)
	 */
	uint32_t	deep_record;
	PersistedBounds own;
	PersistedBounds upstream;	/* the primary's, as replayed */
	/*
	 * the seal of a clean stop (STOPPED, written by every save from 1.4 on):
	 * the WAL position of that stop's shutdown checkpoint, 0 for a save
	 * while the server ran, and the size of flakeid.deep then; so that a
	 * start after a clean stop tells the files that stop saved from older
	 * copies.  has_stop false: a file before 1.4.
	 */
	bool		has_stop;
	uint64_t	stop_checkpoint;
	uint64_t	stop_deep_size;
} PersistedState;

/* the lowest unit per slot that a prepared transaction's IDs lie at or after */
typedef struct PersistedUnit
{
	char		slot[PERSISTED_NAME_MAX];
	uint64_t	unit;
} PersistedUnit;

typedef struct PersistedHolding
{
	uint64_t	full_xid;		/* FullTransactionId; 1.2's file kept 32 bits (epoch 0) */
	uint32_t	nunits;
	PersistedUnit units[PERSISTED_SLOTS_MAX];
} PersistedHolding;

/* a WAL record of ours, decoded */
typedef struct PersistedRecord
{
	uint8_t		info;			/* PERSISTED_RECORD_* */
	int64_t		snowflake_epoch_ms; /* MARK, BOUNDS, ISSUED */
	PersistedBounds bounds;		/* MARK, BOUNDS, ISSUED: the writer's own */
	PersistedHolding holding;	/* PREPARED */
	PersistedDeepUnit deep_unit;	/* DEEP */
} PersistedRecord;

extern void persisted_bounds_empty(PersistedBounds *bounds);
extern void persisted_state_empty(PersistedState *state);

/*
 * Appends a slot's low-water, deep range or unit; false when the
 * structure is full or the name is not one (1 to 31 printable ASCII
 * characters).
 */
extern bool persisted_add_low(PersistedBounds *bounds, const char *slot, uint32_t low);
extern bool persisted_add_deep(PersistedBounds *bounds, const char *slot, uint64_t first, uint64_t last, uint32_t low);
extern bool persisted_add_unit(PersistedHolding *holding, const char *slot, uint64_t unit);
/* a monotonic generator's own mark: one per generator, at or below marks[0] */
extern bool persisted_add_generator_mark(PersistedBounds *bounds, const char *generator, int64_t mark);
/*
 * Whether every generator's own mark lies at or below marks[0], as every
 * writer keeps them: one above would be read by 1.5 and skipped by 1.4,
 * which would resume below it.  A file or record with one is DAMAGED.
 */
extern bool persisted_generator_marks_possible(const PersistedBounds *bounds);
/* a slot's runs of units issued ahead: one entry per slot, 1 to UNIT_RUNS_MAX valid runs */
extern bool persisted_add_ahead(PersistedBounds *bounds, const char *slot, const UnitRuns *runs);

/* --- flakeid.state ------------------------------------------------------------ */

/*
 * Reads a state file of any version into *state and sets *version to the
 * version it names (0 when it names none).  A file that records a system
 * identifier other than `system_identifier` is FOREIGN, with *state read
 * (the caller may take it up: flakeid.accept_state_from); any other
 * verdict but OK leaves *state empty.  A file no save could have written
 * is DAMAGED, its checksum good or not: a mark below 0 or at or past
 * PERSISTED_MARK_MAX, and in version 4 a file without its SYSTEM entry
 * (or with 0 in it) or without the MARKS entry of either side.  Whether
 * a mark is plausible for the clock now is the caller's to judge.
 */
extern PersistedVerdict persisted_state_decode(const uint8_t *file, size_t size, uint64_t system_identifier,
											   PersistedState *state, uint32_t *version);

/* the file in the current version into `out`; its size, or 0 when `room` is too small */
extern size_t persisted_state_encode(const PersistedState *state, uint8_t *out, size_t room);

/* --- the WAL --------------------------------------------------------------------- */

extern PersistedVerdict persisted_record_decode(uint8_t info, const uint8_t *data, size_t size,
												PersistedRecord *record);
extern size_t persisted_issued_encode(const PersistedBounds *bounds, int64_t snowflake_epoch_ms, uint8_t *out,
									  size_t room);
extern size_t persisted_prepared_record_encode(const PersistedHolding *holding, uint8_t *out, size_t room);
extern size_t persisted_deep_record_encode(const PersistedDeepUnit *deep_unit, uint8_t *out, size_t room);

/* --- flakeid.prepared -------------------------------------------------------- */

/*
 * What a save of flakeid.prepared knew (1.4 on), as a PersistedHolding:
 * full_xid is a WAL position L (never 0), such that every PREPARED record
 * that begins before L has its holding in the file (or its transaction
 * had ended); the units are, per slot, a unit that every ID of a
 * transaction prepared later lies at or after (0: none known).  From 1.4
 * the file also names the cluster that saved it (SYSTEM) and the timeline
 * of the position (TIMELINE): the position means nothing in another's WAL,
 * nor in another timeline's.
 */

/*
 * Reads the holdings of a prepared file of any version, calling `each` for
 * each in order (it returns false to stop: the verdict is then DAMAGED),
 * its SAVED entry into *saved (full_xid 0: none), its SYSTEM entry into
 * *system and TIMELINE (of SAVED's position) into *timeline (0: none);
 * *version as for the state file.
 */
extern PersistedVerdict persisted_prepared_decode(const uint8_t *file, size_t size,
												  bool (*each) (void *arg, const PersistedHolding *holding),
												  void *arg, PersistedHolding *saved, uint64_t *system,
												  uint32_t *timeline, uint32_t *version);

/*
 * The holdings, and `saved`, `system` and `timeline` if not NULL and 0, in the current
 * version; its size, or 0 when `room` is too small.
 */
extern size_t persisted_prepared_encode(const PersistedHolding *const *holdings, uint32_t count,
										const PersistedHolding *saved, uint64_t system, uint32_t timeline,
										uint8_t *out, size_t room);

/* --- flakeid.deep ------------------------------------------------------------- */

/*
 * Sets *deep_unit (false when the name is not a slot's name: 1 to 31
 * printable ASCII characters).
 */
extern bool persisted_deep_unit_set(PersistedDeepUnit *deep_unit, const char *slot, uint64_t unit, uint32_t low);

/* the header of an empty file (PERSISTED_DEEP_HEADER bytes) */
extern void persisted_deep_header_encode(uint8_t *out, uint32_t file_id);

/* one entry (PERSISTED_DEEP_ENTRY bytes), to be appended */
extern void persisted_deep_entry_encode(const PersistedDeepUnit *deep_unit, uint8_t *out);

/*
 * Reads flakeid.deep, calling `each` for each entry in order (it returns
 * false to stop: the verdict is then DAMAGED).  The file is appended to, an
 * entry at a time, each synced before it is used: a crash may leave the last
 * entry torn (shorter than an entry, or with a bad checksum), and that one
 * is not read (it was never used).  *good_size is the size of the header and
 * the entries read; *version as for the state file.  Any other entry with a
 * bad checksum or name is damage.
 */
extern PersistedVerdict persisted_deep_decode(const uint8_t *file, size_t size,
											  bool (*each) (void *arg, const PersistedDeepUnit *deep_unit),
											  void *arg, uint32_t *version, uint32_t *file_id, size_t *good_size);

/* CRC-32C (Castagnoli), as PostgreSQL's pg_crc32c computes it */
extern uint32_t persisted_crc32c(const void *data, size_t size);

#endif
