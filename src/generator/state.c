/*
 * state.c — the file that carries the generators' state across restarts:
 * "flakeid.state" in the data directory, replaced atomically (write, fsync,
 * durable rename)
 *
 * The file is versioned.  Every version this code knows has a reader that
 * turns it into the current FlakeidPersisted (a migration); a file of an
 * older version is read and then rewritten in the current one.  A file of a
 * newer version is refused, naming both versions: its fields may say more
 * than this code understands, and guessing could repeat IDs.
 *
 *   version 1 (flakeid 1.0): magic, version, the mark (of every
 *              generator), sno's other bound and tick-tock, CRC-32, padded
 *   version 2 (flakeid 1.1): magic, version, body length, reserved; the
 *              body (the mark of the monotonic generators, sno's mark and
 *              other bound, the snowflake epoch, sno's tick-tock); CRC-32
 *   version 3: the same header; the body holds the cluster's system
 *              identifier, the snowflake epoch, and two sets of bounds
 *              (IssuedBounds: the three marks, sno's tick-tock, the
 *              back-fill low-water of each counter slot), this server's
 *              own and its primary's as replayed from the WAL; CRC-32.
 *   version 4 (flakeid 1.3): version 3's body, then the deep units of
 *              back-fill (DeepUnits) of this server's own bounds and of
 *              its primary's; CRC-32.
 *
 * A file whose system identifier is not this cluster's was copied from
 * another one: its marks say nothing about this cluster's IDs, so it is
 * refused like a damaged file.
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include "access/xlog.h"
#include "storage/fd.h"

#include "generator/state.h"
#include "generator/state_witness.h"

#define STATE_FILE		"flakeid.state"
#define STATE_TEMP_FILE	"flakeid.state.tmp"
#define STATE_MAGIC		0x464C4B31	/* "FLK1" */
#define STATE_MAX_SIZE	4096

/* the file as flakeid 1.0 wrote it (x86-64 and other LP64 layouts) */
typedef struct StateImageV1
{
	uint32		magic;
	uint32		version;
	int64		mark_unix_us;
	int64		sno_other_bound_unix_us;
	uint32		sno_ticktock;
	uint32		padding;
	uint32		crc;			/* of everything before it */
} StateImageV1;

typedef struct StateHeader
{
	uint32		magic;
	uint32		version;
	uint32		body_length;
	uint32		reserved;
} StateHeader;


typedef struct StateBodyV3
{
	uint64		system_identifier;
	int64		snowflake_epoch_ms;
	IssuedBoundsImage own;
	IssuedBoundsImage upstream;
} StateBodyV3;

typedef struct StateBodyV4
{
	StateBodyV3 v3;
	DeepUnits	own_deep;
	DeepUnits	upstream_deep;
} StateBodyV4;

static uint32
crc_of(const void *data, size_t length)
{
	return (uint32) crc32(0L, (const Bytef *) data, (uInt) length);
}

/* versions 1 and 2 kept sno's marks as the one of the tick-tock in use and the other's bound */
static void
bounds_set_sno_marks(IssuedBounds *bounds, int64 monotonic, int64 sno_in_use, int64 sno_other, uint32 ticktock)
{
	bool		flag = (ticktock & 1) != 0;

	bounds->marks[MARK_MONOTONIC] = monotonic;
	bounds->marks[flag ? MARK_SNO_FLAG1 : MARK_SNO_FLAG0] = sno_in_use;
	bounds->marks[flag ? MARK_SNO_FLAG0 : MARK_SNO_FLAG1] = sno_other;
	bounds->sno_ticktock = flag ? 1 : 0;
}

void
bounds_from_state11(IssuedBounds *bounds, int64 *snowflake_epoch_ms, const FlakeidState11 *state)
{
	bounds_set_sno_marks(bounds, state->mark_unix_us, state->sno_mark_unix_us, state->sno_other_bound_unix_us,
						 state->sno_ticktock);
	*snowflake_epoch_ms = state->snowflake_epoch_ms;
}

static bool
read_v1(const uint8 *file, size_t size, FlakeidPersisted *state)
{
	StateImageV1 image;

	if (size != sizeof(image))
		return false;
	memcpy(&image, file, sizeof(image));
	if (image.crc != crc_of(&image, offsetof(StateImageV1, crc)))
		return false;
	/* 1.0 had one mark for every generator */
	bounds_set_sno_marks(&state->own, image.mark_unix_us, image.mark_unix_us, image.sno_other_bound_unix_us,
				  image.sno_ticktock);
	state->snowflake_epoch_ms = -1; /* 1.0 did not keep it */
	return true;
}

