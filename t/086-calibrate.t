#!/bin/bash
# slicebench calibrate in a real systemd (the container sandbox, or the
# guest when PID 1 is systemd): quickstart's service context against its
# twin, 10 pairs of 1s steps.  It exits 0, prints this host's sigma between
# starts (a number above 0, with its interval) and the false-positive line,
# writes STATE/calibration.json with the same numbers, its results
# directory is one that report reads, and run --dry-run then quotes the
# stored figure.  --dry-run of calibrate starts nothing.
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v mariadbd >/dev/null || sandbox_skip_all "needs MYSQLD"
scratch=$(mktemp -d -p "$top" .t086.XXXXXX) || exit 1 # inside the checkout, which the sandbox binds
sandbox_test t086
echo "1..7"
# A state directory of the test's own, so that a guest's real calibration stays.
state=/var/lib/slicebench-t086
sb() { "${in_systemd[@]}" env SLICEBENCH_STATE_DIR=$state "$SLICEBENCH" "$@"; }

sb calibrate quickstart service --pairs 10 --duration 1s --dry-run >"$scratch/dry" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^calibrate quickstart: service and service-twin' "$scratch/dry" && [ ! -e "$top/results" -o -z "$(ls "$top/results" 2>/dev/null | grep calibrate-)" ]
ok $? "--dry-run prints the plan and starts nothing (exit $rc)" "$scratch/dry"

start=$(date +%s)
sb calibrate quickstart service --pairs 10 --duration 1s --out "$scratch/cal" >"$scratch/cal.out" 2>&1; rc=$?
echo "# calibrate took $(($(date +%s) - start))s"
ok $rc "calibrate quickstart service --pairs 10 --duration 1s exits 0" "$scratch/cal.out"
sigma=$(sed -n 's/^sigma between starts: \([0-9.]*\)% (\([0-9.]*\)-\([0-9.]*\)% at 95%).*/\1 \2 \3/p' "$scratch/cal.out")
read -r s lo hi <<<"$sigma"
[ -n "$s" ] && awk -v s="$s" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(s > 0 && lo <= s && s <= hi) }'
ok $? "the sigma line: ${s:-?}% (${lo:-?}-${hi:-?}%), above 0 and inside its interval" "$scratch/cal.out"
fp=$(sed -n 's/^A\/A tests: \([0-9]*\) of \([0-9]*\) runs of 2 rounds, each judged by the report.s own model, called a difference significant at 95%; too few to bound a false-positive rate.*/\1 \2/p' "$scratch/cal.out")
read -r k groups <<<"$fp"
[ -n "$k" ] && [ "$groups" -ge 1 ] && [ "$groups" -le 5 ] && grep -q '^this host: sigma .* between starts of service at 1 thread; .* cannot be told from noise$' "$scratch/cal.out"
ok $? "the A/A tests' line (${k:-?} of ${groups:-?}, too few for a rate) and the sentence" "$scratch/cal.out"

"${in_systemd[@]}" cat $state/calibration.json >"$scratch/calibration.json" 2>&1
python3 - "$scratch/calibration.json" "$s" "$k" "$groups" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
assert c["context"] == "service" and c["experiment"] == "quickstart" and c["threads"] == 1 and c["pairs"] == 10, c
assert abs(100 * c["sigma"] - float(sys.argv[2])) < 0.051, (c["sigma"], sys.argv[2])
assert c["false_positives"]["count"] == int(sys.argv[3]) and c["false_positives"]["groups"] == int(sys.argv[4]), c
assert c["host"]["hostname"] and c["host"]["kernel"] and c["date"], c
PY
ok $? "calibration.json holds the same numbers, the context, the threads and the host" "$scratch/calibration.json"

"$SLICEBENCH" report "$scratch/cal" >"$scratch/report" 2>&1 && grep -q 'service-twin' "$scratch/report" &&
	[ "$(ls "$scratch/cal/steps" | wc -l)" = 20 ]
ok $? "the 20 steps are a results directory that report reads" "$scratch/report"

sb run quickstart --dry-run >"$scratch/plan" 2>&1
grep -q "^at a spread of $s% between starts at 1 thread (slicebench calibrate's figure for service of quickstart" "$scratch/plan"
ok $? "run --dry-run quotes the stored sigma" "$scratch/plan"
exit $failed
