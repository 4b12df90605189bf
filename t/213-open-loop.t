#!/bin/bash
# The open loop (issue 44): rate = N (sweep --rate N) sends transactions
# at N a second in all, a Poisson stream, whatever the server's pace, and
# times each from its intended start.  Checked against the real tools in
# the same run: sysbench --rate (whose latency is from the actual start,
# as our service time is) and pgbench --rate (from the scheduled start, as
# ours); a server that cannot keep up leaves arrivals waiting, and their
# lag shows in the latency; latency-limit skips the arrivals already late
# at their turn and counts them, natively and in pgbench --latency-limit's
# log; constant arrivals (the native driver's) are even to the second; a
# full experiment against a context under a CPU quota gives the p50, p95
# and p99 latencies a table of ratios each, the slower one shown, names
# the steps whose arrivals outran the server and gives each cell's late
# share; a rate out of bounds, a latency limit without a rate or with
# sysbench, constant arrivals through a tool, or a results directory
# whose open_loop is malformed, is refused with exit 2 and the file, line
# and key.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
command -v sysbench >/dev/null || sandbox_skip_all "needs sysbench"
[ -x /usr/lib/postgresql/15/bin/pgbench ] || sandbox_skip_all "needs PostgreSQL 15's pgbench"
command -v jq >/dev/null || sandbox_skip_all "needs jq"
scratch=$(mktemp -d /tmp/slicebench-t213.XXXXXX) || exit 1
# the server's account reaches its state under it
chmod 755 "$scratch"
# its own state: no other run's lock to wait for
export SLICEBENCH_STATE_DIR=$scratch/state SLICEBENCH_RUN_DIR=$scratch/run
trap '"$SLICEBENCH" cleanup >/dev/null 2>&1; [ "$failed" = 0 ] && rm -rf "$scratch" || echo "# kept: $scratch"' EXIT
echo "1..18"

# sweep NAME ARGS...: one step's record in $scratch/NAME.json
sweep() {
	local name=$1
	shift
	"$SLICEBENCH" sweep --context raw --duration "${duration:-3s}" --warmup 1s --json "$@" >"$scratch/$name.json" \
		2>"$scratch/$name.err"
}
# step NAME FILTER: its step passes FILTER (an empty record does not)
step() { jq -s -e ".[0].steps[0] | $2" "$scratch/$1.json" >/dev/null; }

sweep native --threads 4 --rate 500 --tables 1 --table-size 10000
step native '.failed == false and (.tps > 425 and .tps < 575) and .open_loop.rate == 500 and
	.open_loop.latency_from == "intended" and .latency_ms.p50 >= .open_loop.service_ms.p50 and
	.latency_ms.p99 >= .open_loop.service_ms.p99 and .open_loop.lag_ms.avg >= 0 and
	.open_loop.backlog_at_end <= 5 + 0.01 * .transactions'
ok $? "native at 500/s, 4 threads: TPS within 15% of the rate, latency from the intended start at or above the service time, no backlog" "$scratch/native.json"

# one every 2 ms: each second completes 500, give or take the one in flight
sweep constant --threads 4 --rate 500 --arrivals constant --tables 1 --table-size 10000
step constant '.failed == false and .open_loop.arrivals == "constant" and (.tps > 490 and .tps < 510) and
	([.intervals_tps[] | select(. < 490 or . > 510)] | length == 0)'
ok $? "--arrivals constant at 500/s: every second's completions within 2% of 500" "$scratch/constant.json"

sweep sysbench --threads 4 --rate 500 --tables 1 --table-size 10000 --driver sysbench
step sysbench '.failed == false and .driver == "sysbench" and (.tps > 425 and .tps < 575) and
	.open_loop.latency_from == "start" and .open_loop.lag_ms.avg == null'
ok $? "sysbench --rate 500 keeps the same rate; its latencies said to be from the actual start" "$scratch/sysbench.json"

# the two service times, each from the actual start, at the same rate on one server
native_p50=$(jq '.steps[0].open_loop.service_ms.p50' "$scratch/native.json")
sysbench_p50=$(jq '.steps[0].latency_ms.p50' "$scratch/sysbench.json")
awk -v a="$native_p50" -v b="$sysbench_p50" 'BEGIN { exit !(a > 0 && b > 0 && a / b < 3 && b / a < 3) }'
ok $? "the native service time's median ($native_p50 ms) within 3x of sysbench --rate's latency median ($sysbench_p50 ms)"

