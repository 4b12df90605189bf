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

top=$(cd "$(dirname "$0")/.." && pwd)
sb=${SLICEBENCH:-$top/slicebench}
for tool in "$sb" sysbench mariadbd mariadb-install-db /usr/bin/time jq; do
	command -v "$tool" >/dev/null || { echo "$0: $tool is missing (make deps; make)" >&2; exit 2; }
done

work=$(mktemp -d /tmp/slicebench-bench.XXXXXX)
chmod 0755 "$work"
sock=$work/run/mysqld.sock
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT

mkdir -p "$work/run" && chown mysql: "$work" "$work/run" && chmod 0700 "$work/run"
mariadb-install-db --user=mysql --datadir="$work/data" --auth-root-authentication-method=socket >"$work/install.log" 2>&1
mariadbd --no-defaults --user=mysql --datadir="$work/data" --socket="$sock" --skip-networking \
	--innodb-buffer-pool-size=1G --max-connections=2000 --log-error="$work/error.log" &
server_pid=$!
for _ in $(seq 100); do
	mariadb -S "$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
	sleep 0.2
done
mariadb -S "$sock" -uroot -e 'CREATE DATABASE sbtest; CREATE DATABASE sbtest_sysbench'

common=(--mysql-socket="$sock" --mysql-user=root --tables=$tables --table-size=$table_size)
# $1: output file, the rest: command.  Writes "user sys maxrss_kb" to $1.
timed() { local out=$1; shift; /usr/bin/time -f '%U %S %M' -o "$out" "$@"; }
cpu_s() { awk '{ print $1 + $2 }' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

echo "# prepare, $tables x $table_size rows"
start=$(date +%s.%N)
sysbench oltp_read_only "${common[@]}" --mysql-db=sbtest_sysbench prepare >/dev/null
sysbench_prepare=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
start=$(date +%s.%N)
"$sb" prepare --socket "$sock" --tables $tables --table-size $table_size
native_prepare=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
printf 'sysbench %.2fs  slicebench %.2fs  speed-up %sx\n' "$sysbench_prepare" "$native_prepare" \
	"$(ratio "$sysbench_prepare" "$native_prepare")"
"$sb" sweep --socket "$sock" --tables $tables --table-size $table_size --threads 1 --time 1s >/dev/null

run_sysbench() { # threads, seconds -> "tps transactions errors"
	timed "$work/time" sysbench "$workload" "${common[@]}" --mysql-db=sbtest --threads="$1" --time="$2" run >"$work/out"
	awk '/transactions:/ { t = $2; tps = substr($3, 2) } /ignored errors:/ { e = $3 } END { print tps, t, e }' "$work/out"
}
run_native() {
	timed "$work/time" "$sb" sweep --socket "$sock" --tables $tables --table-size $table_size --no-prewarm \
		--workload "$workload" --threads "$1" --time "$2"s --json >"$work/out"
	jq -r '.steps[0] | "\(.tps) \(.transactions) \(.errors.ignorable + .errors.reconnect + .errors.fatal)"' "$work/out"
}

echo
echo "# $workload, ${time_s}s steps, $rounds alternating rounds, medians"
printf '%8s %12s %12s %7s %14s %14s %7s\n' threads sysbench_tps native_tps ratio sysbench_us/tx native_us/tx ratio
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for t in $threads; do
	: >"$work/s.tps" ; : >"$work/n.tps"; : >"$work/s.cpu"; : >"$work/n.cpu"
	for _ in $(seq "$rounds"); do
		read -r tps txns _ < <(run_sysbench "$t" "$time_s")
		echo "$tps" >>"$work/s.tps"
		awk -v c="$(cpu_s "$work/time")" -v n="$txns" 'BEGIN { print c / n * 1e6 }' >>"$work/s.cpu"
		read -r tps txns _ < <(run_native "$t" "$time_s")
		echo "$tps" >>"$work/n.tps"
		awk -v c="$(cpu_s "$work/time")" -v n="$txns" 'BEGIN { print c / n * 1e6 }' >>"$work/n.cpu"
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
	read -r tps _ errors < <(run_sysbench "$high" "$time_s")
	printf '%10s %12.1f %8s %12.1f\n' sysbench "$tps" "${errors:-0}" "$(awk '{ print $3 / 1024 }' "$work/time")"
	read -r tps _ errors < <(run_native "$high" "$time_s")
	printf '%10s %12.1f %8s %12.1f\n' slicebench "$tps" "$errors" "$(awk '{ print $3 / 1024 }' "$work/time")"
fi
