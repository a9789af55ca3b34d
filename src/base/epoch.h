/*
 * epoch.h — the snowflake epoch: the setting, and the epoch the snowflakes
 * already issued were issued under
 *
 * A snowflake's value is its Unix millisecond less the epoch, so a later
 * epoch than the one snowflakes were issued under gives values those IDs
 * already had; an earlier one only gives larger values.  The saved state
 * (marks.c) keeps the epoch of the snowflakes issued, here or upstream:
 * -1 until the first is, or when a 1.0 file did not say.
 */
#ifndef FLAKEID_EPOCH_H
#define FLAKEID_EPOCH_H

/* defines flakeid.snowflake_epoch_ms and asks for the shared part (from _PG_init, while preloading) */
extern void epoch_init(void);

/* flakeid.snowflake_epoch_ms; raises 22023 when its configured value was refused */
extern int64 flakeid_snowflake_epoch_ms(void);

/* the same without the check: what the configuration gave (or the default) */
extern int64 flakeid_configured_snowflake_epoch_ms(void);

/* the epoch of the snowflakes issued, here or upstream; -1: none yet */
extern int64 epoch_issued_under(void);

/* at start, or with flakeid_lock held: the epoch of the snowflakes issued */
extern void epoch_set_issued_under(int64 epoch_ms);

/*
 * With flakeid_lock held, replaying the primary's state: keeps the earlier
 * of the two epochs (a later one could repeat either server's values), so
 * replay never makes a generating standby's own, earlier epoch later.
 * True when it changed.
 */
extern bool epoch_take_earlier(int64 epoch_ms);

/* whether the configured epoch is not yet the saved one and may be saved (it is not later) */
extern bool epoch_needs_saving(void);

/* raises 55000 when the configured epoch is later than the issued one */
extern void epoch_refuse_if_later(void);

/* at start: a WARNING when the configured epoch is refused */
extern void epoch_warn_if_refused(void);

/* for the view: "epoch 1420070400000 ms" */
extern char *epoch_describe(void);

#endif
