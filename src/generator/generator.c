/*
 * generator.c — a generator call: what may refuse it, then its counter
 */
#include "postgres.h"

#include "access/xlog.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "base/clock.h"
#include "base/epoch.h"
#include "base/identity.h"
#include "base/settings.h"
#include "base/shmem.h"
#include "base/table.h"
#include "durable/state_witness.h"
#include "generator/generator.h"
#include "generator/horizon_cells.h"
#include "generator/issue.h"
#include "generator/resume.h"

/*
 * What may refuse a generator variant: a setting whose configured value was
 * refused, recovery (unless flakeid.generate_on_standby), its identities,
 * the saved state.  All of these are fixed while a backend lives, except
 * recovery ending, so once a variant is prepared a backend keeps its pool.
 *
 * Before anything is issued, a primary's replayed bounds are taken up once
 * recovery has ended (one atomic read when there are none).  A first call
 * looks at recovery once, and takes them up after deciding on that one
 * look: looking twice let a call during promotion find recovery still on
 * (nothing taken up), then over (nothing refused), and issue from the base
 * backup's counters below IDs the old primary had issued.  Once recovery
 * was seen over it stays over, so a take-up then always happens; a
 * generating standby issues after its own bounds until it ends.
 */
CounterPool
generator_prepare(const GeneratorDef *def, int variant)
{
	static CounterPool pools[GEN_SLOT_COUNT];
	static bool prepared[GEN_SLOT_COUNT];
	int			slot = def->first_slot + variant;
	bool		in_recovery;

	shmem_require(def->name);
	if (likely(prepared[slot]))
	{
		resume_take_up_upstream();
		return pools[slot];
	}
	in_recovery = RecoveryInProgress();
	debug_pause(DEBUG_PAUSE_RECOVERY_DECIDED);
	if (!mark_state_usable())
		mark_refuse_unusable_state();
	settings_refuse_rejected_for(def->id, def->name);
	if (in_recovery && !identity_generate_on_standby())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot generate IDs during recovery"),
				 errdetail("A standby would issue the IDs its primary issues."),
				 errhint("Generate IDs on the primary, or give this standby identities no other server uses and set flakeid.generate_on_standby = on.")));
	if (!in_recovery)
		resume_take_up_upstream();
	for (int i = 0; i < def->nidentities; i++)
		(void) flakeid_identity(def->identities[i]);
	if (def->records_epoch)
	{
		mark_save_snowflake_epoch();
		epoch_refuse_if_later();
	}
	pools[slot] = def->pool(variant);
	prepared[slot] = true;
	return pools[slot];
}

/* the ways on from a refusal in a copy: one hint for every generator */
/*
 * (each identity seen set apart before the witness goes: a copy whose
 * ALTER SYSTEM of flakeid.kuid_node had failed, its witness removed all
 * the same, repeated 20,000 of 20,000 kuid96 beside its original: 1.5's
 * seventeenth auditor; the server cannot tell a value meant to differ)
 */
#define COPY_HINT \
	"If the original still runs, or may run again (a second server): set this server's identities (flakeid.sno_partition, flakeid.siq_shard, flakeid.kuid_node, flakeid.snowflake_worker and flakeid.snowflake_process, those its generators use) to values no other server uses (flakeid.kuid_node as name@host), see each of them in SELECT * FROM flakeid_identities() once the server is restarted, and only then remove %s once; kuid, which carries no identity, would then issue the original's IDs again: use kuid96 there rather than kuid. If this data directory replaces the original for good (the original gone): for a copy of the stopped original as it last was (a move), remove %s once; for one that may be older (a restore of a backup), set flakeid.take_over_from = '%llu:%llu' and restart the server instead (the generators then resume 62 s ahead of the clock and back-fill before that is refused, docs/OPERATIONS.md, \"Starting afresh\")."

/*
 * A copy of a promoted server whose witness still records the server that
 * one was promoted from (a clone's, kuid refused there): removed, as
 * COPY_HINT says for a move or a second server, the record went with it,
 * and kuid issued the running original's IDs again (1.5's twenty-second
 * auditor: 3,477 of 20,000, the move's step followed).  Its way on keeps
 * the witness: flakeid.take_over_from, which keeps the record
 * (state_witness_take_over), as OPERATIONS' "A promoted standby" says.
 */
