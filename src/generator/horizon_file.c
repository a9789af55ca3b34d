/*
 * horizon_file.c — "flakeid.prepared", the holdings of prepared
 * transactions by counter slot name (horizon_file.h)
 */
#include "postgres.h"

#include "generator/durable_file.h"
#include "generator/horizon_file.h"
#include "generator/table.h"

void
holding_to_persisted(const PreparedHolding *holding, PersistedHolding *persisted)
{
	memset(persisted, 0, sizeof(*persisted));
	persisted->full_xid = U64FromFullTransactionId(holding->fxid);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		if (holding->unit[s] != PG_UINT64_MAX)
			(void) persisted_add_unit(persisted, generator_slot_name(s), holding->unit[s]);
}

bool
holding_from_persisted(const PersistedHolding *persisted, PreparedHolding *holding)
{
	holding->fxid = FullTransactionIdFromU64(persisted->full_xid);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		holding->unit[s] = PG_UINT64_MAX;
	for (uint32 i = 0; i < persisted->nunits; i++)
	{
		int			slot = generator_slot_by_name(persisted->units[i].slot);

		if (slot < 0)
			return false;
		holding->unit[slot] = persisted->units[i].unit;
	}
	return FullTransactionIdIsValid(holding->fxid);
}

void
prepared_file_write(const PreparedHolding *entries, int count)
{
	const PersistedHolding **holdings = palloc(sizeof(PersistedHolding *) * Max(count, 1));
	size_t		room = sizeof(uint32) * 8 + (size_t) count * (16 + GEN_SLOT_COUNT * (1 + PERSISTED_NAME_MAX + 8));
	uint8	   *file = palloc(room);
	size_t		size;

	for (int i = 0; i < count; i++)
	{
		PersistedHolding *holding = palloc(sizeof(PersistedHolding));

		holding_to_persisted(&entries[i], holding);
		holdings[i] = holding;
	}
	size = persisted_prepared_encode(holdings, (uint32) count, file, room);
	if (size == 0)
		elog(ERROR, "flakeid's prepared holdings do not fit in %zu bytes", room);
	(void) durable_file_write(PREPARED_FILE, file, size, ERROR);
}

typedef struct ReadState
{
	PreparedHolding *entries;
	int			max;
	int			count;
} ReadState;

static bool
take_holding(void *arg, const PersistedHolding *persisted)
{
	ReadState  *read = arg;

	return read->count < read->max && holding_from_persisted(persisted, &read->entries[read->count++]);
}

bool
prepared_file_read(PreparedHolding *entries, int max, int *count)
{
	ReadState	read = {entries, max, 0};
	/* room for `max` holdings naming every slot a record may name (more than any version writes) */
	size_t		room = 64 + (size_t) Max(max, 1) * (32 + PERSISTED_SLOTS_MAX * (1 + PERSISTED_NAME_MAX + 8));
	uint8	   *file = palloc(room);
	size_t		size;
	uint32		version;

	*count = 0;
	switch (durable_file_read(PREPARED_FILE, file, room, &size))
	{
		case DURABLE_READ_NONE:
			return true;
		case DURABLE_READ_FAILED:
			break;
		case DURABLE_READ_OK:
			if (persisted_prepared_decode(file, size, take_holding, &read, &version) == PERSISTED_OK)
			{
				*count = read.count;
				return true;
			}
			break;
	}
	ereport(LOG,
			(errmsg("flakeid's file \"%s\" is damaged, of a newer flakeid, or holds more prepared transactions than twice max_prepared_xacts; the horizon functions refuse until it is removed",
					PREPARED_FILE)));
	return false;
}
