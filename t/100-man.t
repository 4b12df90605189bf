#!/bin/bash
# The man pages: both render with man -l without a warning; slicebench(1)
# has a section for every verb of `slicebench --help` and lists exactly the
# options that `slicebench VERB --help` lists; slicebench.experiment(5) has
# every key the shipped experiments use and every systemd property, and
# documents in each section exactly the rows of the key table (which
# mangen --keys lists) and no other key.
# Prerequisites: the built pages beside the binary (make man), man-db.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=${SLICEBENCH_TOP:-.}
mandir=$(dirname "$SLICEBENCH")/man
needs BINARY
command -v man >/dev/null || skip_all "needs man (man-db)"
[ -f "$mandir/slicebench.1" ] && [ -f "$mandir/slicebench.experiment.5" ] || skip_all "no pages in $mandir (make man)"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT

"$SLICEBENCH" --help | sed -n '/^verbs:/,/^$/p' | awk 'NF >= 2 { print $1 }' >"$scratch/verbs"
echo "1..$((5 + $(wc -l <"$scratch/verbs")))"

for page in slicebench.1 slicebench.experiment.5; do
	MANWIDTH=80 man --warnings -l "$mandir/$page" >"$scratch/$page.txt" 2>"$scratch/$page.err"
	[ $? = 0 ] && [ ! -s "$scratch/$page.err" ] && grep -q '^NAME' "$scratch/$page.txt" && grep -q '^SEE ALSO' "$scratch/$page.txt"
	ok $? "man -l renders $page without warnings" "$scratch/$page.err"
done

# The options of a text: every --word in it, sorted and unique.
options() { grep -o -- '--[a-z][a-z-]*' | sort -u; }
# A verb's section of slicebench(1), in the roff source.
section() { awk -v h=".SS slicebench $1" '$0 == h { on = 1; next } /^\.S[SH] / { on = 0 } on' "$mandir/slicebench.1"; }

while read -r verb; do
	section "$verb" >"$scratch/sec"
	if "$SLICEBENCH" "$verb" --help >"$scratch/help" 2>/dev/null; then
		options <"$scratch/help" >"$scratch/want"
		options <"$scratch/sec" >"$scratch/got"
		diff "$scratch/want" "$scratch/got" >"$scratch/diff"
		[ -s "$scratch/sec" ] && [ ! -s "$scratch/diff" ]
		ok $? "slicebench(1) lists the options of '$verb --help' ($(wc -l <"$scratch/want") of them)" "$scratch/diff"
	else
		# A verb whose --help is still an error: its summary, and no invented options.
		[ -s "$scratch/sec" ] && [ -z "$(options <"$scratch/sec")" ]
		ok $? "slicebench(1) has a section for $verb (its --help is not help yet)"
	fi
done <"$scratch/verbs"

# Every key the shipped experiments and fixtures use is documented.
missing=
for key in $(sed -n 's/^\([A-Za-z][A-Za-z-]*\) *=.*/\1/p' "$top"/experiments/*.ini "$top"/t/fixtures/run/*.ini | sort -u); do
	grep -q "^       $key = " "$scratch/slicebench.experiment.5.txt" || missing="$missing $key"
done
[ -z "$missing" ]
ok $? "slicebench.experiment(5) documents every key the experiments use${missing:+ (missing:$missing)}"

missing=
for prop in CPUWeight CPUShares CPUQuota CPUQuotaPeriodSec AllowedCPUs CPUAffinity Nice LimitNOFILE OOMScoreAdjust; do
	grep -q "^       $prop = " "$scratch/slicebench.experiment.5.txt" || missing="$missing $prop"
done
[ -z "$missing" ]
ok $? "slicebench.experiment(5) lists the systemd properties${missing:+ (missing:$missing)}"
# The key table and the page agree: each row is documented in its section,
# and each key documented in a section ("[name ...]" to the next heading) is
# a row of it.  The systemd properties are the attribute table's, above.
if [ -x "$mandir/mangen" ]; then
	"$mandir/mangen" --keys >"$scratch/rows" 2>"$scratch/mangen.err"; rc=$?
	sort -o "$scratch/rows" "$scratch/rows"
	awk '/^[^ ]/ { sec = ""; if (match($0, /^\[[a-z]+/)) sec = substr($0, 2, RLENGTH - 1); next }
	     sec != "" && /^       [A-Za-z][A-Za-z-]* = / { print sec, $1 }' "$scratch/slicebench.experiment.5.txt" |
		sort >"$scratch/documented"
	diff "$scratch/rows" "$scratch/documented" >"$scratch/diff"
	[ $rc = 0 ] && [ -s "$scratch/rows" ] && [ ! -s "$scratch/diff" ]
	ok $? "slicebench.experiment(5) documents exactly the $(wc -l <"$scratch/rows") rows of the key table (< table only, > page only)" \
		"$([ -s "$scratch/mangen.err" ] && echo "$scratch/mangen.err" || echo "$scratch/diff")"
else
	n=$((n + 1)); echo "ok $n # SKIP no $mandir/mangen to list the key table (make man)"
fi
exit $failed
