/*
 * marks_setup.c — the marks' shared memory and flakeid_lock, the state file
 * as it is read at start, and the refusal of a file that cannot be used
 *
 * The rest of the marks is marks.c's.
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog.h"
#include "common/controldata_utils.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "base/clock.h"
#include "base/settings.h"
#include "base/shmem.h"
#include "base/table.h"
#include "durable/deep_record.h"
#include "durable/marks_setup.h"
#include "durable/state_seal.h"
#include "durable/state_witness.h"

MarkShared *mark_shared = NULL;
LWLockPadded *mark_locks = NULL;

static char *accept_state_from = NULL;
bool		flakeid_start_afresh = false;
bool		accept_backfill_loss = false;

char	   *flakeid_take_over_from = NULL;

/* strictly a system identifier: digits only, in range, not 0; or empty for none */
static bool
parse_system_identifier(const char *text, uint64 *system)
{
	char	   *end;

	*system = 0;
	if (*text == '\0')
		return true;
	if (strspn(text, "0123456789") != strlen(text))
		return false;
	errno = 0;
	*system = strtou64(text, &end, 10);
	return errno == 0 && *end == '\0' && *system != 0;
}

static bool
check_accept_state_from(char **newval, void **extra pg_attribute_unused(), GucSource source pg_attribute_unused())
{
	uint64		system;

	if (parse_system_identifier(*newval, &system))
		return true;
	GUC_check_errdetail("flakeid.accept_state_from takes a system identifier (pg_control_system()), digits only, or an empty string.");
	return false;
}

static bool
check_take_over_from(char **newval, void **extra pg_attribute_unused(), GucSource source pg_attribute_unused())
{
	/*
	 * Two whole positive numbers, digits only (parse_system_identifier's
	 * rule): sscanf's %llu took "-1:5" and a number past 2^64 too (1.4's
	 * tenth auditor).
	 */
	char	   *recorded = pstrdup(*newval);
	char	   *colon = strchr(recorded, ':');
	uint64		number;
	bool		valid;

	if (**newval == '\0')
		return true;
	if (colon != NULL)
		*colon = '\0';
	valid = colon != NULL && recorded[0] != '\0' && colon[1] != '\0' &&
		parse_system_identifier(recorded, &number) && parse_system_identifier(colon + 1, &number);
	pfree(recorded);
	if (valid)
		return true;
	GUC_check_errdetail("flakeid.take_over_from takes the two inodes the refusal names, as RECORDED:FOUND, digits only, or an empty string.");
	return false;
}

/* from _PG_init, while preloading */
void
mark_init(void)
{
	define_string_setting(SETTING_ACCEPT_STATE_FROM,
						  "Takes up a generator state file written by the cluster with this system identifier.",
						  "For a state file copied on purpose from the cluster this one replaces (pg_upgrade).",
						  &accept_state_from, "", PGC_POSTMASTER, 0, check_accept_state_from, NULL);
	define_bool_setting(SETTING_START_AFRESH,
						"Starts the generators afresh when the generator state file is damaged, missing, newer or another cluster's.",
						"The file is set aside; the generators resume 62 s ahead of the clock, and back-fill before the start is refused until flakeid.accept_backfill_loss is on.",
						&flakeid_start_afresh, false, PGC_POSTMASTER, 0);
	define_string_setting(SETTING_TAKE_OVER_FROM,
						  "Takes this copy of a data directory over from its original: the inode the witness records.",
						  "For a copy that replaces its original for good and may be older than it (a restore of a backup): the generators resume 62 s ahead of the clock, and back-fill before that is refused.",
						  &flakeid_take_over_from, "", PGC_POSTMASTER, 0, check_take_over_from, NULL);
	define_bool_setting(SETTING_ACCEPT_BACKFILL_LOSS,
						"Lets back-fill give IDs before the instant the generators started afresh.",
						"Only where no ID back-filled before that start can meet a new one: their record was lost, and back-fill could repeat them.",
						&accept_backfill_loss, false, PGC_SIGHUP, 0);
	/* the tranche is named "flakeid": pg_stat_activity shows waits on flakeid_lock as that */
	shmem_request_part(&(ShmemPart) {.name = "flakeid", .size = sizeof(MarkShared), .address = (void **) &mark_shared, .init = NULL, .nlocks = 1, .locks = &mark_locks});
}

