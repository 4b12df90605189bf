#!/bin/bash
# experiments/read-write.ini, cut short, on the host (raw contexts):
# sysbench's oltp_read_write runs in a full experiment with verdicts.  Every
# step has TPS above zero and the script's 20 statements a transaction; the
# dataset is prepared once into its template datadir and every unit's server
# starts from a pristine copy of it (a line per unit in run.log); the report
# gives one-cpu's ratio to both-cpus at each thread count with its interval
# and verdict; a second run checks the template against its manifest and
# prepares nothing; cleanup --templates removes it.
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=${SLICEBENCH_TOP:-.}
needs BINARY ROOT MYSQLD
echo "1..7"
server_scratch
trap 'servers | xargs -r kill -9; [ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT
sed -e 's/^duration = .*/duration = 3s/' -e 's/^warmup = .*/warmup = 1s/' -e 's/^repeat = .*/repeat = 3/' \
	-e 's/^buffer-pool = .*/buffer-pool = 64M/' "$top/experiments/read-write.ini" >"$scratch/read-write.ini"

"$SLICEBENCH" run "$scratch/read-write.ini" --out "$scratch/res" >"$scratch/out" 2>"$scratch/err"
ok $? "run read-write (3 repeats of 3 s) exits 0" "$scratch/err"
python3 - "$scratch/res/results.json" >"$scratch/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
steps = d["steps"]
assert d["experiment"]["workload"] == "oltp_read_write", d["experiment"]["workload"]
assert len(steps) == 12, len(steps)
assert all(s["tps"] > 0 and not s["failed"] for s in steps), [(s["unit"], s["threads"], s["tps"], s.get("reason")) for s in steps]
assert all(s["queries"] == 20 * s["transactions"] for s in steps), [(s["queries"], s["transactions"]) for s in steps]
print("ok")
PY
ok $? "12 steps of oltp_read_write with TPS above zero, 20 statements a transaction" "$scratch/check"
copies=$(grep -c ': a pristine datadir (copy\|reflink' "$scratch/res/run.log")
[ "$(grep -c 'preparing 2 x 10000 rows' "$scratch/res/run.log")" = 1 ] && [ "$copies" = 6 ]
ok $? "the dataset prepared once, and each of the 6 units started from a pristine copy ($copies)" "$scratch/res/run.log"
"$SLICEBENCH" report "$scratch/res" --format json >"$scratch/report.json" 2>"$scratch/err"
python3 - "$scratch/report.json" >"$scratch/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = [c["label"] for c in d["columns"]].index("one-cpu")
for row in d["rows"]:
    c = row["cells"][k]
    assert c["verdict"] and c["ratio_lo"] <= c["ratio"] <= c["ratio_hi"], c
    print(row["cells"][0].get("label", ""), c["ratio"], c["ratio_lo"], c["ratio_hi"], c["verdict"])
PY
ok $? "the report: one-cpu over both-cpus at each thread count, its interval and verdict" "$scratch/check"
sed 's/^/# /' "$scratch/check"
"$SLICEBENCH" run "$scratch/read-write.ini" --out "$scratch/res2" >"$scratch/out2" 2>"$scratch/err2"
ok $? "a second run exits 0" "$scratch/err2"
grep -q "the dataset's template mariadb-sbtest_2x10000-[0-9a-f]* (.* MB) checked against its manifest" "$scratch/res2/run.log" &&
	! grep -q 'preparing ' "$scratch/res2/run.log"
ok $? "it checks the template against its manifest and prepares nothing" "$scratch/res2/run.log"
"$SLICEBENCH" cleanup --templates >"$scratch/clean" 2>&1 && grep -q "^removed the template $SLICEBENCH_STATE_DIR/templates/mariadb-sbtest_2x10000-" "$scratch/clean" &&
	[ -z "$(ls "$SLICEBENCH_STATE_DIR/templates")" ]
ok $? "cleanup --templates removes it" "$scratch/clean"
