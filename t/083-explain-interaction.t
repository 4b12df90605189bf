#!/bin/bash
# slicebench explain names an interaction (issue 14): the server pinned to
# CPU 1 with its one client on the same CPU, against both left to the
# scheduler, at 1 thread.  Neither pin alone puts the pair on one CPU, so
# neither alone moves the gap; explain must name both together, with at
# least 80% of it, and quote the figure of mechanism that moved with it.
# How the two combine is judged by the interaction's interval: "an
# interaction" only where it excludes 0 (and "neither alone moves it" only
# where each alone is shown under 10 points); at the noise of a free
# server's placement, which lands on the client's CPU in some starts and
# not in others, 5 rounds seldom show it, and then the sentence must say it
# cannot tell and what it would take (t/065 measures the rule on known
# truth: a pure interaction named as one in every data set at sigma 5%).  The effect is made for real (real systemd, mariadbd and
# client threads); nothing is fed.  The lead's calibration on a 2-core
# machine is in doc/benchmarks.md (explain).
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
exp=$top/t/fixtures/explain/colocate.ini
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v mariadbd >/dev/null || sandbox_skip_all "needs MYSQLD"
[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs (the pair pinned to CPU 1 against both free)"
scratch=$(mktemp -d -p "$top" .t083.XXXXXX) || exit 1 # inside the checkout, which the sandbox binds
sandbox_test t083
echo "1..6"

"${in_systemd[@]}" "$SLICEBENCH" explain "$exp" together free --threads 1 --repeat 5 --duration 3s \
	--out "$scratch/x" >"$scratch/out" 2>&1
ok $? "explain of the pinned pair against the free one exits 0" "$scratch/out"
gap=$(grep '^together vs free at 1 thread:' "$scratch/out")
sentence=$(grep ' together explain \| explains \| all that differs between ' "$scratch/out")
echo "# $gap"
echo "# ${sentence:-no sentence}"
echo "# $(grep '^What moved with it' "$scratch/out")"
if grep -q '^No significant gap' "$scratch/out"; then
	# Said, with the figures, not hidden: on a machine loaded far beyond
	# its CPUs the starts vary so much that the pair's gain is lost in
	# them; TAP's TODO marks the checks that could not be made.
	why="no significant gap on this machine now ($gap)"
	for what in "the gap is significant" "both settings are named together" "with at least 80% of the gap" \
		"as an interaction: neither alone moves it" "the figure of mechanism that moved is quoted"; do
		todo "$what" "$why"
	done
	exit $failed
fi
grep -q '^together vs free at 1 thread: .* TPS (medians), [0-9.]*x ([0-9.]*-[0-9.]*) p[=<][0-9.e-]* at 95%' "$scratch/out"
ok $? "the gap is significant ($gap)" "$scratch/out"
# Together the closure: all that differs, the whole gap by construction
# (with a hybrid of both apart from A, a share of it).
[[ $sentence == "CPUAffinity= and the client's CPUs are all that differs between together and free at 1 thread"* ||
	$sentence == "CPUAffinity= and the client's CPUs together explain "* ]]
ok $? "both settings are named together (got: ${sentence:-nothing})" "$scratch/out"
share=$(sed -n "s/^CPUAffinity= and the client's CPUs together explain \([0-9-]*\)%.*/\1/p" "$scratch/out")
[[ $sentence == *" together they are the whole gap, "* ]] || { [ -n "$share" ] && [ "$share" -ge 80 ] && [ "$share" -le 120 ]; }
ok $? "with at least 80% of the gap (${share:-all of it, by construction})" "$scratch/out"
inter=$(sed -n "s/.*CPUAffinity= x the client's CPUs -\{0,1\}[0-9]*% (\(-\{0,1\}[0-9]*\)\(-\| to \)\(-\{0,1\}[0-9]*\)%).*/\1 \3/p" <<<"$sentence")
read -r lo hi <<<"$inter"
if [ -n "$lo" ] && { [ "$lo" -gt 0 ] || [ "$hi" -lt 0 ]; }; then
	[[ $sentence == *": an interaction, CPUAffinity= x "* || $sentence == *"one pair interacts: CPUAffinity= x "* ]]
	ok $? "an interaction whose interval excludes 0 ($lo to $hi%) is named as one" "$scratch/out"
else
	[[ $sentence != *": an interaction, "* && $sentence != *"pair interacts"* ]] &&
		[[ $sentence == *"cannot tell whether they add or interact"* || $sentence == *"; on the screen they add: "* ]]
	ok $? "an interaction whose interval holds 0 (${lo:-?} to ${hi:-?}%) is not claimed: it says it cannot tell, or that they add" "$scratch/out"
fi
grep -q '^What moved with it: .* against .* (together against free; r = ' "$scratch/out" &&
	"$SLICEBENCH" report "$scratch/x/screen" --telemetry | grep -q '^server run-queue wait per transaction (us)'
ok $? "the figure of mechanism that moved is quoted, and report shows the mechanism per mix" "$scratch/out"
exit $failed
