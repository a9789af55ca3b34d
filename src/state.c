/*
 * state.c — the generators' persisted state: one small file in the data
 * directory, replaced atomically (write, fsync, durable rename)
 *
 * It holds the time mark that every issued ID is below (renewed ahead of
 * the clock by generator.c, off the per-ID path) and sno's tick-tock
 * timeline, so that a restart — clean or after a crash — resumes above
 * everything issued before it, even with the clock set back.
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include "storage/fd.h"

#include "flakeid.h"

#define STATE_FILE		"flakeid.state"
#define STATE_TEMP_FILE	"flakeid.state.tmp"
#define STATE_MAGIC		0x464C4B31	/* "FLK1" */
#define STATE_VERSION	1

typedef struct StateFileImage
{
	uint32		magic;
	uint32		version;
	FlakeidPersisted state;
	uint32		crc;			/* zlib CRC-32 of everything before it */
} StateFileImage;

static uint32
image_crc(const StateFileImage *image)
{
	return (uint32) crc32(0L, (const Bytef *) image, offsetof(StateFileImage, crc));
}

/*
 * Reads the file at server start.  A missing file is a first start (all
 * zero); an unreadable or damaged one returns false, and generation is then
 * refused rather than risking a repeat.
 */
bool
flakeid_state_load(FlakeidPersisted *state)
{
	StateFileImage image;
	int			fd = open(STATE_FILE, O_RDONLY | PG_BINARY, 0);
	ssize_t		n;

	memset(state, 0, sizeof(*state));
	if (fd < 0)
	{
		if (errno == ENOENT)
			return true;
		ereport(LOG, (errcode_for_file_access(), errmsg("flakeid: could not open \"%s\": %m", STATE_FILE)));
		return false;
	}
	n = read(fd, &image, sizeof(image));
	close(fd);
	if (n != (ssize_t) sizeof(image) || image.magic != STATE_MAGIC || image.version != STATE_VERSION ||
		image.crc != image_crc(&image))
	{
		ereport(LOG,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("flakeid: the generator state file \"%s\" is damaged", STATE_FILE)));
		return false;
	}
	*state = image.state;
	return true;
}

/* Writes the state durably before returning; any failure is an ERROR (nothing is issued then). */
void
flakeid_state_save(const FlakeidPersisted *state)
{
	StateFileImage image;
	int			fd;

	memset(&image, 0, sizeof(image));
	image.magic = STATE_MAGIC;
	image.version = STATE_VERSION;
	image.state = *state;
	image.crc = image_crc(&image);

	fd = OpenTransientFile(STATE_TEMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(), errmsg("could not create file \"%s\": %m", STATE_TEMP_FILE)));
	errno = 0;
	if (write(fd, &image, sizeof(image)) != (ssize_t) sizeof(image))
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not write file \"%s\": %m", STATE_TEMP_FILE)));
	}
	if (pg_fsync(fd) != 0)
		ereport(data_sync_elevel(ERROR),
				(errcode_for_file_access(), errmsg("could not fsync file \"%s\": %m", STATE_TEMP_FILE)));
	if (CloseTransientFile(fd) != 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not close file \"%s\": %m", STATE_TEMP_FILE)));
	(void) durable_rename(STATE_TEMP_FILE, STATE_FILE, ERROR);
}
