/*
 * prepared_file.c — "flakeid.prepared", the holdings of prepared
 * transactions by counter slot name (prepared_file.h)
 */
#include "postgres.h"

#include "access/xlog.h"

#include "base/table.h"
#include "durable/durable_file.h"
#include "horizon/prepared_file.h"

void
holding_to_persisted(const PreparedHolding *holding, PersistedHolding *persisted)
{
	memset(persisted, 0, sizeof(*persisted));
	persisted->full_xid = U64FromFullTransactionId(holding->fxid);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		if (holding->unit[s] != PG_UINT64_MAX)
			(void) persisted_add_unit(persisted, generator_slot_name(s), holding->unit[s]);
	if (holding_is_overflow(holding))
		(void) persisted_add_unit(persisted, HOLDING_THROUGH_NAME, U64FromFullTransactionId(holding->through));
}

bool
holding_from_persisted(const PersistedHolding *persisted, PreparedHolding *holding)
{
	holding->fxid = FullTransactionIdFromU64(persisted->full_xid);
	holding->through = holding->fxid;
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		holding->unit[s] = PG_UINT64_MAX;
	for (uint32 i = 0; i < persisted->nunits; i++)
	{
		int			slot = generator_slot_by_name(persisted->units[i].slot);

		if (strcmp(persisted->units[i].slot, HOLDING_THROUGH_NAME) == 0)
			holding->through = FullTransactionIdFromU64(persisted->units[i].unit);
		else if (slot < 0)
			return false;
		else
			holding->unit[slot] = persisted->units[i].unit;
	}
	return FullTransactionIdIsValid(holding->fxid) &&
		!FullTransactionIdPrecedes(holding->through, holding->fxid);
}

/* SAVED's persisted form: the position in full_xid, the floors as units */
static void
saved_to_persisted(const PreparedSaved *saved, PersistedHolding *persisted)
{
	memset(persisted, 0, sizeof(*persisted));
	persisted->full_xid = saved->lsn;
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		if (saved->floor[s] != 0)
			(void) persisted_add_unit(persisted, generator_slot_name(s), saved->floor[s]);
}

static bool
saved_from_persisted(const PersistedHolding *persisted, PreparedSaved *saved)
{
	memset(saved, 0, sizeof(*saved));
	saved->lsn = persisted->full_xid;
	for (uint32 i = 0; i < persisted->nunits; i++)
	{
		int			slot = generator_slot_by_name(persisted->units[i].slot);

		if (slot < 0)
			return false;
		saved->floor[slot] = persisted->units[i].unit;
	}
	return true;
}

bool
prepared_file_write(const PreparedHolding *entries, int count, const PreparedSaved *saved, int elevel)
{
	const PersistedHolding **holdings = palloc(sizeof(PersistedHolding *) * Max(count, 1));
	size_t		room = sizeof(uint32) * 12 + (size_t) (count + 1) * (16 + GEN_SLOT_COUNT * (1 + PERSISTED_NAME_MAX + 8));
	uint8	   *file = palloc(room);
	PersistedHolding *persisted_saved = palloc(sizeof(PersistedHolding));
	size_t		size;
	bool		written;

	for (int i = 0; i < count; i++)
	{
		PersistedHolding *holding = palloc(sizeof(PersistedHolding));

		holding_to_persisted(&entries[i], holding);
		holdings[i] = holding;
	}
	saved_to_persisted(saved, persisted_saved);
	size = persisted_prepared_encode(holdings, (uint32) count, persisted_saved, GetSystemIdentifier(), saved->timeline,
									 file, room);
	if (size == 0)
		elog(ERROR, "flakeid's prepared holdings do not fit in %zu bytes", room);
	written = durable_file_write(PREPARED_FILE, file, size, elevel);
	for (int i = 0; i < count; i++)
		pfree(unconstify(PersistedHolding *, holdings[i]));
	pfree(holdings);
	pfree(persisted_saved);
	pfree(file);
	return written;
}

typedef struct ReadState
{
	void		(*take) (void *arg, const PreparedHolding *holding);
	void	   *arg;
} ReadState;

static bool
take_holding(void *arg, const PersistedHolding *persisted)
{
	ReadState  *read = arg;
	PreparedHolding holding;

	if (!holding_from_persisted(persisted, &holding))
		return false;
	read->take(read->arg, &holding);
	return true;
}

/*
 * The room to read the file in: its size and a byte (durable_file_read
 * calls a file that fills the room too large), at most PREPARED_READ_MAX;
 * a file that cannot be stat'ed gets a byte, and its read reports why.
 */
#define PREPARED_READ_MAX	((size_t) 64 * 1024 * 1024)

static size_t
room_for_file(void)
{
	struct stat st;

	if (stat(PREPARED_FILE, &st) != 0 || st.st_size < 0)
		return 1;
	return Min((size_t) st.st_size + 1, PREPARED_READ_MAX);
}

bool
prepared_file_read(void (*take) (void *arg, const PreparedHolding *holding), void *arg, PreparedSaved *saved)
{
	ReadState	read = {take, arg};
	size_t		room = room_for_file();
	uint8	   *file = palloc(room);
	PersistedHolding persisted_saved;
	uint64		system;
	uint32		timeline;
	size_t		size;
	uint32		version;

	memset(saved, 0, sizeof(*saved));
	switch (durable_file_read(PREPARED_FILE, file, room, &size))
	{
		case DURABLE_READ_NONE:
			return true;
		case DURABLE_READ_FAILED:
			break;
		case DURABLE_READ_OK:
			if (persisted_prepared_decode(file, size, take_holding, &read, &persisted_saved, &system, &timeline,
										  &version) != PERSISTED_OK ||
				!saved_from_persisted(&persisted_saved, saved))
				break;
			saved->timeline = timeline;
			if (system != GetSystemIdentifier())
			{
				/* (1.2's, 1.3's, or another cluster's: it vouches for nothing) */
				saved->foreign = system != 0;
				saved->lsn = 0;
				memset(saved->floor, 0, sizeof(saved->floor));
				if (saved->foreign)
					ereport(LOG,
							(errmsg("flakeid's file \"%s\" was saved by another cluster (system identifier %llu, this one's %llu): its holdings are not taken",
									PREPARED_FILE, (unsigned long long) system, (unsigned long long) GetSystemIdentifier())));
			}
			return true;
	}
	ereport(LOG,
			(errmsg("flakeid's file \"%s\" is damaged or of a newer flakeid; the horizon functions refuse until it is removed",
					PREPARED_FILE)));
	return false;
}
