/*
 * durable_file.c — flakeid's files written whole and durably, and read
 * whole (durable_file.h)
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>

#include "storage/fd.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "base/clock.h"
#include "durable/durable_file.h"

/* the directory of `path`, for its fsync after the rename */
static char *
directory_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash == NULL ? pstrdup(".") : pnstrdup(path, slash - path);
}

/*
 * pg_fsync under the DataFileSync wait event, as core's own file syncs are
 * shown, so that pg_stat_activity tells a call in flakeid's fsync (which
 * no cancel ends: the cancel is served once it returns) from one that
 * waits.  errno as pg_fsync left it.
 */
static bool
synced(int fd)
{
	int			rc;

	pgstat_report_wait_start(WAIT_EVENT_DATA_FILE_SYNC);
	rc = pg_fsync(fd);
	pgstat_report_wait_end();
	return rc == 0;
}

bool
durable_file_remove_temp(const char *path, int elevel)
{
	char	   *temp = psprintf("%s.tmp", path);

	if (unlink(temp) == 0 || errno == ENOENT)
		return true;
	ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not remove file \"%s\": %m", temp)));
	return false;
}

bool
durable_file_write(const char *path, const void *bytes, size_t size, int elevel)
{
	/*
	 * A temporary file left by an earlier write (a crash between its
	 * creation and its rename, or an operator's copy) is removed first,
	 * as PostgreSQL's own writers do (replorigin_checkpoint.tmp): opened
	 * with O_TRUNC, one left read-only failed every save, the clean stop's
	 * too, and the next start refused the server's own latest state as an
	 * older copy (1.4's audit).
	 */
	if (!durable_file_remove_temp(path, elevel))
		return false;
	return durable_file_write_through_temp(path, bytes, size, elevel);
}

bool
durable_file_write_through_temp(const char *path, const void *bytes, size_t size, int elevel)
{
	char	   *temp = psprintf("%s.tmp", path);
	int			fd;

	/*
	 * Failures are I/O errors naming the file, whatever errno says (a
	 * read-only file is EACCES, which errcode_for_file_access would call a
	 * privilege error).
	 */
	fd = OpenTransientFile(temp, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not create file \"%s\": %m", temp)));
		return false;
	}
	errno = 0;
	pgstat_report_wait_start(WAIT_EVENT_DATA_FILE_WRITE);
	if (write(fd, bytes, size) != (ssize_t) size)
	{
		pgstat_report_wait_end();
		if (errno == 0)
			errno = ENOSPC;
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not write file \"%s\": %m", temp)));
		CloseTransientFile(fd);
		return false;
	}
	pgstat_report_wait_end();
	debug_pause(DEBUG_PAUSE_SAVE_WRITTEN);
	if (!synced(fd))
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not fsync file \"%s\": %m", temp)));
		CloseTransientFile(fd);
		return false;
	}
	if (CloseTransientFile(fd) != 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not close file \"%s\": %m", temp)));
		return false;
	}
	debug_pause(DEBUG_PAUSE_SAVE_SYNCED);
	if (rename(temp, path) != 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not rename file \"%s\" to \"%s\": %m", temp, path)));
		return false;
	}
	debug_pause(DEBUG_PAUSE_SAVE_RENAMED);
	/* the rename itself, as durable_rename makes it durable (at `elevel`, never escalated) */
	return fsync_fname_ext(directory_of(path), true, false, elevel) == 0;
}

/*
 * O_NONBLOCK, and only a regular file kept open: a FIFO in a file's place
 * (or named as a set-aside copy, which a start afresh reads, or as the
 * witness) held the postmaster in open() for good (1.5's reviewers), as
 * mask_keys.c's open guards against for the key file.  -1 with errno set
 * otherwise: EISDIR for a directory, EINVAL for any other kind of file.
 */
int
durable_file_open_regular(const char *path, struct stat *st)
{
	int			fd = open(path, O_RDONLY | PG_BINARY | O_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0)
	{
		int			why = errno;

		close(fd);
		errno = why;
		return -1;
	}
	if (!S_ISREG(st->st_mode))
	{
		close(fd);
		errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	return fd;
}

DurableRead
durable_file_read(const char *path, uint8 *buffer, size_t room, size_t *size)
{
	struct stat st;
	int			fd = durable_file_open_regular(path, &st);
	ssize_t		got;

	*size = 0;
	if (fd < 0)
	{
		if (errno == ENOENT)
			return DURABLE_READ_NONE;
		if (errno == EINVAL)
			ereport(LOG, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("file \"%s\" is not a regular file", path)));
		else
			ereport(LOG, (errcode_for_file_access(), errmsg("could not open file \"%s\": %m", path)));
		return DURABLE_READ_FAILED;
	}
	/* one byte more than the room: a file that fills it is too large */
	got = read(fd, buffer, room);
	if (got >= 0 && (size_t) got == room)
	{
		char		extra;

		if (read(fd, &extra, 1) != 0)
		{
			close(fd);
			ereport(LOG, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("file \"%s\" is larger than flakeid writes it", path)));
			return DURABLE_READ_FAILED;
		}
	}
	close(fd);
	if (got < 0)
	{
		ereport(LOG, (errcode_for_file_access(), errmsg("could not read file \"%s\": %m", path)));
		return DURABLE_READ_FAILED;
	}
	*size = (size_t) got;
	return DURABLE_READ_OK;
}

uint8 *
durable_file_read_all(const char *path, size_t limit, size_t *size)
{
	struct stat st;
	uint8	   *bytes;
	size_t		done = 0;
	int			fd = durable_file_open_regular(path, &st);

	if (fd < 0)
		return NULL;
	/* (errno says why each NULL: a caller that read ENOENT left by chance called a present file gone) */
	if ((uint64) st.st_size > limit)
	{
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	*size = (size_t) st.st_size;
	bytes = palloc_extended(Max(*size, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	if (bytes == NULL)
	{
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	/* (one read() returns at most about 2 GB on Linux, and may return less anywhere) */
	while (done < *size)
	{
		ssize_t		got = read(fd, bytes + done, *size - done);

		if (got <= 0)
		{
			if (got == 0)
				errno = EIO;	/* it ended sooner than fstat said */
			close(fd);
			pfree(bytes);
			return NULL;
		}
		done += (size_t) got;
	}
	close(fd);
	return bytes;
}

bool
durable_file_write_at(const char *path, off_t offset, const void *bytes, size_t size, int elevel)
{
	/* (O_NONBLOCK: a FIFO put in the file's place fails here rather than hold the caller) */
	int			fd = OpenTransientFile(path, O_WRONLY | PG_BINARY | O_NONBLOCK);

	if (fd < 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not open file \"%s\": %m", path)));
		return false;
	}
	errno = 0;
	pgstat_report_wait_start(WAIT_EVENT_DATA_FILE_WRITE);
	if (pg_pwrite(fd, bytes, size, offset) != (ssize_t) size)
	{
		pgstat_report_wait_end();
		if (errno == 0)
			errno = ENOSPC;
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not write file \"%s\": %m", path)));
		CloseTransientFile(fd);
		return false;
	}
	pgstat_report_wait_end();
	if (!synced(fd))
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not fsync file \"%s\": %m", path)));
		CloseTransientFile(fd);
		return false;
	}
	if (CloseTransientFile(fd) != 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not close file \"%s\": %m", path)));
		return false;
	}
	return true;
}
