#!/bin/bash
# The native pgbench driver against the real pgbench 15, on the same server
# and the same data in the same run, alternating the two so that drift hits
# both.  Prints ratios: prepare time (slicebench prepare against pgbench -i),
# TPS and client CPU per transaction at each client count (-M prepared,
# select-only, 2 client threads), and errors, which must be none at 800
# (each one's first message is printed under the table).
#
#   bench/pgbench-vs-native.sh [--time SECONDS] [--warmup SECONDS] [--clients "1 8 64 800"] [--rounds N] [--scale N] [--jobs N]
set -euo pipefail

time_s=10 warmup_s=3 clients="1 8 64 800" rounds=3 scale=10 jobs=2
while [ $# -gt 0 ]; do
	case $1 in
	--time) time_s=$2; shift 2 ;;
	--warmup) warmup_s=$2; shift 2 ;;
	--clients) clients=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--scale) scale=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	*) echo "usage: $0 [--time SECONDS] [--warmup SECONDS] [--clients LIST] [--rounds N] [--scale N] [--jobs N]" >&2; exit 2 ;;
	esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
sb=${SLICEBENCH:-$top/slicebench}
bin=/usr/lib/postgresql/15/bin
for tool in "$sb" "$bin/initdb" "$bin/postgres" "$bin/pgbench" "$bin/psql" jq; do
	command -v "$tool" >/dev/null || { echo "$0: $tool is missing (make deps; make)" >&2; exit 2; }
done
getent passwd postgres >/dev/null || { echo "$0: no postgres user (apt-get install postgresql-15)" >&2; exit 2; }
max=0
for c in $clients; do [ "$c" -gt "$max" ] && max=$c; done

work=$(mktemp -d /tmp/slicebench-bench.XXXXXX)
chmod 0755 "$work"
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill -INT "$server_pid" 2>/dev/null || true # fast shutdown
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT

mkdir -p "$work/data" "$work/run"
chown postgres: "$work/data" "$work/run" && chmod 0700 "$work/data" "$work/run"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; }
as_postgres "$bin/initdb" -D "$work/data" -U root --auth-local=peer --auth-host=reject -E UTF8 \
	--locale=C >"$work/initdb.log" 2>&1
cat >"$work/postgresql.conf" <<EOF
data_directory = '$work/data'
hba_file = '$work/data/pg_hba.conf'
ident_file = '$work/data/pg_ident.conf'
listen_addresses = ''
unix_socket_directories = '$work/run'
max_connections = $((max + 50))
shared_buffers = 1GB
EOF
# exec'd by setpriv, so that $! is the postmaster itself
setpriv --reuid=postgres --regid=postgres --init-groups -- "$bin/postgres" --config-file="$work/postgresql.conf" >"$work/postgres.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
	"$bin/pg_isready" -q -h "$work/run" -U root -d postgres && break
	sleep 0.2
done
psql() { "$bin/psql" -X -q -h "$work/run" -U root "$@"; }
psql -d postgres -c 'CREATE DATABASE pgbench' -c 'CREATE DATABASE pgbench_tool'

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
elapsed() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { print e - s }'; }

# Each load starts from no tables and a CHECKPOINT, so that neither pays
# for writing out the other's pages; the two take turns going first.
tables=pgbench_accounts,pgbench_branches,pgbench_tellers,pgbench_history
prepare_pgbench() { "$bin/pgbench" -i -q -s "$scale" -h "$work/run" -U root pgbench_tool >"$work/init.log" 2>&1; }
prepare_native() { "$sb" prepare --socket "$work/run" --workload select-only --scale "$scale"; }
time_prepare() { # $1: pgbench or native, $2: database
	psql -d "$2" -c 'SET client_min_messages = warning' -c "DROP TABLE IF EXISTS $tables" -c CHECKPOINT
	local start
	start=$(date +%s.%N)
	"prepare_$1"
	elapsed "$start" >>"$work/$1.prepare"
}
echo "# prepare, scale $scale ($((scale * 100000)) accounts), $rounds alternating rounds, medians"
: >"$work/pgbench.prepare"; : >"$work/native.prepare"
for round in $(seq "$rounds"); do
	if [ $((round % 2)) = 1 ]; then
		time_prepare pgbench pgbench_tool; time_prepare native pgbench
	else
		time_prepare native pgbench; time_prepare pgbench pgbench_tool
	fi
