/*
 * deep_refusals.c — back-fill's refusals for its record of deep units
 * (deep_record.h)
 */
#include "postgres.h"

#include "durable/deep_record.h"

void
deep_refuse_lost(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("back-fill's record of deep units \"%s\" lacks units replayed from the WAL while it could not be used, so back-fill into past time units is refused",
					DEEP_RECORD_FILE),
			 errdetail("Without them, a back-filled ID could repeat one given before: no copy of the file has them."),
			 errhint("Set flakeid.start_afresh = on and restart the server (docs/OPERATIONS.md, \"Starting afresh\"). Live IDs, and back-fill into the live generator's present unit, are not concerned.")));
}

void
deep_refuse_too_many(int units_max)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("back-fill's record of deep units \"%s\" holds more time units than flakeid.backfill_deep_units_max = %d, so back-fill into past time units is refused",
					DEEP_RECORD_FILE, units_max),
			 errhint("Raise flakeid.backfill_deep_units_max above the number of units the file holds (at most its size less 16 bytes, divided by 48), and restart the server.")));
}

void
deep_refuse_unread(bool too_new)
{
	ereport(ERROR,
			(errcode(too_new ? ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE : ERRCODE_DATA_CORRUPTED),
			 errmsg("back-fill's record of deep units \"%s\" could not be read at start, so back-fill into past time units is refused",
					DEEP_RECORD_FILE),
			 errdetail("The server log of the last start says why. Without the record, a back-filled ID could repeat one given before."),
			 errhint("After pg_upgrade, copy the old cluster's \"%s\" beside the \"flakeid.state\" taken up from it (docs/OPERATIONS.md, \"pg_upgrade\"). If the file was moved or renamed, put that very file back (not an older copy: it lacks the units recorded since). Then restart the server. Otherwise set flakeid.start_afresh = on and restart the server (docs/OPERATIONS.md, \"Starting afresh\"). Live IDs, and back-fill into the live generator's present unit, are not concerned.", DEEP_RECORD_FILE)));
}

void
deep_refuse_full(const char *slot_name, int units_max)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("cannot back-fill deeper into another %s time unit: back-fill's record of deep units is full", slot_name),
			 errdetail("This server records each time unit that back-fill takes deeper than every unit's share (an eighth of a pool per server lifetime), one entry per unit, and holds at most %d of them (flakeid.backfill_deep_units_max). A new one is refused rather than merged with another, which would cost the units between them.",
					   units_max),
			 errhint("Back-fill this time unit no deeper, or spread the times over units already recorded; or raise flakeid.backfill_deep_units_max (48 bytes of shared memory each) and restart the server.")));
}
