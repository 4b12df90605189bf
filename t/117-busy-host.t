#!/bin/bash
# A busy host said where it matters, in a container too (the load average
# and /proc/stat are the host's, the kernel is shared): a busy loop that is
# not slicebench's runs beside it.  slicebench host warns with the load and
# the CPUs in use outside slicebench's processes, at least what the loop
# used over the same time by its own /proc/PID/stat, less 0.15 CPU; inside
# a container, where the loop is not visible, the same; and a step run
# beside it records the host busy, which report counts.
# Prerequisites: ROOT, MYSQLD (the step); NSPAWN (the container part; fails
# under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
echo "1..6"
server_scratch
loop=
trap '[ -n "$loop" ] && kill $loop; servers | xargs -r kill -9; "$SLICEBENCH" sandbox --name t117-$$ down >/dev/null 2>&1; rm -rf "$scratch"' EXIT

# A sibling of slicebench, not its descendant: not one of its processes.
( while :; do :; done ) &
loop=$!
ticks() { awk '{ print $14 + $15 }' /proc/$loop/stat; }
hz=$(getconf CLK_TCK)

# host_says CMD...: runs CMD (slicebench host, here or in the container),
# prints its "outside" CPUs and the loop's over the same time.
host_says() {
	local t0 t1 n0 n1
	t0=$(ticks) n0=$(date +%s.%N)
	"$@" >/dev/null 2>"$scratch/host.err"
	t1=$(ticks) n1=$(date +%s.%N)
	outside=$(sed -n 's/.*, \([0-9.]*\) CPUs in use outside.*/\1/p' "$scratch/host.err")
	used=$(python3 -c "import sys; print('%.2f' % ((int(sys.argv[2]) - int(sys.argv[1])) / $hz / (float(sys.argv[4]) - float(sys.argv[3]))))" "$t0" "$t1" "$n0" "$n1")
}
outside_covers_loop() { [ -n "$outside" ] && python3 -c "import sys; sys.exit(not float(sys.argv[1]) >= float(sys.argv[2]) - 0.15)" "$outside" "$used"; }

host_says "$SLICEBENCH" host
grep -q "the host is busy, and what runs there would be measured too: load [0-9.]* on $(nproc) CPUs" "$scratch/host.err"
ok $? "slicebench host: the host is busy, with its load on $(nproc) CPUs" "$scratch/host.err"
outside_covers_loop
ok $? "the CPUs outside slicebench's processes ($outside) cover the loop's ($used CPU over the same time)" "$scratch/host.err"

"$SLICEBENCH" sweep --context raw --threads 1 --time 3 --table-size 1000 --json >"$scratch/out.json" 2>"$scratch/err"
python3 - "$scratch/out.json" >"$scratch/step" 2>&1 <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["steps"][0]["host"]
print(h)
assert h["busy"] and h["other_cpus"] >= 0.3 and h["load1_max"] > 0 and h["cpus"] >= 1, h
PY
ok $? "a step beside it records the host busy ($(tail -n 1 "$scratch/step"))" "$scratch/err"

if ! command -v systemd-nspawn >/dev/null || ! "$SLICEBENCH" sandbox --name t117-$$ up >"$scratch/up" 2>&1; then
	[ "${CI:-}" = true ] && { ok 1 "the container sandbox boots" "$scratch/up"; exit 1; }
	for _ in 1 2 3; do n=$((n + 1)); echo "ok $n # SKIP no container sandbox: $(tail -n 1 "$scratch/up" 2>/dev/null)"; done
	exit $failed
fi
sb=$(cd "$(dirname "$SLICEBENCH")" && pwd)/$(basename "$SLICEBENCH")
"$SLICEBENCH" sandbox --name t117-$$ exec -- sh -c "ps -e -o pid= | grep -qw $loop"
[ $? != 0 ]
ok $? "inside the container the loop is not visible"
host_says "$SLICEBENCH" sandbox --name t117-$$ exec -- "$sb" host
grep -q "the host is busy, and what runs there would be measured too: load [0-9.]* on $(nproc) CPUs" "$scratch/host.err"
ok $? "inside the container, slicebench host says the host is busy all the same" "$scratch/host.err"
outside_covers_loop
ok $? "and the CPUs outside its processes ($outside) cover the loop's ($used CPU)" "$scratch/host.err"
exit $failed
