#!/bin/bash
# Results that come back out of the sandbox, and what a run and an explain
# say: a run in the container sandbox with --out outside the checkout lands
# on the host at the path it prints (exec binds the directory that holds
# it), and one that would stay in the container's overlay is refused before
# anything starts; the progress is a line per unit off a terminal, nothing
# with -q, one replaced line on one; the servers' start-up chatter goes to
# the results directory's run.log; the answer comes last and fits a screen;
# and the lines that reproduce a run and an explain run (dry) on the host,
# as does --resume DIR alone.  Prerequisites: ROOT, MYSQLD, NSPAWN.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
exp=$top/t/fixtures/fleet/quickstart.ini
sandbox_test t140
echo "1..17"
in_box() { "$SLICEBENCH" sandbox --name "$box" exec -- "$@"; }
# The command a directory recorded, with this binary for slicebench.
with_sb() { echo "${1/slicebench /$sb }"; }
# screen FILE LINES: at most LINES lines; narrow FILE: the answer (from
# the TPS table's caption on) within 100 columns, UTF-8 counted as text.
screen() { [ "$(wc -l <"$1")" -le "$2" ]; }
narrow() { python3 -c 'import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith("quickstart: TPS"))
sys.exit(any(len(l) > 100 for l in lines[start:]))' "$1"; }

# 1. The run, its --out under /tmp on the host, outside the checkout.
out=$scratch/results/run1
in_box "$sb" run "$exp" --only shell,quota --out "$out" >"$scratch/run.out" 2>"$scratch/run.err"; rc=$?
page=$(sed -n 's/^the report as a page: //p' "$scratch/run.out")
[ $rc = 0 ] && [ "$page" = "$out/report.html" ] && [ -s "$page" ] && [ -s "$out/results.json" ] && [ -d "$out/steps" ]
ok $? "run --out $out in the sandbox: the directory is on the host at the path printed (exit $rc)" "$scratch/run.err"
"$SLICEBENCH" sandbox --name "$box" down >/dev/null 2>&1
"$SLICEBENCH" sandbox --name "$box" up >"$scratch/up" 2>&1 || sandbox_skip_all "the sandbox did not boot again: $(tail -n 1 "$scratch/up")"
[ "$(ls "$out/steps" | wc -l)" = 2 ]
ok $? "and it outlives sandbox down: both steps still there"
grep -q '\[Warning\]' "$out/run.log" && ! grep -q '\[Warning\]' "$scratch/run.err" && grep -q 'unit 1/2 .*starting the server' "$out/run.log"
ok $? "the server's start-up warnings are in run.log with the progress, not on the terminal" "$out/run.log"
[ "$(grep -c '^slicebench: unit .*starting the server' "$scratch/run.err")" = 2 ] && ! grep -q 'threads, ETA' "$scratch/run.err"
ok $? "off a terminal, a progress line per unit and none per step" "$scratch/run.err"
# The answer last: the TPS table and its verdicts end the output.
tail -n 3 "$scratch/run.out" | grep -q '^  quota vs shell at 1 thread: ' && screen "$scratch/run.out" 40 && narrow "$scratch/run.out"
ok $? "the answer last, the whole output within 40 lines, the report's within 100 columns" "$scratch/run.out"

# 2. Refused: a directory in the container's own overlay, where exec binds nothing.
in_box sh -c "'$sb' run '$exp' --only shell --out /var/tmp/t140-$$" >"$scratch/ref.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "vanishes at .sandbox down" "$scratch/ref.out" && in_box test ! -e "/var/tmp/t140-$$"
ok $? "an --out in the sandbox's overlay: exit 2, nothing written, says why (exit $rc)" "$scratch/ref.out"
in_box sh -c "'$sb' run '$exp' --only shell --dry-run --out /var/tmp/t140-$$" >"$scratch/dry.out" 2>&1; rc=$?
[ $rc = 0 ] && in_box test ! -e "/var/tmp/t140-$$"
ok $? "but a dry run, which writes nothing, plans there (exit $rc)" "$scratch/dry.out"
in_box "$sb" run "$exp" --only shell -q --out "$scratch/results/quiet" >"$scratch/q.out" 2>"$scratch/q.err"; rc=$?
# A warning (a busy host) still reaches the terminal; progress does not.
[ $rc = 0 ] && ! grep -v '^slicebench: warning: ' "$scratch/q.err" | grep -q '^slicebench: ' &&
	grep -q 'unit 1/1' "$scratch/results/quiet/run.log"
ok $? "-q: no progress on the terminal, all of it in run.log (exit $rc)" "$scratch/q.err"
script -qec "stty cols 100; '$SLICEBENCH' sandbox --name $box exec -- '$sb' run '$exp' --only shell --out '$scratch/results/tty'" \
	/dev/null >"$scratch/tty" 2>&1
grep -q $'\r\e\[Kunit 1/1 shell-v1-r1: 1 thread, ETA' "$scratch/tty" && ! grep -q '^slicebench: unit' "$scratch/tty"
ok $? "on a terminal, the units and steps replace one line" "$scratch/tty"

# 3. The run again, from the line it recorded, dry on the host.
cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["command"])' "$out/schedule.json")
[ -n "$cmd" ] && grep -qF "<pre id=\"reproduce\">$cmd" "$page" && [[ $cmd == *" run $exp --only shell,quota --order random --seed "* ]]
ok $? "the page and schedule.json have the line that reproduces it ($cmd)" "$page"
eval "$(with_sb "$cmd") --dry-run" >"$scratch/again" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^  shell-v1-r1 ' "$scratch/again" && grep -q '^  quota-v1-r1 ' "$scratch/again" && ! grep -q '^  user-v1-r1' "$scratch/again"
ok $? "and it runs (dry): the same units (exit $rc)" "$scratch/again"
rm "$out"/steps/quota-*
"$SLICEBENCH" run --resume "$out" --dry-run >"$scratch/resume" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^2 server starts' "$scratch/resume" && ! grep -q '^  user-v1-r1' "$scratch/resume"
ok $? "--resume DIR alone: the experiment and the contexts DIR was run with (exit $rc)" "$scratch/resume"
in_box "$sb" run --resume "$out" >"$scratch/resumed" 2>&1; rc=$?
[ $rc = 0 ] && [ "$(ls "$out/steps" | wc -l)" = 2 ] && grep -qF "$cmd" "$out/schedule.json"
ok $? "and resumes: the missing step run, the line to reproduce it kept (exit $rc)" "$scratch/resumed"

