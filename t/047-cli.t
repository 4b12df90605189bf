#!/bin/bash
# The command line as a whole: every verb's --help exits 0 and is made from
# its option table (usage lines, then one line per option, --help among
# them); a usage error is one line on stderr and exit 2, nothing on stdout;
# diff --help (once exit 2) exits 0; and no %m is handed to a log call as an
# argument (printf prints it as it is; only the format turns it into the
# error).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=${SLICEBENCH_TOP:-.}
needs BINARY
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
verbs=$("$SLICEBENCH" --help | sed -n '/^verbs:/,/^$/p' | awk 'NF >= 2 { print $1 }')
echo "1..$((2 * $(echo "$verbs" | wc -l) + 2))"

for v in $verbs; do
	"$SLICEBENCH" "$v" --help >"$scratch/out" 2>"$scratch/err"; rc=$?
	[ $rc = 0 ] && [ ! -s "$scratch/err" ] && head -n 1 "$scratch/out" | grep -q "^usage: slicebench $v" &&
		grep -q '^  -h, --help  ' "$scratch/out"
	ok $? "$v --help exits 0 (got $rc) with its usage and its options, --help among them" "$scratch/err"
	# sandbox hands what follows --kind to its helper, whose usage error is its own.
	[ "$v" = sandbox ] && { n=$((n + 1)); echo "ok $n # SKIP sandbox's options are its helper's"; continue; }
	"$SLICEBENCH" "$v" --no-such-option >"$scratch/out" 2>"$scratch/err"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$scratch/err")" = 1 ] && [ ! -s "$scratch/out" ] &&
		grep -q -- "--no-such-option" "$scratch/err"
	ok $? "$v --no-such-option: exit 2 (got $rc), one line naming it" "$scratch/err"
done
"$SLICEBENCH" diff --help >"$scratch/out" 2>&1
ok $? "diff --help exits 0" "$scratch/out"

# A string with %m after ? or : is a value, not a format (sweep once printed
# "preparing the dataset failed: %m").
grep -rnE '[?:] *"[^"]*%m' "$top"/runner "$top"/slices "$top"/common >"$scratch/m"
[ ! -s "$scratch/m" ]
ok $? "no %m in a string passed as an argument rather than as the format" "$scratch/m"
exit $failed
