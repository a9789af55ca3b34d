/*
 * call_loop.c — a benchmark's instrument, not part of flakeid: calls one
 * SQL function N times from C and returns the nanoseconds of each call.
 *
 * Timed in SQL (count(f()) over generate_series), a generator's 30 ns sit
 * on a scan of 70 ns per row whose swings on this VM's shared cores are as
 * large as the difference an A/B has to find.  Here the only other cost is
 * the loop and a memory context reset every 1,024 calls (the results are
 * palloc'd), the same for every function and every build.
 */
#include "postgres.h"

#include <time.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/memutils.h"

PG_MODULE_MAGIC;

static double
now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * ns per call of fn() or fn(arg), on `clock`.  fn's argument, if any, must
 * be of arg's type; a strict fn is never given a null.
 */
static double
call_loop(FunctionCallInfo fcinfo, clockid_t clock)
{
	Oid			fn = PG_GETARG_OID(0);
	int64		calls = PG_GETARG_INT64(1);
	bool		with_arg = PG_NARGS() > 2;
	Datum		arg = with_arg ? PG_GETARG_DATUM(2) : (Datum) 0;
	FmgrInfo	flinfo;
	MemoryContext results,
				old;
	double		start,
				elapsed;

	if (calls <= 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("calls must be positive")));
	if (with_arg && PG_ARGISNULL(2))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("arg must not be null")));
	fmgr_info(fn, &flinfo);
	if (flinfo.fn_nargs != (with_arg ? 1 : 0))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("the function takes %d arguments, %d given", flinfo.fn_nargs, with_arg ? 1 : 0)));
	results = AllocSetContextCreate(CurrentMemoryContext, "bench_call_loop", ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(results);
	start = now_ns(clock);
	for (int64 i = 0; i < calls; i++)
	{
		if (with_arg)
			(void) FunctionCall1(&flinfo, arg);
		else
			(void) FunctionCall0Coll(&flinfo, InvalidOid);
		if ((i & 1023) == 1023)
		{
			MemoryContextReset(results);
			CHECK_FOR_INTERRUPTS();
		}
	}
	elapsed = now_ns(clock) - start;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(results);
	return elapsed / calls;
}

/* bench_call_loop(fn regprocedure, calls bigint [, arg anyelement]): wall-clock ns per call */
PG_FUNCTION_INFO_V1(bench_call_loop);
Datum
bench_call_loop(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(call_loop(fcinfo, CLOCK_MONOTONIC));
}

/*
 * bench_call_loop_cpu(...): the backend's CPU ns per call.  A call that
 * sleeps (sno's pool used up: it waits for the next 4 ms unit) costs its
 * CPU time only, so this is what the code costs where the wall clock
 * measures the pool's cap; and the time the VM's neighbours hold the core
 * is not counted where the kernel accounts it as stolen.
 */
PG_FUNCTION_INFO_V1(bench_call_loop_cpu);
Datum
bench_call_loop_cpu(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(call_loop(fcinfo, CLOCK_PROCESS_CPUTIME_ID));
}
