#!/bin/bash
# glibc's malloc, jemalloc and tcmalloc under the same mariadbd at 1 to 4
# client threads (bench/allocators.ini), in one run, as ratios to glibc's
# with their intervals: what an LD_PRELOAD such as Percona's unit gives its
# server is worth on this host.  Prints the load before and after, the
# exact command and the report; the run's directory is kept.
#
#   bench/allocators.sh [--out DIR] [--quick]
#
# --quick: 2 s steps and 2 repeats (a look, not a figure).
set -euo pipefail

out= quick=
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	*) echo "usage: $0 [--out DIR] [--quick]" >&2; exit 2 ;;
	esac
done

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools mariadbd
for lib in /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4; do
	[ -r "$lib" ] || { echo "$0: $lib is missing (make deps installs libjemalloc2 and libtcmalloc-minimal4)" >&2; exit 2; }
done
if [ -z "$out" ]; then
	out=$(mktemp -d /tmp/slicebench-allocators.XXXXXX)
	rmdir "$out" # run makes it: a results directory of its own
fi
exp=$bench_top/bench/allocators.ini
if [ -n "$quick" ]; then
	mkdir -p "$out.exp"
	sed -e 's/^duration = .*/duration = 2s/' -e 's/^repeat = .*/repeat = 2/' -e 's/^warmup = .*/warmup = 1s/' "$exp" >"$out.exp/allocators.ini"
	exp=$out.exp/allocators.ini
fi
echo "load before: $(cat /proc/loadavg)"
echo "command: $sb run $exp --out $out"
start=$(date +%s)
"$sb" run "$exp" --out "$out"
echo "load after: $(cat /proc/loadavg); $(($(date +%s) - start)) s"
"$sb" report "$out"
[ -z "$quick" ] || rm -rf "$out.exp"
