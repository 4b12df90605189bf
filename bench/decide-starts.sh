#!/bin/bash
# What the looks save: server starts and minutes to a decision, each case
# by the sequential design (repeat = decide) against the fixed design it
# replaces (repeat = N), in the same run, one after the other on the same host:
#   quota    a large real gap: a raw context under CPUQuota=50% against
#            one without, at --threads (2 of this host's CPUs);
#   aa       an A/A: two identical raw contexts, which must end "the same
#            within +-margin";
# The fixed design of a run is the rounds the decide plan allows at most
# (its "at most N rounds", sized for a gap of --margin at 80% power: a
# little more than a fixed design of equal power needs).  A start is a
# placement the run recorded (every unit starts its own server).  Prints
# a row per case and design, then decide/fixed as ratios of starts and
# minutes; the answer is the ratio and its verdict in each report's
# first table row.
#
#   bench/decide-starts.sh [--time SECONDS] [--threads N] [--margin PCT] [--cases quota,aa] [--keep DIR]
# (--keep: the results directories and logs copied to DIR, a new one)
set -euo pipefail

time_s=5 threads=2 margin=10 cases=quota,aa keep=
while [ $# -gt 0 ]; do
	case $1 in
	--time) time_s=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--margin) margin=$2; shift 2 ;;
	--cases) cases=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	*) echo "usage: $0 [--time SECONDS] [--threads N] [--margin PCT] [--cases quota,aa] [--keep DIR]" >&2; exit 2 ;;
	esac
done

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools "$sb" mariadbd find
make_workdir

# An experiment file of two raw contexts, the second with $2's settings
# (lines), repeated as $1 says.
experiment() { # NAME REPEAT SETTINGS
	printf '[experiment]\ndescription = bench/decide-starts.sh: %s\nthreads = %s\nwarmup = 1s\nduration = %ss\n' \
		"$1" "$threads" "$time_s"
	printf 'repeat = %s\ntables = 2\ntable-size = 10000\nbaseline = base\n' "$2"
	[ "$2" != decide ] || printf 'margin = %s%%\n' "$margin"
	printf '\n'
	printf '[context base]\nkind = raw\n\n[context other]\nkind = raw\n%b' "$3"
}

starts() { find "$1" -path '*/placements/*.json' | wc -l; }
rows=()
# One design of a case: its starts, minutes and answer into rows.
measure() { # CASE DESIGN DIR COMMAND...
	local case=$1 design=$2 dir=$3 t0 t1 answer
	shift 3
	t0=$(date +%s)
	"$@" >"$work/$case-$design.log" 2>&1 || echo "$0: $case $design: exit $? (its output: $work/$case-$design.log)" >&2
	t1=$(date +%s)
	# the ratio and its answer, from the table's first row (the legend
	# above it names every answer, so a word search takes the legend)
	answer=$("$sb" report "$dir" 2>/dev/null | grep -m1 -E '^[0-9]+ ' | sed 's/.* n=[0-9]* *//' || true)
	rows+=("$(printf '%-8s %-7s %7s %8.1f  %s' "$case" "$design" "$(starts "$dir")" "$(echo "($t1 - $t0) / 60" | bc -l)" "$answer")")
	echo "$case $design $(starts "$dir") $((t1 - t0))" >>"$work/figures"
}

run_case() { # CASE SETTINGS
	local most
	experiment "$1" decide "$2" >"$work/$1.ini"
	most=$("$sb" run "$work/$1.ini" --dry-run 2>/dev/null | sed -n 's/.*at most \([0-9]*\) rounds.*/\1/p')
	experiment "$1" "${most:-8}" "$2" >"$work/$1-fixed.ini"
	measure "$1" decide "$work/$1-decide" "$sb" run "$work/$1.ini" --out "$work/$1-decide" -q
	measure "$1" fixed "$work/$1-fixed" "$sb" run "$work/$1-fixed.ini" --out "$work/$1-fixed" -q
}

for c in ${cases//,/ }; do
	case $c in
	quota) run_case quota 'CPUQuota = 50%\n' ;;
	aa) run_case aa '' ;;
	*) echo "$0: no case $c (quota, aa)" >&2; exit 2 ;;
	esac
done

echo "steps of ${time_s}s at $threads threads, margin +-$margin%, load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
printf '%-8s %-7s %7s %8s  %s\n' case design starts minutes answer
printf '%s\n' "${rows[@]}"
awk '{ s[$1 " " $2] = $3; t[$1 " " $2] = $4; c[$1] = 1 }
END { for (k in c) if ((k " fixed") in s && s[k " fixed"] > 0 && t[k " fixed"] > 0)
	printf "%-8s decide/fixed: starts %.2f, minutes %.2f\n", k, s[k " decide"] / s[k " fixed"], t[k " decide"] / t[k " fixed"] }' "$work/figures"
[ -z "$keep" ] || cp -a "$work" "$keep"
