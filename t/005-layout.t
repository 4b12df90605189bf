#!/bin/bash
# The code layout's limits (doc/layout.md): the include and call graph
# against the floors doc/layout.md lists (t/layout-graph.sh: no circle of
# includes or of calls between modules, a call found by the file that
# defines the function, no include or call up a floor or into a sibling, every folder on a
# floor, every include naming its layer, no <mysql.h> in the report or
# the results store), no tracked .c or .h outside
# t/ is over 700 lines, and no function in a .c outside t/ is over 60 lines
# unless the comments directly above its header say why it must be one
# piece: a line of them begins "One piece:" (after the "/*", " *" or "//"),
#   /* One piece: it is the one switch over the shapes, a short case each. */
# The marker is for a function that cannot be split where a concern ends;
# otherwise split it.  A function is counted from its body's "{" to its "}"
# at column 0; its header may end in ") {" or stand above a line "{".
# Fixtures check both scans themselves.
# Prerequisites: none (git, to list the tracked files; else every file).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
max_file=700 max_function=60
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
cd "$top" || exit 1
echo "1..6"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -- '*.c' '*.h'
else
	find . -name '*.[ch]' | sed 's|^\./||'
fi | grep -v '^t/' | sort >"$scratch/files"

xargs wc -l <"$scratch/files" | awk -v max=$max_file '$2 != "total" && $1 > max { print $2 ": " $1 " lines" }' >"$scratch/long-files"
[ -s "$scratch/files" ] && [ ! -s "$scratch/long-files" ]
ok $? "no .c or .h outside t/ is over $max_file lines ($(wc -l <"$scratch/files") files)" "$scratch/long-files"