# 4. explain, under taskset: its answer last, its line with the file, the
# duration and the taskset.
ex=$scratch/results/ex1
in_box taskset -c 1 "$sb" explain "$exp" quota service --duration 1s --repeat 2 --out "$ex" >"$scratch/ex.out" 2>"$scratch/ex.err"; rc=$?
[ $rc = 0 ] && [ -s "$ex/explain.json" ] && [ -d "$ex/screen/steps" ]
ok $? "explain --out $ex in the sandbox: on the host (exit $rc)" "$scratch/ex.err"
grep -v '^$' "$scratch/ex.out" | tail -n 2 | grep -q '^quota vs service at 1 thread: ' && screen "$scratch/ex.out" 40
ok $? "its answer last, the whole output within 40 lines" "$scratch/ex.out"
excmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["command"])' "$ex/explain.json")
[[ $excmd == "taskset -c 1 slicebench explain $exp quota service --threads 1 --repeat 2 --duration 1s "* ]] &&
	grep -qF "to explain it again: $excmd" "$scratch/ex.out"
ok $? "its line has the taskset, the file's path and the duration ($excmd)" "$scratch/ex.out"
eval "$(with_sb "$excmd") --dry-run" >"$scratch/exagain" 2>&1; rc=$?
[ $rc = 0 ] && [ "$(head -n 1 "$scratch/exagain")" = "$(head -n 1 "$scratch/ex.out")" ]
ok $? "and it runs (--dry-run): the same factors and design (exit $rc)" "$scratch/exagain"
exit $failed
