#!/bin/bash
# The native OLTP driver against sysbench 1.0.20, on the same server and the
# same data in the same run, alternating the two so that drift hits both.
# Prints ratios: prepare time, TPS per thread count, client CPU per
# transaction, and a 512-thread step (errors, peak RSS).
#
#   bench/oltp-vs-sysbench.sh [--time SECONDS] [--threads "1 2 4"] [--rounds N] [--high 512]
#                             [--workload oltp_read_only|oltp_point_select]
set -euo pipefail

time_s=10 threads="1 2 4" rounds=3 high=512 tables=4 table_size=100000 workload=oltp_read_only
while [ $# -gt 0 ]; do
	case $1 in
	--time) time_s=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--high) high=$2; shift 2 ;;
	--workload) workload=$2; shift 2 ;;
	*) echo "usage: $0 [--time SECONDS] [--threads LIST] [--rounds N] [--high THREADS] [--workload NAME]" >&2; exit 2 ;;
	esac
done
case $workload in
oltp_read_only | oltp_point_select) ;;
*) echo "$0: --workload: oltp_read_only or oltp_point_select, not '$workload'" >&2; exit 2 ;;
esac

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools "$sb" sysbench mariadbd mariadb-install-db /usr/bin/time jq
make_workdir
start_mariadb
mariadb -S "$sock" -uroot -e 'CREATE DATABASE sbtest; CREATE DATABASE sbtest_sysbench'

echo "# prepare, $tables x $table_size rows"
start=$(date +%s.%N)
sysbench oltp_read_only --mysql-socket="$sock" --mysql-user=root --tables=$tables --table-size=$table_size \
	--mysql-db=sbtest_sysbench prepare >/dev/null
sysbench_prepare=$(elapsed "$start")
start=$(date +%s.%N)
"$sb" prepare --socket "$sock" --tables $tables --table-size $table_size
native_prepare=$(elapsed "$start")
printf 'sysbench %.2fs  slicebench %.2fs  speed-up %sx\n' "$sysbench_prepare" "$native_prepare" \
	"$(ratio "$sysbench_prepare" "$native_prepare")"
"$sb" sweep --socket "$sock" --tables $tables --table-size $table_size --threads 1 --duration 1s >/dev/null

echo
echo "# $workload, ${time_s}s steps, $rounds alternating rounds, medians"
printf '%8s %12s %12s %7s %14s %14s %7s\n' threads sysbench_tps native_tps ratio sysbench_us/tx native_us/tx ratio
for t in $threads; do
	: >"$work/s.tps" ; : >"$work/n.tps"; : >"$work/s.cpu"; : >"$work/n.cpu"
	for _ in $(seq "$rounds"); do
		step sysbench "$sock" root "$t"
		echo "$tps" >>"$work/s.tps"
		us_per "$(cpu_s "$work/time")" "$txns" >>"$work/s.cpu"
		step native "$sock" root "$t"
		echo "$tps" >>"$work/n.tps"
		us_per "$(cpu_s "$work/time")" "$txns" >>"$work/n.cpu"
	done
	s_tps=$(median <"$work/s.tps") n_tps=$(median <"$work/n.tps")
	s_cpu=$(median <"$work/s.cpu") n_cpu=$(median <"$work/n.cpu")
	printf '%8s %12.1f %12.1f %7s %14.1f %14.1f %7s\n' "$t" "$s_tps" "$n_tps" "$(ratio "$n_tps" "$s_tps")" \
		"$s_cpu" "$n_cpu" "$(ratio "$n_cpu" "$s_cpu")"
done

if [ "$high" -gt 0 ]; then
	echo
	echo "# $high threads, one ${time_s}s step each"
	printf '%10s %12s %8s %12s\n' driver tps errors peak_rss_mb
	step sysbench "$sock" root "$high"
	printf '%10s %12.1f %8s %12.1f\n' sysbench "$tps" "$step_errors" "$(awk '{ print $3 / 1024 }' "$work/time")"
	step native "$sock" root "$high"
	printf '%10s %12.1f %8s %12.1f\n' slicebench "$tps" "$step_errors" "$(awk '{ print $3 / 1024 }' "$work/time")"
fi