# scan FILE...: each top-level function, as FILE:LINE NAME LENGTH MARKED,
# LINE its "{" and MARKED 1 where "One piece:" begins a line of the comment
# above it.
scan() {
	awk '
	FNR == 1 { infn = 0; split("", line) }
	{ line[FNR] = $0 }
	!infn && ($0 == "{" || ($0 ~ /^[A-Za-z_].*\)[ \t]*\{[ \t]*$/ && $0 !~ /=/)) {
		h = ($0 == "{") ? FNR - 1 : FNR
		while (h > 1 && line[h] ~ /^[ \t]/) h--
		# The return type on a line of its own above the name.
		if (h > 1 && line[h - 1] ~ /^[A-Za-z_]/ && line[h - 1] !~ /[;{}#]|\*\/[ \t]*$/) h--
		for (c = h; c < FNR && line[c] !~ /\(/; c++) ;
		name = line[c]; sub(/\(.*/, "", name); sub(/.*[ \t*]/, "", name)
		marked = 0
		for (c = h - 1; c >= 1 && line[c] ~ /^[ \t]*(\/\*|\*|\/\/)/; c--)
			if (line[c] ~ /^[ \t]*(\/\*+|\*|\/\/)[ \t]*One piece:/) marked = 1
		start = FNR; infn = 1; next
	}
	infn && /^}/ { infn = 0; print FILENAME ":" start, name, FNR - start + 1, marked }
	' "$@"
}
# over FILE: the functions of a scan over the limit without the marker.
over() { awk -v max=$max_function '$3 > max && !$4 { print $1 " " $2 ": " $3 " lines, and no \"One piece:\" above it" }' "$1"; }

# A fixture that must fail: of a 60-line function, 61-line ones with the
# marker (in a comment of one line, of several, and under a second comment)
# and without it, and one whose header spans lines, only the unmarked
# 61-line ones are over.
body() { echo "{"; for i in $(seq 3 "$1"); do echo "	x++;"; done; echo "}"; }
{
	echo "static int x;"
	echo "static void sixty(void)"; body 60
	echo "/* One piece: a reason. */"
	echo "static void marked_one_line(void)"; body 61
	printf '/* Why it is long:\n * One piece: a reason.\n */\n'
	echo "static void marked_block(void)"; body 61
	printf '/* What it does. */\n/* One piece: a reason. */\n'
	echo "static void marked_twice(void)"; body 61
	echo "/* Long, but says not why in the marker's words. */"
	echo "static void unmarked(void)"; body 61
	printf 'static int\nunmarked_split(int a,\n\t       int b)\n'; body 62
	echo "static void braced(void) {"; for i in $(seq 3 61); do echo "	x++;"; done; echo "}"
} >"$scratch/fixture.c"
scan "$scratch/fixture.c" >"$scratch/fixture.functions"
over "$scratch/fixture.functions" | sed 's/^[^ ]* //' >"$scratch/fixture.over"
printf '%s\n' "unmarked: 61 lines, and no \"One piece:\" above it" \
	"unmarked_split: 62 lines, and no \"One piece:\" above it" \
	"braced: 61 lines, and no \"One piece:\" above it" >"$scratch/fixture.want"
diff "$scratch/fixture.want" "$scratch/fixture.over" >"$scratch/fixture.diff"
ok $? "the scan flags exactly the unmarked functions over $max_function lines of a fixture" "$scratch/fixture.diff"

scan $(grep '\.c$' "$scratch/files") >"$scratch/functions"
# A scan that finds (next to) nothing would pass the next test for nothing.
[ "$(wc -l <"$scratch/functions")" -gt 500 ]
ok $? "the scan finds the functions ($(wc -l <"$scratch/functions") of them)"

over "$scratch/functions" >"$scratch/long-functions"
[ ! -s "$scratch/long-functions" ]
ok $? "no function outside t/ is over $max_function lines unless a comment says why it is one piece ($(awk -v max=$max_function '$3 > max && $4' "$scratch/functions" | wc -l) say so)" \
	"$scratch/long-functions"
# A fixture that must fail: a tree of two floors whose lower folder
# includes the upper, whose upper folder holds a circle of two modules, and
# which has a folder no floor names and an include without its layer.
mkdir -p "$scratch/tree/doc" "$scratch/tree/low" "$scratch/tree/high" "$scratch/tree/odd"
printf '<!-- floors -->\n- `low`\n- `high`\n<!-- /floors -->\n' >"$scratch/tree/doc/layout.md"
printf '#include "high/a.h"\n' >"$scratch/tree/low/l.c"
printf '#include "high/b.h"\n' >"$scratch/tree/high/a.c"
printf '#include "high/a.h"\n#include "b.h"\n' >"$scratch/tree/high/b.c"
printf '#include "a.h"\n' >"$scratch/tree/high/c.c"
: >"$scratch/tree/high/a.h"
: >"$scratch/tree/high/b.h"
printf '#include "low/l.h"\n' >"$scratch/tree/odd/o.c"
: >"$scratch/tree/low/l.h"
# A call circle that no include shows: d.c and e.c call each other's
# function, both declared in a header named after neither (shared.h); a
# static namesake in f.c and a name in a comment or a string are no call.
printf 'void d_fn(void);\nvoid e_fn(void);\n' >"$scratch/tree/high/shared.h"
printf '#include "high/shared.h"\nvoid d_fn(void)\n{\n\te_fn();\n}\n' >"$scratch/tree/high/d.c"
printf '#include "high/shared.h"\nvoid e_fn(void)\n{\n\td_fn();\n}\n' >"$scratch/tree/high/e.c"
printf 'static void d_fn(void)\n{\n}\nvoid f_fn(void)\n{\n\td_fn(); /* e_fn() */ (void)"e_fn()";\n}\n' >"$scratch/tree/high/f.c"
printf '#include "high/shared.h"\nvoid g_fn(void)\n{\n\tf_fn();\n}\n' >"$scratch/tree/high/g.c"
printf 'void f_fn(void);\n' >>"$scratch/tree/high/shared.h"
(cd "$scratch/tree" && "$top/t/layout-graph.sh" -o "$scratch/tree.out" .) >"$scratch/fixture.graph"
printf '%s\n' "circles 1" "circle-includes 2" "up 1" "unlayered 1" "unnamed 2" "call-circles 1" "circle-calls 2" \
	"params 0" "mysql 0" >"$scratch/fixture.graph.want"
diff "$scratch/fixture.graph.want" "$scratch/fixture.graph" >"$scratch/fixture.graph.diff"
ok $? "the graph's scan finds the include circle, the call circle through a shared header, the include up a floor, the folder on no floor and the include without its layer of a fixture" \
	"$scratch/fixture.graph.diff"

"$top/t/layout-graph.sh" -o "$scratch/graph" "$top" >"$scratch/counts"
cat "$scratch/graph/circles" "$scratch/graph/up" "$scratch/graph/unlayered" "$scratch/graph/unnamed" >"$scratch/graph.bad"
cat "$scratch/graph/call-circles" >>"$scratch/graph.bad"
# The report and the results store read steps without the client library.
grep '^runner/\(report\|store\)/' "$scratch/graph/mysql" | sed 's/$/: includes <mysql.h>/' >>"$scratch/graph.bad"
[ ! -s "$scratch/graph.bad" ] && grep -q '^circles 0$' "$scratch/counts" && grep -q '^call-circles 0$' "$scratch/counts"
ok $? "no include or call circle, no include or call up a floor or into a sibling, every folder on a floor, every include naming its layer, no <mysql.h> in report/ or store/ ($(tr '\n' ' ' <"$scratch/counts"))" \
	"$scratch/graph.bad"
exit $failed
