#!/bin/bash
# slicebench prepare and sweep from the command line: bad input is exit 2
# with the option named and nothing started; a real raw-context sweep gives
# one record per thread count with TPS above zero, for both drivers, and
# leaves no server behind.
# Prerequisites: ROOT and MYSQLD for the sweep itself.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
usage_error() { # usage_error WANT-IN-STDERR DESC ARGS...
	local want=$1 desc=$2 rc; shift 2
	"$SLICEBENCH" "$@" >"$scratch/out" 2>"$scratch/err"; rc=$?
	[ $rc = 2 ] && grep -qF -- "$want" "$scratch/err"
	ok $? "$desc: exit 2 (got $rc) naming '$want'" "$scratch/err"
}

needs BINARY
echo "1..13"
server_scratch
trap 'servers | xargs -r kill; rm -rf "$scratch"' EXIT

usage_error "--threads: bad value '0,a'" "a bad thread list" sweep --socket /nonexistent --threads 0,a
usage_error "--threads is an option of sweep" "a sweep option given to prepare" prepare --socket /x --threads 4
usage_error "either --socket PATH or --context KIND" "no server named" sweep --threads 1
usage_error "--rand-type: bad value 'foo'" "an unknown distribution" sweep --socket /x --rand-type foo
usage_error "--property: bad value 'NoSuch=1'" "an unknown property" sweep --context raw -p NoSuch=1
[ ! -e "$scratch/state" ] && [ ! -e "$scratch/run" ]
ok $? "bad input created no state or run directory"

if [ "$(id -u)" != 0 ] || ! command -v mariadbd >/dev/null; then
	for _ in 7 8 9 10 11 12 13; do n=$((n + 1)); echo "ok $n # SKIP needs ROOT and MYSQLD"; done
	exit 0
fi
tps_rows() { # tps_rows FILE: "threads:tps-above-zero" per step, e.g. "1:1 2:1"
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(" ".join("%d:%d" % (s["threads"], 1 if s["tps"] > 0 and not s["failed"] else 0) for s in d["steps"]))' "$1"
}
"$SLICEBENCH" sweep --context raw --threads 1,2 --duration 1 --json >"$scratch/native.json" 2>"$scratch/err"
ok $? "a raw-context sweep of 1,2 threads exits 0" "$scratch/err"
got=$(tps_rows "$scratch/native.json" 2>&1)
[ "$got" = "1:1 2:1" ]
ok $? "one record per thread count, TPS above zero (got '$got')"
driver=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][0]["driver"])' "$scratch/native.json")
[ "$driver" = slicebench ]
ok $? "the native driver's steps say driver slicebench (got '$driver')"
"$SLICEBENCH" sweep --context raw --threads 1 --duration 1 --driver sysbench --json >"$scratch/sb.json" 2>"$scratch/err"
got=$(tps_rows "$scratch/sb.json" 2>&1)
[ "$got" = "1:1" ]
ok $? "the same sweep through sysbench gives TPS above zero (got '$got')" "$scratch/err"
grep -q '"format_version": 1' "$scratch/sb.json" || python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["format_version"] != 1)' "$scratch/sb.json"
ok $? "the record has format_version 1"
[ -z "$(servers)" ]
ok $? "no server is left running"
if [ "$(cat /proc/1/comm)" = systemd ]; then
	n=$((n + 1)); echo "ok $n # SKIP PID 1 is systemd here"
else
	"$SLICEBENCH" sweep --context service --threads 1 --duration 1 >/dev/null 2>"$scratch/err"; rc=$?
	[ $rc = 1 ] && grep -q "the system bus cannot be reached and PID 1 is" "$scratch/err" && ! grep -q "log says" "$scratch/err"
	ok $? "a service without systemd: one sentence that says why and no stale server log (exit $rc)" "$scratch/err"
fi
exit $failed
