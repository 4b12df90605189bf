#!/bin/bash
# The conventions a command line is expected to keep: `slicebench help
# VERB` is VERB --help; bash completion offers every verb and every option
# each verb's --help lists (read from the same tables at run time), an
# option's values from its words; one name for one thing (--duration and
# --dry-run; --time and --what-if kept as deprecated names that say so when
# used and in --help); -o - is standard output; hog stops by itself unless
# told --duration infinity.
# Prerequisites: python3 (t/fixtures/html/generate.py), bash.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
echo "1..17"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
verbs=$("$SLICEBENCH" --help | sed -n '/^verbs:/,/^$/s/^  \([a-z]*\) .*/\1/p')

bad=
for v in $verbs; do
	"$SLICEBENCH" "$v" --help >"$scratch/a" 2>&1 && "$SLICEBENCH" help "$v" >"$scratch/b" 2>&1 && cmp -s "$scratch/a" "$scratch/b" ||
		bad="$bad $v"
done
[ -n "$verbs" ] && [ -z "$bad" ]
ok $? "slicebench help VERB prints VERB --help, for each of $(echo $verbs | wc -w) verbs${bad:+ (differs:$bad)}"
"$SLICEBENCH" help nosuch >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "unknown verb 'nosuch'" "$scratch/out"
ok $? "help of an unknown verb: exit 2, saying so (exit $rc)" "$scratch/out"

"$SLICEBENCH" __complete bash >"$scratch/completion.bash" && bash -n "$scratch/completion.bash"
ok $? "__complete bash prints a completion script bash reads" "$scratch/completion.bash"
# complete WORD...: what the script offers for the last word.
complete() {
	PATH=$(dirname "$SLICEBENCH"):$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_slicebench; printf "%s\n" "${COMPREPLY[@]}"' complete "$scratch/completion.bash" slicebench "$@"
}
complete '' | sort >"$scratch/got"
printf '%s\n' $verbs help --help --version | sort >"$scratch/want"
cmp -s "$scratch/got" "$scratch/want"
ok $? "completion offers every verb --help lists, help, --help and --version" "$scratch/got"

bad=
for v in $verbs; do
	"$SLICEBENCH" "$v" --help | grep -v 'deprecated:' | grep -oE '^  (-[a-zA-Z], )?--[a-z][a-z0-9-]*' |
		sed 's/.*--/--/' | sort -u >"$scratch/want"
	complete "$v" -- | sort -u >"$scratch/got"
	cmp -s "$scratch/got" "$scratch/want" || bad="$bad $v"
done
[ -z "$bad" ]
ok $? "completion offers each verb's options as its --help lists them, deprecated names left out${bad:+ (differs:$bad)}"
complete report --format '' | sort >"$scratch/got"
"$SLICEBENCH" report --format nosuch . 2>&1 | sed -n "s/.*(\(.*\)).*/\1/p" | tr -s ', ' '\n\n' | grep -v '^or$' | sort >"$scratch/want"
[ -s "$scratch/want" ] && cmp -s "$scratch/got" "$scratch/want"
ok $? "completion offers an option's values, the words its parser takes ($(tr '\n' ' ' <"$scratch/got"))" "$scratch/got"
complete place '' | grep -qx raw && complete run quicks | grep -qx quickstart
ok $? "completion offers a verb's operands: kinds for place, experiments for run"

# One name for one thing.
"$SLICEBENCH" --help >/dev/null
for v in $verbs; do "$SLICEBENCH" "$v" --help; done >"$scratch/helps" 2>&1
! grep -E '^  --(time|what-if) ' "$scratch/helps" | grep -v 'deprecated: the old name of --\(duration\|dry-run\)$'
ok $? "no verb's --help offers --time or --what-if but as the deprecated name of --duration and --dry-run"
"$SLICEBENCH" sweep --socket "$scratch/none.sock" --time 2x >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'sweep: --time is deprecated and will go: use --duration' "$scratch/out" &&
	grep -q "sweep: --duration: bad value '2x'" "$scratch/out"
ok $? "sweep --time: a warning naming --duration, then parsed as --duration (exit $rc)" "$scratch/out"
"$SLICEBENCH" explain --what-if >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'explain: --what-if is deprecated and will go: use --dry-run' "$scratch/out"
ok $? "explain --what-if: a warning naming --dry-run (exit $rc)" "$scratch/out"

# -o -: standard output.
python3 "$top/t/fixtures/html/generate.py" run "$scratch/run"
"$SLICEBENCH" report "$scratch/run" >"$scratch/plain" 2>&1 && "$SLICEBENCH" report "$scratch/run" -o - >"$scratch/dash" 2>&1 &&
	cmp -s "$scratch/plain" "$scratch/dash" && [ ! -e ./- ] && [ ! -e "$scratch/-" ]
ok $? "report -o - writes to standard output, as without -o, and no file named -" "$scratch/dash"
"$SLICEBENCH" report "$scratch/run" --format png -o - >"$scratch/plot.png" 2>"$scratch/err" &&
	[ "$(head -c 8 "$scratch/plot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
ok $? "report --format png -o - into a pipe: a PNG on standard output" "$scratch/err"
cp -r "$scratch/run" "$scratch/run2"
"$SLICEBENCH" compare "$scratch/run" "$scratch/run2" -o - >"$scratch/cmp" 2>&1 && grep -q 'median TPS' "$scratch/cmp"
ok $? "compare -o - writes to standard output" "$scratch/cmp"

# hog: a duration by default.
"$SLICEBENCH" hog --help >"$scratch/hog" && grep -qE -- '--duration DURATION +how long it burns, or infinity.*\(60s\)' "$scratch/hog"
ok $? "hog --help: a minute unless told, infinity to run until a signal" "$scratch/hog"
start=$(date +%s%N)
timeout 20 "$SLICEBENCH" hog --duty 10 --duration 1s; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc = 0 ] && [ $ms -ge 900 ] && [ $ms -lt 10000 ]
ok $? "hog --duration 1s ends by itself, exit 0 ($ms ms, exit $rc)"
"$SLICEBENCH" hog --duty 1 --duration infinity & pid=$!
sleep 2
kill -0 $pid 2>/dev/null
ok $? "hog --duration infinity still runs after 2 s"
kill $pid 2>/dev/null; wait $pid 2>/dev/null
"$SLICEBENCH" hog --duration 0 >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'or infinity' "$scratch/out"
ok $? "hog --duration 0: exit 2, saying what it takes (exit $rc)" "$scratch/out"
exit $failed
