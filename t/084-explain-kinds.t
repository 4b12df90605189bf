#!/bin/bash
# explain across kinds in a real systemd (the container sandbox, or the
# guest when PID 1 is systemd), with the effect made for real: slicebench
# itself started with MALLOC_PERTURB_=85 GLIBC_TUNABLES=glibc.malloc.tcache_count=0
# MALLOC_MMAP_THRESHOLD_=4096 (a shell where someone once tuned glibc's
# allocator, the last to give memory back at once), so that the
# shell-started server (raw, session inherited) inherits them and the
# service starts with the clean environment systemd builds.  The factors
# come from the two placements (never the kind, the unit or the cgroups),
# the hybrids are raw servers that take them one at a time, and the
# environment is named for at least 80% of the gap; the closure (all of
# them) is measured and its distance to the service said.  A null case (a
# service against one with an OOMScoreAdjust= of no effect, whose
# placements differ only in identity and that) names nothing, at 99% as in
# t/080.  The reverse, the shell's server against the service, is planned
# with scopes for hybrids.  Bad input (an unknown context, placements that cannot be read, a
# budget too small for the closure) exits 2 and starts nothing.
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
exp=$top/t/fixtures/explain/kinds.ini
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v mariadbd >/dev/null || sandbox_skip_all "needs MYSQLD"
scratch=$(mktemp -d -p "$top" .t084.XXXXXX) || exit 1 # inside the checkout, which the sandbox binds
box=t084-$$
trap '"$SLICEBENCH" sandbox --name $box down >/dev/null 2>&1; rm -rf "$scratch"' EXIT
need_systemd $box "$scratch/up"
echo "1..13"
explain() { "${in_systemd[@]}" "$SLICEBENCH" explain "$@"; }
started=$(date +%s)

explain "$exp" service nowhere --out "$scratch/bad" >"$scratch/unknown" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "has no context 'nowhere'" "$scratch/unknown" && [ ! -e "$scratch/bad" ]
ok $? "an unknown context: exit 2 naming it, nothing started (exit $rc)" "$scratch/unknown"
explain "$exp" service shell --budget 20s --out "$scratch/bad" >"$scratch/budget" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'over --budget' "$scratch/budget" && [ ! -e "$scratch/bad" ]
ok $? "a budget too small for B, A and the closure: exit 2, nothing started (exit $rc)" "$scratch/budget"

explain "$exp" service shell --threads 8 --dry-run >"$scratch/whatif" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'kind of context (service against raw)' "$scratch/whatif" && [ ! -e "$top/results" -o -z "$(ls "$top/results" 2>/dev/null | grep explain-kinds)" ]
ok $? "--dry-run across kinds says the factors come from the placements, and starts nothing (exit $rc)" "$scratch/whatif"

# The issue's two variables alone moved TPS by 1.1x-1.4x here, too little
# for 4 repeats against restarts that vary by 10-17%; with the mmap
# threshold the shell's server runs at about a quarter of the service's
# (a twenty-fifth in CI), so 1 s steps and 2 rounds of the 16 mixes show it
# (5.87x, 5.26-6.54, with 3 in a quiet CI run): 2 s ones took 50 s more.
"${in_systemd[@]}" env MALLOC_PERTURB_=85 GLIBC_TUNABLES=glibc.malloc.tcache_count=0 MALLOC_MMAP_THRESHOLD_=4096 \
	"$SLICEBENCH" explain "$exp" service shell --threads 8 --repeat 2 --duration 1s --out "$scratch/env" >"$scratch/env.out" 2>&1
ok $? "explain of the inherited environment exits 0" "$scratch/env.out"
# The plan again once the placements are read: the factors they give.
factors=$(grep '^explain kinds: service against shell at 8 threads, [0-9]* factors:' "$scratch/env.out" | tail -n 1)
[[ $factors == *"environment ("*MALLOC_PERTURB_* && $factors == *GLIBC_TUNABLES* && $factors == *"(hybrids: raw)"* &&
	$factors != *INVOCATION_ID* && $factors != *unit* && $factors != *cgroup* ]]
ok $? "the factors come from the placements, identity left out (got: ${factors:-nothing})" "$scratch/env.out"
gap=$(grep '^service vs shell at 8 threads:' "$scratch/env.out")
sentence=$(grep ' explains ' "$scratch/env.out")
closure=$(grep '^The hybrid with all [0-9]* attributes of service reaches' "$scratch/env.out")
echo "# $gap"
"$SLICEBENCH" report "$scratch/env/screen" 2>&1 | grep -A6 '^explain: TPS' | sed 's/^/# /' # every mix's median TPS, for the record
echo "# ${sentence:-no sentence}"
echo "# ${closure:-no closure line}"
if grep -q '^No significant gap' "$scratch/env.out"; then
	# Said, with the figures, not hidden: on a machine loaded far beyond its
	# CPUs the starts vary so much that even this effect can be lost in
	# them; TAP's TODO marks the checks that could not be made.
	why="no significant gap on this machine now ($gap)"
	todo "the environment is named for at least 80% of the gap" "$why"
	todo "the closure's distance to the service is said" "$why"
else
	share=$(sed -n 's/^environment explains \([0-9-]*\)%.*/\1/p' "$scratch/env.out")
	[ -n "$share" ] && [ "$share" -ge 80 ]
	ok $? "the environment is named for at least 80% of the gap (${share:-?}%)" "$scratch/env.out"
	[ -n "$closure" ]
	ok $? "the closure's distance to the service is said" "$scratch/env.out"
fi
[ -d "$scratch/env/placed/placements" ] && "$SLICEBENCH" report "$scratch/env/screen" >/dev/null && "$SLICEBENCH" report "$scratch/env" >/dev/null
ok $? "the placements' start and the mixes are results directories that report reads"

# The other way round, the shell's server explained against the service:
# a service cannot take the shell's session, a scope can, and is nearer
# the service than a raw fork (systemd places it).  Planned only.
explain "$scratch/env/placed" --from b --to a --dry-run >"$scratch/reverse" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^explain .*: b against a at .*session (session.is_leader no against yes).* (hybrids: scope)$' "$scratch/reverse"
ok $? "the shell against the service: the hybrids are scopes (exit $rc, $(grep -o '(hybrids: [a-z]*)' "$scratch/reverse"))" "$scratch/reverse"

# A results directory whose placements are gone: refused before anything starts.
cp -r "$scratch/env/placed" "$scratch/noplace" && rm -rf "$scratch/noplace/placements"
explain "$scratch/noplace" --from a --to b --out "$scratch/bad" >"$scratch/noplace.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'cannot read the placement .*noplace/placements/a-v1-r1.json' "$scratch/noplace.out" && [ ! -e "$scratch/bad" ]
ok $? "placements that cannot be read: exit 2 naming the file, nothing started (exit $rc)" "$scratch/noplace.out"

explain "$exp" quiet service --threads 2 --repeat 3 --duration 2s --confidence 99 --out "$scratch/null" >"$scratch/null.out" 2>&1
ok $? "explain of the null case exits 0" "$scratch/null.out"
grep -q '^explain kinds: quiet against service at 2 threads, 1 factor: OOMScoreAdjust= (hybrids: service)$' "$scratch/null.out"
ok $? "its one factor is OOMScoreAdjust=: the unit, cgroups, autogroup and systemd's variables are identity" "$scratch/null.out"
grep -q '^No significant gap' "$scratch/null.out" && ! grep -q ' explains ' "$scratch/null.out"
ok $? "the null case: no significant gap, nothing named" "$scratch/null.out"
echo "# t/084 took $(($(date +%s) - started)) s"
exit $failed
