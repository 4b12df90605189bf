#!/bin/bash
# The run's page read at 390 pixels (a phone) and 800, in headless
# Chromium (the page in a frame that wide): the page itself never scrolls
# sideways; at 800 the TPS figure and the verdicts fit whole; at 390 the
# figure shrinks to the width with its text still at least 9 pixels, and
# the verdicts turn into a card per row, each value labelled.  The plots:
# report --format svg is the page's figure, text as <text> (not glyph
# paths) and the same bands with the same values; svg, png and the page
# say which interval the band is, and the PNG draws it.
# Prerequisites: CHROMIUM, python3.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY CHROMIUM
echo "1..11"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
python3 "$top/t/fixtures/html/generate.py" run "$scratch/run" || { echo "Bail out! generate.py"; exit 1; }
"$SLICEBENCH" report "$scratch/run" --format html -o "$scratch/run.html" >"$scratch/out" 2>&1
ok $? "report --format html" "$scratch/out"

# What the page does at a width, measured inside it: its own scroll width,
# every box of class scroll wider than it shows, the TPS figure's width and
# its smallest text, and how the verdicts' cells are laid out.
cat >"$scratch/measure.js" <<'EOF'
<script>(function () {
	var out = [], vw = document.documentElement.clientWidth, small = 1e9, svg = document.getElementById('tps');
	out.push('viewport ' + vw);
	out.push('page ' + document.documentElement.scrollWidth);
	document.querySelectorAll('.scroll').forEach(function (e) {
		var c = e.firstElementChild;
		if (e.scrollWidth > e.clientWidth + 0.5) out.push('scrolls ' + ((c && c.id) || 'unnamed'));
	});
	out.push('tps ' + Math.round(svg.getBoundingClientRect().width));
	svg.querySelectorAll('text').forEach(function (t) { small = Math.min(small, t.getBoundingClientRect().height); });
	out.push('text ' + small.toFixed(1));
	var td = document.querySelector('#verdicts td');
	out.push('cells ' + getComputedStyle(td).display + ' ' + JSON.stringify(getComputedStyle(td, '::before').content));
	var p = document.createElement('pre');
	p.id = 'measure';
	p.textContent = out.join(String.fromCharCode(10));
	window.top.document.body.appendChild(window.top.document.importNode(p, true));
})();</script>
EOF
awk -v js="$(cat "$scratch/measure.js")" '/<\/body>/ { print js } { print }' "$scratch/run.html" >"$scratch/m.html"
# at WIDTH: $scratch/at-WIDTH, the lines the script wrote.
at() {
	printf '<!DOCTYPE html><html><body style="margin:0"><iframe src="m.html" style="border:0;width:%spx;height:900px">' \
		"$1" >"$scratch/host.html"
	printf '</iframe></body></html>\n' >>"$scratch/host.html"
	timeout 90 chromium --headless --no-sandbox --disable-gpu --allow-file-access-from-files --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --user-data-dir="$scratch/profile-$1" \
		--hide-scrollbars --window-size=1200,900 --dump-dom "file://$scratch/host.html" 2>/dev/null |
		sed -n '/<pre id="measure">/,/<\/pre>/{s/<[^>]*>//g;p}' >"$scratch/at-$1"
}
value() { sed -n "s/^$1 //p" "$scratch/at-$2"; }

at 800
[ "$(value viewport 800)" = 800 ] && [ "$(value page 800)" = 800 ]
ok $? "800 px: the page does not scroll sideways (its width $(value page 800))" "$scratch/at-800"
! grep -qE '^scrolls (tps|verdicts)$' "$scratch/at-800" && [ "$(value tps 800)" -le 772 ]
ok $? "800 px: the TPS figure ($(value tps 800) px) and the verdicts fit whole" "$scratch/at-800"

at 390
[ "$(value viewport 390)" = 390 ] && [ "$(value page 390)" = 390 ]
ok $? "390 px: the page does not scroll sideways (its width $(value page 390))" "$scratch/at-390"
tps=$(value tps 390) text=$(value text 390)
[ -n "$tps" ] && [ "$tps" -le 390 ] && awk -v t="$text" 'BEGIN { exit !(t >= 9) }'
ok $? "390 px: the TPS figure shrinks to $tps px, its smallest text $text px high" "$scratch/at-390"
grep -qF 'cells block "\"threads: \""' "$scratch/at-390" && grep -q '^cells table-cell ' "$scratch/at-800"
ok $? "390 px: each verdict a card of labelled values (a table at 800)" "$scratch/at-390"

# The plots.
"$SLICEBENCH" report "$scratch/run" --format svg -o "$scratch/tps.svg" >"$scratch/out" 2>&1 &&
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$scratch/tps.svg"
ok $? "report --format svg: a well-formed SVG document" "$scratch/out"
texts=$(grep -o '<text' "$scratch/tps.svg" | wc -l)
[ "$texts" -ge 10 ] && ! grep -qE '<(path|use)[^>]*(glyph|xlink:href="#glyph)' "$scratch/tps.svg" &&
	grep -q '<text[^>]*>threads (log2)</text>' "$scratch/tps.svg"
ok $? "the SVG's words are <text> ($texts of them), no glyph outlines"
grep -o '<rect class="band"[^<]*<title>[^<]*' "$scratch/tps.svg" | sed 's/.*<title>//' >"$scratch/svg-bands"
grep -o '<rect class="band"[^<]*<title>[^<]*' "$scratch/run.html" | sed 's/.*<title>//' >"$scratch/page-bands"
[ "$(wc -l <"$scratch/svg-bands")" = 9 ] && cmp -s "$scratch/svg-bands" "$scratch/page-bands" &&
	grep -q '^95% interval of the mean: ' "$scratch/svg-bands"
ok $? "the SVG and the page draw the same 9 bands, the 95% interval of the mean, with the same values" "$scratch/svg-bands"
sentence='the band the 95% interval of the mean TPS from the model&#39;s residual sigma'
grep -qF "$sentence" "$scratch/tps.svg" && grep -qF "$sentence" "$scratch/run.html"
ok $? "the SVG and the page say which interval the band is"
"$SLICEBENCH" report "$scratch/run" --format png -o "$scratch/tps.png" >"$scratch/out" 2>&1 &&
	python3 - "$scratch/tps.png" "$top/t" >"$scratch/png" 2>&1 <<'PY'
# The PNG's bands: pixels of the tint the first column's band has (the
# palette's first colour, 31 119 180, at 22% over white), which neither
# its line nor its points have.
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from png import decode
w, h, bpp, rows = decode(sys.argv[1])
tint = tuple(round(255 - 0.22 * (255 - v)) for v in (31, 119, 180))
hits = sum(1 for row in rows for x in range(w)
           if all(abs(u - v) <= 6 for u, v in zip(row[x * bpp:x * bpp + 3], tint)))
assert hits, "no pixel of the first column's band's tint"
print("band pixels:", hits)
PY
ok $? "the PNG draws the bands (pixels of the first column's band's tint)" "$scratch/png"
exit $failed
