#!/bin/bash
# SIGINT while explain measures its hold-out: the screen is whole, so
# explain reports it and says the hold-out was cut (exit 130), explain.json
# records the cut, report DIR reads the screen again and says so, and
# explain --resume DIR runs the hold-out's missing rounds as run --resume
# does and prints the whole explanation.  Raw contexts: no systemd needed;
# a budget of 2 minutes keeps the hold-out to a few rounds.
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
server_scratch
trap 'servers | xargs -r kill -9; "$SLICEBENCH" cleanup >/dev/null 2>&1; [ -n "${SLICEBENCH_TEST_KEEP:-}" ] || rm -rf "$scratch"' EXIT
echo "1..7"
dir=$scratch/cut
"$SLICEBENCH" explain "$top/t/fixtures/explain/cut.ini" limited free --threads 2 --repeat 2 --duration 1s --width 3 --budget 2m \
	--out "$dir" >"$scratch/out" 2>"$scratch/err" &
pid=$!
for i in $(seq 1 1500); do grep -q '^hold-out: ' "$scratch/out" && break; kill -0 $pid 2>/dev/null || break; sleep 0.2; done
held=$(grep -c '^hold-out: ' "$scratch/out")
sleep 3 # into its first rounds
kill -INT $pid
wait $pid; rc=$?
[ "$held" = 1 ] && [ $rc = 130 ] && grep -q "the hold-out was cut by a signal; the screen is whole" "$scratch/out" &&
	grep -q " explains " "$scratch/out"
ok $? "SIGINT in the hold-out: exit $rc, the screen's explanation printed, the cut said" "$scratch/out"
python3 -c 'import json,sys; s={x["name"]: x for x in json.load(open(sys.argv[1]))["stages"]}; sys.exit(not s["confirm"]["cut"])' "$dir/explain.json"
ok $? "explain.json records the hold-out as cut" "$dir/explain.json"
"$SLICEBENCH" report "$dir" >"$scratch/report" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "the hold-out was cut before its rounds were done: the set is named from the screen; slicebench explain --resume $dir" "$scratch/report"
ok $? "report DIR reads the screen and says the hold-out was cut (exit $rc)" "$scratch/report"
"$SLICEBENCH" report "$dir" --format json >"$scratch/report.json" 2>&1
[ "$(json_get "$scratch/report.json" holdout_cut)" = True ]
ok $? "its JSON says holdout_cut" "$scratch/report.json"
"$SLICEBENCH" explain --resume "$dir" >"$scratch/resume" 2>&1; rc=$?
[ $rc = 0 ] && grep -q " explains " "$scratch/resume" && ! grep -q "hold-out was cut" "$scratch/resume"
ok $? "explain --resume DIR runs the rest and explains (exit $rc)" "$scratch/resume"
python3 - "$dir" <<'PY'
import json, os, sys
d = sys.argv[1]
s = {x["name"]: x for x in json.load(open(d + "/explain.json"))["stages"]}
assert not s["confirm"]["cut"]
steps = os.listdir(d + "/confirm/steps")
rounds = {n.rsplit("-r", 1)[1].split("-")[0] for n in steps}
mixes = {n.rsplit("-v1-r", 1)[0] for n in steps}
assert len(steps) == len(rounds) * len(mixes), (len(steps), rounds, mixes)
print(len(mixes), "mixes x", len(rounds), "rounds")
PY
ok $? "the hold-out is whole: every mix in every round, the cut cleared"
"$SLICEBENCH" explain --resume "$dir" >"$scratch/again" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "nothing to finish" "$scratch/again"
ok $? "--resume of a whole one: exit 2, nothing to finish (exit $rc)" "$scratch/again"
exit $failed
