#!/bin/bash
# report --format html: the page of a run and of an explain directory,
# made from generated directories (t/fixtures/html/generate.py), opened in
# headless Chromium: no console error, the figures in the DOM (a plot per
# step, the verdicts, the waterfall's bars), a screenshot that is not
# blank, and nothing outside the page referred to.  Bad input: a directory
# that is none of run's exits 2 and writes nothing; a run whose steps all
# failed, and a step without per-second data, say so where the figure
# would be.  compare's page of two hosts.  And the text report of 33
# contexts a row per context.
# Prerequisites: CHROMIUM (skipped outside CI without it), python3.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY CHROMIUM
echo "1..38"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
for k in run failed wide explain; do
	python3 "$top/t/fixtures/html/generate.py" $k "$scratch/$k" || { echo "Bail out! generate.py $k"; exit 1; }
done

# browse PAGE NAME: $scratch/NAME.dom (the DOM after its script ran),
# NAME.png (a screenshot) and NAME.log (Chromium's log, console included).
browse() {
	local profile flags
	profile=$(mktemp -d -p "$scratch")
	flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
		--disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars
		--enable-logging=stderr --v=0)
	timeout 90 chromium "${flags[@]}" --dump-dom "file://$1" >"$scratch/$2.dom" 2>"$scratch/$2.log"
	timeout 90 chromium "${flags[@]}" --window-size=1280,1600 --screenshot="$scratch/$2.png" "file://$1" \
		>>"$scratch/$2.log" 2>&1
	rm -rf "$profile"
}
# count FILE REGEX: how many times REGEX matches in FILE.
count() { grep -oE "$2" "$1" | wc -l; }
# colours PNG: "DISTINCT NONWHITE%" of its pixels (t/png.py).
colours() {
	python3 - "$1" "$top/t" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from png import decode
w, h, bpp, rows = decode(sys.argv[1])
seen, other = set(), 0
for row in rows:
    for x in range(0, w * bpp, bpp * 4):
        px = bytes(row[x:x + 3])
        seen.add(px)
        other += px != b"\xff\xff\xff"
print(len(seen), round(100.0 * other * 4 * bpp / (w * bpp * h)))
PY
}

# The detector itself: a page with an error in its script is caught.
printf '<!DOCTYPE html><title>x</title><p>x</p><script>nosuch();</script>\n' >"$scratch/bad.html"
browse "$scratch/bad.html" bad
grep -q 'Uncaught' "$scratch/bad.log"
ok $? "the console check sees an uncaught error (the detector works)" "$scratch/bad.log"

start=$(date +%s%N)
"$SLICEBENCH" report "$scratch/run" --format html -o "$scratch/run.html" >"$scratch/out" 2>&1
ok $? "report --format html of a run (exit 0, $(( ($(date +%s%N) - start) / 1000000 )) ms, $(wc -c <"$scratch/run.html") bytes)" "$scratch/out"
start=$(date +%s%N)
"$SLICEBENCH" report "$scratch/explain" --format html -o "$scratch/explain.html" >"$scratch/out" 2>&1
ok $? "report --format html of an explain directory (exit 0, $(( ($(date +%s%N) - start) / 1000000 )) ms, $(wc -c <"$scratch/explain.html") bytes)" "$scratch/out"
"$SLICEBENCH" report "$scratch/failed" --format html -o "$scratch/failed.html" >"$scratch/out" 2>&1
ok $? "report --format html of a run whose steps all failed (exit 0)" "$scratch/out"

for page in run explain failed; do
	# Nothing outside the file: no URL, no source, no link but to an anchor of its own.
	grep -noiE 'https?:|ftp:|file:|src=|href="[^#]|url\(|@import|<link|<iframe|<img' "$scratch/$page.html" >"$scratch/refs"
	[ ! -s "$scratch/refs" ]
	ok $? "$page: no reference outside the page" "$scratch/refs"
	browse "$scratch/$page.html" "$page"
	! grep -E 'CONSOLE|Uncaught' "$scratch/$page.log" >"$scratch/console"
	ok $? "$page: no console message in Chromium" "$scratch/console"
	read -r distinct nonwhite < <(colours "$scratch/$page.png")
	[ "${distinct:-0}" -gt 16 ] && [ "${nonwhite:-0}" -ge 3 ]
	ok $? "$page: the screenshot is not blank ($distinct colours, ${nonwhite}% not white)"
done

