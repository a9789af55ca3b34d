/*
 * shmem.c — the shared memory hooks, once for every module's part
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"

#include "base/shmem.h"

#define MAX_PARTS		12
#define MAX_STARTUPS	3

static ShmemPart parts[MAX_PARTS];
static int	nparts = 0;
static void (*startups[MAX_STARTUPS]) (void);
static int	nstartups = 0;
bool		shmem_is_loaded = false;

/* PostgreSQL 15 on (its custom WAL resource managers are 15's too) */
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
request_parts(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	for (int i = 0; i < nparts; i++)
	{
		if (parts[i].size_at_request)
			parts[i].size = parts[i].size_at_request();
		RequestAddinShmemSpace(add_size(parts[i].size, PG_CACHE_LINE_SIZE));
		if (parts[i].nlocks > 0)
			RequestNamedLWLockTranche(parts[i].name, parts[i].nlocks);
	}
}

static void
startup_parts(void)
{
	bool		first = false;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	for (int i = 0; i < nparts; i++)
	{
		bool		found;
		char	   *raw = ShmemInitStruct(parts[i].name, add_size(parts[i].size, PG_CACHE_LINE_SIZE), &found);
		void	   *part = (void *) TYPEALIGN(PG_CACHE_LINE_SIZE, raw);

		if (!found)
		{
			memset(part, 0, parts[i].size);
			if (parts[i].init)
				parts[i].init(part);
			first = true;
		}
		*parts[i].address = part;
		if (parts[i].nlocks > 0)
			*parts[i].locks = GetNamedLWLockTranche(parts[i].name);
	}
	if (first)
		for (int i = 0; i < nstartups; i++)
			startups[i] ();
	shmem_is_loaded = true;
	LWLockRelease(AddinShmemInitLock);
}

static void
install_hooks(void)
{
	static bool installed = false;

	if (installed)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = request_parts;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = startup_parts;
	installed = true;
}

void
shmem_request_part(const ShmemPart *part)
{
	if (nparts >= MAX_PARTS)
		elog(ERROR, "flakeid: too many shared memory parts");
	parts[nparts++] = *part;
	install_hooks();
}

void
shmem_at_startup(void (*startup) (void))
{
	if (nstartups >= MAX_STARTUPS)
		elog(ERROR, "flakeid: too many shared memory startups");
	startups[nstartups++] = startup;
	install_hooks();
}

void
shmem_refuse(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("%s needs flakeid's shared state, which is not loaded", what),
			 errhint(FLAKEID_PRELOAD_HINT)));
}