/* the body of a file of version 2 on (header, body, CRC-32), when its length and checksum match */
static bool
read_body(const uint8 *file, size_t size, void *body, size_t body_length)
{
	StateHeader header;
	uint32		crc;

	memcpy(&header, file, sizeof(header));
	if (header.body_length != body_length || size != sizeof(header) + body_length + sizeof(crc))
		return false;
	memcpy(body, file + sizeof(header), body_length);
	memcpy(&crc, file + sizeof(header) + body_length, sizeof(crc));
	return crc == crc_of(file, sizeof(header) + body_length);
}

static bool
read_v2(const uint8 *file, size_t size, FlakeidPersisted *state)
{
	FlakeidState11 body;

	if (!read_body(file, size, &body, sizeof(body)))
		return false;
	bounds_from_state11(&state->own, &state->snowflake_epoch_ms, &body);
	return true;
}

void
bounds_from_image(IssuedBounds *bounds, const IssuedBoundsImage *image)
{
	memcpy(bounds->marks, image->marks, sizeof(bounds->marks));
	bounds->sno_ticktock = image->sno_ticktock & 1;
	memcpy(bounds->backfill_low, image->backfill_low, sizeof(bounds->backfill_low));
}

void
bounds_to_image(IssuedBoundsImage *image, const IssuedBounds *bounds)
{
	memset(image, 0, sizeof(*image));
	memcpy(image->marks, bounds->marks, sizeof(image->marks));
	image->sno_ticktock = bounds->sno_ticktock;
	memcpy(image->backfill_low, bounds->backfill_low, sizeof(image->backfill_low));
}

static void
from_body_v3(FlakeidPersisted *state, const StateBodyV3 *body)
{
	state->system_identifier = body->system_identifier;
	state->snowflake_epoch_ms = body->snowflake_epoch_ms;
	bounds_from_image(&state->own, &body->own);
	bounds_from_image(&state->upstream, &body->upstream);
}

/* 1.2 kept no deep units: its back-fill low-waters hold every unit */
static bool
read_v3(const uint8 *file, size_t size, FlakeidPersisted *state)
{
	StateBodyV3 body;

	if (!read_body(file, size, &body, sizeof(body)))
		return false;
	from_body_v3(state, &body);
	return true;
}

static bool
read_v4(const uint8 *file, size_t size, FlakeidPersisted *state)
{
	StateBodyV4 body;

	if (!read_body(file, size, &body, sizeof(body))
		|| !deep_units_valid(&body.own_deep, GEN_SLOT_COUNT) || !deep_units_valid(&body.upstream_deep, GEN_SLOT_COUNT))
		return false;
	from_body_v3(state, &body.v3);
	state->own.backfill_deep = body.own_deep;
	state->upstream.backfill_deep = body.upstream_deep;
	return true;
}

/* one reader per version, indexed by it: each migrates its version to the current fields */
static bool (*const readers[STATE_VERSION + 1]) (const uint8 *file, size_t size, FlakeidPersisted *state) = {
	[1] = read_v1,
	[2] = read_v2,
	[3] = read_v3,
	[4] = read_v4,
};

void
bounds_set_empty(IssuedBounds *bounds)
{
	memset(bounds, 0, sizeof(*bounds));
	for (int s = 0; s < GEN_SLOT_COUNT; s++)
		bounds->backfill_low[s] = BACKFILL_LOW_NONE;
	deep_units_clear(&bounds->backfill_deep);
}

void
state_set_empty(FlakeidPersisted *state)
{
	memset(state, 0, sizeof(*state));
	state->snowflake_epoch_ms = -1;
	bounds_set_empty(&state->own);
	bounds_set_empty(&state->upstream);
}

/*
 * Reads the file at server start into *state (all zero, the epoch -1,
 * unless loaded) and
 * sets *file_version (0 without a file).  Logs why a file cannot be used.
 * Never raises an error: it runs in the postmaster.
 */
