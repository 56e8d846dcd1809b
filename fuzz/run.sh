#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every fuzzer of a -Dfuzz=true build for SECONDS each, from the seed
# corpora in fuzz/corpus (copied: the seeds in the tree stay as they are),
# as many at once as the machine has CPUs (FUZZ_JOBS). Fails on any crash,
# leak or sanitizer report; prints executions and coverage per target.
set -u
build=$1 seconds=${2:-60}
jobs=${FUZZ_JOBS:-$(nproc)}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# run_one NAME FUZZER: its log in $work/NAME.log, its exit code in .rc
run_one() {
	mkdir -p "$work/$1"
	cp "$src/corpus/$1"/* "$work/$1/" 2>/dev/null
	"$2" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$work/$1-" "$work/$1" >"$work/$1.log" 2>&1
	echo $? >"$work/$1.rc"
}

names=()
for fz in "$build"/fuzz/fuzz-*; do
	[ -f "$fz" ] && [ -x "$fz" ] || continue
	name=${fz##*/fuzz-}
	names+=("$name")
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	run_one "$name" "$fz" &
done
wait

printf '%-22s %12s %10s %8s %s\n' target executions exec/s cov result
for name in "${names[@]}"; do
	log=$work/$name.log
	rc=$(cat "$work/$name.rc" 2>/dev/null || echo 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	result=ok
	if [ "$rc" -ne 0 ] || grep -q 'ERROR: \(AddressSanitizer\|LeakSanitizer\|libFuzzer\)\|runtime error:' "$log"; then
		result=FAIL
		fail=1
	fi
	printf '%-22s %12s %10s %8s %s\n' "fuzz-$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$result"
	if [ $result = FAIL ]; then
		grep -m1 -A30 'ERROR\|runtime error' "$log"
		ls "$work"/"$name"-* 2>/dev/null
	fi
done
exit $fail
