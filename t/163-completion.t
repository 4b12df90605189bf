#!/bin/bash
# Bash completion run in real bash, as root pressing TAB after
# `slicebench run` in a directory whose experiments/ holds files named
# $(touch X).ini, `touch Y`.ini and a;touch Z.ini beside good.ini: no
# command runs (the script compares candidates as text, never compgen -W),
# and only names an experiment may have are offered; options and the
# sandbox's words still complete.  Prerequisites: bash.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY
command -v bash >/dev/null || skip_all "needs bash"
scratch=$(mktemp -d) && mkdir "$scratch/cwd" "$scratch/out" || exit 1
trap '[ -n "${SLICEBENCH_TEST_KEEP:-}" ] || rm -rf "$scratch"' EXIT
echo "1..6"
sb=$(cd "$(dirname "$SLICEBENCH")" && pwd)/$(basename "$SLICEBENCH")
"$sb" __complete bash >"$scratch/cwd/completion.bash"
ok $? "the completion script is printed"
mkdir "$scratch/cwd/experiments"
for f in '$(touch X).ini' '`touch Y`.ini' 'a;touch Z.ini' 'good.ini' 'Bad Name.ini'; do
	printf '[experiment]\n' >"$scratch/cwd/experiments/$f"
done
# complete WORDS...: COMPREPLY of the last word, one a line, in real bash,
# in the scratch directory (its ./experiments is searched).
complete_words() {
	(cd "$scratch/cwd" && env -u SLICEBENCH_EXPERIMENTS bash --norc --noprofile -c '
		. ./completion.bash
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_slicebench
		printf "%s\n" "${COMPREPLY[@]}"' complete "$sb" "$@")
}
complete_words run "" >"$scratch/out/run" 2>&1
[ -z "$(find "$scratch" -name X -o -name Y -o -name Z)" ]
ok $? "TAB after 'slicebench run' runs nothing a file name holds" "$scratch/out/run"
grep -qx good "$scratch/out/run" && ! grep -q 'touch' "$scratch/out/run" && ! grep -qx 'Bad Name' "$scratch/out/run"
ok $? "good is offered, and no name an experiment may not have: $(grep -v / "$scratch/out/run" | tr '\n' ' ')" "$scratch/out/run"
complete_words run 'go' >"$scratch/out/go" 2>&1
grep -qx good "$scratch/out/go" && ! grep -qvx 'good' "$scratch/out/go"
ok $? "'go' completes to good alone" "$scratch/out/go"
complete_words run --ou >"$scratch/out/opt" 2>&1
grep -qx -- --out "$scratch/out/opt" && [ -z "$(find "$scratch" -name X)" ]
ok $? "options complete: --ou gives --out" "$scratch/out/opt"
complete_words sandbox e >"$scratch/out/sb" 2>&1
grep -qx exec "$scratch/out/sb"
ok $? "the sandbox's verbs complete: e gives exec" "$scratch/out/sb"
exit $failed
