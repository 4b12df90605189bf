#!/bin/bash
# The open loop (rate = N) against the real tools' --rate in the same run,
# alternating which goes first: oltp_read_only on one private mariadbd,
# slicebench's driver against sysbench 1.0.20 --rate, and pgbench's
# select-only on a PostgreSQL 15 that sweep starts for each step, against
# pgbench --rate.  sysbench times a transaction from when a worker took it
# from its queue, so its latencies stand beside the native service time
# (from the actual start); pgbench, as slicebench, from the scheduled
# start.  Prints, per rate, the medians over the rounds: TPS against the
# rate, and each latency percentile's ratio native/tool (the two p99s in
# ms), with the lags behind schedule and what sysbench leaves out (the
# native p99 from the intended start over its service time).
#
#   bench/open-loop-vs-tools.sh [--time SECONDS] [--rates "500 2000"] [--threads N] [--rounds N]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

time_s=10 rates="500 2000" threads=4 rounds=3
while [ $# -gt 0 ]; do
	case $1 in
	--time) time_s=$2; shift 2 ;;
	--rates) rates=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	*) echo "usage: $0 [--time SECONDS] [--rates LIST] [--threads N] [--rounds N]" >&2; exit 2 ;;
	esac
done
need_tools "$sb" sysbench jq mariadbd /usr/lib/postgresql/15/bin/pgbench
echo "load before: $(cat /proc/loadavg)"
make_workdir
start_mariadb

# One step at a rate: DRIVER RATE SWEEP-ARGS... -> a JSON line of its figures.
step_at() {
	local driver=$1 rate=$2
	shift 2
	"$sb" sweep "$@" --threads "$threads" --duration "${time_s}s" --warmup 2s --rate "$rate" --driver "$driver" \
		--json 2>>"$work/sweep.log" |
		jq -c '.steps[0] | {tps, p50: .latency_ms.p50, p99: .latency_ms.p99, s50: .open_loop.service_ms.p50,
			s99: .open_loop.service_ms.p99, lag: .open_loop.lag_ms.avg, failed}'
}
# FILE KEY: the median of KEY over FILE's lines
med() { jq -r ".$2 // empty" "$1" | median; }

printf '%-10s %6s %8s %8s %10s %10s %9s %9s %10s %10s %12s\n' pair rate tps_nat tps_tool p50_ratio p99_ratio p99_nat \
	p99_tool lag_nat lag_tool p99_int/svc
for rate in $rates; do
	for pair in sysbench pgbench; do
		: >"$work/native" && : >"$work/tool"
		for round in $(seq "$rounds"); do
			if [ "$pair" = sysbench ]; then
				args=(--socket "$sock" --user root --tables 1 --table-size 10000)
			else
				args=(--context raw --engine postgresql --workload select-only)
			fi
			order="slicebench $pair"
			[ $((round % 2)) = 0 ] && order="$pair slicebench"
			for d in $order; do
				if [ "$d" = slicebench ]; then
					step_at "$d" "$rate" "${args[@]}" >>"$work/native"
				else
					step_at "$d" "$rate" "${args[@]}" >>"$work/tool"
				fi
			done
		done
		# sysbench's latencies are from the actual start: the native service time's beside them
		if [ "$pair" = sysbench ]; then n50=s50 n99=s99; else n50=p50 n99=p99; fi
		printf '%-10s %6s %8.1f %8.1f %10s %10s %9.3f %9.3f %10.3f %10s %12s\n' "$pair" "$rate" \
			"$(med "$work/native" tps)" "$(med "$work/tool" tps)" \
			"$(ratio "$(med "$work/native" $n50)" "$(med "$work/tool" p50)")" \
			"$(ratio "$(med "$work/native" $n99)" "$(med "$work/tool" p99)")" "$(med "$work/native" $n99)" \
			"$(med "$work/tool" p99)" "$(med "$work/native" lag)" \
			"$( [ "$pair" = pgbench ] && printf '%.3f' "$(med "$work/tool" lag)" || echo n/a)" \
			"$(ratio "$(med "$work/native" p99)" "$(med "$work/native" s99)")"
		if grep -q true <(jq -r .failed "$work/native" "$work/tool"); then
			echo "$0: a step failed (sweep's messages: $work/sweep.log)" >&2
			exit 1
		fi
	done
done
echo "load after: $(cat /proc/loadavg)"
