/*
 * deep_record.c — back-fill's deep units on this server: the table in
 * shared memory, flakeid.deep, and the DEEP record (deep_record.h)
 *
 * The file is appended to an entry at a time, at the end of what was read
 * or written whole (never O_APPEND: a failed write leaves at most one
 * entry's worth of bytes, which the next append overwrites), and synced
 * before the entry is published, under flakeid_lock.  A crash may leave its
 * last entry torn: it was never published, so nothing was given below it,
 * and the reader skips it (persisted/persisted.h).  The WAL record comes first,
 * as for the state file: what a standby or crash recovery knows is never
 * less than what the file says.
 */
#include "postgres.h"

#include <time.h>
#include <unistd.h>

#include "storage/fd.h"
#include "utils/memutils.h"

#include "base/settings.h"
#include "base/shmem.h"
#include "base/table.h"
#include "durable/deep_record.h"
#include "durable/durable_file.h"
#include "durable/state_seal.h"
#include "durable/wal_record.h"

#define DEEP_UNITS_MAX_DEFAULT	65536

/*
 * What flakeid.state names once replay brought a deep unit that a record
 * refused at start could not keep: no file is that record any longer (an
 * identifier never given to a file), so back-fill into past units stays
 * refused, the old file put back or the bound raised, until the record is
 * started afresh (whose floor covers the unit).
 */
#define DEEP_RECORD_LOST		UINT32_MAX
#define COMPACT_SLACK			1024	/* entries the file may hold past twice its units */
/* the largest file the appends write, under the largest flakeid.backfill_deep_units_max: larger is damaged */
#define DEEP_FILE_MAX	(PERSISTED_DEEP_HEADER + (2 * (size_t) DEEP_TABLE_MAX + COMPACT_SLACK + 1) * PERSISTED_DEEP_ENTRY)

typedef struct DeepShared
{
	DeepTable	table;			/* under the lock: readers shared, writers (flakeid_lock held) exclusive */
	/* set at start, then under flakeid_lock */
	DeepRefusal refusal;
	uint32		version;		/* PERSISTED_DEEP_VERSION once the file exists; 0: none */
	uint32		file_id;		/* the file's identifier (its header's); 0: none yet */
	uint32		named_id;		/* the identifier flakeid.state named at start (0: none) */
	uint64		file_size;		/* the bytes of the file in use: its header and entries */
	uint64		file_entries;
} DeepShared;

static int	deep_units_max = DEEP_UNITS_MAX_DEFAULT;
static DeepShared *deep_shared = NULL;
static LWLockPadded *deep_locks = NULL;

#define deep_lock	(&deep_locks[0].lock)

static void
deep_shared_init(void *memory)
{
	DeepShared *shared = (DeepShared *) memory;

	memset(shared, 0, sizeof(*shared));
	deep_table_init(&shared->table, (DeepCell *) ((char *) memory + MAXALIGN(sizeof(DeepShared))),
					(uint32) deep_units_max);
}

void
deep_record_init(void)
{
	define_int_setting(SETTING_BACKFILL_DEEP_UNITS_MAX,
					   "The most time units back-fill records as deep on this server (flakeid.deep).",
					   "Each costs 48 bytes of shared memory, and 48 bytes of flakeid.deep when it is recorded; past the bound, back-fill refuses a new deep unit.",
					   &deep_units_max, DEEP_UNITS_MAX_DEFAULT, 1, (int) DEEP_TABLE_MAX, PGC_POSTMASTER, 0, NULL);
	shmem_request_part(&(ShmemPart) {.name = "flakeid deep units",
				.size = add_size(MAXALIGN(sizeof(DeepShared)),
								 mul_size(sizeof(DeepCell), deep_table_cells((uint32) deep_units_max))),
				.address = (void **) &deep_shared, .init = deep_shared_init, .nlocks = 1, .locks = &deep_locks});
}

/* --- the file ------------------------------------------------------------------- */

typedef struct LoadContext
{
	DeepTable  *table;
	DeepRefusal refusal;
	uint64		entries;
} LoadContext;

static bool
load_entry(void *arg, const PersistedDeepUnit *deep_unit)
{
	LoadContext *load = arg;
	int			slot = generator_slot_by_name(deep_unit->slot);

	load->entries++;
	if (slot < 0)
		load->refusal = DEEP_UNKNOWN_SLOT;
	else if (deep_table_lower(load->table, (uint32) slot, deep_unit->unit, deep_unit->low) == DEEP_LOWER_FULL)
		load->refusal = DEEP_TOO_MANY;
	return load->refusal == DEEP_USABLE;
}