uint64
mark_accepted_foreign_system(void)
{
	uint64		system = 0;

	if (accept_state_from == NULL || !parse_system_identifier(accept_state_from, &system))
		return 0;
	return system;
}

/*
 * At start, once the record of deep units is read: a state file that names
 * no record, or another one than the one in use (a state of 1.3, one saved
 * afresh, a record started afresh), is saved at once naming it, so that
 * from then on only that file is taken with it (deep_record.h).  Only where
 * the state file exists: a server that issued nothing writes nothing.  In
 * the postmaster: never raises.
 */
void
mark_name_deep_record(FlakeidPersisted *saved)
{
	struct stat st;

	if (mark_shared->state_refusal != STATE_USABLE || !deep_record_usable() ||
		saved->deep_record == deep_record_id() || stat("flakeid.state", &st) != 0)
		return;
	saved->deep_record = deep_record_id();
	(void) state_save(saved, LOG);
}

/* how mark_load_state found the file, for mark_set_up_shared (the postmaster's, at start) */
static StateLoad loaded_as = STATE_LOAD_NONE;
static uint32 loaded_version = 0;

/*
 * A file of an older version, or one an operator accepted from another
 * cluster (flakeid.accept_state_from), is rewritten in the current version
 * for this cluster; a damaged, newer or foreign one makes every generator
 * refuse until an operator acts.  The primary's bounds it holds wait until
 * recovery has ended (resume.c).
 */
void
mark_load_state(FlakeidPersisted *saved)
{
	uint32		file_version = 0;
	StateLoad	load;

	/* (before anything reads the witness: 1.4's place under global/ fails PostgreSQL's tools) */
	state_witness_move_from_global();
	load = state_load(saved, &file_version);

	mark_shared->state_file_version = file_version;
	mark_shared->old_marks_ahead = state_load_refused_old_marks_ahead();
	mark_shared->state_unreadable = state_load_refused_unreadable();
	mark_shared->state_system_identifier = saved->system_identifier;
	if (load == STATE_LOAD_FOREIGN && saved->system_identifier == mark_accepted_foreign_system())
	{
		ereport(LOG,
				(errmsg("taking up the generator state file of the cluster with system identifier " UINT64_FORMAT ", as flakeid.accept_state_from says",
						saved->system_identifier)));
		load = STATE_LOAD_MIGRATED;
	}
	mark_shared->state_refusal = load == STATE_LOAD_DAMAGED ? STATE_DAMAGED
		: load == STATE_LOAD_TOO_NEW ? STATE_TOO_NEW
		: load == STATE_LOAD_FOREIGN ? STATE_FOREIGN
		: load == STATE_LOAD_MISSING ? STATE_MISSING
		: load == STATE_LOAD_STALE ? STATE_STALE : STATE_USABLE;
	mark_shared->stale_unsaved = load == STATE_LOAD_STALE && state_seal_stale_unsaved();
	/*
	 * (a restored base backup started without a signal file replays its
	 * original's records from its backup_label too: 1.5's sixth reviewer.
	 * A start that ended mid-way has renamed the label: the next one, in
	 * crash recovery, refuses to end before the backup's end (PostgreSQL's
	 * "WAL ends before end of online backup"), and one with recovery.signal
	 * replays them again from the backup's checkpoint, noted: 030)
	 */
	mark_shared->archive_recovery = access(STANDBY_SIGNAL_FILE, F_OK) == 0 || access(RECOVERY_SIGNAL_FILE, F_OK) == 0 ||
		access(BACKUP_LABEL_FILE, F_OK) == 0;
	{
		struct stat note;

		/* (lstat: a link to nowhere in its name is a note all the same) */
		mark_shared->replay_lost_noted = lstat(REPLAY_LOST_FILE, &note) == 0;
	}
	if (mark_shared->state_refusal == STATE_USABLE && mark_shared->replay_lost_noted)
		mark_shared->state_refusal = STATE_REPLAY_LOST;
	/*
	 * With flakeid.start_afresh on, a missing state file beside no witness
	 * is started afresh too, never a first start at the clock: an operator
	 * who set it meant the state was lost (1.4's last fresh eyes: a
	 * refused file removed by hand after a start afresh that failed, the
	 * witness with it, made a first start, 10,396 snowflakes again).
	 */
	if (load == STATE_LOAD_NONE && flakeid_start_afresh)
		mark_shared->state_refusal = STATE_MISSING;
	loaded_as = load;
	loaded_version = file_version;
}

