/*
 * fsync_fault.c — a fault for the state file's fsyncs, preloaded into a test
 * server (LD_PRELOAD): while the file named by FLAKEID_FAULT_SWITCH exists,
 * an fsync of a file whose path contains "flakeid.state" fails with EIO
 * (the switch holds "eio") or first sleeps that many seconds (it holds a
 * number: a storage stall).  Every other fsync is the real one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int			fsync(int fd);

/* "eio", a number of seconds, or "" when the switch is off */
static void
fault_mode(char *mode, size_t size)
{
	const char *switch_file = getenv("FLAKEID_FAULT_SWITCH");
	FILE	   *f;

	mode[0] = '\0';
	if (switch_file == NULL || (f = fopen(switch_file, "r")) == NULL)
		return;
	if (fgets(mode, (int) size, f) == NULL)
		mode[0] = '\0';
	mode[strcspn(mode, "\n")] = '\0';
	fclose(f);
}

static int
is_state_file(int fd)
{
	char		link[64],
				path[4096];
	ssize_t		n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	return strstr(path, "flakeid.state") != NULL;
}

int
fsync(int fd)
{
	static int	(*real_fsync) (int) = NULL;
	char		mode[32];

	if (real_fsync == NULL)
		real_fsync = (int (*) (int)) dlsym(RTLD_NEXT, "fsync");
	fault_mode(mode, sizeof(mode));
	if (mode[0] != '\0' && is_state_file(fd))
	{
		if (strcmp(mode, "eio") == 0)
		{
			errno = EIO;
			return -1;
		}
		sleep((unsigned) atoi(mode));
	}
	return real_fsync(fd);
}
