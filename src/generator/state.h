/*
 * state.h — what bounds the IDs a server issued, and the file that keeps
 * it across restarts (state.c: plain file I/O, nothing in shared memory)
 */
#ifndef FLAKEID_STATE_H
#define FLAKEID_STATE_H

#include "postgres.h"

#include "format/deep_units.h"
#include "generator/defs.h"

/* a back-fill low-water that no back-filled sequence has set yet */
#define BACKFILL_LOW_NONE	((uint32) COUNTER_SEQ_MASK + 1)

/*
 * What bounds the IDs one server issued, saved and WAL-logged: the marks,
 * and for back-fill (backfill.c) a low-water per counter slot at or below
 * every sequence back-fill gave there, in any unit, and the units it went
 * deeper into, each with its own (format/deep_units.h).
 */
typedef struct IssuedBounds
{
	int64		marks[MARK_COUNT];	/* Unix µs; 0: none */
	uint32		sno_ticktock;	/* the tick-tock sno's counter carried */
	uint32		backfill_low[GEN_SLOT_COUNT];	/* BACKFILL_LOW_NONE: none yet */
	DeepUnits	backfill_deep;	/* empty: none (and in files and records before 1.3) */
} IssuedBounds;

StaticAssertDecl(GEN_SLOT_COUNT <= DEEP_UNITS_MAX, "one deep range more than the record holds shares a slot");

/*
 * IssuedBounds as the state file (versions 3 and 4) and the WAL record
 * store them, the deep units apart: a fixed number of slots, whatever
 * GEN_SLOT_COUNT becomes.
 */
#define BOUNDS_IMAGE_SLOTS	18

typedef struct IssuedBoundsImage
{
	int64		marks[MARK_COUNT];
	uint32		sno_ticktock;
	uint32		backfill_low[BOUNDS_IMAGE_SLOTS];
	uint32		padding;
} IssuedBoundsImage;

StaticAssertDecl(GEN_SLOT_COUNT == BOUNDS_IMAGE_SLOTS, "the stored bounds hold one low-water per counter slot");
StaticAssertDecl(MARK_COUNT == 3, "the stored bounds hold three marks");

/* what the file holds, in the current version's terms */
typedef struct FlakeidPersisted
{
	uint64		system_identifier;	/* of the cluster that wrote it; 0: not recorded (versions 1, 2) */
	int64		snowflake_epoch_ms; /* the earliest epoch snowflakes were issued under here or
									 * upstream; -1: none, or not known (version 1) */
	IssuedBounds own;			/* what this server issued */
	IssuedBounds upstream;		/* what its primary issued, replayed from the WAL */
} FlakeidPersisted;

#define STATE_VERSION	4

typedef enum StateLoad
{
	STATE_LOAD_NONE,			/* no file: a first start */
	STATE_LOAD_CURRENT,
	STATE_LOAD_MIGRATED,		/* an older version's file, read and rewritten as current */
	STATE_LOAD_DAMAGED,
	STATE_LOAD_TOO_NEW,
	STATE_LOAD_FOREIGN,			/* another cluster's: its system identifier is not this one's */
	STATE_LOAD_MISSING			/* no file, but the cluster's witness says it issued IDs (state_witness.h) */
} StateLoad;

/*
 * The state of a server that has issued nothing: no marks, no back-fill
 * low-water, the snowflake epoch unknown (-1).
 */
extern void state_set_empty(FlakeidPersisted *state);
extern void bounds_set_empty(IssuedBounds *bounds);
extern void bounds_to_image(IssuedBoundsImage *image, const IssuedBounds *bounds);
extern void bounds_from_image(IssuedBounds *bounds, const IssuedBoundsImage *image);

/* flakeid 1.1's state: the body of state file version 2, and its WAL record */
typedef struct FlakeidState11
{
	int64		mark_unix_us;	/* of the monotonic generators */
	int64		sno_mark_unix_us;	/* of sno's tick-tock in use */
	int64		sno_other_bound_unix_us;	/* of the other tick-tock */
	int64		snowflake_epoch_ms;
	uint32		sno_ticktock;
	uint32		padding;
} FlakeidState11;

extern void bounds_from_state11(IssuedBounds *bounds, int64 *snowflake_epoch_ms, const FlakeidState11 *state);

/* reads the file; *file_version is 0 when there is none.  Never raises. */
extern StateLoad state_load(FlakeidPersisted *state, uint32 *file_version);

/*
 * Writes the file (fsync, rename, fsync of the directory).  A failure is
 * reported at `elevel` as 58030 naming the file; below ERROR it returns
 * false.
 */
extern bool state_save(const FlakeidPersisted *state, int elevel);

#endif
