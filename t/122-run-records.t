#!/bin/bash
# What a run writes and counts, under hostile settings of its own caller:
# results.csv through the one CSV writer (a [vary] Environment= value with
# a quote and a comma reads back whole in Python's csv module); run and
# report count a step that completed no transaction alike (run --resume of
# a directory holding one: "1 failed", exit 1, and report's "1 of 2 starts
# failed"); under umask 000 nothing in the state directory is
# world-writable; a world-writable live/ is refused before the server
# starts; sweep's --threads past the managed server's connections, --duration 0
# and --client-cpus of a CPU the host lacks exit 2 before anything starts.
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
echo "1..9"
server_scratch
trap 'servers | xargs -r kill -9; rm -rf "$scratch"' EXIT
cat >"$scratch/quote.ini" <<'EOF'
[experiment]
threads = 1
duration = 1s
repeat = 2
tables = 1
table-size = 100
[context a]
kind = raw
[vary]
Environment = X=a"b,c X=plain
EOF

(umask 000 && "$SLICEBENCH" run "$scratch/quote.ini" --out "$scratch/res" --order fixed) >"$scratch/out" 2>&1
ok $? "a run of a [vary] Environment= with a quote and a comma, under umask 000" "$scratch/out"
python3 - "$scratch/res" >"$scratch/csv" 2>&1 <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/results.csv")))
steps = json.load(open(sys.argv[1] + "/results.json"))["steps"]
got = sorted(r["vary"] for r in rows)
want = sorted(s["vary_value"] for s in steps)
assert got == want and 'X=a"b,c' in got, (got, want)
print("ok", got)
PY
ok $? "results.csv reads back each value whole: $(cat "$scratch/csv")" "$scratch/csv"
ww=$(find "$SLICEBENCH_STATE_DIR" "$scratch/res" -perm -o+w ! -type l ! -type s 2>/dev/null | head -n 3)
[ -z "$ww" ]
ok $? "nothing world-writable in the state directory or the results (${ww:-none})"

# A step that completed no transaction, left by an earlier run: counted
# by run --resume as report counts it.
python3 - "$scratch/res/steps/a-v1-r1-t1.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s.update(tps=0, qps=0, transactions=0, queries=0)
json.dump(s, open(sys.argv[1], "w"))
PY
rm "$scratch/res/steps/a-v1-r2-t1.json" "$scratch/res/placements/a-v1-r2.json"
"$SLICEBENCH" run "$scratch/quote.ini" --resume "$scratch/res" >"$scratch/out" 2>&1; rc=$?
[ $rc = 1 ] && grep -q "finished: 4 steps, 1 failed" "$scratch/out"
ok $? "run --resume counts it failed, and exits 1 ($rc: $(grep -o 'finished: .* failed' "$scratch/out"))" "$scratch/out"
"$SLICEBENCH" report "$scratch/res" >"$scratch/report" 2>&1
grep -q "1 of 2 starts failed" "$scratch/report" && grep -q "1 of them completed no" "$scratch/report"
ok $? "report counts the same: $(grep -o '[0-9]* of [0-9]* starts failed' "$scratch/report" | head -n 1)" "$scratch/report"

chmod 0777 "$SLICEBENCH_STATE_DIR/live"
"$SLICEBENCH" place raw >"$scratch/out" 2>&1; rc=$?
[ $rc != 0 ] && grep -q "live: .*refused, since cleanup trusts the records there" "$scratch/out" && [ -z "$(servers)" ]
ok $? "a world-writable live/ is refused before the server starts (exit $rc)" "$scratch/out"
chmod 0700 "$SLICEBENCH_STATE_DIR/live"

# sweep: what failed only once its server ran.
swept() {
	timeout 60 "$SLICEBENCH" sweep --context raw "${@:3}" >"$scratch/out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -qF -- "$2" "$scratch/out" && [ -z "$(servers)" ]
	ok $? "$1: exit $rc, $(head -c 160 "$scratch/out")" "$scratch/out"
}
swept threads-over "sweep: --threads: 5000 threads need max-connections above 5000" --threads 5000
swept time-zero "sweep: --duration: bad value '0' (a duration" --duration 0
swept cpus-absent "sweep: --client-cpus: CPU 99 does not exist here" --client-cpus 99
exit $failed
