#!/bin/bash
# The C unit tests that need no server or sandbox, the hostile-input tests
# and the HTML pages' test against a build with ASan and UBSan (make
# asan-unit, in its own tree, build-asan): every test passes, and none
# reports an error of the sanitizers (abort_on_error fails it).  make
# asan-check runs every test so.  Prerequisites: what .ci/deps installs.
top=${SLICEBENCH_TOP:-.}
. "$top/t/lib.sh"
echo "1..1"
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
make -C "$top" -s asan-unit >"$log" 2>&1
ok $? "make asan-unit: the unit and hostile-input tests pass under ASan and UBSan" "$log"
