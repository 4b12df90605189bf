#!/bin/bash
# The native OLTP driver against sysbench 1.0.20, on the same server and the
# same data in the same run, alternating the two so that drift hits both.
# Prints ratios: prepare time (rounds of each from no tables, taking turns
# going first), TPS per thread count, client CPU per transaction (user+sys
# of the client process less its start and end, the CPU of a one-event
# run, per transaction), the instructions per
# transaction at 1 thread (callgrind: the difference between a run of 1500
# and one of 500 events, so that start-up cancels, the median of three; the
# machine's load does not change it), what each telemetry figure costs the native client (the
# same measures with it turned off: sweep --without), and a 512-thread step
# (TPS, errors, peak RSS).
#
#   bench/oltp-vs-sysbench.sh [--time SECONDS] [--threads "1 2 4"] [--rounds N] [--high 512]
#                             [--prepare-rounds N] [--no-callgrind] [--no-figures] [--workload NAME]
set -euo pipefail

time_s=10 threads="1 2 4" rounds=3 high=512 tables=4 table_size=100000 workload=oltp_read_only
prepare_rounds=3 callgrind=1 figures=1
while [ $# -gt 0 ]; do
	case $1 in
	--time) time_s=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--high) high=$2; shift 2 ;;
	--prepare-rounds) prepare_rounds=$2; shift 2 ;;
	--no-callgrind) callgrind=; shift ;;
	--no-figures) figures=; shift ;;
	--workload) workload=$2; shift 2 ;;
	*) echo "usage: $0 [--time SECONDS] [--threads LIST] [--rounds N] [--high THREADS] [--prepare-rounds N] [--no-callgrind] [--no-figures] [--workload NAME]" >&2; exit 2 ;;
	esac
done
case $workload in
oltp_read_only | oltp_point_select | oltp_read_write | oltp_write_only | oltp_update_index | oltp_insert) ;;
*) echo "$0: --workload: one of sysbench's oltp_* scripts, not '$workload'" >&2; exit 2 ;;
esac

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools "$sb" sysbench mariadbd mariadb-install-db /usr/bin/time jq
make_workdir
start_mariadb
mariadb -S "$sock" -uroot -e 'CREATE DATABASE sbtest; CREATE DATABASE sbtest_sysbench'

echo "load before: $(cat /proc/loadavg)"
echo "# prepare, $tables x $table_size rows, $prepare_rounds rounds each from no tables, taking turns going first, medians"
: >"$work/s.prep"; : >"$work/n.prep"
prepare_sysbench() {
	mariadb -S "$sock" -uroot -e 'DROP DATABASE sbtest_sysbench; CREATE DATABASE sbtest_sysbench'
	local start; start=$(date +%s.%N)
	sysbench oltp_read_only --mysql-socket="$sock" --mysql-user=root --tables=$tables --table-size=$table_size \
		--mysql-db=sbtest_sysbench prepare >/dev/null
	elapsed "$start" >>"$work/s.prep"
}
prepare_native() {
	mariadb -S "$sock" -uroot -e 'DROP DATABASE sbtest; CREATE DATABASE sbtest'
	local start; start=$(date +%s.%N)
	"$sb" prepare --socket "$sock" --tables $tables --table-size $table_size
	elapsed "$start" >>"$work/n.prep"
}
for r in $(seq "$prepare_rounds"); do
	if [ $((r % 2)) = 1 ]; then prepare_sysbench; prepare_native; else prepare_native; prepare_sysbench; fi
done
sysbench_prepare=$(median <"$work/s.prep") native_prepare=$(median <"$work/n.prep")
printf 'sysbench %.2fs (%s)  slicebench %.2fs (%s)  speed-up %sx\n' "$sysbench_prepare" "$(sort -g "$work/s.prep" | tr '\n' ' ')" \
	"$native_prepare" "$(sort -g "$work/n.prep" | tr '\n' ' ')" "$(ratio "$sysbench_prepare" "$native_prepare")"
"$sb" sweep --socket "$sock" --tables $tables --table-size $table_size --threads 1 --duration 1s >/dev/null

startup_of sysbench "$sock" root; s_startup=$startup_cpu
startup_of native "$sock" root; n_startup=$startup_cpu
echo
echo "# the client's start and end (one event at 1 thread, median of 3): sysbench $(us_per "$s_startup" 1000) ms," \
	"slicebench $(us_per "$n_startup" 1000) ms of CPU, taken off each step's CPU below"
echo "# $workload, ${time_s}s steps, $rounds alternating rounds, medians"
printf '%8s %12s %12s %7s %14s %14s %7s\n' threads sysbench_tps native_tps ratio sysbench_us/tx native_us/tx ratio
for t in $threads; do
	: >"$work/s.tps" ; : >"$work/n.tps"; : >"$work/s.cpu"; : >"$work/n.cpu"
	for _ in $(seq "$rounds"); do
		step sysbench "$sock" root "$t"
		echo "$tps" >>"$work/s.tps"
		cpu_per_tx "$s_startup" >>"$work/s.cpu"
		step native "$sock" root "$t"
		echo "$tps" >>"$work/n.tps"
		cpu_per_tx "$n_startup" >>"$work/n.cpu"
	done
	s_tps=$(median <"$work/s.tps") n_tps=$(median <"$work/n.tps")
	s_cpu=$(median <"$work/s.cpu") n_cpu=$(median <"$work/n.cpu")
	printf '%8s %12.1f %12.1f %7s %14.1f %14.1f %7s\n' "$t" "$s_tps" "$n_tps" "$(ratio "$n_tps" "$s_tps")" \
		"$s_cpu" "$n_cpu" "$(ratio "$n_cpu" "$s_cpu")"
