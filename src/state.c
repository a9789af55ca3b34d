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
 *   version 2: magic, version, body length, reserved; the body (the mark
 *              of the monotonic generators, sno's mark and other bound,
 *              the snowflake epoch, sno's tick-tock); CRC-32.  A later
 *              version appends fields to the body, so its reader can
 *              tell a shorter, older body by its length.
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include "storage/fd.h"

#include "generator.h"

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

/* the body of version 2; later versions append to it */
typedef struct StateBodyV2
{
	int64		mark_unix_us;
	int64		sno_mark_unix_us;
	int64		sno_other_bound_unix_us;
	int64		snowflake_epoch_ms;
	uint32		sno_ticktock;
	uint32		padding;
} StateBodyV2;

static uint32
crc_of(const void *data, size_t length)
{
	return (uint32) crc32(0L, (const Bytef *) data, (uInt) length);
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
	state->mark_unix_us = image.mark_unix_us;
	state->sno_mark_unix_us = image.mark_unix_us;	/* 1.0 had one mark for every generator */
	state->sno_other_bound_unix_us = image.sno_other_bound_unix_us;
	state->sno_ticktock = image.sno_ticktock;
	state->snowflake_epoch_ms = -1; /* 1.0 did not keep it */
	return true;
}

static bool
read_v2(const uint8 *file, size_t size, FlakeidPersisted *state)
{
	StateHeader header;
	StateBodyV2 body;
	uint32		crc;

	memcpy(&header, file, sizeof(header));
	if (header.body_length != sizeof(body) || size != sizeof(header) + sizeof(body) + sizeof(crc))
		return false;
	memcpy(&body, file + sizeof(header), sizeof(body));
	memcpy(&crc, file + sizeof(header) + sizeof(body), sizeof(crc));
	if (crc != crc_of(file, sizeof(header) + sizeof(body)))
		return false;
	state->mark_unix_us = body.mark_unix_us;
	state->sno_mark_unix_us = body.sno_mark_unix_us;
	state->sno_other_bound_unix_us = body.sno_other_bound_unix_us;
	state->sno_ticktock = body.sno_ticktock;
	state->snowflake_epoch_ms = body.snowflake_epoch_ms;
	return true;
}

/* one reader per version, indexed by it: each migrates its version to the current fields */
static bool (*const readers[STATE_VERSION + 1]) (const uint8 *file, size_t size, FlakeidPersisted *state) = {
	[1] = read_v1,
	[2] = read_v2,
};

void
state_set_empty(FlakeidPersisted *state)
{
	memset(state, 0, sizeof(*state));	/* padding included: the state also goes into the WAL */
	state->snowflake_epoch_ms = -1;
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
			return STATE_LOAD_NONE;
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
	uint8		image[sizeof(StateHeader) + sizeof(StateBodyV2) + sizeof(uint32)];
	StateHeader header = {STATE_MAGIC, STATE_VERSION, sizeof(StateBodyV2), 0};
	StateBodyV2 body = {0};
	uint32		crc;
	int			fd;

	body.mark_unix_us = state->mark_unix_us;
	body.sno_mark_unix_us = state->sno_mark_unix_us;
	body.sno_other_bound_unix_us = state->sno_other_bound_unix_us;
	body.sno_ticktock = state->sno_ticktock;
	body.snowflake_epoch_ms = state->snowflake_epoch_ms;
	memcpy(image, &header, sizeof(header));
	memcpy(image + sizeof(header), &body, sizeof(body));
	crc = crc_of(image, sizeof(header) + sizeof(body));
	memcpy(image + sizeof(header) + sizeof(body), &crc, sizeof(crc));

	fd = OpenTransientFile(STATE_TEMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
	{
		ereport(elevel, (errcode_for_file_access(), errmsg("could not create file \"%s\": %m", STATE_TEMP_FILE)));
		return false;
	}
	errno = 0;
	if (write(fd, image, sizeof(image)) != (ssize_t) sizeof(image))
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(elevel, (errcode_for_file_access(), errmsg("could not write file \"%s\": %m", STATE_TEMP_FILE)));
		CloseTransientFile(fd);
		return false;
	}
	if (pg_fsync(fd) != 0)
	{
		ereport(data_sync_elevel(elevel),
				(errcode_for_file_access(), errmsg("could not fsync file \"%s\": %m", STATE_TEMP_FILE)));
		CloseTransientFile(fd);
		return false;
	}
	if (CloseTransientFile(fd) != 0)
	{
		ereport(elevel, (errcode_for_file_access(), errmsg("could not close file \"%s\": %m", STATE_TEMP_FILE)));
		return false;
	}
	return durable_rename(STATE_TEMP_FILE, STATE_FILE, elevel) == 0;
}
