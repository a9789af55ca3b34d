/*
 * deep_refusals.h — why back-fill into past units is refused when its
 * record of deep units (deep_record.h) cannot take it: each an ERROR that
 * says why and what the operator may do
 */
#ifndef FLAKEID_DEEP_REFUSALS_H
#define FLAKEID_DEEP_REFUSALS_H

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