done

# Instructions per transaction at 1 thread: $1 driver, the rest sweep's
# extra options -> a count: the difference of a 1500- and a 500-event run,
# the median of three such (a run's start-up work varies a little).
instructions() {
	local d=$1 n out=() k
	shift
	: >"$work/ir"
	for k in 1 2 3; do
		out=()
		for n in 500 1500; do
			if [ "$d" = sysbench ]; then
				valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" sysbench "$workload" --mysql-socket="$sock" \
					--mysql-user=root --mysql-db=sbtest --tables="$tables" --table-size="$table_size" --threads=1 \
					--events=$n --time=0 run >/dev/null 2>"$work/cg.err"
			else
				valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$sb" sweep --socket "$sock" --tables "$tables" \
					--table-size "$table_size" --no-prewarm --workload "$workload" --threads 1 --events $n "$@" \
					>/dev/null 2>"$work/cg.err"
			fi
			out+=("$(awk '/^(summary|totals):/ { print $2; exit }' "$work/cg.out")")
		done
		echo $(((out[1] - out[0]) / 1000)) >>"$work/ir"
	done
	median <"$work/ir"
}
if [ -n "$callgrind" ] && command -v valgrind >/dev/null; then
	echo
	echo "# instructions per transaction at 1 thread (callgrind, user space; independent of the load)"
	s_ir=$(instructions sysbench) n_ir=$(instructions native)
	printf 'sysbench %s  slicebench %s  ratio %s\n' "$s_ir" "$n_ir" "$(ratio "$n_ir" "$s_ir")"
fi

# What each telemetry figure costs the native client, measured by turning
# it off (sweep --without).  The figures kept per transaction (the
# latency histogram, the per-second counts): instructions per transaction
# at 1 thread under callgrind, the sampler off in both so that valgrind's
# slowed clock does not give it more seconds.  The once-a-second sampler
# (all of it, or its per-thread counters): the client's CPU time per second
# of the step at the middle thread count, with and without it, medians of
# the rounds taking turns, and that as a share of the client's CPU.
if [ -n "$figures" ]; then
	echo
	if [ -n "$callgrind" ] && command -v valgrind >/dev/null; then
		echo "# each per-transaction figure's cost: instructions per transaction at 1 thread, the sampler off"
		base=$(instructions native --without telemetry)
		printf '%-26s %12s\n' "every figure on" "$base"
		for off in latency per-second latency,per-second; do
			i=$(instructions native --without "telemetry,$off")
			printf '%-26s %12s  saves %s%%\n' "without $off" "$i" \
				"$(awk -v a="$base" -v b="$i" 'BEGIN { printf "%.1f", (a - b) / a * 100 }')"
		done
	fi
	read -ra counts <<<"$threads"
	mid=${counts[$(((${#counts[@]} - 1) / 2))]}
	echo "# the sampler's cost: client CPU ms per second of a ${time_s}s step at $mid threads, $rounds rounds taking turns, medians"
	for off in "" telemetry thread-counters; do : >"$work/cpu.${off:-all}"; done
	for r in $(seq "$rounds"); do
		for off in "" telemetry thread-counters; do
			native_extra=${off:+--without $off} step native "$sock" root "$mid"
			awk -v c="$(cpu_s "$work/time")" -v t="$time_s" 'BEGIN { print c / t * 1000 }' >>"$work/cpu.${off:-all}"
		done
	done
	all=$(median <"$work/cpu.all")
	printf '%-26s %8.1f ms/s\n' "every figure on" "$all"
	for off in telemetry thread-counters; do
		m=$(median <"$work/cpu.$off")
		printf '%-26s %8.1f ms/s  the figure: %.1f ms/s, %s%% of the client'"'"'s CPU\n' "without $off" "$m" \
			"$(awk -v a="$all" -v b="$m" 'BEGIN { print a - b }')" "$(awk -v a="$all" -v b="$m" 'BEGIN { printf "%.1f", (a - b) / a * 100 }')"
	done
fi

if [ "$high" -gt 0 ]; then
	echo
	echo "# $high threads, one ${time_s}s step each"
	printf '%10s %12s %8s %12s\n' driver tps errors peak_rss_mb
	step sysbench "$sock" root "$high"
	s_tps=$tps s_rss=$(awk '{ print $3 / 1024 }' "$work/time")
	printf '%10s %12.1f %8s %12.1f\n' sysbench "$tps" "$step_errors" "$s_rss"
	step native "$sock" root "$high"
	n_rss=$(awk '{ print $3 / 1024 }' "$work/time")
	printf '%10s %12.1f %8s %12.1f\n' slicebench "$tps" "$step_errors" "$n_rss"
	printf 'ratios: TPS %s, peak RSS %s\n' "$(ratio "$tps" "$s_tps")" "$(ratio "$n_rss" "$s_rss")"
fi
echo "load after: $(cat /proc/loadavg)"