/*
 * Writes the file whole (durable_file.h): the header and one entry per unit
 * of the table.  A failure is reported at `elevel`.
 */
static bool
rewrite_whole(int elevel)
{
	DeepTable  *table = &deep_shared->table;
	size_t		size = PERSISTED_DEEP_HEADER + (size_t) table->count * PERSISTED_DEEP_ENTRY;
	/* (no memory is a failure at `elevel`: in the postmaster an ERROR would end it) */
	uint8	   *bytes = palloc_extended(size, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	uint8	   *next;
	uint32		at = 0,
				slot,
				low;
	uint64		unit;
	bool		written;

	if (bytes == NULL)
	{
		ereport(elevel, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory writing \"%s\"", DEEP_RECORD_FILE)));
		return false;
	}
	next = bytes + PERSISTED_DEEP_HEADER;
	/* a new file gets an identifier of its own; a rewrite keeps it (the state names it) */
	if (deep_shared->file_id == 0)
	{
		uint32		id = 0;

		while (id == 0 || id == DEEP_RECORD_LOST)
			if (!pg_strong_random(&id, sizeof(id)))
				id = (uint32) random();
		deep_shared->file_id = id;
	}
	persisted_deep_header_encode(bytes, deep_shared->file_id);
	while (deep_table_next(table, &at, &slot, &unit, &low))
	{
		PersistedDeepUnit deep_unit;

		(void) persisted_deep_unit_set(&deep_unit, generator_slot_name((int) slot), unit, low);
		persisted_deep_entry_encode(&deep_unit, next);
		next += PERSISTED_DEEP_ENTRY;
	}
	written = durable_file_write(DEEP_RECORD_FILE, bytes, size, elevel);
	pfree(bytes);
	if (!written)
		return false;
	deep_shared->version = PERSISTED_DEEP_VERSION;
	deep_shared->file_size = size;
	deep_shared->file_entries = table->count;
	return true;
}

static void
log_refusal(DeepRefusal refusal, const char *detail)
{
	deep_shared->refusal = refusal;
	ereport(LOG,
			(errcode(refusal == DEEP_TOO_NEW ? ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE : ERRCODE_DATA_CORRUPTED),
			 errmsg("back-fill's record of deep units \"%s\" cannot be used, so back-fill into past time units is refused",
					DEEP_RECORD_FILE),
			 errdetail_internal("%s", detail)));
}

#define LOST_DETAIL "Deep units back-filled on this server or its primary were replayed from the WAL while the record could not be used, so it lacks them."

/* the file read into the table; the refusal it calls for */
static void
load_record(const uint8 *bytes, size_t size, const uint64 *sealed)
{
	LoadContext load = {&deep_shared->table, DEEP_USABLE, 0};
	uint32		version = 0,
				file_id = 0;
	size_t		good_size = 0;
	PersistedVerdict verdict = persisted_deep_decode(bytes, size, load_entry, &load, &version, &file_id, &good_size);

	/* (lost first: whatever else is wrong, only starting afresh ends it, and the log says so) */
	if (deep_shared->named_id == DEEP_RECORD_LOST)
		log_refusal(DEEP_DAMAGED, LOST_DETAIL);
	else if (load.refusal == DEEP_TOO_MANY)
		log_refusal(DEEP_TOO_MANY,
					psprintf("It records more time units than flakeid.backfill_deep_units_max = %d allows.",
							 deep_units_max));
	else if (load.refusal == DEEP_UNKNOWN_SLOT)
		log_refusal(DEEP_UNKNOWN_SLOT, "It names a counter this version of flakeid does not have.");
	else if (verdict == PERSISTED_TOO_NEW)
		log_refusal(DEEP_TOO_NEW, psprintf("It has version %u; this version of flakeid reads version %u.",
										   version, PERSISTED_DEEP_VERSION));
	else if (verdict != PERSISTED_OK)
		log_refusal(DEEP_DAMAGED, "Its header, checksums or entries are not what flakeid writes.");
	else if (deep_shared->named_id != 0 && file_id != deep_shared->named_id)
		log_refusal(DEEP_DAMAGED,
					psprintf("It is not the record that goes with \"flakeid.state\": its identifier is %u, the state names %u (a record of another cluster, or an older or newer copy).",
							 file_id, deep_shared->named_id));
	/* (appends keep the identifier: an older copy is told by the seal of the last clean stop) */
	else if (sealed != NULL && state_seal_of_bytes(bytes, size) != *sealed)
		log_refusal(DEEP_DAMAGED, state_seal_set_aside(DEEP_RECORD_FILE, "It is not the file the last clean stop left beside \"flakeid.state\" (its bytes differ): an older or a newer copy.", false));
	else
	{
		deep_shared->file_id = file_id;
		deep_shared->version = version;
		deep_shared->file_size = good_size;
		deep_shared->file_entries = load.entries;
		/* a torn last entry is rewritten away before anything is appended after it */
		if (good_size != size && !rewrite_whole(LOG))
			log_refusal(DEEP_DAMAGED, "Its torn last entry could not be rewritten away.");
	}
}