# 1 thread cannot do 50000 a second: the arrivals wait, and the wait is the latency
duration=2s sweep overload --threads 1 --rate 50000 --tables 1 --table-size 10000
step overload '.failed == false and .tps < 25000 and .open_loop.backlog_at_end > 10000 and
	.open_loop.lag_ms.avg > 100 and .latency_ms.p50 > 10 * .open_loop.service_ms.p50 and
	.open_loop.lag_ms.max >= .open_loop.lag_ms.avg'
ok $? "at 50000/s on one thread: arrivals left waiting, a lag above 100 ms, latency 10x the service time" "$scratch/overload.json"

# a 5 ms limit at 50000/s: nearly every arrival is already late at its turn, and skipped
duration=2s sweep limited --threads 1 --rate 50000 --latency-limit 5ms --tables 1 --table-size 10000
step limited '.failed == false and .open_loop.latency_limit_ms == 5 and .open_loop.skipped > 10000 and
	.open_loop.late >= 0 and .open_loop.late <= .transactions and .latency_ms.p50 < 50'
ok $? "with --latency-limit 5ms at 50000/s: arrivals already late are skipped and counted, and those run are not charged a backlog" "$scratch/limited.json"

sweep pg-native --engine postgresql --workload select-only --threads 4 --rate 500
sweep pgbench --engine postgresql --workload select-only --threads 4 --rate 500 --driver pgbench
step pg-native '.failed == false and (.tps > 425 and .tps < 575) and .open_loop.latency_from == "intended" and
	.latency_ms.avg >= .open_loop.service_ms.p50 * 0.5' &&
	step pgbench '.failed == false and .driver == "pgbench" and (.tps > 425 and .tps < 575) and
	.open_loop.latency_from == "intended" and .open_loop.lag_ms.avg >= 0 and .open_loop.service_ms.p50 > 0'
ok $? "select-only at 500/s, native and pgbench --rate: both keep the rate, latencies from the scheduled start, pgbench's lag read from its log" \
	"$scratch/pg-native.json" "$scratch/pgbench.json"
duration=2s sweep pg-limited --engine postgresql --workload select-only --threads 1 --rate 50000 --latency-limit 5ms
duration=2s sweep pgbench-limited --engine postgresql --workload select-only --threads 1 --rate 50000 --latency-limit 5ms --driver pgbench
step pg-limited '.failed == false and .open_loop.skipped > 10000' &&
	step pgbench-limited '.failed == false and .open_loop.latency_limit_ms == 5 and .open_loop.skipped > 10000'
ok $? "select-only at 50000/s with a 5 ms limit: native and pgbench --latency-limit both skip and count (pgbench's from its log)" \
	"$scratch/pg-limited.json" "$scratch/pgbench-limited.json"
native_avg=$(jq '.steps[0].latency_ms.avg' "$scratch/pg-native.json")
pgbench_avg=$(jq '.steps[0].latency_ms.avg' "$scratch/pgbench.json")
awk -v a="$native_avg" -v b="$pgbench_avg" 'BEGIN { exit !(a > 0 && b > 0 && a / b < 3 && b / a < 3) }'
ok $? "the native mean latency from the scheduled start ($native_avg ms) within 3x of pgbench --rate's ($pgbench_avg ms)"

cat >"$scratch/ol.ini" <<'EOF2'
[experiment]
description = t213: an open loop at 800/s against a server under a 30% CPU quota
threads = 2
warmup = 1s
duration = 3s
repeat = 3
rate = 800
latency-limit = 50ms
tables = 1
table-size = 10000
baseline = fast

[server]
buffer-pool = 128M

[context fast]
kind = raw

