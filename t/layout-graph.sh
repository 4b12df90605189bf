#!/bin/bash
# The include graph of the code against its floors (doc/layout.md), and the
# other measures of the layout that t/005 holds and an issue quotes:
#   t/layout-graph.sh [TOP [FLOORS]]
# prints, for the checkout TOP (default: this one) against FLOORS (a file
# whose lines between "<!-- floors -->" and "<!-- /floors -->" name the
# folders of each floor, bottom first; default: TOP/doc/layout.md):
#   circles N          include circles between modules (a module: x.c and
#                      x.h together), each a strongly connected set
#   circle-includes N  the includes that lie on such a circle
#   up N               includes and calls into a folder on a higher floor,
#                      or into a sibling on the same floor
#   call-circles N     call circles between modules: a module calls a
#                      function that another defines (found by the file
#                      that defines it, whatever header declares it), and
#                      that one calls back, directly or around a loop
#   circle-calls N     the calls (one per pair of files) on such a circle
#   unlayered N        folders holding code that no floor names
#   unnamed N          includes that do not name their layer ("x.h" for
#                      "report/x.h")
#   params N           functions of more than 6 parameters
#   mysql N            .c files that include <mysql.h>, directly or through
#                      the headers they include (the compiler's account, cc
#                      -M with the build's flags); the report and the
#                      results store should be none of them
# With -o DIR first, the lists behind each figure go to DIR/circles,
# DIR/call-circles, DIR/up, DIR/unlayered, DIR/unnamed, DIR/params and DIR/mysql.
# An include resolves from TOP or from TOP/runner (the compiler's -I. and
# -Irunner); one that resolves to neither (<...>, a system header) is not
# an edge.  t/ is outside the graph: tests may include any floor.
out=
if [ "$1" = -o ]; then out=$2; shift 2; fi
top=$(cd "${1:-${SLICEBENCH_TOP:-.}}" && pwd) || exit 1
floors=${2:-$top/doc/layout.md}
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
cd "$top" || exit 1

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -- '*.c' '*.h'
else
	find . -name '*.[ch]' | sed 's|^\./||'
fi | grep -v '^t/' | sort >"$scratch/files"
sed -n '/^<!-- floors -->$/,/^<!-- \/floors -->$/p' "$floors" | grep -v '^<!--' |
	sed 's/^[ \t-]*//; s/`//g; s/:.*//' | grep . >"$scratch/floors"

# Edges "FROM TO FILE:LINE NAMED", modules as paths without .c or .h.
awk -v files="$scratch/files" '
BEGIN { while ((getline f <files) > 0) have[f] = 1 }
FNR == 1 { from = FILENAME; sub(/\.[ch]$/, "", from) }
/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	dir = FILENAME; sub(/[^\/]*$/, "", dir)
	to = ""; named = 1
	if (inc in have) to = inc
	else if (("runner/" inc) in have) to = "runner/" inc
	else if ((dir inc) in have) { to = dir inc; named = 0 }
	if (to == "") next
	sub(/\.[ch]$/, "", to)
	print from, to, FILENAME ":" FNR, named
}' $(cat "$scratch/files") >"$scratch/edges"

