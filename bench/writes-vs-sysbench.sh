#!/bin/bash
# sysbench's write workloads (oltp_read_write, oltp_write_only,
# oltp_update_index, oltp_insert): the native driver against sysbench 1.0.20
# on one server and one dataset, alternating the two so that the drift of
# the data hits both; TPS and client CPU per transaction (user+sys of the
# client process less its start and end, a one-event run's), medians and
# ratios.  Then the drift of TPS across ten
# starts of the server, each followed by one native step of a workload
# that writes: every start on the datadir the last one left (as every start
# was before the template), against every start on a pristine copy of the
# dataset's datadir (cp --reflink=auto --sparse=always, what slicebench's
# copy does); the slope of TPS over the starts by least squares, in % of
# the first start's, and the rows of sbtest1 after each.
#
#   bench/writes-vs-sysbench.sh [--time SECONDS] [--threads "1 4"] [--rounds N]
#                               [--starts N] [--drift WORKLOAD] [--workloads "LIST"]
set -euo pipefail

time_s=10 threads="1 4" rounds=3 tables=4 table_size=100000 starts=10 drift=oltp_insert
workloads="oltp_read_write oltp_write_only oltp_update_index oltp_insert"
while [ $# -gt 0 ]; do
	case $1 in
	--time) time_s=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--starts) starts=$2; shift 2 ;;
	--drift) drift=$2; shift 2 ;;
	--workloads) workloads=$2; shift 2 ;;
	*) echo "usage: $0 [--time SECONDS] [--threads LIST] [--rounds N] [--starts N] [--drift WORKLOAD] [--workloads LIST]" >&2; exit 2 ;;
	esac
done

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools "$sb" sysbench mariadbd mariadb-install-db /usr/bin/time jq
make_workdir
echo "load before: $(cat /proc/loadavg)"
start_mariadb
mariadb -S "$sock" -uroot -e 'CREATE DATABASE sbtest'
"$sb" prepare --socket "$sock" --tables $tables --table-size $table_size

echo "# $tables x $table_size rows, ${time_s}s steps, $rounds alternating rounds, medians; ratios native over sysbench"
printf '%-18s %8s %12s %12s %7s %14s %14s %7s %8s\n' workload threads sysbench_tps native_tps ratio sysbench_us/tx \
	native_us/tx ratio errors
for workload in $workloads; do
	startup_of sysbench "$sock" root; s_startup=$startup_cpu
	startup_of native "$sock" root; n_startup=$startup_cpu
	for t in $threads; do
		: >"$work/s.tps"; : >"$work/n.tps"; : >"$work/s.cpu"; : >"$work/n.cpu"
		errors=0
		for _ in $(seq "$rounds"); do
			step sysbench "$sock" root "$t"
			echo "$tps" >>"$work/s.tps"; cpu_per_tx "$s_startup" >>"$work/s.cpu"
			step native "$sock" root "$t"
			echo "$tps" >>"$work/n.tps"; cpu_per_tx "$n_startup" >>"$work/n.cpu"
		done
		s_tps=$(median <"$work/s.tps") n_tps=$(median <"$work/n.tps")
		s_cpu=$(median <"$work/s.cpu") n_cpu=$(median <"$work/n.cpu")
		printf '%-18s %8s %12.1f %12.1f %7s %14.1f %14.1f %7s %8s\n' "$workload" "$t" "$s_tps" "$n_tps" \
			"$(ratio "$n_tps" "$s_tps")" "$s_cpu" "$n_cpu" "$(ratio "$n_cpu" "$s_cpu")" "$errors"
	done
done

# The drift: the server stopped cleanly, its datadir kept or replaced by a
# copy of the template (the datadir after the prepare), started again, one
# native step at the last thread count.
slope_pct() { # "tps ..." -> the least-squares slope per start in % of the fitted first start
	awk '{ for (i = 1; i <= NF; i++) { n++; sx += i; sy += $i; sxx += i * i; sxy += i * $i } }
	     END { b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n; printf "%+.2f", 100 * b / (a + b) }'
}
workload=$drift
last=${threads##* }
mariadb -S "$sock" -uroot -e 'DROP DATABASE sbtest; CREATE DATABASE sbtest'
"$sb" prepare --socket "$sock" --tables $tables --table-size $table_size
stop_mariadb
copy_s=0
cp -a --reflink=auto --sparse=always "$work/data" "$work/template"
echo
echo "# drift of $workload at $last threads across $starts starts, one ${time_s}s native step each"
for mode in kept pristine; do
	[ $mode = kept ] || { rm -rf "$work/data"; cp -a --reflink=auto --sparse=always "$work/template" "$work/data"; }
	tpss="" rows=""
	for i in $(seq "$starts"); do
		if [ $mode = pristine ] && [ "$i" -gt 1 ]; then
			start=$(date +%s.%N)
			rm -rf "$work/data"
			cp -a --reflink=auto --sparse=always "$work/template" "$work/data"
			sync -f "$work/data" 2>/dev/null || sync
			copy_s=$(awk -v a="$copy_s" -v b="$(elapsed "$start")" 'BEGIN { print a + b }')
		fi
		restart_mariadb
		step native "$sock" root "$last"
		tpss="$tpss $tps"
		rows="$rows $(mariadb -S "$sock" -uroot -N -e 'SELECT COUNT(*) FROM sbtest.sbtest1')"
		stop_mariadb
	done
	printf '%-9s TPS by start:%s\n' "$mode" "$tpss"
	printf '%-9s rows of sbtest1 after each:%s\n' "$mode" "$rows"
	printf '%-9s slope %s%% a start\n' "$mode" "$(echo "$tpss" | slope_pct)"
done
printf 'the pristine copies took %.2f s each (the datadir: %s)\n' \
	"$(awk -v a="$copy_s" -v n="$starts" 'BEGIN { print (n > 1) ? a / (n - 1) : 0 }')" "$(du -sh "$work/template" | cut -f1)"
echo "load after: $(cat /proc/loadavg)"
