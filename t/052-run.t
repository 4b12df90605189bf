#!/bin/bash
# slicebench run on the host with raw contexts: the results directory holds
# a step file per (context, repeat, threads) with TPS above zero, results.json
# and results.csv agree, repeats are interleaved, report renders the table,
# each unit's placement records its settings as written, resolved and read
# back, and diff of two contexts shows them,
# a second run into the same directory is refused, SIGINT mid-run exits 130
# keeping the finished steps and leaving no server or cgroup, and --resume
# runs only what is missing.
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=${SLICEBENCH_TOP:-.}
exp=$top/t/fixtures/run/two-raw.ini
needs BINARY ROOT MYSQLD
echo "1..22"
server_scratch
trap 'servers | xargs -r kill -9; rm -rf "$scratch"' EXIT
steps() { ls "$1/steps" 2>/dev/null | wc -l; }

"$SLICEBENCH" run "$exp" --out "$scratch/res" >"$scratch/out" 2>"$scratch/err"
ok $? "run two-raw exits 0" "$scratch/err"
[ "$(steps "$scratch/res")" = 8 ]
ok $? "8 step files: 2 contexts x 2 repeats x 2 thread counts (got $(steps "$scratch/res"))"
python3 - "$scratch/res/results.json" >"$scratch/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
steps = d["steps"]
assert len(steps) == 8, len(steps)
assert all(s["tps"] > 0 and not s["failed"] for s in steps), [s["tps"] for s in steps]
assert sorted({s["context"] for s in steps}) == ["inherit", "newsession"]
assert sorted({s["repeat"] for s in steps}) == [1, 2]
assert d["experiment"]["baseline"] == "inherit" and d["host"]["format_version"] == 1
print("ok")
PY
ok $? "results.json: 8 steps with TPS above zero, both contexts, repeats 1 and 2, host facts" "$scratch/check"
[ "$(tail -n +2 "$scratch/res/results.csv" | wc -l)" = 8 ]
ok $? "results.csv has a row per step"
order=$(grep -o 'unit [0-9]/4 [a-z]*-v1-r[0-9]' "$scratch/err" | awk '{print $3}' | uniq | tr '\n' ' ')
python3 - "$scratch/res" "$order" >"$scratch/check" 2>&1 <<'PY'
import json, sys
d, ran = sys.argv[1], sys.argv[2].split()
s = json.load(open(d + "/schedule.json"))
assert s["order"] == "random" and isinstance(s["seed"], int), s
units = [u for r in s["rounds"] for u in r["units"]]
assert units == ran, (units, ran)
for r in s["rounds"]:
    assert sorted(r["units"]) == ["inherit-v1-r%d" % r["round"], "newsession-v1-r%d" % r["round"]], r
steps = json.load(open(d + "/results.json"))["steps"]
assert all(st["slot"] == s["rounds"][st["repeat"] - 1]["units"].index(st["unit"]) + 1 and st["started_at"] > 1.7e9
           for st in steps), [(st["unit"], st["slot"]) for st in steps]
print("ok")
PY
ok $? "every round runs each context once in the order schedule.json records, with its seed; each step its slot and start (ran: $order)" "$scratch/check"
grep -q '^threads .*inherit.*newsession' "$scratch/out" && grep -q '^1 ' "$scratch/out" && grep -q '^2 ' "$scratch/out"
ok $? "the run ends with the TPS table, a row per thread count" "$scratch/out"
# The run ends with its answer; the whole report is report's.
"$SLICEBENCH" report "$scratch/res" >"$scratch/whole" 2>&1 &&
	grep -q '^placement differences, inherit | context' "$scratch/whole" && grep -q '^  newsession:$' "$scratch/whole" &&
	grep -q "^the whole report (noise, saturation, placements): slicebench report $scratch/res$" "$scratch/out"
ok $? "the report names the placements' differences from the baseline's unit (placements/inherit-v1-r1.json), and the run where it is" "$scratch/whole"
place=$scratch/res/placements/newsession-v1-r1.json
shares=cpu.shares=512; [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] && shares=cpu.weight=50
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(" | ".join(d.get(k, "(none)") for k in sys.argv[2:]))' "$place" setting.CPUWeight.written setting.CPUWeight.resolved \
	setting.CPUWeight.read in_force.CPUWeight)
