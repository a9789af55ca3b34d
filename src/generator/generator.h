/*
 * generator.h — the generators, as the types call them
 *
 * The generator subsystem is a stack of modules, each owning its part of
 * shared memory (docs/DESIGN.md, "The generator stack"); this is its top.
 */
#ifndef FLAKEID_GENERATOR_H
#define FLAKEID_GENERATOR_H

#include "base/defs.h"

/*
 * The next ID of a generator (variant: the siq kind's index, else 0).
 * Unique on this server whatever the clock does (README, "Generators").
 * Lock-free while the clock moves forward.  May sleep until the next unit
 * when a unit's pool is used up (interruptible), take flakeid_lock and
 * fsync the state file when the saved mark needs renewing or sno's clock is
 * behind.  Raises 55000 without the preload or on a standby with a derived
 * identity, 22023 for a bad pool setting, 22008 for a clock outside the
 * format's range, XX001 for a damaged state file.
 */
extern GeneratedId flakeid_generate(GeneratorId gen, int variant);

/*
 * The pool of a generator variant, after everything that may refuse it (a
 * refused setting, recovery, identities, the saved state), and after taking
 * up a primary's bounds once recovery has ended.
 */
extern CounterPool generator_prepare(const GeneratorDef *def, int variant);

/* before a backend's first ID of `def`, live or back-filled: 55000 in a copy of the data directory */
extern void generator_refuse_in_copy(const GeneratorDef *def);

/*
 * kuid_new's and kuid_new_at's, beside generator_refuse_in_copy (which asks
 * for kuid96's node): kuid IDs carry no identity, so on a promoted server
 * they are refused until flakeid.promotion_keeps_identities is on
 * (state_witness_place).  Once per backend; never during recovery.
 */
extern void generator_refuse_plain_kuid_promoted(void);

/* ADVANCE_LEAD_US (defs.h): how far ahead of the clock an ID to advance past may lie */

/*
 * Makes a generator variant issue, from now on, only IDs of units after
 * `through_unit` (the type layer's bound: the greatest unit an ID of this
 * server could have and still sort at or before the given one, whose own
 * time is `id_unix_us`).  Durable before it returns: the marks are raised
 * past that unit and saved (fsync, WAL; with flakeid.mark_synchronous, the
 * synchronous standbys' flush), so a restart or a promoted standby resumes
 * after it.  Never lowers anything.  Refuses what generation refuses, 55000
 * during recovery, and 22023 for an ID more than ADVANCE_LEAD_US ahead of
 * the clock.  Where the first unit it may then issue in lies further ahead
 * (kuid96: an ID of a node above this server's is passed only at its
 * window's end), waits until it lies within ADVANCE_LEAD_US, at most 256 s.
 * May take flakeid_lock, fsync and wait for standbys (a cancel ends every
 * wait).
 */
extern void flakeid_advance_past(GeneratorId gen, int variant, int64 id_unix_us, uint64 through_unit);

/*
 * The cutover's back-fill floor: from now on, back-fill for a time in the
 * unit of `instant` (Unix µs) or before it is refused, on this server and
 * on a standby of it once promoted (55000, until
 * flakeid.accept_backfill_loss), because this
 * server holds no record of what another server back-filled there.  Never
 * lowers the floor; saved and WAL-logged (and, with
 * flakeid.mark_synchronous, flushed by the synchronous standbys) before it
 * returns.  Refuses 55000 during recovery, what a generator refuses for
 * the state file, and 22023 for an instant more than ADVANCE_LEAD_US ahead
 * of the clock.  Returns the floor after.  Takes flakeid_lock and fsyncs.
 */
extern int64 flakeid_raise_backfill_floor(int64 instant);

#endif
