/*
 * deep_record.h — back-fill's deep units on this server: the table in
 * shared memory (rules/deep_table.h), the file flakeid.deep that keeps it
 * across restarts, and its WAL record (DEEP) for standbys and crash
 * recovery
 *
 * A unit back-filled deeper than its slot's low-water lets it gets an entry
 * of its own, so it costs that unit only (backfill.c).  Each new or lowered
 * entry is one WAL record of about 60 bytes and one entry of 48 bytes
 * appended to flakeid.deep and synced; the file is rewritten whole, one
 * entry per unit, once it has grown to twice that.  The record is bounded
 * by flakeid.backfill_deep_units_max entries (a PGC_POSTMASTER setting):
 * past it, a new deep unit is refused (54000), never merged with another.
 * Its memory: 48 bytes of shared memory per entry allowed (cells for twice
 * the bound, 24 bytes each).
 */
#ifndef FLAKEID_DEEP_RECORD_H
#define FLAKEID_DEEP_RECORD_H

#include "rules/deep_table.h"

#define DEEP_RECORD_FILE	"flakeid.deep"

/* defines flakeid.backfill_deep_units_max, asks for the shared part (from _PG_init, while preloading) */
extern void deep_record_init(void);

/*
 * At start (postmaster), before the first lifetime begins: reads
 * flakeid.deep into the table, or creates it empty when there is none and
 * the state file does not say it goes with it (`state_deep_record`: the
 * version the state file names, 0 for none).  A file that cannot be read,
 * is damaged, newer, holds more units than the bound, or is missing although
 * the state names it makes back-fill of past units refuse
 * (deep_record_require) until an operator acts; live IDs are not concerned.
 * So does a file whose bytes are not those `sealed` names (if not NULL: the
 * seal of the clean stop this start follows, state_seal.h), an older copy,
 * which is set aside.  Never raises.
 */
extern void deep_record_load(uint32 state_deep_record, const uint64 *sealed);

/*
 * The identifier of the flakeid.deep the state file is to name (0: none):
 * a record that is not the one the state names (a file of another cluster,
 * an older or newer copy, one a start made afresh) is refused at start.
 */
extern uint32 deep_record_id(void);

/* whether the record read at start can be used (deep_record_require passes) */
extern bool deep_record_usable(void);

/*
 * flakeid.start_afresh, at start, after the back-fill floor was saved
 * (marks_afresh.c, mark_backfill_afresh): sets the file that cannot be used
 * aside and starts an empty one.  False, logged, when it cannot.
 */
extern bool deep_record_start_afresh(void);

/* raises the error of a record that could not be read at start (XX001 or 55000) */
extern void deep_record_require(void);

/* the saved low-water of (slot, unit), and its low-water as the lifetime began; DEEP_UNITS_NONE: none */
extern uint32 deep_record_low(int slot, uint64 unit);
extern uint32 deep_record_start_low(int slot, uint64 unit);

/* a new back-fill lifetime: at start, or with flakeid_lock held */
extern void deep_record_begin_lifetime(void);

/*
 * With flakeid_lock held: lowers (slot, unit) to `low`: WAL-logs it (DEEP,
 * flushed, and with flakeid.mark_synchronous waited for), appends it to
 * flakeid.deep and syncs it, then publishes it.  A new unit past the bound
 * raises 54000; a failure to log or save raises, and nothing is published.
 * May rewrite the file whole (a WARNING if that fails: the entries appended
 * stay).
 */
extern void deep_record_lower(int slot, uint64 unit, uint32 low);

/*
 * Replay of a DEEP record (startup process, flakeid_lock held): lowers the
 * unit as deep_record_lower does, without the WAL; a failure to save is
 * FATAL.  Returns DEEP_LOWER_FULL, changing nothing, when the table is full
 * or the record unusable: the caller then keeps the bound another way.
 */
extern DeepLower deep_record_replay(int slot, uint64 unit, uint32 low);

/*
 * The refusals (deep_refusals.c): why back-fill into past units is refused
 * when the record cannot take it, each an ERROR that says why and what the
 * operator may do.
 */

/* why back-fill of past units refuses, from the file as read at start */
typedef enum DeepRefusal
{
	DEEP_USABLE,
	DEEP_DAMAGED,				/* unreadable, or not what the appends write */
	DEEP_TOO_NEW,				/* a later version of the file */
	DEEP_MISSING,				/* gone, although the state file names it */
	DEEP_TOO_MANY,				/* more units than flakeid.backfill_deep_units_max */
	DEEP_UNKNOWN_SLOT			/* names a counter this flakeid does not have */
} DeepRefusal;

/* units replayed from the WAL while the record could not be used: only starting afresh ends it */
extern void deep_refuse_lost(void);

/* the file holds more units than the bound */
extern void deep_refuse_too_many(int units_max);

/* the file could not be read at start (too_new: a later version of it) */
extern void deep_refuse_unread(bool too_new);

/* the table is full: a new deep unit is refused, never merged */
extern void deep_refuse_full(const char *slot_name, int units_max);

#endif
