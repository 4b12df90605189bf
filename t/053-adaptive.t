#!/bin/bash
# repeat = auto on the host with raw contexts: a target no run can meet
# stops at repeat-max and says so for each ratio; a target every run meets
# (+-99% at 51%) stops after the first three rounds; a --budget the pilot
# does not fit in is refused before anything starts, and one it fits in is
# a bound: no round begins that would overrun it; --until is refused where repeat is a number,
# and a target that is not a percentage is refused naming the option; a
# fixed design's dry run says what its answers can find.
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=${SLICEBENCH_TOP:-.}
exp=$top/t/fixtures/run/auto.ini
needs BINARY ROOT MYSQLD
echo "1..15"
server_scratch
trap 'servers | xargs -r kill -9; rm -rf "$scratch"' EXIT
steps() { ls "$1/steps" 2>/dev/null | wc -l; }

"$SLICEBENCH" run "$exp" --out "$scratch/max" --until 0.01% >"$scratch/out" 2>"$scratch/err"
ok $? "run with a target no run meets exits 0" "$scratch/err"
[ "$(steps "$scratch/max")" = 8 ]
ok $? "it runs repeat-max: 4 repeats x 2 contexts (got $(steps "$scratch/max") steps)"
grep -q '^repeat = auto: target +-0.01% at 95%, 4 rounds' "$scratch/out" &&
	grep -q '^  newsession vs inherit at 1 thread: .* after 4 and 4 repeats: stopped at repeat-max$' "$scratch/out"
ok $? "and says which ratio stopped at repeat-max" "$scratch/out"

"$SLICEBENCH" run "$exp" --out "$scratch/met" --until 99% --confidence 51 >"$scratch/out" 2>"$scratch/err"
ok $? "run with a target every run meets exits 0" "$scratch/err"
[ "$(steps "$scratch/met")" = 6 ] && ! grep -q 'round 4' "$scratch/err"
ok $? "it stops after the first three rounds (got $(steps "$scratch/met") steps)" "$scratch/err"
grep -q '^  newsession vs inherit at 1 thread: [0-9.]*x +-[0-9.]*% after 3 and 3 repeats: within the target$' "$scratch/out" &&
	grep -q '51% for the table' "$scratch/out"
ok $? "within the target, and the report at the level asked for" "$scratch/out"

"$SLICEBENCH" run "$exp" --out "$scratch/budget" --until 0.01% --budget 1s >"$scratch/out" 2>"$scratch/err"; rc=$?
[ $rc = 2 ] && [ ! -e "$scratch/budget" ] && grep -q "the first 3 rounds take about 54s at the plan's times, over --budget 1s" "$scratch/err"
ok $? "--budget 1s, under the pilot's plan: exit 2, nothing started (exit $rc)" "$scratch/err"
start=$(date +%s)
"$SLICEBENCH" run "$exp" --out "$scratch/budget" --until 0.01% --budget 70s >"$scratch/out" 2>"$scratch/err"; rc=$?
took=$(($(date +%s) - start)) nsteps=$(steps "$scratch/budget")
[ $rc = 0 ] && [ "$took" -le 70 ] && { [ "$nsteps" = 8 ] || { [ "$nsteps" = 6 ] && grep -q 'the budget leaves no time for round 4' "$scratch/err" &&
	grep -q 'after 3 and 3 repeats: stopped by --budget$' "$scratch/out"; }; }
ok $? "--budget 70s is a bound: the run took ${took}s, $nsteps steps, and a round it stopped before is said" "$scratch/err"