void
deep_record_load(uint32 state_deep_record, const uint64 *sealed)
{
	size_t		size = 0;
	uint8	   *bytes;

	deep_shared_init(deep_shared);	/* (again after a crash) */
	deep_shared->named_id = state_deep_record;
	/* (a state that names no record, of a release before 1.4, carries no seal of one: the record made here is taken) */
	if (state_deep_record == 0)
		sealed = NULL;
	bytes = durable_file_read_all(DEEP_RECORD_FILE, DEEP_FILE_MAX, &size);
	if (bytes != NULL)
	{
		load_record(bytes, size, sealed);
		pfree(bytes);
	}
	else if (errno != ENOENT)
		log_refusal(DEEP_DAMAGED, psprintf("It could not be read: %m."));
	else if (state_deep_record == DEEP_RECORD_LOST)
		log_refusal(DEEP_DAMAGED, LOST_DETAIL);
	else if (state_deep_record != 0)
		log_refusal(DEEP_MISSING,
					psprintf("It is gone from the data directory, although \"flakeid.state\" says it goes with it (identifier %u).",
							 state_deep_record));
	else if (!rewrite_whole(LOG))
		log_refusal(DEEP_DAMAGED, "It could not be created.");
	if (deep_shared->refusal == DEEP_USABLE && deep_shared->table.count > 0)
		ereport(LOG,
				(errmsg("back-fill's record of deep units holds %u time units of at most %d",
						deep_shared->table.count, deep_units_max)));
}

bool
deep_record_usable(void)
{
	return deep_shared->refusal == DEEP_USABLE;
}

bool
deep_record_start_afresh(void)
{
	char	   *aside = psprintf("%s.set-aside-" INT64_FORMAT "-%d", DEEP_RECORD_FILE, (int64) time(NULL), (int) getpid());
	struct stat st;

	if (stat(DEEP_RECORD_FILE, &st) == 0 && durable_rename(DEEP_RECORD_FILE, aside, LOG) != 0)
		return false;
	deep_shared_init(deep_shared);	/* (the new file gets an identifier of its own) */
	if (!rewrite_whole(LOG))
	{
		deep_shared->refusal = DEEP_DAMAGED;
		return false;
	}
	ereport(LOG,
			(errmsg("flakeid started back-fill's record of deep units afresh, as flakeid.start_afresh says"),
			 errdetail("The file that could not be used was set aside as \"%s\" (if there was one).", aside)));
	return true;
}

uint32
deep_record_id(void)
{
	/* (an unusable record: the state goes on naming the one it named) */
	return deep_shared->refusal == DEEP_USABLE ? deep_shared->file_id : deep_shared->named_id;
}

void
deep_record_require(void)
{
	if (deep_shared->refusal == DEEP_USABLE)
		return;
	if (deep_shared->named_id == DEEP_RECORD_LOST)
		deep_refuse_lost();
	if (deep_shared->refusal == DEEP_TOO_MANY)
		deep_refuse_too_many(deep_units_max);
	deep_refuse_unread(deep_shared->refusal == DEEP_TOO_NEW);
}

/* --- the table -------------------------------------------------------------------- */

uint32
deep_record_low(int slot, uint64 unit)
{
	uint32		low;

	LWLockAcquire(deep_lock, LW_SHARED);
	low = deep_table_low(&deep_shared->table, (uint32) slot, unit);
	LWLockRelease(deep_lock);
	return low;
}

uint32
deep_record_start_low(int slot, uint64 unit)
{
	uint32		low;

	LWLockAcquire(deep_lock, LW_SHARED);
	low = deep_table_start_low(&deep_shared->table, (uint32) slot, unit);
	LWLockRelease(deep_lock);
	return low;
}

void
deep_record_begin_lifetime(void)
{
	LWLockAcquire(deep_lock, LW_EXCLUSIVE);
	deep_table_begin_lifetime(&deep_shared->table);
	LWLockRelease(deep_lock);
}

