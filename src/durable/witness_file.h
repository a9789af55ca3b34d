/*
 * witness_file.h — the bytes of flakeid.issued, read and written
 * (witness_file.c); what they mean and when they are written is
 * state_witness.c's.  Only durable/ includes this.
 */
#ifndef FLAKEID_WITNESS_FILE_H
#define FLAKEID_WITNESS_FILE_H

#include "access/xlogdefs.h"

#include "base/identity.h"
#include "durable/state_witness.h"

/* the witness as read (all false where absent; `readable` false where it could not be read) */
typedef struct Witness
{
	bool		present;		/* the file exists */
	bool		readable;		/* it could be read */
	bool		ours;			/* of flakeid, with this cluster's system identifier */
	bool		foreign;		/* of flakeid, with another cluster's */
	bool		ready;			/* of flakeid, ours, written before any save (WITNESS_READY_TEXT) */
	bool		placed;			/* with a place line */
	TimeLineID	timeline;
	unsigned long long inode;	/* recorded */
	unsigned long long file_inode;	/* the file's own */
	bool		identified;		/* with an identities line (from 1.5) */
	int64		identities[IDENTITY_COUNT]; /* identity_effective() of its writer, outside recovery */
	WitnessUpstream upstream;	/* a promoted server's record of its upstream's, until resolved */
} Witness;

/* reads the witness (1.4's place in global/ while it was not moved yet); never errors */
extern void witness_read(Witness *w);
/* neither this release's witness nor 1.4's is there (lstat) */
extern bool witness_absent(void);
/* the timeline this server writes on, or replays during recovery */
extern TimeLineID witness_timeline(void);

/*
 * Writes the witness durably ("issued" or "no ID yet"), with a place on
 * `timeline` (none where !placed): `place` the inode it names, 0 for this
 * data directory's; the identities line from this server outside recovery,
 * else `prior`'s; `upstream`'s lines as given.  False (after a report at
 * elevel) where it could not be written.
 */
extern bool witness_write_as(bool issued, bool placed, TimeLineID timeline, unsigned long long place,
							 const Witness *prior, const WitnessUpstream *upstream, int elevel);
/* witness_write_as, placed on the current timeline, naming this data directory */
extern bool witness_write(bool issued, const Witness *prior, const WitnessUpstream *upstream, int elevel);
/* `w` rewritten to say IDs were issued, keeping an earlier timeline's place (witness_file.c) */
extern bool witness_rewrite_issued(const Witness *w, int elevel);

#endif							/* FLAKEID_WITNESS_FILE_H */
