#!/bin/bash
# experiments/pgbench-readonly.ini in the container sandbox, with vmstat -t
# and a `ps -eLo stat` count of R and D threads taken on the host beside
# it, then each step's idle %, load, R and D against theirs for the same
# seconds (bench/telemetry-vs-vmstat.py) and `report --telemetry`.  Cut
# short by default (1, 64 and 800 clients, 5 s steps, one repeat: about
# 3 minutes here); --full runs the shipped plan.  The results stay in OUT.
#
#   bench/pgbench-readonly-figures.sh [--full] OUT
set -euo pipefail

full=
[ "${1:-}" = --full ] && { full=1; shift; }
[ $# = 1 ] || { echo "usage: $0 [--full] OUT" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
sb=${SLICEBENCH:-$top/slicebench}
out=$(mkdir -p "$1" && cd "$1" && pwd)
case $out in "$top"/*) ;; *) echo "$0: OUT must be inside $top, which the sandbox binds" >&2; exit 2 ;; esac
[ -e "$out/res" ] && { echo "$0: $out/res exists" >&2; exit 2; }
box=pgro-figures-$$
exp=$out/pgbench-readonly.ini
if [ -n "$full" ]; then
	cp "$top/experiments/pgbench-readonly.ini" "$exp"
else
	sed -e '/^\[experiment\]/,/^\[/ { s/^threads = .*/threads = 1 64 800/; s/^duration = .*/duration = 5s/; s/^repeat = .*/repeat = 1/ }' \
		"$top/experiments/pgbench-readonly.ini" >"$exp"
fi
vm= ps_loop=
cleanup() {
	[ -n "$vm" ] && kill "$vm" 2>/dev/null
	[ -n "$ps_loop" ] && kill "$ps_loop" 2>/dev/null
	"$sb" sandbox --name "$box" down >/dev/null 2>&1 || true
}
trap cleanup EXIT
"$sb" sandbox --name "$box" up >"$out/up.log" 2>&1
echo "load at the start: $(cat /proc/loadavg)" | tee "$out/load"
vmstat -n -t 1 >"$out/vmstat.log" &
vm=$!
(while sleep 1; do
	echo "$(date +%s.%N) $(ps -eLo stat= | grep -c '^R') $(ps -eLo stat= | grep -c '^D')"
done) >"$out/ps.log" &
ps_loop=$!
start=$(date -u +%H:%M:%S)
"$sb" sandbox --name "$box" exec -- "$sb" run "$exp" --out "$out/res" >"$out/run.out" 2>"$out/run.err" || true
echo "run $start-$(date -u +%H:%M:%S) UTC; load at the end: $(cat /proc/loadavg)" | tee -a "$out/load"
python3 "$top/bench/telemetry-vs-vmstat.py" "$out/res" "$out/vmstat.log" "$out/ps.log"
"$sb" report "$out/res" --telemetry
