#!/bin/bash
# explain of two contexts that differ in one server variable, for real:
# [context ps] sets performance_schema = ON, [context plain] leaves
# slicebench's own (OFF).  The factor list names it and nothing else; each
# start of A's mix runs with ON in force and each of B's with OFF, as the
# server reads them back over SQL; the gap is stated with its interval and
# test, and explain.json keeps the factor.  The direction of the gap is not
# asserted: on a 2-CPU host shared with other work it is within noise (a
# ratio from 0.5x to 1.4x from one run to the next, doc/capture.md).  No
# systemd needed: raw contexts.  About 40 s.
# Prerequisites: ROOT, MYSQLD, sysbench's tables made by slicebench.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
server_scratch
trap 'servers | xargs -r kill -9; "$SLICEBENCH" cleanup >/dev/null 2>&1; [ -n "${SLICEBENCH_TEST_KEEP:-}" ] || rm -rf "$scratch"' EXIT
echo "1..6"
cat >"$scratch/ps.ini" <<'INI'
[experiment]
threads = 2
tables = 1
table-size = 10000

[context ps]
kind = raw
performance_schema = ON

[context plain]
kind = raw
INI
"$SLICEBENCH" explain "$scratch/ps.ini" ps plain --threads 2 --repeat 4 --duration 2s --budget 4m --seed 1 \
	--out "$scratch/x" >"$scratch/out" 2>"$scratch/err"
ok $? "explain exits 0" "$scratch/err"
grep -qx "explain ps: ps against plain at 2 threads, 1 factor: the server's performance_schema (ON against OFF) (hybrids: raw)" "$scratch/out"
ok $? "the factor list names the server's performance_schema, and nothing else" "$scratch/out"
python3 - "$scratch/x" >"$scratch/check" 2>&1 <<'PY'
import glob, json, os, sys
d = sys.argv[1]
starts = {"a": 0, "b": 0}
for f in sorted(glob.glob(os.path.join(d, "screen", "placements", "*.json"))):
    p = json.load(open(f))
    mix = os.path.basename(f).split("-")[0]
    want = "ON" if mix == "a" else "OFF"
    assert p.get("server.performance_schema") == want, (f, p.get("server.performance_schema"))
    if mix == "a":
        assert p.get("in_force.performance_schema") == "yes", f
    else:
        assert "setting.performance_schema.written" not in p, f
    starts[mix] += 1
assert starts["a"] >= 2 and starts["b"] >= 2, starts
print(starts)
PY
ok $? "every start of A's mix ran with performance_schema ON in force, every one of B's with OFF, read over SQL" "$scratch/check"
line=$(grep '^ps vs plain at 2 threads: ' "$scratch/out")
[[ $line =~ TPS\ \(medians\),\ [0-9.]+x\ \([0-9.e+-]+-[0-9.e+-]+\)\ p=[0-9.e-]+ ]]
ok $? "the gap is stated with its interval and p: ${line:0:200}" "$scratch/out"
echo "# performance_schema ON against OFF at 2 threads (load $(cut -d' ' -f1-3 /proc/loadavg)): $line"
grep -q "^the server's performance_schema is all that differs between ps and plain\|^No significant gap" "$scratch/out"
ok $? "the closing sentence: all that differs, or no significant gap" "$scratch/out"
python3 - "$scratch/x/explain.json" >"$scratch/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [f["label"] for f in d["factors"]] == ["the server's performance_schema"], d["factors"]
assert "allocator" not in d, d.get("allocator")
PY
ok $? "explain.json keeps the factor, and no allocator moved" "$scratch/check"
exit $failed
