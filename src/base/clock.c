/*
 * clock.c — the clocks the generators read
 *
 * Every generator reads CLOCK_REALTIME, shifted by the test-only setting
 * flakeid.debug_clock_offset_ms, which only a server started with
 * flakeid.allow_debug_clock_offset takes: a session with an offset makes
 * every other session's generators wait out its step.  A generator whose unit is at least as long
 * as the coarse clock's tick may read that clock instead (only sno, unit
 * 4 ms, does, under flakeid.sno_coarse_clock).  The snowflake epoch is
 * epoch.c's.
 */
#include "postgres.h"

#include <time.h>

#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "lib/stringinfo.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "base/clock.h"
#include "base/settings.h"

static bool sno_coarse_clock = true;
static bool allow_debug_clock_offset = false;
static int	debug_clock_offset_ms = 0;

/*
 * A shifted clock stalls every other session's generators for the length of
 * the shift, so even a superuser may set it only where the server was
 * started to allow it, and no one else ever: GRANT SET ON PARAMETER (15 on)
 * would otherwise hand a PGC_SUSET setting on.  Only the server's own
 * configuration (postgresql.conf, ALTER SYSTEM, the command line: sources up
 * to PGC_S_ARGV) is taken as the administrator's.  A value from any later
 * source is checked against the role it applies to: the startup packet
 * (PGOPTIONS), ALTER ROLE/DATABASE ... SET at login, SET, a function's SET
 * clause, and ALTER ROLE/DATABASE ... SET itself (checked as PGC_S_TEST).
 * 1.2 exempted every source below PGC_S_INTERACTIVE, so a granted role set
 * it through PGOPTIONS or at login.
 */
static bool
debug_setting_allowed(GucSource source, const char *what)
{
	if (!allow_debug_clock_offset)
	{
		GUC_check_errcode(ERRCODE_INSUFFICIENT_PRIVILEGE);
		GUC_check_errdetail("The generators' %s only on a server started with flakeid.allow_debug_clock_offset = on.", what);
		return false;
	}
	if (source > PGC_S_ARGV && (!OidIsValid(GetUserId()) || !superuser()))
	{
		GUC_check_errcode(ERRCODE_INSUFFICIENT_PRIVILEGE);
		GUC_check_errdetail("Only superusers may set this, whatever is granted on the parameter.");
		return false;
	}
	return true;
}

static bool
check_debug_clock_offset_ms(int *newval, void **extra pg_attribute_unused(), GucSource source)
{
	return *newval == 0 || debug_setting_allowed(source, "clock may be shifted");
}

/* --- pauses that hold a race's window open, for tests ------------------------------ */

static const char *const debug_pause_names[DEBUG_PAUSE_COUNT] = {
	[DEBUG_PAUSE_NONE] = "",
	[DEBUG_PAUSE_RECOVERY_DECIDED] = "recovery_decided",
	[DEBUG_PAUSE_BACKFILL_DRAWN] = "backfill_drawn",
	[DEBUG_PAUSE_SAVE_WRITTEN] = "save_written",
	[DEBUG_PAUSE_SAVE_SYNCED] = "save_synced",
	[DEBUG_PAUSE_SAVE_RENAMED] = "save_renamed",
	[DEBUG_PAUSE_TOGGLE_SWAPPED] = "toggle_swapped",
	[DEBUG_PAUSE_HORIZON_CELL_READ] = "horizon_cell_read",
	[DEBUG_PAUSE_BACKFILL_CLOSED] = "backfill_closed",
	[DEBUG_PAUSE_CLOSING_SWAPPED] = "closing_swapped",
	[DEBUG_PAUSE_PREPARED_SAVING] = "prepared_saving",
};

static char *debug_pause_at = NULL;
static int	debug_pause_ms = 0;
int			debug_pause_point = DEBUG_PAUSE_NONE;

static int
debug_pause_named(const char *name)
{
	for (int p = 0; p < DEBUG_PAUSE_COUNT; p++)
		if (strcmp(name, debug_pause_names[p]) == 0)
			return p;
	return -1;
}

