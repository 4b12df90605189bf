#!/bin/bash
# The README stays true: at most 250 lines; every command it shows parses
# (a make target the Makefile has; slicebench's with --help appended, which
# parses every option and value before it prints, and a named experiment
# that `slicebench list` knows; a sandbox's command inside it the same); an
# output it quotes starts with the command that printed it; every paragraph
# that quotes a figure (seconds, minutes, MB, GB, %, a ratio, TPS) names in
# backquotes the command that produced it; the JSON format it names is the
# code's; its links lead to files.  Commands under <!-- pending: ... -->
# are checked as TODO: they wait for a change in flight.
# Prerequisites: none beyond the binary.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
readme=$top/README.md
"$SLICEBENCH" list 2>/dev/null | awk '{ print $1 }' >"$scratch/experiments"

# The commands of the code blocks, one a line: "LINE PENDING COMMAND"
# (PENDING 1 under a pending marker); a ```sh block's every line, a
# ```text block's lines that start with "$ ".
awk '
	/^<!-- pending:/ { pending = 1; next }
	/^```/ { if (inblock) { inblock = 0; pending = 0 } else { inblock = 1; kind = substr($0, 4) } ; next }
	inblock && kind == "sh" && $0 !~ /^[ \t]*(#|$)/ { print NR, pending + 0, $0 }
	inblock && kind == "text" && /^\$ / { print NR, pending + 0, substr($0, 3) }
' "$readme" >"$scratch/commands"
n_commands=$(wc -l <"$scratch/commands")
# An experiment file the README shows whole, in an ```ini block whose first
# line is "; NAME.ini", is one its commands may name: it is written out,
# and the commands are checked from where it lies.
mkdir -p "$scratch/ini"
awk -v dir="$scratch/ini" '
	/^```ini/ { getline; if ($0 ~ /^; [A-Za-z0-9._-]+\.ini$/) { file = dir "/" substr($0, 3); print >file } else file = ""; next }
	/^```/ { file = ""; next }
	file != "" { print >file }
' "$readme"
cd "$scratch/ini" || exit 1

echo "1..$((6 + n_commands))"
lines=$(wc -l <"$readme")
[ "$lines" -le 250 ]
ok $? "README.md is at most 250 lines ($lines)"

