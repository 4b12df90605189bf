#!/bin/bash
# A whole run (a service and a scope, t/fixtures/faults/two-kinds.ini) under
# valgrind in a real systemd: no memory error, no definite leak.
# Prerequisites: ROOT, MYSQLD, VALGRIND, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
for p in id:ROOT mariadbd:MYSQLD valgrind:VALGRIND; do
	if [ "${p%%:*}" = id ]; then [ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
	else command -v "${p%%:*}" >/dev/null || sandbox_skip_all "needs ${p#*:}"; fi
done
sandbox_test t058
echo "1..3"
# The script reads its results inside the container, where run writes them.
script='unset SLICEBENCH_IN_SANDBOX; w=$(mktemp -d); chmod 0755 "$w"; export SLICEBENCH_STATE_DIR=$w/s SLICEBENCH_RUN_DIR=$w/r
valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 "$1" run "$2" --out "$w/res" >/dev/null 2>"$w/vg"
echo "rc=$?"; grep -E "definitely lost|ERROR SUMMARY" "$w/vg"; ls "$w/res/steps" | wc -l | sed "s/^/steps=/"; rm -rf "$w"'
"${in_systemd[@]}" bash -c "$script" sh "$sb" "$top/t/fixtures/faults/two-kinds.ini" >"$scratch/out" 2>&1
grep -q '^rc=0$' "$scratch/out" && grep -q '^steps=4$' "$scratch/out"
ok $? "the run completes its 4 steps under valgrind (exit 0)" "$scratch/out"
grep -q 'definitely lost: 0 bytes in 0 blocks' "$scratch/out" || grep -q 'All heap blocks were freed' "$scratch/out"
ok $? "no definite leak" "$scratch/out"
grep -q 'ERROR SUMMARY: 0 errors' "$scratch/out"
ok $? "no memory error" "$scratch/out"
exit $failed
