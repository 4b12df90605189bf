#!/bin/bash
# Verdicts on a real run in a real systemd (the container sandbox, or the
# guest when PID 1 is systemd), slicebench under taskset -c 1 as in issue 15:
# a service with a large real gap (CPUQuota=10%) against a shell-started
# server is significant with an interval that excludes 1; the shell-started
# server against itself (A/A) is not, at 99.8% (at 95% an A/A comparison is
# significant one run in twenty by design, which a test must not be; the
# notes give the share over many A/A runs); report --confidence 90
# recomputes narrower intervals from the raw repeats the step files keep;
# the noise within a start and across starts are reported apart.
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
exp=$top/t/fixtures/verdicts/gap.ini
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v mariadbd >/dev/null || sandbox_skip_all "needs MYSQLD"
[ "$(nproc)" -ge 2 ] || skip_all "taskset -c 1 needs a second CPU"
scratch=$(mktemp -d -p "$top" .t062.XXXXXX) || exit 1 # inside the checkout, which the sandbox binds
sandbox_test t062
echo "1..9"

"${in_systemd[@]}" taskset -c 1 "$SLICEBENCH" run "$exp" --out "$scratch/res" >"$scratch/out" 2>"$scratch/err"
ok $? "the run under taskset -c 1 exits 0" "$scratch/err"
"$SLICEBENCH" report "$scratch/res" --format json >"$scratch/95.json" 2>"$scratch/err" &&
	"$SLICEBENCH" report "$scratch/res" --format json --confidence 90 >"$scratch/90.json" 2>>"$scratch/err" &&
	"$SLICEBENCH" report "$scratch/res" --format json --confidence 99.8 >"$scratch/998.json" 2>>"$scratch/err"
ok $? "report --format json at 95%, 90% and 99.8%" "$scratch/err"
cell() { # FILE COLUMN KEY: a cell's value at 1 thread
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
k = [c["label"] for c in d["columns"]].index(sys.argv[2])
print(d["rows"][0]["cells"][k][sys.argv[3]])' "$@"
}
# Every repeat's TPS, last in the file a failure shows: one CI run found
# the service's interval reaching 1.08 and could not say which start did it.
python3 -c 'import json,sys
print("TPS per repeat: " + " ".join("%s/%d %.0f" % (s["context"], s["repeat"], s["tps"])
      for s in json.load(open(sys.argv[1]))["steps"]))' "$scratch/res/results.json" >>"$scratch/out" 2>&1
verdict=$(cell "$scratch/95.json" service verdict) hi=$(cell "$scratch/95.json" service ratio_hi)
[ "$verdict" = significant ] && python3 -c "import sys; sys.exit(not float(sys.argv[1]) < 1)" "$hi"
ok $? "the service with its gap: significant, the interval below 1 (verdict $verdict, upper bound $hi)" "$scratch/out"
# A row per thread count, or at 100 columns a row per context (the ratio
# then last on its line).
grep -Eq '^(1|service) .* 0\.[0-9]*x \([0-9.e-]*-[0-9.]*\) p[=<][0-9.e-]*( |$)' "$scratch/out"
ok $? "the table shows the ratio with its interval and p" "$scratch/out"
verdict=$(cell "$scratch/998.json" again verdict)
[ "$verdict" = not_significant ]
ok $? "the shell-started server against itself: not significant at 99.8% (verdict $verdict, p $(cell "$scratch/95.json" again p))"
python3 - "$scratch/95.json" "$scratch/90.json" >"$scratch/cmp" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(p))["rows"][0]["cells"][0] for p in sys.argv[1:])
assert a["ratio"] == b["ratio"], (a["ratio"], b["ratio"])
assert b["ratio_lo"] > a["ratio_lo"] and b["ratio_hi"] < a["ratio_hi"], (a, b)
print("ok")
PY
ok $? "at 90% the same ratio with a narrower interval, recomputed without a run" "$scratch/cmp"
python3 - "$scratch/res/results.json" >"$scratch/raw" 2>&1 <<'PY'
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
assert len(steps) == 15 and all(s["tps"] > 0 and len(s["intervals_tps"]) >= 2 for s in steps), steps
print("ok")
PY
ok $? "results.json keeps every repeat's TPS and its per-second intervals" "$scratch/raw"
# A fixed design's answers lead: the run's own report and JSON, the
# service's the table's verdict.
answer=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
k = [c["label"] for c in d["columns"]].index("service")
print(d["decisions"]["design"], d["rows"][0]["cells"][k]["decision"]["answer"])' "$scratch/95.json" 2>&1)
[ "$answer" = "fixed different" ] &&
	grep -m1 '^answers after\|^gap: TPS' "$scratch/out" |
	grep -q '^answers after 5 rounds (a fixed design, judged once at its end): [1-9][0-9]* different'
ok $? "the report leads with its answers, the service different ($answer)" "$scratch/out"
# The run ends with its answer; the noise is the whole report's.
"$SLICEBENCH" report "$scratch/res" >"$scratch/whole" 2>&1
grep -q '^noise: CV of the per-second TPS within a start' "$scratch/whole" && grep -q '^1 .*% | .*%' "$scratch/whole"
ok $? "the noise within a start and across starts, apart" "$scratch/whole"
exit $failed
