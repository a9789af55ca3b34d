/*
 * durable_file.h — the one way flakeid writes its files in the data
 * directory (flakeid.state, flakeid.prepared, flakeid.deep, flakeid.issued, all
 * beside PostgreSQL's own files at the top of it, never where its tools look
 * for relation files), and
 * reads them whole
 */
#ifndef FLAKEID_DURABLE_FILE_H
#define FLAKEID_DURABLE_FILE_H

#include <sys/stat.h>

typedef enum DurableRead
{
	DURABLE_READ_OK,
	DURABLE_READ_NONE,			/* no such file (ENOENT) */
	DURABLE_READ_FAILED			/* logged: it could not be opened or read, or is larger than the room */
} DurableRead;

/*
 * Replaces `path` (relative to the data directory) with `bytes`: written
 * to "<path>.tmp" (a leftover one removed first, whatever its mode), fsynced, renamed over it, and the directory fsynced, so
 * that after a crash at any step the file is either the old one or the new
 * one, whole.  A failure is reported at `elevel` as 58030 naming the file,
 * and returns false below ERROR.  A failed fsync is never escalated to
 * PANIC as data_sync_elevel would: the rename has not happened, so the
 * file in place is the previous, durable one, and the next write is whole.
 */
extern bool durable_file_write(const char *path, const void *bytes, size_t size, int elevel);

/*
 * durable_file_write's steps after its first: "<path>.tmp" is written as it
 * is found (made where there is none, truncated where there is one), for a
 * caller that made it just before, through durable_file_remove_temp and
 * O_EXCL, to learn its inode (state_witness.c).
 */
extern bool durable_file_write_through_temp(const char *path, const void *bytes, size_t size, int elevel);

/* removes a leftover "<path>.tmp" (none is not an error); false at `elevel`, 58030, when it stays */
extern bool durable_file_remove_temp(const char *path, int elevel);

/*
 * Opens `path` to read, without blocking (a FIFO), and only a regular file:
 * the descriptor and *st, or -1 with errno (EISDIR, EINVAL for another kind
 * of file).  Never raises.
 */
extern int	durable_file_open_regular(const char *path, struct stat *st);

/* reads `path` whole into `buffer` (at most `room` bytes); never raises */
extern DurableRead durable_file_read(const char *path, uint8 *buffer, size_t room, size_t *size);

/*
 * reads `path` whole into a palloc'd buffer; NULL with errno set when it
 * cannot be read (ENOENT: there is none; EFBIG: it is larger than `limit`
 * bytes; ENOMEM; EIO: shorter than its size said); never raises
 */
extern uint8 *durable_file_read_all(const char *path, size_t limit, size_t *size);

/*
 * Writes `bytes` at `offset` of the existing `path` (never O_APPEND: a
 * failed write leaves bytes the next write at that offset overwrites) and
 * fsyncs it.  A failure is reported at `elevel` as 58030 and returns false
 * below ERROR; a failed fsync is not retried.
 */
extern bool durable_file_write_at(const char *path, off_t offset, const void *bytes, size_t size, int elevel);

#endif