dom=$scratch/run.dom
steps=$(ls "$scratch/run/steps" | wc -l)
got=$(count "$dom" '<figure class="step')
[ "$got" = "$steps" ]
ok $? "run: a figure per step ($got of $steps)"
got=$(count "$dom" '<svg class="spark"')
[ "$got" = $((steps - 1)) ]
ok $? "run: a per-second plot for each step that has its seconds ($got, of $steps steps)"
grep -q '<figure class="step nodata"><p class="nofig">no per-second data' "$dom"
ok $? "run: the step without per-second data says so where its plot would be"
got=$(count "$dom" '<section class="steps"')
[ "$got" = 3 ]
ok $? "run: the steps grouped a section per context ($got)"
got=$(count "$dom" '<rect class="stall"')
[ "$got" = 3 ]
ok $? "run: the 3 silent seconds marked ($got)"
grep -q 'class="bad restart">2 reconnects' "$dom" && grep -q 'failed: the server (PID 4242) is gone' "$dom"
ok $? "run: the reconnects and the failed step said under their plots"
got=$(count "$dom" '<circle class="pt"')
[ "$got" = $((steps - 1)) ]
ok $? "run: TPS against threads, each successful repeat a point ($got)"
got=$(count "$dom" '<rect class="band"')
[ "$got" = 9 ]
ok $? "run: a band per context and thread count ($got)"
got=$(count "$dom" '<tr class="verdict ')
[ "$got" = 9 ] && grep -q '<tr class="verdict sig">' "$dom" && grep -q '<tr class="verdict fail">' "$dom"
ok $? "run: the verdicts, a row per context and thread count, significant ones and a failed cell among them ($got)"
grep -q 'id="host-facts"' "$dom" && grep -q 'GenuineIntel' "$dom" && grep -q 'id="noise"' "$dom"
ok $? "run: the host facts and the noise table"
got=$(count "$dom" '<h3 class="placement">')
[ "$got" = 2 ] && grep -q '20000 100000' "$dom"
ok $? "run: each context's placement against the baseline ($got)"
grep -q 'slicebench run experiments/htmltest.ini --order random --seed 4242' "$dom"
ok $? "run: the commands that reproduce it"
grep -q 'a generated run &lt;of&gt; the page' "$scratch/run.html"
ok $? "run: text from the directory is escaped"

# Without its script (headless Chromium dumps no DOM with scripting off,
# so the script is cut out) the page shows the same: the script only sorts.
sed 's|<script>.*</script>||' "$scratch/run.html" >"$scratch/noscript.html"
browse "$scratch/noscript.html" noscript
got=$(count "$scratch/noscript.dom" '<figure class="step')
[ "$got" = "$steps" ] && [ "$(count "$scratch/noscript.dom" '<tr class="verdict ')" = 9 ] &&
	! grep -q '<script>' "$scratch/noscript.html" && ! grep -q 'title="click to sort"' "$scratch/noscript.dom" &&
	grep -q 'title="click to sort"' "$scratch/run.dom"
ok $? "run: without its script the same figures and verdicts ($got plots); only the sorting gone"

dom=$scratch/explain.dom
got=$(count "$dom" '<rect class="bar ')
[ "$got" = 5 ]
ok $? "explain: the waterfall's bars, each factor alone, the interaction, the rest and A ($got)"
grep -q '<rect class="bar interaction"' "$dom" && grep -q 'their interaction' "$dom"
ok $? "explain: the interaction a bar of its own"
got=$(count "$dom" '<rect class="mix"')
[ "$got" = 4 ] && grep -q 'id="shares"' "$dom" && grep -qE 'together (explain|they are the whole gap)' "$dom"
ok $? "explain: the mixes and their TPS ($got), the shares, explain's sentences"

grep -q 'no step completed a transaction' "$scratch/failed.dom" && ! grep -q '<svg id="tps"' "$scratch/failed.dom"
ok $? "failed: the page says why there is no TPS figure where it would be"
grep -q '&lt;script&gt;alert' "$scratch/failed.html" && ! grep -q '<script>alert' "$scratch/failed.html"
ok $? "failed: a reason holding markup is shown, not run"

# compare: the same run on a host of another CPU model and kernel.
cp -r "$scratch/run" "$scratch/other"
python3 -c 'import json, sys; p = sys.argv[1]; h = json.load(open(p)); h["cpu"]["model"] = "Other CPU"
h["kernel"]["release"] = "6.9.0-other"; json.dump(h, open(p, "w"))' "$scratch/other/host.json"
"$SLICEBENCH" compare "$scratch/run" "$scratch/other" --format html -o "$scratch/compare.html" >"$scratch/out" 2>&1
ok $? "compare --format html of two hosts (exit 0, $(wc -c <"$scratch/compare.html") bytes)" "$scratch/out"
grep -noiE 'https?:|ftp:|file:|src=|href="[^#]|url\(|@import|<link|<iframe|<img' "$scratch/compare.html" >"$scratch/refs"
[ ! -s "$scratch/refs" ]
ok $? "compare: no reference outside the page" "$scratch/refs"
browse "$scratch/compare.html" compare
! grep -E 'CONSOLE|Uncaught' "$scratch/compare.log" >"$scratch/console"
ok $? "compare: no console message in Chromium" "$scratch/console"
got=$(count "$scratch/compare.dom" '<circle class="ratio"')
differs=$(count "$scratch/compare.dom" '<tr class="differs')
[ "$got" = 10 ] && [ "$differs" = 2 ] && grep -q '<pre id="differ">host x context' "$scratch/compare.dom"
ok $? "compare: each host's ratio a point, 5 ratios x 2 hosts ($got), whether the hosts differ, the 2 facts that differ marked ($differs)"

mkdir -p "$scratch/none"
"$SLICEBENCH" report "$scratch/none" --format html -o "$scratch/none.html" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && [ ! -e "$scratch/none.html" ]
ok $? "a directory that is not a results directory: exit 2, no page written (exit $rc)" "$scratch/out"

"$SLICEBENCH" report "$scratch/wide" >"$scratch/wide.txt" 2>&1
rows=$(grep -cE '^c[0-9]{2} ' "$scratch/wide.txt")
widest=$(grep -E '^(context|c[0-9]{2}) ' "$scratch/wide.txt" | awk '{ print length($0) }' | sort -n | tail -n 1)
[ "$rows" -ge 66 ] && [ "$widest" -le 200 ]
ok $? "text: 33 contexts a row per context ($rows rows in the TPS and noise tables, the widest $widest columns)" "$scratch/wide.txt"
