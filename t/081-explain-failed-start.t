#!/bin/bash
# slicebench explain when A's server never starts (a real mariadbd held to
# TasksMax=4 in a real systemd): the start that reads A's placement fails,
# and explain says so and stops, rather than reading a placement that is
# not there or explaining from B alone; what the run recorded says why.
# The failure accounting of a whole explanation (a mix failing more than a
# fifth of its starts takes no part, A so leaves no gap and no cause) is
# t/112's, on explain directories of known truth.
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
exp=$top/t/fixtures/explain/starved.ini
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v mariadbd >/dev/null || sandbox_skip_all "needs MYSQLD"
scratch=$(mktemp -d -p "$top" .t081.XXXXXX) || exit 1 # inside the checkout, which the sandbox binds
sandbox_test t081
echo "1..3"

"${in_systemd[@]}" "$SLICEBENCH" explain "$exp" starved free --repeat 2 --out "$scratch/x" >"$scratch/out" 2>&1; rc=$?
[ $rc = 1 ] && grep -q "explain: starved's server did not start, so it has no placement (.*/placed/placements/a-v1-r1.json): nothing to explain; slicebench report .*/placed says why" "$scratch/out"
ok $? "A's server never starts: explain says whose and where the reason is, and stops (exit $rc)" "$scratch/out"
[ ! -e "$scratch/x/screen" ] && [ ! -e "$scratch/x/explain.json" ]
ok $? "no screen was run and no explanation written" "$scratch/out"
"$SLICEBENCH" report "$scratch/x/placed" >"$scratch/report" 2>&1 &&
	grep -q '^  a threads=1 repeat=1: the server did not start' "$scratch/report"
ok $? "report of what it ran names the failed start and why" "$scratch/report"
exit $failed