[context slow]
kind = raw
CPUQuota = 30%
EOF2
"$SLICEBENCH" run "$scratch/ol.ini" --out "$scratch/ol" >"$scratch/ol.out" 2>&1
ok $? "the open-loop experiment runs (two raw contexts, 3 repeats)" "$scratch/ol.out"
jq -s -e 'length == 6 and all(.[]; .open_loop.rate == 800 and .failed == false)' "$scratch/ol"/steps/*.json >/dev/null
ok $? "each of its 6 steps records its open loop at 800/s"
"$SLICEBENCH" report "$scratch/ol" --format json >"$scratch/ol-report.json" 2>"$scratch/ol-report.err" &&
	jq -e '.open_loop | .rate == 800 and .unit == "ms" and .latency.p99.family == 1 and
		(.latency.p99.rows[0].cells[1] | .ratio > 2 and .ratio_lo > 1 and .significant == true) and
		(.latency.p50.rows[0].cells[1] | .ratio > 2 and .ratio_lo > 1) and .latency.p95.rows[0].cells[0].n == 3 and
		(.outran | length >= 1 and all(.[]; .context == "slow" and .backlog_at_end > 0)) and
		.latency_limit_ms == 50 and .late.rows[0].cells[0].median < 0.05 and .late.rows[0].cells[1].median > 0.2' \
		"$scratch/ol-report.json" >/dev/null
ok $? "its report: the quota's p50 and p99 latencies above 2x the baseline's, shown (interval above 1), the slow steps named as outrun, over a fifth of its arrivals late against 50 ms, under 5% of the baseline's" \
	"$scratch/ol-report.json" "$scratch/ol-report.err"
"$SLICEBENCH" report "$scratch/ol" >"$scratch/ol-report.txt" 2>&1 &&
	grep -q "^open loop: transactions arrived at 800 a second" "$scratch/ol-report.txt" &&
	[ "$(grep -c "^p[0-9]* latency (ms) from each transaction's intended start" "$scratch/ol-report.txt")" = 3 ] &&
	grep -q "^outran: in [0-9]* steps\? more than 1% of the arrivals" "$scratch/ol-report.txt" &&
	grep -q "^late: the share of the arrivals above the latency limit of 50 ms" "$scratch/ol-report.txt" &&
	"$SLICEBENCH" report "$scratch/ol" --format html | grep -q '<h2 id="latency-h">Latency at a fixed rate</h2>'
ok $? "the text says the rate, the p50, p95 and p99 tables and the outrun steps; the page has its section" "$scratch/ol-report.txt"

for bad in 0 10000001; do
	sed -e "s/^rate = .*/rate = $bad/" "$scratch/ol.ini" >"$scratch/bad.ini"
	"$SLICEBENCH" run "$scratch/bad.ini" --out "$scratch/bad-out" >"$scratch/bad.out" 2>&1
	rc=$?
	[ "$rc" = 2 ] && grep -q "bad.ini:7: rate: " "$scratch/bad.out" && [ ! -e "$scratch/bad-out" ] || break
done
ok $? "rate = $bad: exit 2 ($rc) with bad.ini:7 and the key, nothing written" "$scratch/bad.out"
sed -e '/^rate = /d' "$scratch/ol.ini" >"$scratch/bad.ini"
"$SLICEBENCH" run "$scratch/bad.ini" --out "$scratch/bad-out" >"$scratch/bad.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "bad.ini:7: latency-limit: only with rate" "$scratch/bad.out" && [ ! -e "$scratch/bad-out" ]
ok $? "latency-limit without rate: exit 2 ($rc), bad.ini:7 and the key" "$scratch/bad.out"
sed -e 's/^rate = 800/&\ndriver = sysbench/' "$scratch/ol.ini" >"$scratch/bad.ini"
"$SLICEBENCH" run "$scratch/bad.ini" --out "$scratch/bad-out" >"$scratch/bad.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "bad.ini:9: latency-limit: sysbench has no latency limit" "$scratch/bad.out" && [ ! -e "$scratch/bad-out" ]
ok $? "latency-limit with driver = sysbench: exit 2 ($rc), bad.ini:9 and the key" "$scratch/bad.out"

sed -e 's/^rate = 800/&\ndriver = pgbench\narrivals = constant/' -e '/^latency-limit/d' \
	-e 's/^\[server\]/&\nengine = postgresql/' -e 's/^tables = 1/scale = 1/' -e '/^table-size/d' \
	"$scratch/ol.ini" >"$scratch/bad.ini"
"$SLICEBENCH" run "$scratch/bad.ini" --out "$scratch/bad-out" >"$scratch/bad.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "bad.ini:9: arrivals: pgbench's --rate makes a Poisson stream only" "$scratch/bad.out" &&
	[ ! -e "$scratch/bad-out" ]
ok $? "arrivals = constant with driver = pgbench: exit 2 ($rc), bad.ini:9 and the key" "$scratch/bad.out"

cp -r "$scratch/ol" "$scratch/mangled"
f=$(ls "$scratch/mangled"/steps/*.json | head -1)
jq '.open_loop.rate = "fast"' "$f" >"$scratch/step.new" && mv "$scratch/step.new" "$f"
"$SLICEBENCH" report "$scratch/mangled" >"$scratch/mangled.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "open_loop.rate" "$scratch/mangled.out"
ok $? "a step whose open_loop.rate is not a number: report exits 2 ($rc) and names open_loop.rate" "$scratch/mangled.out"
exit $failed
