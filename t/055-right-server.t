#!/bin/bash
# The server measured is the one just started, and a server that fails costs
# seconds: two runs with different state directories (and one run
# directory) each talk to their own server; a socket that answers for
# another server (hardlinked there by the server's account) is refused with
# that server's PID; a server that dies at start-up fails the start in its
# log's own words within seconds; SIGINT ends a readiness wait at once; after
# kill -9 of a raw server, its unit's remaining steps are recorded as "the
# server was no longer running".
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
command -v setpriv >/dev/null || skip_all "needs setpriv (util-linux)"
echo "1..11"
server_scratch
a=$scratch/a b=$scratch/b
trap 'pkill -9 -f -- "--defaults-file=$scratch/"; jobs -p | xargs -r kill -9 2>/dev/null; rm -rf "$scratch"' EXIT
running() { [ -e /proc/$1 ] && ! grep -q '^State:[[:space:]]*Z' /proc/$1/status; }
servers_of() { pgrep -f -- "--defaults-file=$1/my.cnf" | tr '\n' ' '; }
export SLICEBENCH_RUN_DIR=$scratch/run
exp() { # exp NAME [KEY = VALUE]...: the two-raw fixture, one context, 1 2 4 threads
	local f=$scratch/$1.ini; shift
	sed -e '/^\[context newsession\]/,$d' -e 's/^threads = .*/threads = 1 2 4/' -e 's/^repeat = .*/repeat = 1/' \
		"$top/t/fixtures/run/two-raw.ini" >"$f"
	for kv in "$@"; do sed -i "s|^\[server\]$|[server]\n$kv|" "$f"; done
	echo "$f"
}

# 1. Two sweeps, two state directories, one run directory.
SLICEBENCH_STATE_DIR=$a "$SLICEBENCH" sweep --context raw --threads 1 --duration 300 --table-size 1000 >/dev/null 2>"$scratch/a.err" &
apid=$!
for _ in $(seq 300); do [ -n "$(servers_of "$a")" ] && [ -S "$(ls -d "$scratch"/run/s-*)/mysqld.sock" ] && break; sleep 0.1; done
sleep 2
SLICEBENCH_STATE_DIR=$b "$SLICEBENCH" sweep --context raw --threads 1 --duration 1 --table-size 1000 --json >"$scratch/b.json" 2>"$scratch/b.err" &
bpid=$!
bsrv=
for _ in $(seq 300); do bsrv=$(servers_of "$b"); [ -n "$bsrv" ] && break; sleep 0.1; done
sleep 1
bsrv_running=$(servers_of "$b")
wait $bpid; rc=$?
[ $rc = 0 ] && [ -n "$bsrv_running" ]
ok $? "a second sweep with another state directory runs on its own server, beside the first (exit $rc, its server: ${bsrv_running:-none})" "$scratch/b.err"
socks=$(ls "$scratch"/run/*/mysqld.sock 2>/dev/null | wc -l)
[ "$socks" = 2 ] || [ "$(ls -d "$scratch"/run/s-* | wc -l)" = 2 ]
ok $? "each state directory has its own socket ($(ls "$scratch/run" | tr '\n' ' '))"

# 2. The server's account hardlinks the first server's socket where the
# second one will look for its own.
asrv=$(servers_of "$a" | awk '{print $1}')
asock=$(ls "$scratch"/run/s-*/mysqld.sock | head -n1) # the second server's went with it
bdir=$(ls -d "$scratch"/run/s-* | grep -vF "$(dirname "$asock")")
setpriv --reuid=slicebench --regid=slicebench --clear-groups -- ln -f "$asock" "$bdir/mysqld.sock" 2>"$scratch/ln.err"
SLICEBENCH_STATE_DIR=$b "$SLICEBENCH" sweep --context raw --threads 1 --duration 1 --table-size 1000 --json >"$scratch/b2.json" 2>"$scratch/b2.err"; rc=$?
[ $rc = 1 ] && grep -q "answers for another server (PID $asrv), not the one just started" "$scratch/b2.err"
ok $? "a socket answering for another server (PID $asrv) is refused, naming it (exit $rc)" "$scratch/b2.err"
[ ! -s "$scratch/b2.json" ] || ! grep -q '"tps"' "$scratch/b2.json"
ok $? "and no step is measured against it"
kill -INT $apid; wait $apid

# 3. A server that dies at start-up.
f=$(exp dying "binary = $top/t/fixtures/bin/mariadbd-bad-option")
start=$(date +%s)
SLICEBENCH_STATE_DIR=$a timeout 60 "$SLICEBENCH" run "$f" --out "$scratch/dying" >/dev/null 2>"$scratch/dying.err"; rc=$?
took=$(( $(date +%s) - start ))
[ $rc = 1 ] && [ $took -le 20 ]
ok $? "a server that dies at start-up fails the run in ${took}s (exit $rc)" "$scratch/dying.err"
grep -q "exited before it answered; the server's log says:" "$scratch/dying.err" && grep -q "Error while setting value 'abc'" "$scratch/dying.err"
ok $? "in the server log's own words" "$scratch/dying.err"

# 4. SIGINT while waiting for a server that never answers.
f=$(exp silent "binary = $top/t/fixtures/bin/mariadbd-silent")
SLICEBENCH_STATE_DIR=$a "$SLICEBENCH" run "$f" --out "$scratch/silent" >/dev/null 2>"$scratch/silent.err" &
pid=$!
{ sleep 90; kill -9 $pid; } >/dev/null 2>&1 & # should SIGINT be ignored
watchdog=$!
spid=
for _ in $(seq 300); do spid=$(pgrep -f "^sleep 300$" -P "$pid") && break; sleep 0.1; done
sleep 1
start=$(date +%s%N)
kill -INT $pid; wait $pid; rc=$?
took=$(( ($(date +%s%N) - start) / 1000000 ))
kill $watchdog 2>/dev/null
[ $rc = 130 ] && [ $took -le 5000 ]
ok $? "SIGINT during the readiness wait ends the run in ${took} ms (exit $rc)" "$scratch/silent.err"
sleep 0.2
[ -n "$spid" ] && ! running "$spid"
ok $? "and leaves no server behind (it was PID ${spid:-unknown})"

# 5. kill -9 of a raw server during the first step of three.
f=$(exp killed)
sed -i 's/^duration = .*/duration = 6s/' "$f"
SLICEBENCH_STATE_DIR=$a "$SLICEBENCH" run -v "$f" --out "$scratch/killed" >/dev/null 2>"$scratch/killed.err" &
pid=$!
for _ in $(seq 600); do grep -q 'inherit-v1-r1: 1 thread' "$scratch/killed.err" 2>/dev/null && break; sleep 0.1; done
sleep 2
pkill -9 -f -- "--defaults-file=$a/my.cnf"
wait $pid; rc=$?
reasons=$(python3 -c '
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
print("|".join("%d:%s" % (s["threads"], s.get("reason", "")) for s in sorted(steps, key=lambda s: s["threads"])))' \
	"$scratch/killed/results.json" 2>&1)
[ $rc = 1 ] && [[ $reasons == 1:* ]]
ok $? "the step the server was killed in is failed (exit $rc; $reasons)" "$scratch/killed.err"
[[ $reasons == *"|2:the server was no longer running|4:the server was no longer running" ]]
ok $? "the unit's remaining steps are recorded as 'the server was no longer running', not attempted" "$scratch/killed.err"
[ -z "$(servers_of "$a")" ]
ok $? "no server is left"
exit $failed
