/*
 * random.c — a per-backend buffer of cryptographically secure random bytes
 *
 * OpenSSL's RAND_bytes costs about the same per call whatever the size up to
 * a few KB (~1.5 us here), so drawing 7 bytes per ID straight from it would
 * dominate flax_new().  Each backend keeps a 4 KB block and refills it when
 * used up.  Bytes are handed out once.  A forked child must not replay its
 * parent's block, so the block belongs to the pid that filled it.
 */
#include "postgres.h"

#include <openssl/rand.h>

#include "miscadmin.h"

#include "types/glue.h"

#define RANDOM_BLOCK 4096

static uint8 block[RANDOM_BLOCK];
static size_t block_used = RANDOM_BLOCK;
static int	block_owner = 0;

void
flakeid_random_bytes(void *out, size_t n)
{
	Assert(n <= RANDOM_BLOCK);
	if (unlikely(block_owner != MyProcPid || block_used + n > RANDOM_BLOCK))
	{
		if (RAND_bytes(block, RANDOM_BLOCK) != 1)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate secure random bytes")));
		block_used = 0;
		block_owner = MyProcPid;
	}
	memcpy(out, block + block_used, n);
	block_used += n;
}
