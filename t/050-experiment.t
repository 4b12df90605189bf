#!/bin/bash
# Experiment files: every shipped experiment validates (run --dry-run exits 0
# and prints its plan); every fixture under t/fixtures/experiments/ must fail
# with exit 2 and the "FILE:LINE: KEY: why" its first line expects, before
# anything starts; list shows the shipped experiments.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=${SLICEBENCH_TOP:-.}
needs BINARY
export SLICEBENCH_EXPERIMENTS=$top/experiments
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
v2=false; [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] && v2=true

shipped=("$top"/experiments/*.ini)
fixtures=("$top"/t/fixtures/experiments/*.ini)
echo "1..$((${#shipped[@]} * 2 + ${#fixtures[@]} + 2))"

for f in "${shipped[@]}"; do
	name=$(basename "$f" .ini)
	# One that mirrors a unit (unit = NAME.service) reads it over D-Bus:
	# checked where that unit runs (percona-jemalloc.ini: t/131).
	unit=$(sed -n 's/^unit = //p' "$f" | head -n 1)
	if [ -n "$unit" ] && ! systemctl cat "$unit" >/dev/null 2>&1; then
		for _ in 1 2; do n=$((n + 1)); echo "ok $n # SKIP $name mirrors $unit, which this host does not run"; done
		continue
	fi
	"$SLICEBENCH" run "$name" --dry-run >"$scratch/out" 2>"$scratch/err"; rc=$?
	ok $rc "shipped experiment $name validates (exit $rc)" "$scratch/err"
	grep -q "^experiment $name " "$scratch/out" && grep -q ' steps of ' "$scratch/out"
	ok $? "run $name --dry-run prints the plan" "$scratch/out"
done

for f in "${fixtures[@]}"; do
	name=$(basename "$f" .ini)
	want=$(sed -n '1s/^; expect: //p' "$f")
	line=${want%%:*} rest=${want#*: }
	if [[ $name == *-v1 ]] && $v2; then
		n=$((n + 1)); echo "ok $n # SKIP $name is for cgroup v1 (this is v2)"; continue
	fi
	"$SLICEBENCH" run "$f" --dry-run >"$scratch/out" 2>"$scratch/err"; rc=$?
	[ $rc = 2 ] && grep -qF -- "$f:$line: $rest" "$scratch/err" && [ ! -s "$scratch/out" ]
	ok $? "$name fails with exit 2 (got $rc) and '$f:$line: $rest'" "$scratch/err"
done

"$SLICEBENCH" list >"$scratch/out" 2>&1
ok $? "list exits 0" "$scratch/out"
missing=
for f in "${shipped[@]}"; do grep -q "^$(basename "$f" .ini) " "$scratch/out" || missing="$missing $(basename "$f" .ini)"; done
[ -z "$missing" ]
ok $? "list shows every shipped experiment (missing:${missing:- none})" "$scratch/out"
exit $failed
