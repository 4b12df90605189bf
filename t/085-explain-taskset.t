#!/bin/bash
# explain across kinds, the inherited shell state: slicebench itself
# started under `taskset -c 0`, a service against a shell-started server
# (raw, session inherited) at 1 thread with no client pinning in the file.
# The shell's server inherits CPU 0 with its client (the load generator
# runs in slicebench, on CPU 0 too); the service does not.  explain must
# name the inherited CPU affinity (CPUAffinity=, taken from the service's
# placement into a raw hybrid) for at least 80% of the gap, the closure
# must reach the service within its noise (its interval reaches 90% of
# it, and its lower end is not above it), and
# the session, autogroup, cgroup and kind must not be credited.
# The effect is real but its size and even its sign depend on the
# machine's load (measured here between 1.2x and 3.75x, service or shell
# ahead), and a free server's CPU is a lottery per start: some starts land
# on the client's CPU 0 and run as fast as the shell's.  So 1 s steps (the
# start, not the step, is what varies), and 2 rounds of every mix of the 5
# factors: each factor's Shapley share rests on all 32 mixes, the
# affinity's on 32 starts with it against 32 without (3 rounds took 289 s
# of a CI run; 2 passed in 198 s and 165 s on a quiet host).  The hold-out aims at
# an interval 50 points wide (--width 50): at this spread between starts
# (about 30%) the default 20 asked for some 30 rounds, a quarter of an hour.
# When the gap is still not significant the three checks that need one
# are TAP TODOs that give the figures, so that prove shows them.
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
exp=$top/t/fixtures/explain/kinds.ini
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v mariadbd >/dev/null || sandbox_skip_all "needs MYSQLD"
command -v taskset >/dev/null || sandbox_skip_all "needs taskset"
scratch=$(mktemp -d -p "$top" .t085.XXXXXX) || exit 1 # inside the checkout, which the sandbox binds
box=t085-$$
trap '"$SLICEBENCH" sandbox --name $box down >/dev/null 2>&1; rm -rf "$scratch"' EXIT
need_systemd $box "$scratch/up"
[ "$(nproc --all)" -ge 2 ] || sandbox_skip_all "needs 2 CPUs (the service must have one the shell's server has not)"
echo "1..5"
started=$(date +%s)

"${in_systemd[@]}" taskset -c 0 "$SLICEBENCH" explain "$exp" service shell --threads 1 --repeat 2 --duration 1s --width 50 \
	--out "$scratch/ts" >"$scratch/ts.out" 2>&1
ok $? "explain under taskset -c 0 exits 0" "$scratch/ts.out"
factors=$(grep '^explain kinds: service against shell at 1 thread, [0-9]* factors' "$scratch/ts.out" | tail -n 1)
[[ $factors == *"CPUAffinity= (affinity "*" against 0)"* ]]
ok $? "the inherited affinity is a factor, read from the placements (got: ${factors:-nothing})" "$scratch/ts.out"
gap=$(grep '^service vs shell at 1 thread:' "$scratch/ts.out")
echo "# $gap"
"$SLICEBENCH" report "$scratch/ts/screen" 2>&1 | grep -A6 '^explain: TPS' | sed 's/^/# /' # every mix's median TPS, for the record
sentence=$(grep ' explains ' "$scratch/ts.out")
closure=$(grep '^The hybrid with all' "$scratch/ts.out")
echo "# ${sentence:-no sentence}"
echo "# ${closure:-no closure line}"
if grep -q '^No significant gap' "$scratch/ts.out"; then
	# Said, not hidden: TAP's TODO marks the checks that could not be made,
	# with the figures, and prove reports them as such.
	why="the taskset effect was not significant on this machine now ($gap)"
	todo "CPUAffinity= named for at least 80% of the gap" "$why"
	todo "the closure reaches the service within its noise" "$why"
	todo "a significant gap to explain" "$why"
else
	share=$(sed -n 's/^CPUAffinity= explains \([0-9-]*\)%.*/\1/p' "$scratch/ts.out")
	[ -n "$share" ] && [ "$share" -ge 80 ] && [[ $sentence != *session* && $sentence != *kind* && $sentence != *cgroup* ]]
	ok $? "CPUAffinity= alone is named, for at least 80% (${share:-?}%); not the session, autogroup, cgroup or kind" "$scratch/ts.out"
	lo=$(sed -n 's/^The hybrid with all [0-9]* attributes of service reaches [0-9]*% (\([0-9]*\)-\([0-9]*\)%).*/\1/p' "$scratch/ts.out")
	hi=$(sed -n 's/^The hybrid with all [0-9]* attributes of service reaches [0-9]*% (\([0-9]*\)-\([0-9]*\)%).*/\2/p' "$scratch/ts.out")
	# One 95% interval leaves the truth out in one run of twenty by
	# design (a CI run at 9cc1c2e printed 82% (69-99%)): the check is
	# that it shows no shortfall of more than a tenth; a coverage is a
	# rate over many seeded runs, not a claim one run can check.
	[ -n "$lo" ] && [ "$lo" -le 100 ] && [ "$hi" -ge 90 ]
	ok $? "the closure reaches the service within its noise, or a tenth of it (${lo:-?}-${hi:-?}%)" "$scratch/ts.out"
	ok 0 "a significant gap to explain ($gap)"
fi
echo "# t/085 took $(($(date +%s) - started)) s"
exit $failed
