/*
 * clock_offset.c — a clock faked per process for the tests, preloaded into a
 * test server (LD_PRELOAD) in place of libfaketime: the wall clock
 * (CLOCK_REALTIME and CLOCK_REALTIME_COARSE, gettimeofday, time) is the
 * real one shifted by an offset in seconds ("+2", "-1.5", "+20s", "+-3" for
 * -3, "90m", "1h", "2d"):
 *   FLAKEID_CLOCK_OFFSET_FILE  a file holding the offset, read at every clock
 *                              read (replace it by a rename: every process of
 *                              the server takes the new offset at its next read)
 *   FLAKEID_CLOCK_OFFSET       a fixed offset, read once at load
 * Other clocks (CLOCK_MONOTONIC, which PostgreSQL times waits with) are real.
 *
 * Why not libfaketime: with its offset in a file re-read at every call
 * (FAKETIME_NO_CACHE), it reads it with fopen and parses it with the C
 * library, which allocate; PostgreSQL 15 reads the clock in its SIGALRM
 * handler (timeout.c), so a statement timeout that fired inside malloc
 * re-entered malloc, and the backend aborted with "malloc(): unsorted double
 * linked list corrupted" (the fault campaign's unexplained aborts;
 * test/chaos/libfaketime_repro shows it on PostgreSQL alone).  Here every clock
 * read does only what a signal handler may: open, read and close, and
 * arithmetic; the real functions are looked up at load, not at the first call.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int	(*real_clock_gettime) (clockid_t, struct timespec *);
/* (a copy: PostgreSQL overwrites the environment's memory with its process title) */
static char offset_file_buf[4096];
static const char *offset_file;
static int64_t fixed_offset_ns;

/* "+2", "-1.5", "+20s", "3m", "1h", "1d" in nanoseconds; 0 for anything else */
static int64_t
parse_offset(const char *s, size_t len)
{
	size_t		i = 0;
	int			negative = 0;
	int64_t		whole = 0,
				fraction = 0,
				scale = 1000000000;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	/* ("+-5", which "+" . a negative number spells, is -5) */
	while (i < len && (s[i] == '+' || s[i] == '-'))
		negative ^= s[i++] == '-';
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		whole = whole * 10 + (s[i] - '0');
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (scale > 1)
			{
				scale /= 10;
				fraction += (s[i] - '0') * scale;
			}
	if (i < len)
		switch (s[i])
		{
			case 'm':
				whole *= 60, fraction *= 60;
				break;
			case 'h':
				whole *= 3600, fraction *= 3600;
				break;
			case 'd':
				whole *= 86400, fraction *= 86400;
				break;
		}
	whole = whole * 1000000000 + fraction;
	return negative ? -whole : whole;
}

static int64_t
offset_ns(void)
{
	char		buf[64];
	int			fd;
	ssize_t		n;
	int			saved_errno = errno;

	if (offset_file == NULL)
		return fixed_offset_ns;
	fd = open(offset_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
	{
		errno = saved_errno;
		return 0;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	errno = saved_errno;
	return n > 0 ? parse_offset(buf, (size_t) n) : 0;
}

__attribute__((constructor))
static void
clock_offset_init(void)
{
	const char *fixed = getenv("FLAKEID_CLOCK_OFFSET");
	const char *file = getenv("FLAKEID_CLOCK_OFFSET_FILE");

	real_clock_gettime = (int (*) (clockid_t, struct timespec *)) dlsym(RTLD_NEXT, "clock_gettime");
	if (file != NULL && file[0] != '\0' && strlen(file) < sizeof(offset_file_buf))
	{
		strcpy(offset_file_buf, file);
		offset_file = offset_file_buf;
	}
	else if (fixed != NULL)
		fixed_offset_ns = parse_offset(fixed, strlen(fixed));
}

static void
shift(struct timespec *ts)
{
	int64_t		ns = (int64_t) ts->tv_sec * 1000000000 + ts->tv_nsec + offset_ns();

	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
	if (ts->tv_nsec < 0)
		ts->tv_sec--, ts->tv_nsec += 1000000000;
}

int
clock_gettime(clockid_t clock, struct timespec *ts)
{
	int			rc = real_clock_gettime(clock, ts);

	if (rc == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE))
		shift(ts);
	return rc;
}

int
gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	struct timespec ts;

	(void) tz;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return -1;
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t
time(time_t *out)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return (time_t) -1;
	if (out != NULL)
		*out = ts.tv_sec;
	return ts.tv_sec;
}