done
pgbench_prepare=$(median <"$work/pgbench.prepare") native_prepare=$(median <"$work/native.prepare")
printf 'pgbench -i %.2fs  slicebench prepare %.2fs  speed-up %sx  (pgbench -i: %s; slicebench: %s)\n' \
	"$pgbench_prepare" "$native_prepare" "$(ratio "$pgbench_prepare" "$native_prepare")" \
	"$(xargs printf '%.2f ' <"$work/pgbench.prepare")" "$(xargs printf '%.2f ' <"$work/native.prepare")"
# Both drivers measure the same data from here on: slicebench's.
"$sb" sweep --socket "$work/run" --workload select-only --scale "$scale" --threads 1 --duration 1s >/dev/null

# One step by driver $1 at $2 clients -> "tps transactions errors us_per_tx".
# Both drivers connect every client before the clock starts and count
# nothing in the warm-up (800 fresh backends' first queries among it);
# client CPU is the client process's (pgbench's, or slicebench's) in the
# measured seconds only, from the step's telemetry.
run_step() {
	"$sb" sweep --socket "$work/run" --workload select-only --scale "$scale" --no-prewarm --driver "$1" \
		--client-threads "$jobs" --threads "$2" --warmup "$warmup_s"s --duration "$time_s"s --json >"$work/out" || true
	jq -r '.steps[0] | "\(.tps) \(.transactions) \(.errors.ignorable + .errors.reconnect + .errors.fatal + (if .failed then 1 else 0 end)) \(if .transactions > 0 and .cpu_per_s.client != null then .cpu_per_s.client * .duration_s / .transactions * 1e6 else 0 end)"' "$work/out"
	jq -r --arg c "$2" --arg d "$1" '.steps[0] | select(.failed) | "\($c) clients, \($d): \(.reason)"' "$work/out" >>"$work/why" || true
}

echo
echo "# select-only -M prepared, $jobs client threads, ${warmup_s}s warm-up, ${time_s}s steps, $rounds alternating rounds, medians"
printf '%8s %12s %12s %7s %14s %14s %7s %8s %8s\n' clients pgbench_tps native_tps ratio pgbench_us/tx native_us/tx \
	ratio pg_errs nat_errs
for c in $clients; do
	: >"$work/p.tps"; : >"$work/n.tps"; : >"$work/p.cpu"; : >"$work/n.cpu"
	p_err=0 n_err=0
	for _ in $(seq "$rounds"); do
		read -r tps _ errs cpu < <(run_step pgbench "$c")
		echo "$tps" >>"$work/p.tps"
		echo "$cpu" >>"$work/p.cpu"
		p_err=$((p_err + errs))
		read -r tps _ errs cpu < <(run_step slicebench "$c")
		echo "$tps" >>"$work/n.tps"
		echo "$cpu" >>"$work/n.cpu"
		n_err=$((n_err + errs))
	done
	p_tps=$(median <"$work/p.tps") n_tps=$(median <"$work/n.tps")
	p_cpu=$(median <"$work/p.cpu") n_cpu=$(median <"$work/n.cpu")
	printf '%8s %12.1f %12.1f %7s %14.1f %14.1f %7s %8s %8s\n' "$c" "$p_tps" "$n_tps" "$(ratio "$n_tps" "$p_tps")" \
		"$p_cpu" "$n_cpu" "$(ratio "$n_cpu" "$p_cpu")" "$p_err" "$n_err"
done
if [ -s "$work/why" ]; then
	echo
	echo "# errors and failed steps"
	sort "$work/why" | uniq -c
fi
