#!/usr/bin/env bash
# Runs each fuzz harness for SECONDS and prints TAP: one line per harness
# with the number of inputs executed.  Usage: run.sh SECONDS FORMAT...
# Corpora persist in test/fuzz/corpus/<format> and crashing inputs land in
# test/fuzz/crashes/ (both ignored by git); the seeds are vector IDs.
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=$1
shift
n=0
failed=0
for format in "$@"; do
	n=$((n + 1))
	corpus=test/fuzz/corpus/$format
	mkdir -p "$corpus" test/fuzz/crashes
	log=$(mktemp)
	max_len=128
	[ "$format" != persisted ] || max_len=4096	# files and records, not IDs
	test/fuzz/fuzz_"$format" -max_total_time="$seconds" -max_len=$max_len -print_final_stats=1 \
		-artifact_prefix=test/fuzz/crashes/"$format"- \
		"$corpus" test/fuzz/seeds/"$format" >"$log" 2>&1
	status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ "$status" -eq 0 ] && [ -n "$runs" ]; then
		echo "ok $n - fuzz $format: $runs inputs in ${seconds} s, no crash, every accepted input round-trips"
		echo "# fuzz $format: $runs inputs in ${seconds} s"
	else
		echo "not ok $n - fuzz $format (exit $status; the input is in test/fuzz/crashes/)"
		grep -E 'ERROR|SUMMARY|==[0-9]+==|: accepted|does not|changed' "$log" | head -20 | sed 's/^/# /'
		failed=$((failed + 1))
	fi
	rm -f "$log"
done
echo "1..$n"
[ "$failed" -eq 0 ]