static bool
check_debug_pause_at(char **newval, void **extra pg_attribute_unused(), GucSource source)
{
	int			point = debug_pause_named(*newval);

	if (point < 0)
	{
		StringInfoData known;

		initStringInfo(&known);
		for (int p = DEBUG_PAUSE_NONE + 1; p < DEBUG_PAUSE_COUNT; p++)
			appendStringInfo(&known, "%s, ", debug_pause_names[p]);
		GUC_check_errdetail("Known pauses: %sor empty for none.", known.data);
		return false;
	}
	return point == DEBUG_PAUSE_NONE || debug_setting_allowed(source, "calls may be paused");
}

static void
assign_debug_pause_at(const char *newval, void *extra pg_attribute_unused())
{
	int			point = debug_pause_named(newval);	/* the check hook took the name */

	debug_pause_point = Max(point, DEBUG_PAUSE_NONE);
}

static bool
check_debug_pause_ms(int *newval, void **extra pg_attribute_unused(), GucSource source)
{
	return *newval == 0 || debug_setting_allowed(source, "calls may be paused");
}

/*
 * A cancel (statement_timeout, pg_cancel_backend) or terminate (a fast
 * shutdown, pg_terminate_backend) pending now is served as core serves it,
 * with its ERROR or FATAL and SQLSTATE, although the caller holds an
 * LWLock (flakeid_lock, the horizon's file lock): an LWLock holds
 * interrupts off, so CHECK_FOR_INTERRUPTS() alone would do nothing, and a
 * wait that may be long would then end only on its own.  Interrupts are
 * let through for that moment only; the error's recovery releases the
 * locks.  In a critical section, nothing is served (ProcessInterrupts).
 */
void
flakeid_serve_cancel_or_terminate(void)
{
	uint32		held = InterruptHoldoffCount;

	if (!InterruptPending || !(QueryCancelPending || ProcDiePending))
		return;
	InterruptHoldoffCount = 0;
	ProcessInterrupts();
	InterruptHoldoffCount = held;
}

/*
 * flakeid.debug_pause_ms on the process latch, under the generic Extension
 * wait event; a cancel or terminate ends it, with its ERROR or FATAL, also
 * at the save_* points, which run under a lock
 * (flakeid_serve_cancel_or_terminate): the save then fails as it would on
 * an I/O error, and nothing it was to publish is.  Not at toggle_swapped:
 * an error there, between sno's compare-and-swap and the cells' second
 * lowering, would leave the toggle half done (horizon_toggle_end never
 * run, every horizon then waiting for it), so that pause runs to its end;
 * so does closing_swapped, whose closing is counted as under way until
 * it ends (counters_await_closed).
 * At recovery_decided, a pause
 * that began during recovery also ends 1 ms after recovery does: a call
 * then goes on before the renewer's next pass takes the primary's bounds
 * up, which is the window a first call during promotion must not issue in.
 */
void
debug_pause_slow(void)
{
	TimestampTz until;
	bool		until_recovery_ends;

	/*
	 * The postmaster has no latch to wait on, and must never wait anyway:
	 * its exit saves the state file, and a pause set by ALTER SYSTEM
	 * reaches it too (it crashed in WaitLatch at the next stop).
	 */
	if (!IsUnderPostmaster)
		return;
	/* (a test that pauses a process it has no session in, such as the renewer, waits for this line) */
	ereport(LOG, (errmsg("flakeid pauses at \"%s\" for %d ms", debug_pause_names[debug_pause_point], debug_pause_ms)));
	until = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), debug_pause_ms);
	until_recovery_ends = debug_pause_point == DEBUG_PAUSE_RECOVERY_DECIDED && RecoveryInProgress();

	for (;;)
	{
		long		left = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), until);

		if (debug_pause_point != DEBUG_PAUSE_TOGGLE_SWAPPED && debug_pause_point != DEBUG_PAUSE_CLOSING_SWAPPED)
		{
			flakeid_serve_cancel_or_terminate();
			CHECK_FOR_INTERRUPTS();
		}
		if (left <= 0 || (until_recovery_ends && !RecoveryInProgress()))
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 until_recovery_ends ? 1 : left, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

