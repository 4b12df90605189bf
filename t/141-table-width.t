#!/bin/bash
# Tables that fit: the quickstart's report (a real run of experiments/
# quickstart.ini in the container sandbox, kept in t/fixtures/output/
# quickstart) and compare of three hosts made from it, at 100 columns when
# not a terminal and at a terminal's own width: every line within it, and
# every cell of every table (as Markdown gives them, never laid out) still
# there whole: turned or split, never cut.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY
top=${SLICEBENCH_TOP:-.}
fix=$top/t/fixtures/output/quickstart
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
echo "1..9"

# Three hosts of the same run: their names, vendors and levels of TPS apart.
for h in epyc:AuthenticAMD:1.0 xeon:GenuineIntel:0.8 altra:ARM:1.3; do
	name=${h%%:*}
	cp -r "$fix" "$scratch/$name"
	python3 - "$scratch/$name" "$h" <<'EOF'
import glob, json, sys
d, (name, vendor, level) = sys.argv[1], sys.argv[2].split(":")
host = json.load(open(d + "/host.json"))
host["hostname"], host["cpu"]["vendor"] = name, vendor
json.dump(host, open(d + "/host.json", "w"))
for p in glob.glob(d + "/steps/*.json"):
    s = json.load(open(p))
    s["tps"] *= float(level)
    json.dump(s, open(p, "w"))
EOF
done

# fits FILE WIDTH: no line wider than WIDTH columns (UTF-8 counted as text).
fits() { python3 -c 'import sys
w = int(sys.argv[2])
bad = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if len(l) > w]
print("\n".join("%d: %s" % (len(l), l) for l in bad[:5]))
sys.exit(1 if bad else 0)' "$1" "$2"; }
# whole MD TEXT: every cell of every table of MD is in TEXT on one line.
whole() { python3 -c 'import sys
text = open(sys.argv[2], encoding="utf-8").read().splitlines()
cells = [c.strip().replace("\\|", "|") for l in open(sys.argv[1], encoding="utf-8")
         if l.startswith("|") and not l.startswith("|---") for c in l.strip().strip("|").split(" | ")]
lost = [c for c in cells if c and not any(c in l for l in text)]
print("cut or lost: %s" % lost[:5] if lost else "%d cells, all whole" % len(cells))
sys.exit(1 if lost else 0)' "$1" "$2"; }

"$SLICEBENCH" report "$fix" --latency --telemetry >"$scratch/report.txt" 2>"$scratch/err" &&
	fits "$scratch/report.txt" 100 >"$scratch/over" 2>&1
ok $? "the quickstart's report, with --latency and --telemetry: no line over 100 columns" "$scratch/over"
"$SLICEBENCH" report "$fix" --latency --telemetry --format md >"$scratch/report.md" 2>>"$scratch/err" &&
	whole "$scratch/report.md" "$scratch/report.txt" >"$scratch/whole" 2>&1
ok $? "and every cell of its tables is there whole ($(cat "$scratch/whole"))" "$scratch/whole"
# The quickstart's TPS table is 240 columns a row per thread count: turned,
# a row per context and one per its ratio under a column per thread count.
grep -q '^threads  *1  *2  *4$' "$scratch/report.txt" && grep -q '^service  *998\.3 (700\.3\.\.1296\.3) n=2  ' "$scratch/report.txt"
ok $? "its TPS table is turned: a row per context, a column per thread count" "$scratch/report.txt"

"$SLICEBENCH" compare "$scratch/epyc" "$scratch/xeon" "$scratch/altra" >"$scratch/compare.txt" 2>"$scratch/err" &&
	fits "$scratch/compare.txt" 100 >"$scratch/over" 2>&1
ok $? "compare of three hosts: no line over 100 columns" "$scratch/over"
"$SLICEBENCH" compare "$scratch/epyc" "$scratch/xeon" "$scratch/altra" --format md >"$scratch/compare.md" 2>>"$scratch/err" &&
	whole "$scratch/compare.md" "$scratch/compare.txt" >"$scratch/whole" 2>&1
ok $? "and every cell of its tables is there whole ($(cat "$scratch/whole"))" "$scratch/whole"
# Split, the keys again over each group: the host x context table's five
# columns of ratios do not fit beside each other.
[ "$(grep -c '^threads  context ' "$scratch/compare.txt")" -ge 4 ]
ok $? "its wide tables are split into groups under the key columns again" "$scratch/compare.txt"

# On a terminal, its own width: 80 columns through a pty (script(1)).
if command -v script >/dev/null; then
	script -qec "stty cols 80; '$SLICEBENCH' report '$fix'" /dev/null | tr -d '\r' >"$scratch/tty.txt" 2>&1
	fits "$scratch/tty.txt" 80 >"$scratch/over" 2>&1 && grep -q '^service' "$scratch/tty.txt"
	ok $? "on a terminal of 80 columns, the report within 80" "$scratch/over"
	script -qec "stty cols 250; '$SLICEBENCH' report '$fix'" /dev/null | tr -d '\r' >"$scratch/wide.txt" 2>&1
	grep -q '^threads  *service  *ratio  *user  *ratio  *scope  *ratio  *shell$' "$scratch/wide.txt"
	ok $? "on one of 250, its TPS table a row per thread count, as it is" "$scratch/wide.txt"
else
	todo "on a terminal of 80 columns, the report within 80" "no script(1) here (bsdutils)"
	todo "on one of 250, its TPS table a row per thread count" "no script(1) here (bsdutils)"
fi

# Markdown is never laid out: a table is one row per line, whatever its width.
[ "$(awk 'length($0) > 100' "$scratch/report.md" | grep -c '^| ')" -ge 3 ]
ok $? "Markdown keeps its rows whole, however wide" "$scratch/report.md"
exit $failed
