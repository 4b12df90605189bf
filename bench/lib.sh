# What the bench scripts share: the scratch directory and the processes
# stopped when the script ends, a private mariadbd, the two MySQL drivers
# and the arithmetic of the tables.  Sourced after `set -euo pipefail`.
# shellcheck shell=bash

bench_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sb=${SLICEBENCH:-$bench_top/slicebench}

need_tools() {
	local tool
	for tool; do
		command -v "$tool" >/dev/null || { echo "$0: $tool is missing (make deps; make)" >&2; exit 2; }
	done
}

# $work, a private directory, removed at exit after the processes given to
# stop_on_exit are stopped, the newest first (a proxy before its server).
bench_stops=()
make_workdir() {
	work=$(mktemp -d /tmp/slicebench-bench.XXXXXX)
	chmod 0755 "$work"
	trap bench_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}
stop_on_exit() { bench_stops=("$1:${2:-TERM}" "${bench_stops[@]}"); } # PID [SIGNAL]
bench_cleanup() {
	local stop
	for stop in "${bench_stops[@]}"; do
		kill -"${stop#*:}" "${stop%%:*}" 2>/dev/null || true
		wait "${stop%%:*}" 2>/dev/null || true
	done
	rm -rf "$work"
}

# mariadbd on $sock ($work/run/mysqld.sock, the run directory mysql's
# alone), root by unix_socket; $server_pid.  restart_mariadb starts it
# again on the same datadir, stop_mariadb stops it cleanly.
start_mariadb() {
	sock=$work/run/mysqld.sock
	mkdir -p "$work/run" && chown mysql: "$work" "$work/run" && chmod 0700 "$work/run"
	mariadb-install-db --user=mysql --datadir="$work/data" --auth-root-authentication-method=socket >"$work/install.log" 2>&1
	restart_mariadb
}
restart_mariadb() {
	mariadbd --no-defaults --user=mysql --datadir="$work/data" --socket="$sock" --skip-networking \
		--innodb-buffer-pool-size=1G --max-connections=2000 --log-error="$work/error.log" &
	server_pid=$!
	stop_on_exit "$server_pid"
	for _ in $(seq 300); do
		mariadb -S "$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "$0: mariadbd did not answer on $sock (its log: $work/error.log)" >&2
	exit 1
}
stop_mariadb() {
	kill -TERM "$server_pid"
	wait "$server_pid" 2>/dev/null || true
}

# $1: output file, the rest: command.  Writes "user sys maxrss_kb" to $1.
timed() { local out=$1; shift; /usr/bin/time -f '%U %S %M' -o "$out" "$@"; }
cpu_s() { awk '{ print $1 + $2 }' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
elapsed() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { print e - s }'; }
us_per() { awk -v s="$1" -v n="$2" 'BEGIN { print (n > 0) ? s / n * 1e6 : 0 }'; } # seconds, transactions

# One step of $workload on sbtest ($tables x $table_size rows) by each
# driver: socket, user, threads, seconds -> "tps transactions errors", the
# client's times in $work/time.
# shellcheck disable=SC2154 # $workload, $tables, $table_size: the script's
run_sysbench() {
	timed "$work/time" sysbench "$workload" --mysql-socket="$1" --mysql-user="$2" --mysql-db=sbtest \
		--tables="$tables" --table-size="$table_size" --threads="$3" --time="$4" run >"$work/out"
	awk '/transactions:/ { t = $2; tps = substr($3, 2) } /ignored errors:/ { e = $3 } END { print tps, t, e }' "$work/out"
}
# $native_extra: more options of sweep's (--without FIGURE,...).
# shellcheck disable=SC2154,SC2086
run_native() {
	timed "$work/time" "$sb" sweep --socket "$1" --user "$2" --tables "$tables" --table-size "$table_size" \
		--no-prewarm --workload "$workload" --threads "$3" --duration "$4"s --json ${native_extra:-} >"$work/out"
	jq -r '.steps[0] | "\(.tps) \(.transactions) \(.errors.ignorable + .errors.reconnect + .errors.fatal)"' "$work/out"
}

# The client's own start and end, which a step's CPU per transaction would
# otherwise share out over its transactions (libraries loaded, the dataset
# checked, connecting and preparing, the report): $1 driver on socket $2 as
# $3, the median CPU seconds of three runs of one event at 1 thread, into
# $startup_cpu.  cpu_per_tx subtracts it.
# shellcheck disable=SC2154
startup_of() {
	: >"$work/startup"
	for _ in 1 2 3; do
		if [ "$1" = sysbench ]; then
			timed "$work/time" sysbench "$workload" --mysql-socket="$2" --mysql-user="$3" --mysql-db=sbtest \
				--tables="$tables" --table-size="$table_size" --threads=1 --events=1 --time=0 run >/dev/null
		else
			timed "$work/time" "$sb" sweep --socket "$2" --user "$3" --tables "$tables" --table-size "$table_size" \
				--no-prewarm --workload "$workload" --threads 1 --events 1 --json >/dev/null
		fi
		cpu_s "$work/time" >>"$work/startup"
	done
	startup_cpu=$(median <"$work/startup")
}
# us of CPU per transaction of the last step ($work/time, $txns), less a
# start-up of $1 seconds.
cpu_per_tx() { us_per "$(awk -v c="$(cpu_s "$work/time")" -v s="$1" 'BEGIN { print (c > s) ? c - s : 0 }')" "$txns"; }

# One step of a driver (sysbench or native) on socket as user at a thread
# count for $time_s seconds: $tps, $txns and $step_errors, summed into
# $errors; the client's times in $work/time.  A step without transactions
# ends the run with the driver's output.
errors=0
# shellcheck disable=SC2154,SC2034 # $time_s: the script's; $tps, $txns: for it
step() {
	"run_$1" "$2" "$3" "$4" "$time_s" >"$work/step"
	read -r tps txns step_errors <"$work/step"
	step_errors=${step_errors:-0}
	errors=$((errors + step_errors))
	[ "${txns:-0}" -gt 0 ] || { echo "$0: $1 on $2, $4 threads: no transactions" >&2; cat "$work/out" >&2; exit 1; }
}