"$SLICEBENCH" run "$exp" --until 2 --dry-run >"$scratch/out" 2>"$scratch/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--until: bad value '2' (a percentage" "$scratch/err" && [ ! -s "$scratch/out" ]
ok $? "--until 2 is not a percentage: exit 2 naming the option (got $rc)" "$scratch/err"
"$SLICEBENCH" run "$top/t/fixtures/run/two-raw.ini" --until 5% --dry-run >"$scratch/out" 2>"$scratch/err"; rc=$?
[ $rc = 2 ] && grep -q -- '--until is for repeat = auto' "$scratch/err"
ok $? "--until where repeat is a number: exit 2 (got $rc)" "$scratch/err"
# A fixed design ends in answers too, said before it runs; --margin is
# its as well.
"$SLICEBENCH" run "$top/t/fixtures/run/two-raw.ini" --margin 20% --dry-run >"$scratch/out" 2>"$scratch/err"
grep -q '2 rounds of 2 columns answer a gap of 1.20x "different" with [0-9]*% power, a ratio of 1 "the same within +-20%" with [0-9]*%.* at the run.s end$' "$scratch/out"
ok $? "a fixed design's --dry-run says what its answers can find, at --margin 20%" "$scratch/out"
"$SLICEBENCH" run "$exp" --dry-run >"$scratch/out" 2>"$scratch/err"
grep -q '^repeat = auto: 3 to 4 repeats, until every ratio is within +-5% (a pilot of 3 rounds, then as many as its spread asks for)$' "$scratch/out"
ok $? "--dry-run states the range of repeats and the default target" "$scratch/out"

# repeat = decide with no repeat-max: the plan's most rounds are what
# experiment.json records as repeat_max, so that the run's own steps pass
# the results directory's check (it wrote 0, and the first step failed:
# "$.repeat 1 is past experiment.json's 0 repeats").
sed -e 's/^repeat = auto$/repeat = decide/' -e '/^repeat-max/d' "$exp" >"$scratch/decide.ini"
"$SLICEBENCH" run "$scratch/decide.ini" --out "$scratch/decide" --budget 40s >"$scratch/out" 2>"$scratch/err"; rc=$?
most=$(json_get "$scratch/decide/experiment.json" repeat_max)
[ $rc = 0 ] && [ "$(steps "$scratch/decide")" -ge 2 ] && [ "$most" -ge 3 ] 2>/dev/null &&
	grep -q "^decisions after [0-9]* rounds\? of at most $most " "$scratch/out"
ok $? "repeat = decide without repeat-max runs, and records its plan's most ($most) as repeat_max (exit $rc)" "$scratch/err"
# The look after the last round run is recorded too: the one that decides
# (or ends) the run has no next round, and it was written only with the
# next round's order, so that report re-derived the run one look short
# (a 4x gap "undecided" after 3 of the 4 rounds it ran).
rounds=$(($(steps "$scratch/decide") / 2))
last=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["looks"][-1]["round"])' "$scratch/decide/schedule.json")
"$SLICEBENCH" report "$scratch/decide" >"$scratch/report" 2>&1
[ "$last" = "$rounds" ] && grep -q "^decisions after $rounds rounds\? of at most $most " "$scratch/report"
ok $? "schedule.json holds the look after the last of the $rounds rounds (its last: $last), and report decides there" "$scratch/report"
# The page leads with the same answers, and its verdicts are the looks'.
"$SLICEBENCH" report "$scratch/decide" --format html >"$scratch/page.html" 2>&1
first=$(grep -o 'id="decisions-h"\|id="experiment"\|id="verdicts-h"' "$scratch/page.html" | head -n 1)
words=$(grep -c 'class="v l">\(different\|the same\|undecided\)<' "$scratch/page.html")
[ "$first" = 'id="decisions-h"' ] && grep -q ">decisions after $rounds rounds\? of at most $most " "$scratch/page.html" &&
	[ "$words" -ge 1 ] && ! grep -q 'class="v l">\(significant\|n\.s\.\)<' "$scratch/page.html" &&
	! grep -qE '&lt;/?(p|pre|td|tr|li|h[1-4])( |&gt;)' "$scratch/page.html" # no markup escaped as text (the starts' paragraph was)
ok $? "the page's first section is the decisions ($first), its verdicts the looks' answers ($words)" "$scratch/page.html"
exit $failed
