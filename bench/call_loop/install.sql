-- bench/call_loop's SQL: ns per call of fn() or fn(arg), called `calls` times from C
CREATE FUNCTION bench_call_loop(fn regprocedure, calls bigint) RETURNS float8
	AS '$libdir/flakeid_bench_call_loop', 'bench_call_loop' LANGUAGE C STRICT VOLATILE;
CREATE FUNCTION bench_call_loop(fn regprocedure, calls bigint, arg anyelement) RETURNS float8
	AS '$libdir/flakeid_bench_call_loop', 'bench_call_loop' LANGUAGE C STRICT VOLATILE;
CREATE FUNCTION bench_call_loop_cpu(fn regprocedure, calls bigint) RETURNS float8
	AS '$libdir/flakeid_bench_call_loop', 'bench_call_loop_cpu' LANGUAGE C STRICT VOLATILE;
CREATE FUNCTION bench_call_loop_cpu(fn regprocedure, calls bigint, arg anyelement) RETURNS float8
	AS '$libdir/flakeid_bench_call_loop', 'bench_call_loop_cpu' LANGUAGE C STRICT VOLATILE;
