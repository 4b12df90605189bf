#!/bin/bash
# A killed run and slicebench cleanup: SIGKILL of a sweep leaves its raw
# server, its socket and cgroup behind with a record under STATE/live/;
# cleanup names and removes exactly those, a second cleanup finds nothing, and a second
# slicebench on a locked state directory is refused.
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
echo "1..10"
server_scratch
raw_cgroups() { find /sys/fs/cgroup -mindepth 1 -maxdepth 2 -type d -name "slicebench-raw-sweep-raw-$1" 2>/dev/null; }
trap 'servers | xargs -r kill -9; sleep 0.5; for d in $(raw_cgroups "*"); do rmdir "$d"; done; rm -rf "$scratch"' EXIT

"$SLICEBENCH" sweep --context raw -p CPUWeight=50 --threads 1 --duration 60 >/dev/null 2>"$scratch/err" &
pid=$!
for _ in $(seq 300); do [ -n "$(ls "$scratch/state/live" 2>/dev/null)" ] && servers >/dev/null && break; sleep 0.1; done
sleep 2 # into the step
"$SLICEBENCH" sweep --context raw --threads 1 --duration 1 >/dev/null 2>"$scratch/err2"; rc=$?
[ $rc = 1 ] && grep -q "another slicebench (PID $pid) is using" "$scratch/err2"
ok $? "a second sweep on the same state directory is refused, naming PID $pid (exit $rc)" "$scratch/err2"
"$SLICEBENCH" cleanup >"$scratch/out" 2>&1; rc=$?
[ $rc = 1 ] && grep -q "PID $pid is running" "$scratch/out" && servers >/dev/null
ok $? "cleanup leaves a live run alone (exit $rc)" "$scratch/out"
kill -9 $pid; wait $pid 2>/dev/null
server=$(servers)
[ -n "$server" ] && [ -n "$(raw_cgroups $pid)" ] && [ -n "$(ls "$scratch/state/live")" ]
ok $? "after SIGKILL the server ($server), its cgroup and the record are left"
"$SLICEBENCH" cleanup >"$scratch/out" 2>&1; rc=$?
ok $rc "cleanup exits 0" "$scratch/out"
grep -q "killed the server, PID $server" "$scratch/out" && grep -q "removed cgroup .*slicebench-raw-sweep-raw-$pid" "$scratch/out"
ok $? "cleanup says it killed PID $server and removed the cgroup" "$scratch/out"
sleep 0.5
[ -z "$(servers)" ]
ok $? "no server is left"
[ -z "$(raw_cgroups $pid)" ]
ok $? "no cgroup is left"
[ -z "$(ls "$scratch/state/live")" ]
ok $? "no record is left"
[ -z "$(find "$scratch/run" -type s)" ] && grep -q "removed the socket $scratch/run/" "$scratch/out"
ok $? "nor the killed server's socket, which cleanup names ($(find "$scratch/run" -type s))" "$scratch/out"
"$SLICEBENCH" cleanup >"$scratch/out" 2>&1
grep -q "nothing to clean up" "$scratch/out"
ok $? "a second cleanup finds nothing" "$scratch/out"
exit $failed
