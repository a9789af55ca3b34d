/*
 * marks_backfill.c — the saves that back-fill and the units issued ahead of
 * the clock ask of the saved state (marks.c writes it): the back-fill floor,
 * the back-fill low-waters of a slot or of one unit, and a save that covers
 * a unit issued ahead of the clock before its first ID is published
 * (issued_ahead.h).  Each takes flakeid_lock, or is called with it held, as named.
 */
#include "postgres.h"

#include "base/table.h"
#include "durable/deep_record.h"
#include "durable/issued_ahead.h"
#include "durable/marks_internal.h"

void
mark_save_ahead_locked(int slot, uint64 unit)
{
	if (!ahead_saved_covers(slot, unit))
	{
		OwnBounds	own;

		published_bounds(&own);
		(void) save_locked(&own, ERROR);
		if (!ahead_saved_covers(slot, unit))
			elog(ERROR, "flakeid: a save did not cover the %s unit " UINT64_FORMAT " issued ahead of the clock",
				 generator_slot_name(slot), unit);
	}
}

void
mark_save_ahead(int slot, uint64 unit)
{
	flakeid_lock_acquire();
	mark_save_ahead_locked(slot, unit);
	flakeid_lock_release();
}

int64
mark_raise_backfill_floor(int64 instant)
{
	OwnBounds	own;

	flakeid_lock_acquire();
	published_bounds(&own);
	if (instant > own.floor)
	{
		own.floor = instant;
		(void) save_locked(&own, ERROR);
	}
	flakeid_lock_release();
	return own.floor;
}

/*
 * The saved low-water of back-fill in (slot, unit): the slot's, or below it
 * the unit's deep entry (deep_record.h) or a deep range of 1.3's that holds
 * it (IssuedBounds.backfill_deep)
 */
static uint32
unit_low(const OwnBounds *own, int slot, uint64 unit)
{
	uint32		range = deep_units_low(&own->deep, (unsigned) slot, unit);
	uint32		entry = deep_record_low(slot, unit);

	return Min(own->lows[slot], Min(range, entry));
}

uint32
mark_cover_backfill(int slot, uint64 unit, uint32 sequence, uint32 low, bool slot_wide)
{
	OwnBounds	own;
	uint32		saved;

	Assert(low <= sequence);
	flakeid_lock_acquire();
	published_bounds(&own);
	saved = unit_low(&own, slot, unit);
	if (sequence < saved)
	{
		if (slot_wide)
		{
			own.lows[slot] = Min(own.lows[slot], low);
			deep_units_drop_implied(&own.deep, own.lows, GEN_SLOT_COUNT);
			(void) save_locked(&own, ERROR);
		}
		else
		{
			/* the unit's own entry: a record of its own, never a range shared with other units */
			if (!mark_state_usable())
				mark_refuse_unusable_state();
			deep_record_lower(slot, unit, low);
		}
		saved = unit_low(&own, slot, unit);
	}
	flakeid_lock_release();
	return saved;
}