void
mark_set_up_shared(FlakeidPersisted *saved)
{
	StateLoad	load = loaded_as;
	uint32		file_version = loaded_version;

	if (mark_shared->state_refusal != STATE_USABLE)
		state_set_empty(saved);
	if (mark_shared->state_refusal == STATE_USABLE)
		state_seal_usable();
	/*
	 * A standby keeps the bounds it replays in its own state file, which is
	 * not written while the file is refused (marks_replay.c): once promoted
	 * it refuses every generator, as a primary with that file would.  Said
	 * at its start, while an operator can still make it again, not first
	 * at the failover (1.5's third auditor: a standby whose file was
	 * removed before its first start, refused at once after promotion).
	 */
	if (mark_shared->state_refusal != STATE_USABLE && access(STANDBY_SIGNAL_FILE, F_OK) == 0)
		ereport(WARNING,
				(errmsg("this standby cannot generate IDs once promoted: its generator state file \"flakeid.state\" %s",
						mark_shared->state_refusal == STATE_MISSING ? "is missing" :
						mark_shared->state_refusal == STATE_TOO_NEW ? "was written by a newer version of flakeid" :
						mark_shared->state_refusal == STATE_FOREIGN ? "belongs to another cluster" :
						mark_shared->state_refusal == STATE_STALE ? "is not the one the last clean stop saved" :
						mark_shared->state_refusal == STATE_REPLAY_LOST ? "lacks bounds it replayed while the file could not be used (\"" REPLAY_LOST_FILE "\")" :
						"cannot be read or is damaged"),
				 errdetail("A standby keeps the bounds it replays from its primary in that file, and it is not written while it cannot be used: after a promotion every generator is refused, as on a primary whose file cannot be used (the server log of this start says why it cannot)."),
				 mark_shared->state_refusal == STATE_TOO_NEW ?
				 errhint("Install the flakeid release that wrote the file (its primary's, if the primary runs it) and make this standby again with pg_basebackup before counting on it for failover: the bounds it replays meanwhile are kept nowhere (docs/OPERATIONS.md, \"A standby that starts without a usable flakeid.state\").") :
				 errhint("Do not count on this standby for failover: make it again with pg_basebackup from its primary (docs/OPERATIONS.md, \"A standby that starts without a usable flakeid.state\"). A file mended now lacks the bounds replayed meanwhile, which \"" REPLAY_LOST_FILE "\" records; once promoted, only a start afresh takes it away.")));
	pg_atomic_init_u64(&mark_shared->backfill_floor, 0);
	for (int m = 0; m < MARK_COUNT; m++)
		pg_atomic_init_u64(&mark_shared->marks[m].value, 0);
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		pg_atomic_init_u32(&mark_shared->backfill_low[s], BACKFILL_LOW_NONE);
	deep_units_clear(&mark_shared->backfill_deep);
	pg_atomic_init_u32(&mark_shared->backfill_lifetime, 0);
	ConditionVariableInit(&mark_shared->lock_released);
	pg_atomic_init_u32(&mark_shared->upstream_pending, 0);
	bounds_set_empty(&mark_shared->upstream);
	mark_shared->sno_ticktock = saved->own.sno_ticktock & 1;
	mark_shared->old_version_on_disk = false;
	if (load == STATE_LOAD_MIGRATED)
	{
		bool		upgraded = state_save(saved, LOG);

		if (upgraded && file_version < STATE_VERSION)
			ereport(LOG,
					(errmsg("upgraded the generator state file from version %u to version %u",
							file_version, STATE_VERSION)));
		mark_shared->old_version_on_disk = !upgraded && file_version < STATE_VERSION;
	}

	/*
	 * A state file, usable or refused, that may have given IDs: the witness
	 * says so from this start (where there is none, or this data
	 * directory's own says "no ID yet": state_witness_ensure), not from the
	 * renewer or a later save alone: the renewer may not run
	 * (max_worker_processes too low), and back-fill into deep units saves
	 * no state.  Without it, the file removed by hand later was a first
	 * start at the clock (1.4's ninth and tenth fresh eyes).  After the
	 * upgrade of an older release's file, never before it: "issued" beside
	 * that file refuses it as an older copy, and a crash between the two
	 * made the next start refuse the latest state with that false reason
	 * (1.4's eleventh fresh eyes).
	 */
	{
		struct stat st;

		if (mark_state_file_says_issued() && stat("flakeid.state", &st) == 0)
			(void) state_witness_ensure(LOG);
	}
	{
		bool		any = false;

		for (int m = 0; m < MARK_COUNT; m++)
			any |= saved->own.marks[m] > 0;
		if (any)
		{
			/* timestamptz_to_str returns a static buffer: one call per part */
			StringInfoData marks;
			bool		flag = saved->own.sno_ticktock != 0;

			initStringInfo(&marks);
			for (int g = 0; g < GEN_COUNT; g++)
				if (!generator_defs[g].ticktock)
					appendStringInfo(&marks, "%s after %s; ", generator_defs[g].name,
									 timestamptz_to_str(flakeid_timestamptz_from_unix_us(saved->own.marks[generator_defs[g].mark])));
			ereport(LOG,
					(errmsg("generators resume after their saved marks: %ssno after %s with tick-tock %u",
							marks.data,
							timestamptz_to_str(flakeid_timestamptz_from_unix_us(saved->own.marks[flag ? MARK_SNO_FLAG1 : MARK_SNO_FLAG0])),
							flag ? 1 : 0)));
			pfree(marks.data);
		}
	}
}