/* appends one entry at the end in use and syncs it; a failure is reported at `elevel` */
static bool
append_entry(const PersistedDeepUnit *deep_unit, int elevel)
{
	uint8		entry[PERSISTED_DEEP_ENTRY];

	persisted_deep_entry_encode(deep_unit, entry);
	/* a failed fsync is not retried (the entry is not published): the next append rewrites it */
	if (!durable_file_write_at(DEEP_RECORD_FILE, (off_t) deep_shared->file_size, entry, sizeof(entry), elevel))
		return false;
	deep_shared->file_size += PERSISTED_DEEP_ENTRY;
	deep_shared->file_entries++;
	return true;
}

/*
 * Before an append: a file that would grow past DEEP_FILE_MAX, which the
 * next start refuses (its rewrites at WARNING having failed meanwhile), is
 * rewritten whole first, one entry a unit, far below it.  False when that
 * fails (its reason a WARNING): the append is not to be made.
 */
static bool
make_room(void)
{
	if (deep_shared->file_size + PERSISTED_DEEP_ENTRY <= DEEP_FILE_MAX || rewrite_whole(WARNING))
		return true;
	ereport(WARNING,
			(errcode(ERRCODE_IO_ERROR),
			 errmsg("back-fill's record of deep units \"%s\" could not be rewritten before it grew past what a start reads",
					DEEP_RECORD_FILE)));
	return false;
}

/* publishes an entry saved, and rewrites the file whole once it holds twice its units */
static DeepLower
publish(int slot, uint64 unit, uint32 low)
{
	DeepLower	outcome;

	LWLockAcquire(deep_lock, LW_EXCLUSIVE);
	outcome = deep_table_lower(&deep_shared->table, (uint32) slot, unit, low);
	LWLockRelease(deep_lock);
	if (deep_shared->file_entries > 2 * (uint64) deep_shared->table.count + COMPACT_SLACK)
		(void) rewrite_whole(WARNING);
	return outcome;
}

void
deep_record_lower(int slot, uint64 unit, uint32 low)
{
	PersistedDeepUnit deep_unit;
	DeepLower	outcome;

	deep_record_require();
	/* only this process writes the table, under flakeid_lock: it can be read without the deep lock */
	outcome = deep_table_check(&deep_shared->table, (uint32) slot, unit, low);
	if (outcome == DEEP_LOWER_UNCHANGED)
		return;
	if (outcome == DEEP_LOWER_FULL)
		deep_refuse_full(generator_slot_name(slot), deep_units_max);
	if (!persisted_deep_unit_set(&deep_unit, generator_slot_name(slot), unit, low))
		elog(ERROR, "flakeid: counter slot %d has no name", slot);
	if (!make_room())
		ereport(ERROR,
				(errcode(ERRCODE_IO_ERROR),
				 errmsg("cannot back-fill deeper into another %s time unit: back-fill's record of deep units could not be rewritten",
						generator_slot_name(slot)),
				 errhint("See the WARNING before this error.")));
	wal_record_log_deep(&deep_unit);
	(void) append_entry(&deep_unit, ERROR);
	(void) publish(slot, unit, low);
}

DeepLower
deep_record_replay(int slot, uint64 unit, uint32 low)
{
	PersistedDeepUnit deep_unit;
	DeepLower	outcome;

	/*
	 * A record that could not be read at start keeps nothing: the state
	 * names it lost (DEEP_RECORD_LOST, saved by the caller), so that
	 * back-fill into past units stays refused until the record is started
	 * afresh, even once the old file is put back or the bound raised (a
	 * review found that dropping the unit let those ways on repeat IDs; a
	 * second that lowering the whole slot instead, the full table's
	 * fallback, used up every unit of a primary's slot for good).
	 */
	if (deep_shared->refusal != DEEP_USABLE)
	{
		if (deep_shared->named_id == DEEP_RECORD_LOST)
			return DEEP_LOWER_UNCHANGED;
		deep_shared->named_id = DEEP_RECORD_LOST;
		return DEEP_LOWER_LOST;
	}
	outcome = deep_table_check(&deep_shared->table, (uint32) slot, unit, low);
	if (outcome == DEEP_LOWER_UNCHANGED || outcome == DEEP_LOWER_FULL)
		return outcome;
	if (!persisted_deep_unit_set(&deep_unit, generator_slot_name(slot), unit, low))
		elog(FATAL, "flakeid: counter slot %d has no name", slot);
	/* (a rewrite that fails in redo, a full disk, would fail again at every start: the record is lost instead) */
	if (!make_room())
	{
		deep_shared->refusal = DEEP_DAMAGED;
		deep_shared->named_id = DEEP_RECORD_LOST;
		return DEEP_LOWER_LOST;
	}
	(void) append_entry(&deep_unit, FATAL);
	return publish(slot, unit, low);
}
