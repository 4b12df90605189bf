#!/bin/bash
# The parsers of outside input (experiment files, sysbench reports, placement
# JSON, values) under libFuzzer with ASan and UBSan for FUZZ_TIME seconds
# (60 by default), seeded from experiments/ and the fixtures: no crash, no
# sanitizer report.  Prerequisites: CLANG with libFuzzer (fails under CI).
top=${SLICEBENCH_TOP:-.}
. "$top/t/lib.sh"
command -v clang >/dev/null || sandbox_skip_all "needs CLANG (apt-get install clang libclang-rt-14-dev)"
echo "1..2"
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
make -C "$top" -s fuzz FUZZ_TIME="${FUZZ_TIME:-60}" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ $rc = 0 ] && [ -n "$runs" ]; then echo "ok 1 - the fuzz target ran $runs inputs"; else
	echo "not ok 1 - the fuzz target ran (exit $rc)"; grep -v '^clang ' "$log" | tail -n 30 | sed 's/^/# /'
fi
! grep -qE 'ERROR: (AddressSanitizer|libFuzzer)|runtime error:|SUMMARY: ' "$log"
r=$?
if [ $r = 0 ]; then echo "ok 2 - no crash and no sanitizer report"; else
	echo "not ok 2 - no crash and no sanitizer report"; grep -A20 -E 'ERROR|runtime error' "$log" | head -n 40 | sed 's/^/# /'
fi
[ $rc = 0 ] && [ -n "$runs" ] && [ $r = 0 ]
