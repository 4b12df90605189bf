#!/bin/bash
# A stalled server is not a good step: SIGSTOP of the server 1 s into a 5 s
# step, SIGCONT 6 s later.  The step has an interval for each of its 5
# seconds (zeros where nothing completed), is failed with the gap of its
# last seconds named (from the 2nd, or a later one when load delays the
# stop; one silent second is not a stall: t/063), and the transactions in
# flight at its end count in its latency (max > 3 s).
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
echo "1..5"
server_scratch
trap 'servers | xargs -r kill -CONT; servers | xargs -r kill -9; rm -rf "$scratch"' EXIT

"$SLICEBENCH" sweep --context raw --threads 2 --duration 5 --table-size 1000 --progress --json >"$scratch/out.json" 2>"$scratch/err" &
pid=$!
# The datadir is made and loaded first: under load that takes more than 30 s.
for _ in $(seq 2400); do grep -q '^\[ 1s \]' "$scratch/err" && break; sleep 0.05; done
server=$(servers)
kill -STOP $server
sleep 6
kill -CONT $server
wait $pid; rc=$?
get() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["steps"][0]; v=eval(sys.argv[2]); print(v)' "$scratch/out.json" "$1" 2>&1; }
[ "$(get 'len(s["intervals_tps"])')" = 5 ]
ok $? "the 5 s step has 5 intervals ($(get 's["intervals_tps"]'))" "$scratch/err"
[ "$(get 's["failed"]')" = True ] && [[ "$(get 's.get("reason","")')" == "a stall: no transaction completed in seconds "[234]"-5 of 5 ("* ]]
ok $? "it is failed with the gap named ($(get 's.get("reason","")'))" "$scratch/err"
[ "$(get 's["stalled_s"] >= 2')" = True ]
ok $? "stalled_s is recorded ($(get 's["stalled_s"]'))"
[ "$(get 's["in_flight_at_end"] >= 1 and s["latency_ms"]["max"] > 3000')" = True ]
ok $? "the transactions in flight at the end count in the latency (in flight: $(get 's["in_flight_at_end"]'), max $(get 's["latency_ms"]["max"]') ms)"
[ $rc = 1 ]
ok $? "the sweep exits 1 (got $rc)" "$scratch/err"
exit $failed
