#!/bin/bash
# The native OLTP driver against sysbench 1.0.20 through a proxy: haproxy in
# TCP mode, from a socket of its own to a private mariadbd's, both drivers on
# the same data in the same run, alternating so that drift hits both.  Prints
# per thread count the ratios of TPS and of client CPU per transaction, then
# what the proxy costs: its own CPU per transaction under each driver (utime
# and stime from /proc/PID/stat around each step), and the native driver's
# TPS through the proxy against direct (one direct step a round).
#
#   bench/proxy-vs-sysbench.sh [--time SECONDS] [--threads "1 2 4"] [--rounds N]
#                              [--workload oltp_point_select|oltp_read_only]
set -euo pipefail

time_s=5 threads="1 2 4" rounds=3 tables=4 table_size=100000 workload=oltp_point_select
while [ $# -gt 0 ]; do
	case $1 in
	--time) time_s=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--workload) workload=$2; shift 2 ;;
	*) echo "usage: $0 [--time SECONDS] [--threads LIST] [--rounds N] [--workload NAME]" >&2; exit 2 ;;
	esac
done
case $workload in
oltp_point_select | oltp_read_only) ;;
*) echo "$0: --workload: oltp_point_select or oltp_read_only, not '$workload'" >&2; exit 2 ;;
esac

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools "$sb" sysbench mariadbd mariadb-install-db haproxy setpriv /usr/bin/time jq
make_workdir
start_mariadb
# Through the proxy the server sees haproxy's user, mysql, as the socket's
# peer: that account (mariadb-install-db makes it for --user=mysql), by
# unix_socket as root's, is the one both drivers use.
mariadb -S "$sock" -uroot -e "CREATE DATABASE sbtest;
	CREATE USER IF NOT EXISTS 'mysql'@'localhost' IDENTIFIED VIA unix_socket; GRANT ALL ON *.* TO 'mysql'@'localhost'"

# The proxy runs as mysql, so that its socket can sit in mysql's 0700 run
# directory beside the server's; the timeouts outlast any step.
proxy_sock=$work/run/haproxy.sock
cat >"$work/haproxy.cfg" <<EOF
global
	maxconn 4096
defaults
	mode tcp
	timeout connect 10s
	timeout client 24h
	timeout server 24h
listen slicebench
	bind $proxy_sock
	server db $sock
EOF
# exec'd by setpriv, so that $! is haproxy itself (-db: in the foreground)
setpriv --reuid=mysql --regid=mysql --init-groups -- haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
proxy_pid=$!
stop_on_exit "$proxy_pid"
for _ in $(seq 50); do
	mariadb -S "$proxy_sock" -umysql -e 'SELECT 1' >/dev/null 2>&1 && break
	sleep 0.2
done
mariadb -S "$proxy_sock" -umysql -e 'SELECT 1' >/dev/null || { cat "$work/haproxy.log" >&2; exit 1; }
hz=$(getconf CLK_TCK)
proxy_cpu_s() { awk -v hz="$hz" '{ print ($14 + $15) / hz }' "/proc/$proxy_pid/stat"; }

"$sb" prepare --socket "$sock" --tables $tables --table-size $table_size >/dev/null
"$sb" sweep --socket "$sock" --tables $tables --table-size $table_size --threads 1 --duration 1s >/dev/null

echo "# $workload through haproxy $(haproxy -v | awk 'NR == 1 { print $3 }'), $tables x $table_size rows, ${time_s}s steps, $rounds alternating rounds, medians"
printf '%8s %12s %12s %7s %14s %14s %7s\n' threads sysbench_tps native_tps ratio sysbench_us/tx native_us/tx ratio
printf '%8s %16s %16s %7s %12s %14s\n' threads proxy_us/tx,sb proxy_us/tx,nat ratio direct_tps proxied/direct >"$work/proxy"
for t in $threads; do
	for f in s.tps n.tps d.tps s.cpu n.cpu s.proxy n.proxy; do : >"$work/$f"; done
	for _ in $(seq "$rounds"); do
		for driver in sysbench native; do
			p0=$(proxy_cpu_s)
			step "$driver" "$proxy_sock" mysql "$t"
			p1=$(proxy_cpu_s)
			echo "$tps" >>"$work/${driver:0:1}.tps"
			us_per "$(cpu_s "$work/time")" "$txns" >>"$work/${driver:0:1}.cpu"
			us_per "$(awk -v a="$p0" -v b="$p1" 'BEGIN { print b - a }')" "$txns" >>"$work/${driver:0:1}.proxy"
		done
		step native "$sock" root "$t"
		echo "$tps" >>"$work/d.tps"
	done
	s_tps=$(median <"$work/s.tps") n_tps=$(median <"$work/n.tps") d_tps=$(median <"$work/d.tps")
	s_cpu=$(median <"$work/s.cpu") n_cpu=$(median <"$work/n.cpu")
	s_proxy=$(median <"$work/s.proxy") n_proxy=$(median <"$work/n.proxy")
	printf '%8s %12.1f %12.1f %7s %14.1f %14.1f %7s\n' "$t" "$s_tps" "$n_tps" "$(ratio "$n_tps" "$s_tps")" \
		"$s_cpu" "$n_cpu" "$(ratio "$n_cpu" "$s_cpu")"
	printf '%8s %16.1f %16.1f %7s %12.1f %14s\n' "$t" "$s_proxy" "$n_proxy" "$(ratio "$n_proxy" "$s_proxy")" \
		"$d_tps" "$(ratio "$n_tps" "$d_tps")" >>"$work/proxy"
done
echo
echo "# the proxy's CPU per transaction under each driver; native TPS through it against direct"
cat "$work/proxy"
echo
echo "errors (ignorable, reconnect, fatal), all steps: $errors"
