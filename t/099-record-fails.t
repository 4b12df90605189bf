#!/bin/bash
# When the document of record cannot be written (a full disk; here a
# directory where results.json goes, so that its rename fails for real), the
# run says that results.json failed, not the step file it did write, and
# the step file is kept.  Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
echo "1..2"
server_scratch
trap 'servers | xargs -r kill -9; rm -rf "$scratch"' EXIT
mkdir -p "$scratch/res/steps" "$scratch/res/placements" "$scratch/res/results.json"
"$SLICEBENCH" run "$top/t/fixtures/run/two-raw.ini" --only inherit --resume "$scratch/res" >"$scratch/out" 2>&1
rc=$?
[ $rc != 0 ] && grep -q "cannot write $scratch/res/results.json: Is a directory (the step is kept in steps/" "$scratch/out"
ok $? "the failure names results.json (exit $rc)" "$scratch/out"
! grep -q "cannot write $scratch/res/steps/" "$scratch/out" && [ -n "$(ls "$scratch/res/steps")" ]
ok $? "not the step file, which is kept ($(ls "$scratch/res/steps" | tr '\n' ' '))" "$scratch/out"
exit $failed
