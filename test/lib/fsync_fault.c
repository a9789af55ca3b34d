/*
 * fsync_fault.c — faults of the file system under flakeid's state, preloaded
 * into a test server (LD_PRELOAD): while the file named by
 * FLAKEID_FAULT_SWITCH exists, an fsync of a file whose path contains
 * "flakeid.state" fails with EIO (the switch holds "eio") or first sleeps
 * that many seconds (it holds a number: a storage stall); and where it
 * holds "readdir", a listing of the process's working directory (the data
 * directory) fails with EIO, as a directory's read error would.  Every
 * other call is the real one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

int			fsync(int fd);
struct dirent *readdir(DIR *dir);

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
	if (mode[0] != '\0' && strcmp(mode, "readdir") != 0 && is_state_file(fd))
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

struct dirent *
readdir(DIR *dir)
{
	static struct dirent *(*real_readdir) (DIR *) = NULL;
	char		mode[32];
	struct stat listed,
				here;

	int			caller_errno = errno;	/* (readdir's end leaves errno as its caller set it: 0) */

	if (real_readdir == NULL)
		real_readdir = (struct dirent *(*) (DIR *)) dlsym(RTLD_NEXT, "readdir");
	fault_mode(mode, sizeof(mode));
	if (strcmp(mode, "readdir") == 0 && fstat(dirfd(dir), &listed) == 0 && stat(".", &here) == 0 &&
		listed.st_dev == here.st_dev && listed.st_ino == here.st_ino)
	{
		errno = EIO;
		return NULL;
	}
	errno = caller_errno;
	return real_readdir(dir);
}