# check CMD: 0 if one simple command parses, else its reason on stdout.
check() {
	local words w verb i
	# The shell's part that is not the command: a comment, a redirection,
	# a substitution (a PID).
	words=$(printf '%s\n' "$1" | sed -e 's/[[:space:]]#.*$//' -e 's/"\$([^)]*)"/1/g' -e 's/[0-9]*>[^ ]*//g')
	read -r -a w <<<"$words"
	case ${w[0]} in
	make)
		for t in "${w[@]:1}"; do
			case $t in -*) continue ;; esac
			grep -q "^$t:" "$top/Makefile" || { echo "no make target $t"; return 1; }
		done
		return 0 ;;
	slicebench | ./slicebench) ;;
	*) echo "not a command of this checkout: ${w[0]}"; return 1 ;;
	esac
	verb=${w[1]}
	# A sandbox's command: the sandbox's options, then the command inside.
	for ((i = 2; i < ${#w[@]}; i++)); do
		if [ "${w[i]}" = -- ]; then
			check "${w[*]:i+1}" || return 1
			w=("${w[@]:0:i}")
			break
		fi
	done
	case $verb in
	sandbox)
		# Its options go to its helper: each must be one --help lists;
		# its own command (up, exec, ...) one its row lists.
		"$SLICEBENCH" sandbox --help >"$scratch/help" 2>&1
		local sub=
		for ((i = 2; i < ${#w[@]}; i++)); do
			case ${w[i]} in
			--*) grep -qF -- "${w[i]} " "$scratch/help" || { echo "sandbox has no option ${w[i]}"; return 1; } ;;
			*) "$SLICEBENCH" __complete 2 slicebench sandbox '' | grep -qx -- "${w[i]}" && sub=${w[i]} ;;
			esac
		done
		[ -n "$sub" ] || { echo "no sandbox command (up, exec, down, ...)"; return 1; }
		return 0 ;;
	run | explain | calibrate)
		name=${w[2]:-}
		if [ -n "$name" ] && [ "${name#-}" = "$name" ] && ! grep -qx "$name" "$scratch/experiments" &&
			[ ! -f "$top/$name" ] && [ ! -f "$name" ]; then
			echo "no experiment $name"
			return 1
		fi ;;
	esac
	"$SLICEBENCH" "${w[@]:1}" --help >"$scratch/help" 2>"$scratch/err" && head -n 1 "$scratch/help" | grep -q "^usage: slicebench $verb" ||
		{ echo "$(head -n 1 "$scratch/err")"; return 1; }
}
while read -r line pending cmd; do
	cmd=$(printf '%s\n' "$cmd" | sed -e 's/[[:space:]]#.*$//' -e 's/[[:space:]]*$//')
	why=
	rest=$cmd
	# Each command of a && list.
	while [ -n "$rest" ]; do
		part=${rest%%&&*}
		[ "$part" = "$rest" ] && rest= || rest=${rest#*&&}
		why=$(check "$(printf '%s' "$part" | sed 's/^ *//; s/ *$//')") || break
		why=
	done
	if [ -z "$why" ]; then
		echo "ok $((n += 1)) - README.md:$line parses: $cmd"
	elif [ "$pending" = 1 ]; then
		echo "not ok $((n += 1)) - README.md:$line parses: $cmd # TODO pending: $why"
	else
		failed=1
		echo "not ok $((n += 1)) - README.md:$line parses: $cmd"
		echo "# $why"
	fi
done <"$scratch/commands"

awk '/^```text/ { getline; if ($0 !~ /^\$ /) print NR ": " $0 }' "$readme" >"$scratch/bare"
[ ! -s "$scratch/bare" ]
ok $? "every output the README quotes starts with the command that printed it" "$scratch/bare"

# Paragraphs outside the code blocks, one a line, with their first line.
awk '
	/^```/ { code = !code; next }
	code { next }
	/^[ \t]*$/ { if (p != "") print start ": " p; p = ""; next }
	{ if (p == "") start = NR; p = p " " $0 }
	END { if (p != "") print start ": " p }
' "$readme" >"$scratch/paragraphs"
grep -E '(^|[^A-Za-z0-9.-])[0-9]+(\.[0-9]+)? ?(s|min|ms|MB|GB|%|x|TPS)([^A-Za-z0-9]|$)' "$scratch/paragraphs" |
	grep -vE '`(make|bash|slicebench|sysbench|CI=true)[^`]*`' >"$scratch/unnamed"
[ ! -s "$scratch/unnamed" ]
ok $? "every paragraph that quotes a figure names the command that produced it" "$scratch/unnamed"

code=$(sed -n 's/^#define REPORT_FORMAT_VERSION \([0-9]*\).*/\1/p' "$top"/runner/report/*.h "$top"/runner/report/*/*.h 2>/dev/null | head -n 1)
said=$(grep -oE 'JSON( format)? [0-9]+|JSON\s*$' "$readme" | head -n 1; tr '\n' ' ' <"$readme" | grep -oE 'JSON format [0-9]+' | head -n 1)
said=$(printf '%s\n' "$said" | grep -oE '[0-9]+' | head -n 1)
[ -n "$code" ] && [ "$said" = "$code" ]
ok $? "the JSON format the README names is the code's (README ${said:-none}, code ${code:-none})"

grep -oE '\]\([^)#]+\)' "$readme" | sed 's/^](//; s/)$//' | sort -u >"$scratch/links"
: >"$scratch/missing"
while read -r l; do
	[ -e "$top/$l" ] || echo "$l" >>"$scratch/missing"
done <"$scratch/links"
missing=$(tr '\n' ' ' <"$scratch/missing")
if [ -z "$missing" ]; then
	ok 0 "every link leads to a file ($(wc -l <"$scratch/links") links)"
elif ! grep -qv '^doc/' "$scratch/missing"; then
	todo "every link leads to a file" "not yet written: $missing"
else
	ok 1 "every link leads to a file (missing: $missing)"
fi

grep -q '^make deps && make && make quickstart ' "$readme" && grep -q '^make test-deps && make check ' "$readme" &&
	grep -q 'GPL-3.0-or-later' "$readme" && [ -f "$top/LICENSE" ]
ok $? "the two commands come first, and the licence is named, with LICENSE beside it"
exit $failed