StateLoad
state_load(FlakeidPersisted *state, uint32 *file_version)
{
	uint8		file[STATE_MAX_SIZE];
	StateHeader header;
	int			fd = open(STATE_FILE, O_RDONLY | PG_BINARY, 0);
	ssize_t		size;

	state_set_empty(state);
	*file_version = 0;
	if (fd < 0)
	{
		if (errno == ENOENT)
			return state_witness_says_issued() ? STATE_LOAD_MISSING : STATE_LOAD_NONE;
		ereport(LOG, (errcode_for_file_access(), errmsg("could not open file \"%s\": %m", STATE_FILE)));
		return STATE_LOAD_DAMAGED;
	}
	size = read(fd, file, sizeof(file));
	close(fd);
	if (size >= (ssize_t) offsetof(StateHeader, body_length))
		memcpy(&header, file, offsetof(StateHeader, body_length));
	if (size < (ssize_t) offsetof(StateHeader, body_length) || header.magic != STATE_MAGIC || header.version == 0)
	{
		ereport(LOG,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the generator state file \"%s\" is damaged", STATE_FILE),
				 errdetail("It does not begin with the state file's magic number and a version.")));
		return STATE_LOAD_DAMAGED;
	}
	*file_version = header.version;
	if (header.version > STATE_VERSION)
	{
		ereport(LOG,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the generator state file \"%s\" was written by a newer version of flakeid", STATE_FILE),
				 errdetail("The file has state version %u; this version of flakeid reads versions 1 to %u. Generation is refused.",
						   header.version, STATE_VERSION)));
		return STATE_LOAD_TOO_NEW;
	}
	if (size == (ssize_t) sizeof(file) || !readers[header.version](file, (size_t) size, state))
	{
		state_set_empty(state);
		ereport(LOG,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the generator state file \"%s\" is damaged", STATE_FILE),
				 errdetail("Its length or checksum does not match state version %u.", header.version)));
		return STATE_LOAD_DAMAGED;
	}
	if (state->system_identifier != 0 && state->system_identifier != GetSystemIdentifier())
	{
		ereport(LOG,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the generator state file \"%s\" belongs to another cluster", STATE_FILE),
				 errdetail("It was written by the cluster with system identifier " UINT64_FORMAT "; this cluster's is " UINT64_FORMAT ". Generation is refused.",
						   state->system_identifier, GetSystemIdentifier())));
		return STATE_LOAD_FOREIGN;
	}
	return header.version == STATE_VERSION ? STATE_LOAD_CURRENT : STATE_LOAD_MIGRATED;
}

/*
 * Writes the state in the current version, durably, before returning.  A
 * failure is reported at `elevel`: with ERROR (the generators) nothing is
 * issued; below it (the postmaster at start) it returns false.
 */
bool
state_save(const FlakeidPersisted *state, int elevel)
{
	uint8		image[sizeof(StateHeader) + sizeof(StateBodyV4) + sizeof(uint32)];
	StateHeader header = {STATE_MAGIC, STATE_VERSION, sizeof(StateBodyV4), 0};
	StateBodyV4 body;
	uint32		crc;
	int			fd;

	StaticAssertStmt(sizeof(image) < STATE_MAX_SIZE, "state_load reads the whole file");
	memset(&body, 0, sizeof(body));
	body.v3.system_identifier = GetSystemIdentifier();
	body.v3.snowflake_epoch_ms = state->snowflake_epoch_ms;
	bounds_to_image(&body.v3.own, &state->own);
	bounds_to_image(&body.v3.upstream, &state->upstream);
	body.own_deep = state->own.backfill_deep;
	body.upstream_deep = state->upstream.backfill_deep;
	memcpy(image, &header, sizeof(header));
	memcpy(image + sizeof(header), &body, sizeof(body));
	crc = crc_of(image, sizeof(header) + sizeof(body));
	memcpy(image + sizeof(header) + sizeof(body), &crc, sizeof(crc));

	/*
	 * Failures are I/O errors naming the file, whatever errno says (a
	 * read-only file is EACCES, which errcode_for_file_access would call a
	 * privilege error).  A failed fsync is reported at `elevel` and never
	 * escalated to PANIC as data_sync_elevel would: the rename has not
	 * happened, so the file in place is the previous, durable one, and the
	 * next save writes the whole file anew.
	 */
	fd = OpenTransientFile(STATE_TEMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not create file \"%s\": %m", STATE_TEMP_FILE)));
		return false;
	}
	errno = 0;
	if (write(fd, image, sizeof(image)) != (ssize_t) sizeof(image))
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not write file \"%s\": %m", STATE_TEMP_FILE)));
		CloseTransientFile(fd);
		return false;
	}
	if (pg_fsync(fd) != 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not fsync file \"%s\": %m", STATE_TEMP_FILE)));
		CloseTransientFile(fd);
		return false;
	}
	if (CloseTransientFile(fd) != 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not close file \"%s\": %m", STATE_TEMP_FILE)));
		return false;
	}
	if (rename(STATE_TEMP_FILE, STATE_FILE) != 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR),
						 errmsg("could not rename file \"%s\" to \"%s\": %m", STATE_TEMP_FILE, STATE_FILE)));
		return false;
	}
	/* the rename itself, as durable_rename makes it durable (at `elevel`, never escalated) */
	return fsync_fname_ext(".", true, false, elevel) == 0 && state_witness_ensure(elevel);
}
