/*
 * state_witness.c — global/flakeid.issued: that this cluster has issued IDs
 * (state_witness.h)
 *
 * The file is one line of text, "flakeid issued IDs in the cluster with
 * system identifier N", so that an operator who finds it knows what it is.
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog.h"
#include "storage/fd.h"

#include "generator/state_witness.h"

#define WITNESS_TEMP_FILE	"global/flakeid.issued.tmp"
#define WITNESS_TEXT		"flakeid issued IDs in the cluster with system identifier "

static bool witness_seen = false;

static char *
witness_line(uint64 system_identifier)
{
	return psprintf(WITNESS_TEXT UINT64_FORMAT "\n", system_identifier);
}

bool
state_witness_says_issued(void)
{
	char		text[128];
	int			fd = open(STATE_WITNESS_FILE, O_RDONLY | PG_BINARY, 0);
	ssize_t		size;
	char	   *ours;

	if (fd < 0)
	{
		if (errno == ENOENT)
			return false;
		ereport(LOG, (errcode_for_file_access(), errmsg("could not open file \"%s\": %m", STATE_WITNESS_FILE)));
		return true;
	}
	size = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (size < 0)
	{
		ereport(LOG, (errcode_for_file_access(), errmsg("could not read file \"%s\": %m", STATE_WITNESS_FILE)));
		return true;
	}
	text[size] = '\0';
	ours = witness_line(GetSystemIdentifier());
	if (strncmp(text, WITNESS_TEXT, strlen(WITNESS_TEXT)) == 0 && strcmp(text, ours) != 0)
	{
		ereport(LOG,
				(errmsg("ignoring \"%s\": it was written by another cluster", STATE_WITNESS_FILE)));
		return false;
	}
	return true;
}

bool
state_witness_ensure(int elevel)
{
	struct stat st;
	char	   *line;
	int			fd;

	if (witness_seen)
		return true;
	if (stat(STATE_WITNESS_FILE, &st) == 0)
		return witness_seen = true;
	line = witness_line(GetSystemIdentifier());
	fd = OpenTransientFile(WITNESS_TEMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not create file \"%s\": %m", WITNESS_TEMP_FILE)));
		return false;
	}
	errno = 0;
	if (write(fd, line, strlen(line)) != (ssize_t) strlen(line) || pg_fsync(fd) != 0)
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not write file \"%s\": %m", WITNESS_TEMP_FILE)));
		CloseTransientFile(fd);
		return false;
	}
	if (CloseTransientFile(fd) != 0 || rename(WITNESS_TEMP_FILE, STATE_WITNESS_FILE) != 0)
	{
		ereport(elevel, (errcode(ERRCODE_IO_ERROR), errmsg("could not write file \"%s\": %m", STATE_WITNESS_FILE)));
		return false;
	}
	if (fsync_fname_ext("global", true, false, elevel) != 0)
		return false;
	return witness_seen = true;
}