#define COPY_OF_PROMOTED_HINT \
	"Do not remove %s: it holds the record of the server this data directory's original was promoted from, and removed, that record is gone (kuid, and each generator whose identities are still that server's, would then issue its IDs: docs/OPERATIONS.md, \"A promoted standby\"). If the original still runs, or may run again (a second server): first set this server's identities (flakeid.sno_partition, flakeid.siq_shard, flakeid.kuid_node, flakeid.snowflake_worker and flakeid.snowflake_process, those its generators use) to values no other server uses (flakeid.kuid_node as name@host), and see each of them in SELECT * FROM flakeid_identities() once the server is restarted. Then, for a second server, a move or a restore alike, set flakeid.take_over_from = '%llu:%llu' and restart the server (the generators then resume 62 s ahead of the clock and back-fill before that is refused, docs/OPERATIONS.md, \"Starting afresh\"); kuid stays refused here: use kuid96."

/*
 * What the witness says of this data directory (state_witness_place), with
 * the two inodes for a message.  Never asked during recovery (NONE): a
 * standby is a copy by construction, and what it may generate is
 * flakeid.generate_on_standby's to say.
 */
static WitnessPlace
witness_place(bool recovering, unsigned long long *recorded, unsigned long long *found, uint32 *conflicts)
{
	WitnessPlace place;

	*conflicts = 0;
	if (recovering)
		return WITNESS_PLACE_NONE;
	flakeid_lock_acquire();
	place = state_witness_place(recorded, found, conflicts, ERROR);
	flakeid_lock_release();
	return place;
}

/*
 * A copy of the data directory started beside its original shares its
 * system identifier and timeline (every derived identity), its
 * configuration files (every identity set there) and, for kuid, the lack of
 * any: it would issue the original's IDs.  Nothing it can read tells a
 * setting its operator made for it from one it inherited (a value compared
 * with the original's last one misses an edit made before the copy, and a
 * copy of a copy), so every generator but flax (random) is refused in a
 * copy until an operator says what it is: the witness removed (a move, or a
 * second server whose identities were set apart first), after which this
 * data directory's own witness is written, or flakeid.take_over_from.
 */