# A call is an edge too, to the module of the file that defines the
# function called, whatever header declares it: a circle through a shared
# header is a circle.  Every .c file is read twice: first for the
# definitions that are not static, then for the names each one calls that
# another file defines (a static one of its own is its own).  Comments and
# literals are left out.
awk '
function strip(s) {
	if (incomment) { if (!sub(/^.*\*\//, "", s)) return ""; incomment = 0 }
	gsub(/"([^"\\]|\\.)*"/, "\"\"", s); gsub(/\047([^\047\\]|\\.)*\047/, "\047\047", s)
	gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", s)
	if (match(s, /\/\*/)) { s = substr(s, 1, RSTART - 1); incomment = 1 }
	sub(/\/\/.*/, "", s)
	return s
}
FNR == 1 { incomment = 0; inhdr = 0; second = ++read[FILENAME] == 2; from = FILENAME; sub(/\.c$/, "", from) }
{ line = strip($0) }
!second {
	if (!inhdr && line ~ /^[A-Za-z_][^;=]*\(/ && line !~ /^(if|for|while|switch|return|typedef|struct|enum|union|extern)[^A-Za-z0-9_]/) { inhdr = 1; hdr = "" }
	if (inhdr) hdr = hdr " " line
	if (inhdr && line ~ /;[ \t]*$/ && hdr !~ /\{/) { inhdr = 0; next }
	if (inhdr && (line ~ /^\{/ || line ~ /\)[ \t]*\{[ \t]*$/)) {
		inhdr = 0
		name = substr(hdr, 1, index(hdr, "(") - 1); sub(/[ \t]+$/, "", name); sub(/.*[ \t*]/, "", name)
		own[FILENAME, name] = 1
		if (hdr !~ /^[ \t]*static[ \t]/) def[name] = FILENAME
	}
	next
}
line ~ /^[ \t]*#/ { next }
{
	while (match(line, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		t = substr(line, RSTART, RLENGTH - 1); sub(/[ \t]+$/, "", t)
		line = substr(line, RSTART + RLENGTH)
		if (!(t in def) || ((FILENAME, t) in own)) continue
		to = def[t]; sub(/\.c$/, "", to)
		if (!((FILENAME, to) in said)) { said[FILENAME, to] = 1; print from, to, FILENAME ":" FNR ":" t "()", 1 }
	}
}' $(grep '\.c$' "$scratch/files") $(grep '\.c$' "$scratch/files") >>"$scratch/edges"

# circles WANT: the circles of one kind of edge (include or call) among
# the modules; with include, the other figures of the graph of both kinds.
circles() {
awk -v floors="$scratch/floors" -v dir="$scratch" -v want="$1" '
function folder(m) { sub(/\/[^\/]*$/, "", m); return m }
# Tarjan: the strongly connected sets of the modules.
function visit(v,    i, w) {
	index_[v] = low[v] = ++counter; stack[++sp] = v; on[v] = 1
	for (i = 1; i <= nout[v]; i++) {
		w = out[v, i]
		if (!(w in index_)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
		else if (on[w] && index_[w] < low[v]) low[v] = index_[w]
	}
	if (low[v] == index_[v]) {
		nsets++; size = 0
		do { w = stack[sp--]; on[w] = 0; set[w] = nsets; size++ } while (w != v)
		setsize[nsets] = size
	}
}
BEGIN {
	while ((getline line <floors) > 0) {
		n++
		k = split(line, f, /[ \t]+/)
		for (i = 1; i <= k; i++) if (f[i] != "") floor[f[i]] = n
	}
}
{
	kind = $3 ~ /\(\)$/ ? "call" : "include"; verb = kind == "call" ? " calls " : " includes "
	if (want == "call" && $1 != $2 && kind == "call") {
		node[$1] = node[$2] = 1
		if (!(($1, $2) in seen)) { seen[$1, $2] = 1; out[$1, ++nout[$1]] = $2 }
		edge[NR] = $0
	}
	if (want == "call") next
	if (!$4) { print $3 ": " $1 " includes " $2 " without naming its layer" >(dir "/unnamed"); unnamed++ }
	if ($1 == $2) next
	from = $1; to = $2
	if (kind == "include") {
		node[from] = node[to] = 1
		if (!((from, to) in seen)) { seen[from, to] = 1; out[from, ++nout[from]] = to }
		edge[NR] = $0
	}
	ff = folder(from); tf = folder(to)
	if (!(ff in floor)) unl[ff] = 1
	if (!(tf in floor)) unl[tf] = 1
	if ((ff in floor) && (tf in floor) && ff != tf && floor[tf] >= floor[ff]) {
		print $3 ": " from verb to ", " (floor[tf] > floor[ff] ? "a floor up" : "a sibling on its floor") >(dir "/up")
		up++
	}
}
END {
	for (v in node) if (!(v in index_)) visit(v)
	for (i = 1; i <= NR; i++) {
		if (!(i in edge)) continue
		split(edge[i], e, " ")
		if (set[e[1]] != set[e[2]]) continue
		oncircle++
		if (!(e[1] in listed)) { listed[e[1]] = 1; members[set[e[1]]] = members[set[e[1]]] " " e[1] }
	}
	for (s = 1; s <= nsets; s++) if (setsize[s] > 1) {
		circles++
		print "a circle of " setsize[s] ":" members[s] >(dir "/" (want == "call" ? "call-circles" : "circles"))
	}
	if (want == "call") {
		print "call-circles " circles + 0
		print "circle-calls " oncircle + 0
		exit
	}
	for (u in unl) { print u ": no floor names it" >(dir "/unlayered"); unlayered++ }
	print "circles " circles + 0
	print "circle-includes " oncircle + 0
	print "up " up + 0
	print "unlayered " unlayered + 0
	print "unnamed " unnamed + 0
}' "$scratch/edges"
}
{ circles include && circles call; } >"$scratch/counts" || exit 1

# Functions of more than 6 parameters: each top-level definition's
# parameter list (a header at column 0 up to its body's "{"), its commas at
# the outermost depth.
awk '
FNR == 1 { inhdr = 0 }
!inhdr && /^[A-Za-z_][^;=]*\(/ && $0 !~ /^(if|for|while|switch|return)\b/ { inhdr = 1; hdr = ""; start = FNR }
inhdr { hdr = hdr " " $0 }
inhdr && /;[ \t]*$/ && hdr !~ /\{/ { inhdr = 0; next }
inhdr && (/^\{/ || /\)[ \t]*\{[ \t]*$/) {
	inhdr = 0
	p = index(hdr, "("); depth = 0; n = 1; body = ""
	for (i = p + 1; i <= length(hdr); i++) {
		c = substr(hdr, i, 1)
		if (c == "(") depth++
		else if (c == ")") { if (depth == 0) break; depth-- }
		else if (c == "," && depth == 0) n++
		body = body c
	}
	gsub(/[ \t]/, "", body)
	if (body == "void" || body == "") n = 0
	name = substr(hdr, 1, p - 1); sub(/.*[ \t*]/, "", name)
	if (n > 6) print FILENAME ":" start " " name ": " n " parameters"
}' $(grep '\.c$' "$scratch/files") >"$scratch/params"
echo "params $(wc -l <"$scratch/params")" >>"$scratch/counts"

flags="-std=gnu11 -D_GNU_SOURCE -I. -Irunner $(pkg-config --cflags libsystemd libcgroup mysqlclient libpq inih jansson cairo gsl libseccomp pam 2>/dev/null)"
for f in $(grep '\.c$' "$scratch/files"); do
	cc $flags -M "$f" 2>/dev/null | grep -q '/mysql\.h' && echo "$f"
done >"$scratch/mysql"
echo "mysql $(wc -l <"$scratch/mysql")" >>"$scratch/counts"

for f in circles call-circles up unlayered unnamed params mysql; do touch "$scratch/$f"; done
if [ -n "$out" ]; then
	mkdir -p "$out" && cp "$scratch"/{circles,call-circles,up,unlayered,unnamed,params,mysql,counts} "$out/"
fi
cat "$scratch/counts"
