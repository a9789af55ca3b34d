/*
 * state_seal.h — the seal a clean stop puts on flakeid.state, so that the
 * next start tells the files that stop saved from older copies
 * (state_seal.c)
 */
#ifndef FLAKEID_STATE_SEAL_H
#define FLAKEID_STATE_SEAL_H

/* the largest flakeid.deep a seal reads (its own bound is lower) */
#define STATE_SEAL_READ_MAX		((size_t) 64 * 1024 * 1024)

/*
 * What seals a file's bytes: a 64-bit hash of them, seeded with their size;
 * 0 for no file, UINT64_MAX for one that cannot be read.  flakeid.deep is
 * sealed so: appends keep its identifier, and a rewrite its size.
 */
extern uint64 state_seal_of_file(const char *path);
extern uint64 state_seal_of_bytes(const uint8 *bytes, size_t size);

/*
 * At start, a file refused as an older copy: renamed aside at once (a
 * later start after a crash would not know to refuse it), and with `expect`
 * (flakeid.state) the refusal kept for later starts (state_seal_refuse;
 * flakeid.deep, set aside, is missing to them, which the state refuses);
 * returns the log's detail, `why` followed by where the file went.  Never
 * raises.
 */
extern const char *state_seal_set_aside(const char *path, const char *why, bool expect);

/* at start, in the postmaster, before the file is read: notes the clean stop it starts from */
extern void state_seal_start(void);

/*
 * In the postmaster as it exits: true where pg_control says this primary
 * stopped cleanly and flakeid.state exists, with the shutdown checkpoint's
 * WAL position and the seal of flakeid.deep (state_seal_of_file) to seal
 * the file with: its seal now (`deep_size_now`) if this lifetime could use
 * it (`deep_used`), else the one the loaded file's seal had (it was not
 * written to).
 */
extern bool state_seal_at_stop(bool deep_used, uint64 deep_size_now, uint64 *checkpoint, uint64 *deep_size);

/*
 * At a refusal of an older copy (the state file or flakeid.deep, set aside
 * by the caller): every later start, after a crash or an immediate stop
 * too, takes only a file sealed by the stop this start expected, until a
 * clean stop seals one anew or the generators start afresh
 * (state_seal_forget).  Never raises.
 */
extern void state_seal_refuse(void);

/* at start: the state was usable, so this postmaster's lives may issue (no flakeid.state.passed then) */
extern void state_seal_usable(void);

/*
 * In the postmaster as it exits, when the clean stop's save of the state
 * file failed: notes that stop (flakeid.state.unsaved), so that the next
 * start's refusal of the unsealed file says the stop's own save failed.
 * Never raises.  state_seal_stale_unsaved: whether this start's refusal
 * was of that kind.
 */
extern void state_seal_unsaved_stop(uint64 checkpoint);
extern bool state_seal_stale_unsaved(void);

/*
 * At start: flakeid.deep was refused; then the seal of flakeid.deep a save
 * while running carries (the one the loaded file named, so that the very
 * file is known after a crash too; else 0).
 */
extern void state_seal_deep_refused(void);
extern uint64 state_seal_carried_deep(void);

/* the seal of a save other than the exit's: the start's clean stop in the postmaster, else 0 */
extern uint64 state_seal_for_save(void);
extern void state_seal_forget(void);

/*
 * In the postmaster as it exits, when the state file was refused in this
 * lifetime (nothing was issued): after a clean stop, notes that the file
 * sealed by the stop it started from is still right.  Never raises.
 */
extern void state_seal_refused_stop(void);

/*
 * At start: NULL, or why a file sealed as given (has_stop: it carries a
 * seal at all, 1.4's; checkpoint 0: saved while the server ran) is not
 * what the last clean stop left (palloc'd).  Never raises.
 */
extern const char *state_seal_stale(bool has_stop, uint64 checkpoint, uint64 deep_size);

/* At start, for a file of another cluster (its seal is that cluster's stop's): carries its seal of flakeid.deep */
extern void state_seal_foreign(bool has_stop, uint64 checkpoint, uint64 deep_size);

/*
 * Once the file is read: true where it is the one the clean stop this start
 * follows sealed, with flakeid.deep's seal then; false where nothing says.
 */
extern bool state_seal_deep_size(uint64 *size);

#endif
