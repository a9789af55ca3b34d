/*
 * horizon_file.c — "flakeid.prepared": a header (magic, slots, count, a
 * CRC-32C of the entries) and the holdings of prepared transactions
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>

#include "port/pg_crc32c.h"
#include "storage/fd.h"

#include "generator/horizon_file.h"

#define PREPARED_TEMP_FILE	"flakeid.prepared.tmp"
#define PREPARED_MAGIC		0x464C4B50	/* "FLKP" */

typedef struct PreparedFileHeader
{
	uint32		magic;
	uint32		slots;			/* GEN_SLOT_COUNT of the writer */
	uint32		count;
	uint32		crc;			/* of the entries */
} PreparedFileHeader;

static uint32
entries_crc(const PreparedHolding *entries, int count)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, entries, sizeof(PreparedHolding) * count);
	FIN_CRC32C(crc);
	return crc;
}

void
prepared_file_write(const PreparedHolding *entries, int count)
{
	PreparedFileHeader header = {PREPARED_MAGIC, GEN_SLOT_COUNT, (uint32) count, 0};
	int			fd;

	header.crc = entries_crc(entries, header.count);
	fd = OpenTransientFile(PREPARED_TEMP_FILE, O_CREAT | O_TRUNC | O_WRONLY | PG_BINARY);
	if (fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not create file \"%s\": %m", PREPARED_TEMP_FILE)));
	errno = 0;
	if (write(fd, &header, sizeof(header)) != sizeof(header) ||
		write(fd, entries, sizeof(PreparedHolding) * header.count) != (ssize_t) (sizeof(PreparedHolding) * header.count))
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not write file \"%s\": %m", PREPARED_TEMP_FILE)));
	}
	if (pg_fsync(fd) != 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not fsync file \"%s\": %m", PREPARED_TEMP_FILE)));
	CloseTransientFile(fd);
	(void) durable_rename(PREPARED_TEMP_FILE, PREPARED_FILE, ERROR);
}

bool
prepared_file_read(PreparedHolding *entries, int max, int *count)
{
	PreparedFileHeader header;
	int			fd = OpenTransientFile(PREPARED_FILE, O_RDONLY | PG_BINARY);
	bool		good;

	*count = 0;
	if (fd < 0)
		return errno == ENOENT;
	good = read(fd, &header, sizeof(header)) == sizeof(header) && header.magic == PREPARED_MAGIC &&
		header.slots == GEN_SLOT_COUNT && header.count <= (uint32) max &&
		read(fd, entries, sizeof(PreparedHolding) * header.count) == (ssize_t) (sizeof(PreparedHolding) * header.count) &&
		entries_crc(entries, header.count) == header.crc;
	CloseTransientFile(fd);
	if (!good)
	{
		ereport(LOG, (errmsg("flakeid's file \"%s\" is damaged or holds more prepared transactions than max_prepared_xacts; the horizon functions refuse until it is removed",
							 PREPARED_FILE)));
		return false;
	}
	*count = (int) header.count;
	return true;
}
