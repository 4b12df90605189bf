#!/bin/bash
# slicebench explain in a real systemd (the container sandbox, or the guest
# when PID 1 is systemd): a known effect (CPUQuota=20% beside an idle
# OOMScoreAdjust=) is credited to CPUQuota= alone, --dry-run starts
# nothing, and two identical contexts are refused.  The null case (only
# OOMScoreAdjust= differs: "no significant gap", nothing named, at 99%) is
# t/084's, whose two contexts are started from the file as here.
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
exp=$top/t/fixtures/explain/quota.ini
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v mariadbd >/dev/null || sandbox_skip_all "needs MYSQLD"
scratch=$(mktemp -d -p "$top" .t080.XXXXXX) || exit 1 # inside the checkout, which the sandbox binds
sandbox_test t080
echo "1..10"
explain() { "${in_systemd[@]}" "$SLICEBENCH" explain "$exp" "$@"; }

explain limited free --threads 2 --dry-run >"$scratch/whatif" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '4 mixes x 3 repeats' "$scratch/whatif" && [ ! -e "$top/results" -o -z "$(ls "$top/results" 2>/dev/null | grep explain-quota)" ]
ok $? "--dry-run prints the plan (4 mixes) and starts nothing (exit $rc)" "$scratch/whatif"

# Three repeats: with two, Welch's t has about one degree of freedom (t = 12.7
# at 95%) and even this gap can fall inside a busy machine's noise.
explain limited free --threads 2 --repeat 3 --duration 2s --out "$scratch/known" >"$scratch/known.out" 2>&1
ok $? "explain of the known effect exits 0" "$scratch/known.out"
sentence=$(grep ' explains ' "$scratch/known.out")
[[ $sentence == "CPUQuota= explains "* ]]
ok $? "CPUQuota= alone is named as the cause (got: ${sentence:-nothing})" "$scratch/known.out"
share=$(sed -n 's/^CPUQuota= explains \([0-9-]*\)%.*/\1/p' "$scratch/known.out")
[ -n "$share" ] && [ "$share" -ge 80 ] && [ "$share" -le 120 ]
ok $? "with most of the gap (${share:-?}%)" "$scratch/known.out"
grep -q '^limited vs free at 2 threads: .* TPS (medians), 0\.[0-9]*x ([0-9.]*-[0-9.]*) p[=<][0-9.e-]* at 95%' "$scratch/known.out" &&
	grep -q 'interval (Fieller)' "$scratch/known.out" &&
	[[ $sentence == *"% ("[0-9]*-[0-9]*"%) of the gap"* || $sentence == *"% (unbounded) of the gap"* ]]
ok $? "the gap carries its interval and p, the share Fieller's interval" "$scratch/known.out"
# The screen's 4 mixes x 3 rounds are a results directory of their own, as
# the placements' start and the hold-out are; report DIR on the explain
# directory says again what explain said.
[ "$(ls "$scratch/known/screen/steps" | wc -l)" = 12 ] && "$SLICEBENCH" report "$scratch/known/screen" >/dev/null &&
	[ -d "$scratch/known/placed/placements" ] && "$SLICEBENCH" report "$scratch/known" >"$scratch/again" 2>&1 &&
	grep -qxF "$sentence" "$scratch/again"
ok $? "the screen's 12 measurements are a results directory that report reads, the placements' start one of its own; report of the explain directory says the sentence again" "$scratch/again"

"${in_systemd[@]}" "$SLICEBENCH" explain "$scratch/known/screen" --from a --to b --dry-run >"$scratch/fromdir" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^explain explain: a against b at 1 thread, 2 factors: CPUQuota=, OOMScoreAdjust= (hybrids: service)$' "$scratch/fromdir"
ok $? "explain RESULTS --from a --to b takes the design of that run (exit $rc)" "$scratch/fromdir"

explain many free --dry-run >"$scratch/many" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^32 mixes x 3 repeats' "$scratch/many"
ok $? "five differing settings: every one of their 32 mixes in the screen (exit $rc)" "$scratch/many"
explain many free --dry-run --budget 1m >"$scratch/budget" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'over --budget 1 min' "$scratch/budget"
ok $? "a plan over --budget is refused even with fewer repeats (exit $rc)" "$scratch/budget"

explain free free >"$scratch/same" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'differ in no setting' "$scratch/same"
ok $? "two identical contexts are refused (exit $rc)" "$scratch/same"
exit $failed
