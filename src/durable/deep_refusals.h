/*
 * deep_refusals.h — why back-fill into past units is refused when its
 * record of deep units (deep_record.h) cannot take it: each an ERROR that
 * says why and what the operator may do
 */
#ifndef FLAKEID_DEEP_REFUSALS_H
#define FLAKEID_DEEP_REFUSALS_H

#include "postgres.h"

/* units replayed from the WAL while the record could not be used: only starting afresh ends it */
extern void deep_refuse_lost(void);

/* the file holds more units than the bound */
extern void deep_refuse_too_many(int units_max);

/* the file could not be read at start (too_new: a later version of it) */
extern void deep_refuse_unread(bool too_new);

/* the table is full: a new deep unit is refused, never merged */
extern void deep_refuse_full(const char *slot_name, int units_max);

#endif