void
clock_init(void)
{
	define_bool_setting(SETTING_SNO_COARSE_CLOCK,
						"Lets sno_new() read the coarse system clock where it ticks at least every 4 ms.",
						"An ID's time may then trail the precise clock by a few milliseconds; reading it costs a fraction.",
						&sno_coarse_clock, true, PGC_POSTMASTER, 0);
	/* before the offset, whose check hook reads it */
	define_bool_setting(SETTING_ALLOW_DEBUG_CLOCK_OFFSET,
						"Lets superusers shift the generators' clock with flakeid.debug_clock_offset_ms, for testing.",
						"Never turn it on in production.",
						&allow_debug_clock_offset, false, PGC_POSTMASTER, GUC_NOT_IN_SAMPLE);
	define_int_setting(SETTING_DEBUG_CLOCK_OFFSET_MS,
					   "Shifts the generators' clock, for testing clock faults.",
					   "Superuser only, and only where flakeid.allow_debug_clock_offset is on; never set it in production.",
					   &debug_clock_offset_ms, 0, -7 * 24 * 3600 * 1000, 7 * 24 * 3600 * 1000,
					   PGC_SUSET, GUC_NOT_IN_SAMPLE | GUC_UNIT_MS, check_debug_clock_offset_ms);
	define_string_setting(SETTING_DEBUG_PAUSE_AT,
						  "Names a point where generator calls pause for flakeid.debug_pause_ms, for testing races.",
						  "Superuser only, and only where flakeid.allow_debug_clock_offset is on; never set it in production.",
						  &debug_pause_at, "", PGC_SUSET, GUC_NOT_IN_SAMPLE,
						  check_debug_pause_at, assign_debug_pause_at);
	define_int_setting(SETTING_DEBUG_PAUSE_MS,
					   "How long a generator call pauses at flakeid.debug_pause_at, for testing races.",
					   "Superuser only, and only where flakeid.allow_debug_clock_offset is on; never set it in production.",
					   &debug_pause_ms, 0, 0, 600 * 1000,
					   PGC_SUSET, GUC_NOT_IN_SAMPLE | GUC_UNIT_MS, check_debug_pause_ms);
}

static inline int64
unix_us_from_timespec(const struct timespec *ts)
{
	return (int64) ts->tv_sec * USECS_PER_SEC + ts->tv_nsec / 1000 +
		(int64) debug_clock_offset_ms * 1000;
}

int64
flakeid_clock_unix_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return unix_us_from_timespec(&ts);
}

/*
 * Linux's coarse realtime clock is the same clock as of the last timer tick:
 * it reads a kernel variable instead of the TSC (7 ns against 29 ns on the
 * benchmark machine), and it never runs ahead of CLOCK_REALTIME.  0: none.
 */
static int64
coarse_clock_resolution_us(void)
{
#ifdef CLOCK_REALTIME_COARSE
	struct timespec res;

	if (clock_getres(CLOCK_REALTIME_COARSE, &res) == 0)
		return Max((int64) res.tv_sec * USECS_PER_SEC + (res.tv_nsec + 999) / 1000, 1);
#endif
	return 0;
}

/*
 * Where the coarse clock ticks at least once a unit (and the generator and
 * its setting allow it), reading it costs a
 * quarter of a precise read, which was the largest part of sno_new's cost;
 * an ID's time then trails the precise clock by the tick and the kernel's
 * update delay (2-7 ms on the benchmark machine).  Every decision of one
 * generator reads one clock: a precise reading followed by a coarse one
 * could look like a clock regression, which is also why the setting needs a
 * restart.  Decided once per backend.
 */
static bool
reads_coarse_clock(const GeneratorDef *def)
{
	/* per format: 0 = not decided yet, 1 = precise, 2 = coarse */
	static int8 decided[FLAKE_FORMAT_COUNT];
	int8	   *choice = &decided[def->format->id];

	if (likely(*choice != 0))
		return *choice == 2;
	if (def->coarse_clock && sno_coarse_clock)
	{
		int64		resolution = coarse_clock_resolution_us();

		*choice = resolution > 0 && resolution <= def->format->unit_us ? 2 : 1;
	}
	else
		*choice = 1;
	return *choice == 2;
}

int64
clock_read(const GeneratorDef *def)
{
#ifdef CLOCK_REALTIME_COARSE
	if (reads_coarse_clock(def))
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME_COARSE, &ts);
		return unix_us_from_timespec(&ts);
	}
#endif
	return flakeid_clock_unix_us();
}

/* for flakeid_generators: "precise" or "coarse (4000 us)" */
char *
clock_describe(const GeneratorDef *def)
{
	if (reads_coarse_clock(def))
		return psprintf("coarse (" INT64_FORMAT " us)", coarse_clock_resolution_us());
	return pstrdup("precise");
}