static void
refuse_in_copy(const GeneratorDef *def, uint32 promoted_bit, bool recovering)
{
	/*
	 * (kuid_new and kuid96_new share GEN_KUID's counter, so its definition
	 * names them both "kuid": kuid_new is asked as PROMOTED_PLAIN_KUID first,
	 * and any other call under GEN_KUID here is kuid96's)
	 */
	const char *generator = promoted_bit == PROMOTED_PLAIN_KUID ? "kuid" :
		def->id == GEN_KUID ? "kuid96" : def->name;
	unsigned long long recorded = 0,
				found = 0;
	uint32		conflicts;
	WitnessPlace place = witness_place(recovering, &recorded, &found, &conflicts);

	/*
	 * A witness that cannot be read as this cluster's names no place: this
	 * data directory cannot be told from a copy, nor a copy made of it from
	 * it.  Refused until an operator, having checked, removes it (the
	 * renewer or the next save writes it again for this data directory);
	 * read as absent, a copy of a data directory whose witness was emptied
	 * issued the original's IDs.
	 */
	if (place == WITNESS_PLACE_UNKNOWN)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cannot generate %s IDs: \"%s\" cannot be read as this cluster's", generator, STATE_WITNESS_FILE),
				 errdetail("It is unreadable, empty, not flakeid's text, or another cluster's (the server log says which, when it could not be read). It records the data directory flakeid issued IDs in; without it a copy of this data directory, or this one if it is a copy, would not be told from its original, and beside it would issue its IDs."),
				 errhint("If this data directory may be a copy of another that still runs or may run again (or such a copy of it may run), first set this server's identities (flakeid.sno_partition, flakeid.siq_shard, flakeid.kuid_node, flakeid.snowflake_worker and flakeid.snowflake_process) to values no other server uses; kuid, which carries no identity, would then issue the other's IDs again: use kuid96 rather than kuid. Do the same on a server promoted from a standby: its record of the server it was promoted from goes with the file. Then remove %s once; flakeid writes it again for this data directory.",
						 STATE_WITNESS_FILE)));
	/*
	 * A copy flakeid.take_over_from names, whose takeover waits for the
	 * clock: its own refusal, never the copy's hint, whose other way (the
	 * witness removed, for a move) would issue again what the original
	 * issued ahead of the clock after the copy was made (1.5's seventh
	 * reviewer: 2,000 of 2,000 snowflakes, the hint followed)
	 */
	if (place == WITNESS_PLACE_COPY && mark_take_over_waits_until() != 0)
	{
		char		until[MAXDATELEN + 1];

		strlcpy(until, timestamptz_to_str(flakeid_timestamptz_from_unix_us(mark_take_over_waits_until())), sizeof(until));
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot generate %s IDs yet: flakeid.take_over_from waits until the clock has passed %s to take this copy over", generator, until),
				 errdetail("This copy's generators were issuing ahead of the clock when it was made: its original went on past their marks, where nothing waits for the clock, and this copy would issue those IDs again."),
				 errhint("Leave flakeid.take_over_from as it is, and restart the server once the clock has passed %s and, after it, as long again as the original ran after the copy was made. Do not remove %s: a copy that may be older than its original's last IDs is taken over only so.",
						 until, STATE_WITNESS_FILE)));
	}
	if (place == WITNESS_PLACE_COPY)
	{
		bool		of_promoted = state_witness_holds_upstream();

		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot generate %s IDs in a copy of another data directory", generator),
				 errdetail("%s was written on this timeline in a data directory whose copy this is (its inode was %llu, here it is %llu): beside it, with its identities (derived from the same system identifier, or set in the configuration that came with the copy), this server would issue its IDs.",
						   STATE_WITNESS_FILE, recorded, found),
				 of_promoted ? errhint(COPY_OF_PROMOTED_HINT, STATE_WITNESS_FILE, recorded, found) :
				 errhint(COPY_HINT, STATE_WITNESS_FILE, STATE_WITNESS_FILE, recorded, found)));
	}

	/* a promoted server whose identities are still its upstream's (state_witness_place) */
	if (conflicts & promoted_bit)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 /*
				  * (kuid has no identity: "its identities are those of
				  * the server it was promoted from" stayed untrue once
				  * they were set apart, 1.5's twenty-second auditor)
				  */
				 promoted_bit == PROMOTED_PLAIN_KUID ?
				 errmsg("cannot generate kuid IDs on this promoted server: kuid carries no identity to tell them from those of the server it was promoted from") :
				 errmsg("cannot generate %s IDs on this promoted server: its identities are those of the server it was promoted from",
						generator),
				 errdetail("%s", promoted_bit == PROMOTED_PLAIN_KUID ?
						   "kuid IDs carry no identity: beside the server it was promoted from, if that still runs, this server would issue its IDs from the marks both share." :
						   "They came with the configuration its base backup copied: beside the server it was promoted from, if that still runs, this server would issue its IDs from the marks both share."),
				 /*
				  * (kuid has no identity to set apart: on a clone it stays
				  * refused, and the hint says so rather than offer the
				  * failover branch as its only way on, which repeated every
				  * kuid beside the original: 1.5's seventeenth auditor)
				  */
				 errhint("%s", promoted_bit == PROMOTED_PLAIN_KUID ?
						 "If the server it was promoted from is gone for good (a failover), set flakeid.promotion_keeps_identities = on and reload the configuration, then reset it once this server generates. If it still runs or may run again (a clone, a restore, a drill), kuid stays refused here whatever the identities: generate kuid96, which carries flakeid.kuid_node, once that is set to a value no other server uses and the server restarted (docs/OPERATIONS.md, \"A promoted standby\")." :
						 "If the server it was promoted from is gone for good (a failover), set flakeid.promotion_keeps_identities = on and reload the configuration, then reset it once this server generates (a base backup of it would carry it); set it beforehand on standbys meant for failover. If it still runs or may run again (a clone, a restore, a drill), set this server's identities to values no other server uses and restart the server (docs/OPERATIONS.md, \"A promoted standby\").")));
}

/*
 * Before a backend's first ID of a generator, live or back-filled: refused
 * in a copy of the data directory (refuse_in_copy), once per
 * backend and generator.  Not at a horizon or an advance, which issue
 * nothing.
 */
void
generator_refuse_in_copy(const GeneratorDef *def)
{
	static bool checked[GEN_COUNT];

	bool		recovering;

	if (likely(checked[def->id]))
		return;
	/* (read once: a promotion between two reads marked a standby's backend checked unasked) */
	recovering = RecoveryInProgress();
	refuse_in_copy(def, 1u << def->id, recovering);
	/* (not during recovery, where nothing is asked: a generating standby is asked again once promoted) */
	checked[def->id] = !recovering;
}

void
generator_refuse_plain_kuid_promoted(void)
{
	static bool checked = false;
	bool		recovering;

	if (likely(checked))
		return;
	shmem_require("kuid");		/* (before generator_prepare asks: the witness is read under flakeid_lock) */
	recovering = RecoveryInProgress();
	refuse_in_copy(&generator_defs[GEN_KUID], PROMOTED_PLAIN_KUID, recovering);
	checked = !recovering;
}

GeneratedId
flakeid_generate(GeneratorId gen, int variant)
{
	const GeneratorDef *def = &generator_defs[gen];
	int			slot = def->first_slot + variant;
	CounterPool pool;
	uint64		word;

	Assert(variant >= 0 && variant < def->variants);
	pool = generator_prepare(def, variant);
	generator_refuse_in_copy(def);
	horizon_note_issue(slot);
	word = issue_next(def, slot, &pool);
	return (GeneratedId) {counter_unit(word), counter_seq(word), counter_flag(word)};
}