void
mark_refuse_unusable_state(void)
{
	/* (the hints below say to start afresh: this start tried, and the log says why it could not) */
	if (mark_shared->afresh_failed)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's generator state file cannot be used, and starting afresh failed, so generation is refused"),
				 errdetail("flakeid.start_afresh is on, but at this start the unusable \"flakeid.state\" could not be set aside, a new one saved, or the marks of a state file set aside before read; the server log of this start says why, and why the file cannot be used."),
				 errhint("Correct what the log names (space or permissions in the data directory, a directory in the place of flakeid.state.tmp or flakeid.issued.tmp, a witness that is not this cluster's, a flakeid.state.older-copy-*, flakeid.state.ahead or flakeid.state.replay-lost that cannot be read or removed, a directory in the place of flakeid.state.ahead.tmp), leaving \"flakeid.state\" itself where it is: start afresh sets it aside. Then restart the server.")));
	if (mark_shared->state_refusal == STATE_TOO_NEW)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("flakeid's generator state file was written by a newer version of flakeid"),
				 mark_shared->state_file_version > STATE_VERSION ?
				 errdetail("The file \"flakeid.state\" has state version %u; this version of flakeid reads versions 1 to %u.",
						   mark_shared->state_file_version, STATE_VERSION) :
				 errdetail("The file \"flakeid.state\" has state version %u, which this version of flakeid reads, but holds an entry that it needs to be read whole and that this version does not know (a later release's: a counter or kind of entry added since).",
						   mark_shared->state_file_version),
				 errhint("Install the flakeid release that wrote the file, or set flakeid.start_afresh = on and restart the server (docs/OPERATIONS.md, \"Starting afresh\").")));
	if (mark_shared->state_refusal == STATE_FOREIGN)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's generator state file belongs to another cluster, so generation is refused"),
				 errdetail("The file \"flakeid.state\" was written by the cluster with system identifier " UINT64_FORMAT "; this cluster's is " UINT64_FORMAT ".",
						   mark_shared->state_system_identifier, GetSystemIdentifier()),
				 errhint("If the file was copied on purpose from the cluster this one replaces (pg_upgrade: copy its \"flakeid.state*\" files and \"flakeid.deep\", docs/OPERATIONS.md, \"pg_upgrade\"), set flakeid.accept_state_from = '" UINT64_FORMAT "' and restart the server; otherwise set flakeid.start_afresh = on and restart the server (docs/OPERATIONS.md, \"Starting afresh\").",
						 mark_shared->state_system_identifier)));
	if (mark_shared->state_refusal == STATE_MISSING)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's generator state file is missing, although this cluster may have issued IDs, so generation is refused"),
				 errdetail("\"flakeid.state\" is gone from the data directory (or is a link to a file that is gone), and \"%s\" says this cluster saved it before, or found one there that it could not use (or is not this cluster's, which cannot say it did not): without it, new IDs could repeat issued ones.",
						   STATE_WITNESS_FILE),
				 errhint("If the file was moved or renamed, put that very file back and restart the server (not an older copy: it lacks what was saved since, and back-fill could repeat IDs). Otherwise set flakeid.start_afresh = on and restart the server (docs/OPERATIONS.md, \"Starting afresh\").")));
	if (mark_shared->state_refusal == STATE_REPLAY_LOST)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's generator state lacks bounds this server replayed from its primary, so generation is refused"),
				 errdetail("As a standby (or in archive recovery) this server replayed its primary's bounds while \"flakeid.state\" could not be used, as \"%s\" records: they are kept nowhere, and new IDs could repeat IDs its primary issued then.",
						   REPLAY_LOST_FILE),
				 errhint("Set flakeid.start_afresh = on and restart the server (docs/OPERATIONS.md, \"Starting afresh\"); a standby can be made again with pg_basebackup from its primary instead.")));
	if (mark_shared->state_refusal == STATE_STALE && mark_shared->stale_unsaved)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's generator state file is not the one the last clean stop saved, so generation is refused"),
				 errdetail("The save of \"flakeid.state\" at the last clean stop failed (the server log of that stop says why), so the file in place was saved before it and carries no seal of it: flakeid cannot tell it from an older copy, without what was saved since, from which new IDs could repeat issued ones."),
				 errhint("Mend what made the save fail (the server log of that stop says why), then set flakeid.start_afresh = on and restart the server (docs/OPERATIONS.md, \"Starting afresh\").")));
	if (mark_shared->state_refusal == STATE_STALE)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's generator state file is not the one the last clean stop saved, so generation is refused"),
				 errdetail("\"flakeid.state\" or \"%s\" is an older copy (the server log of this start says which), or the save at that stop failed: without what was saved since, new IDs could repeat issued ones.",
						   DEEP_RECORD_FILE),
				 errhint("If the files that stop saved were moved, put those very files back and restart the server. Otherwise set flakeid.start_afresh = on and restart the server (docs/OPERATIONS.md, \"Starting afresh\").")));
	/*
	 * (one the server cannot open or read, its owner or mode changed by a
	 * copy made as root: given back, nothing is lost, where a start afresh
	 * refuses back-fill before it; 1.5's fifth auditor was offered the
	 * start afresh alone, as for a damaged file)
	 */
	if (mark_shared->state_unreadable)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid's generator state file cannot be read, so generation is refused"),
				 errdetail("The server may not read or write \"flakeid.state\": its owner or permissions (the server log of this start says why)."),
				 mark_shared->replay_lost_noted ?
				 errhint("Give the file back to the server's operating-system user (mode 0600), then set flakeid.start_afresh = on and restart the server: this server also replayed bounds from its primary while the file could not be used (\"%s\"), which the file lacks (docs/OPERATIONS.md, \"Starting afresh\").", REPLAY_LOST_FILE) :
				 errhint("Give the file back to the server's operating-system user, readable and writable by it (mode 0600), and restart the server: nothing is lost. Where that cannot be done, set flakeid.start_afresh = on and restart the server (docs/OPERATIONS.md, \"Starting afresh\").")));
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("flakeid's generator state file is damaged, so generation is refused"),
			 errhint("Set flakeid.start_afresh = on and restart the server: the file is set aside (docs/OPERATIONS.md, \"Starting afresh\").")));
}