[ "$got" = "50 | 50 | $shares | yes" ]
ok $? "a unit's placement records CPUWeight=50 as written, resolved and read back ($got)" "$place"
"$SLICEBENCH" diff "$scratch/res" inherit newsession >"$scratch/diff" 2>&1
[ "$(grep -A2 -x '  CPUWeight' "$scratch/diff" | tail -n 2 | tr -s ' ')" = " inherit: not set
 newsession: 50 -> 50 -> $shares: in force" ]
ok $? "diff of the two contexts shows CPUWeight= on each side" "$scratch/diff"
"$SLICEBENCH" report "$scratch/res" --format csv >"$scratch/csv" 2>&1
ok $? "report --format csv exits 0" "$scratch/csv"
# compare: the same run as if from another host.
cp -r "$scratch/res" "$scratch/intel" && rm -f "$scratch/intel/lock"
python3 -c 'import json,sys; p=sys.argv[1]; d=json.load(open(p)); d["cpu"]["vendor"]="TestVendor"; d["cpu"]["model"]="Test CPU"; json.dump(d, open(p, "w"))' "$scratch/intel/host.json"
"$SLICEBENCH" compare "$scratch/res" "$scratch/intel" >"$scratch/cmp" 2>&1
ok $? "compare of two results directories exits 0" "$scratch/cmp"
differing=$(awk '$NF == "differs" { print $1 }' "$scratch/cmp" | sort | tr '\n' ' ')
[ "$differing" = "cpu.model cpu.vendor " ] && grep -q '^cpu.vendor .* TestVendor' "$scratch/cmp" &&
	grep -q '^other host facts: no differences' "$scratch/cmp"
ok $? "compare shows exactly the host facts that differ (got: $differing)" "$scratch/cmp"
"$SLICEBENCH" run "$exp" --out "$scratch/res" >/dev/null 2>"$scratch/err"; rc=$?
[ $rc != 0 ] && grep -q 'already holds results' "$scratch/err"
ok $? "a second run into the same directory is refused (exit $rc)" "$scratch/err"
sum_before=$(cat "$scratch"/res/steps/* | md5sum)
"$SLICEBENCH" run "$exp" --resume "$scratch/res" >/dev/null 2>"$scratch/err"
[ $? = 0 ] && [ "$(cat "$scratch"/res/steps/* | md5sum)" = "$sum_before" ] && ! grep -q 'starting the server' "$scratch/err"
ok $? "--resume of a finished run starts no server and keeps every step" "$scratch/err"

# SIGINT once the first step file exists.
"$SLICEBENCH" run "$exp" --out "$scratch/int" >/dev/null 2>"$scratch/err" &
pid=$!
for _ in $(seq 300); do [ "$(steps "$scratch/int")" -ge 1 ] && break; sleep 0.1; done
kill -INT $pid
wait $pid; rc=$?
[ $rc = 130 ]
ok $? "SIGINT mid-run exits 130 (got $rc)" "$scratch/err"
kept=$(steps "$scratch/int")
[ "$kept" -ge 1 ] && [ "$kept" -lt 8 ]
ok $? "the finished steps are kept ($kept of 8)"
[ -z "$(servers)" ]
ok $? "no server is left running"
[ -z "$(find /sys/fs/cgroup -mindepth 1 -maxdepth 3 -type d -name "slicebench-raw-*-$pid" 2>/dev/null)" ]
ok $? "no cgroup of that run (slicebench-raw-*-$pid) is left"
"$SLICEBENCH" run "$exp" --resume "$scratch/int" >/dev/null 2>"$scratch/err"
[ $? = 0 ] && [ "$(steps "$scratch/int")" = 8 ]
ok $? "--resume runs the missing steps (now $(steps "$scratch/int") of 8)" "$scratch/err"

# SIGINT while the second unit's server starts: that unit's steps stay
# unrun (not recorded as failed), so that --resume runs them; and the
# server that never answered is killed, not given the 60 s grace of a
# stop (a SIGTERM that reaches mariadbd before it handles signals waits;
# the ^C took 60 s in two of three runs before, the CI run's among them).
"$SLICEBENCH" run "$exp" --out "$scratch/int3" >/dev/null 2>"$scratch/err" &
pid=$!
for _ in $(seq 300); do grep -q 'unit 2/4 .*starting the server' "$scratch/err" && break; sleep 0.05; done
sent=$(date +%s)
kill -INT $pid
wait $pid; rc=$?
took=$(($(date +%s) - sent))
failed_steps=$(cat "$scratch/int3"/steps/*.json 2>/dev/null | grep -c '"failed": *true')
[ $rc = 130 ] && [ "$(steps "$scratch/int3")" = 2 ] && [ "$failed_steps" = 0 ] && [ $took -lt 20 ]
ok $? "SIGINT during a server's start exits 130 in ${took}s and records none of its unit's steps (exit $rc, $(steps "$scratch/int3") steps, $failed_steps failed)" "$scratch/err"

# A second SIGINT while the first one's cleanup runs changes nothing.
"$SLICEBENCH" run "$exp" --out "$scratch/int2" >/dev/null 2>"$scratch/err" &
pid=$!
for _ in $(seq 300); do [ "$(steps "$scratch/int2")" -ge 1 ] && break; sleep 0.1; done
kill -INT $pid; sleep 0.1; kill -INT $pid 2>/dev/null
wait $pid; rc=$?
[ $rc = 130 ] && [ -z "$(servers)" ]
ok $? "two SIGINTs: exit 130 (got $rc) and no server left" "$scratch/err"
[ -z "$(find /sys/fs/cgroup -mindepth 1 -maxdepth 3 -type d -name "slicebench-raw-*-$pid" 2>/dev/null)" ] &&
	[ -z "$(ls "$scratch/state/live" 2>/dev/null)" ]
ok $? "and no cgroup or live record of that run is left"
exit $failed
