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

#include "generator/durable_file.h"
#include "generator/state_witness.h"

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

	if (witness_seen)
		return true;
	if (stat(STATE_WITNESS_FILE, &st) == 0)
		return witness_seen = true;
	line = witness_line(GetSystemIdentifier());
	if (!durable_file_write(STATE_WITNESS_FILE, line, strlen(line), elevel))
		return false;
	return witness_seen = true;
}
