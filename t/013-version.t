#!/bin/bash
# Which slicebench made these results: --version names the version
# (debian/changelog's) and the commit (git describe at build); a run on the
# host with a raw context records that build in every step file and in
# results.json; report (text, JSON), the page run writes, and compare say
# which build measured and which reports; a directory measured by two
# builds (a run resumed by another) names both; a commit that could carry
# markup or escapes is refused with the file and the key, exit 2; an
# explain directory from before the recording says it recorded none.
# Prerequisites: ROOT and MYSQLD for the run (the rest runs without).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
echo "1..14"
server_scratch
trap 'servers 2>/dev/null | xargs -r kill -9; rm -rf "$scratch"' EXIT
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$top/debian/changelog")

"$SLICEBENCH" --version >"$scratch/version" 2>&1
commit=$(sed -n "1s/^slicebench $version (\([0-9A-Za-z.+~_-]*\))\$/\1/p" "$scratch/version")
[ -n "$commit" ] && [ "$commit" != unknown ] && grep -q 'GPL-3.0-or-later' "$scratch/version"
ok $? "--version: slicebench $version ($commit) and the licence" "$scratch/version"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	[ "${commit%-dirty}" = "$(git -C "$top" describe --always --abbrev=12)" ]
	ok $? "the commit is git describe's of this checkout (${commit%-dirty})"
else
	todo "the commit is git describe's of this checkout" "no git here (a copy of the sources)"
fi
build="slicebench $version ($commit)"
# first FILE: its first paragraph on one line (a report wraps its prose to
# the width it is read at).
first() { awk 'NF == 0 { exit } { if (NR > 1) sub(/^ +/, ""); printf "%s%s", (NR > 1 ? " " : ""), $0 } END { print "" }' "$1"; }

python3 "$top/t/fixtures/html/generate.py" explain "$scratch/old-explain"
"$SLICEBENCH" report "$scratch/old-explain" >"$scratch/old.txt" 2>&1 &&
	first "$scratch/old.txt" | grep -qxF "measured by a slicebench that recorded no version; reported by $build"
ok $? "an explain directory without the record: 'a slicebench that recorded no version', and which reports" "$scratch/old.txt"
"$SLICEBENCH" report "$scratch/old-explain" --format html -o "$scratch/old.html" >"$scratch/out" 2>&1 &&
	grep -qF "<p class=\"note\" id=\"provenance\">measured by a slicebench that recorded no version; reported by $build.</p>" "$scratch/old.html"
ok $? "its page says the same" "$scratch/out"
cp -r "$scratch/old-explain" "$scratch/other-explain"
"$SLICEBENCH" compare "$scratch/old-explain" "$scratch/other-explain" >"$scratch/cmp.txt" 2>&1 &&
	first "$scratch/cmp.txt" | grep -qF "other-explain: measured by a slicebench that recorded no version; reported by $build"
ok $? "compare of explain directories: each host's builds" "$scratch/cmp.txt"

[ "$(id -u)" = 0 ] && command -v mariadbd >/dev/null || {
	for i in 6 7 8 9 10 11 12 13 14; do echo "ok $i # SKIP needs ROOT and MYSQLD for a run"; done
	exit $failed
}
res=$scratch/res
"$SLICEBENCH" run "$top/t/fixtures/run/two-raw.ini" --only inherit --out "$res" >"$scratch/out" 2>"$scratch/err"
ok $? "a run of one raw context on the host" "$scratch/err"
python3 - "$res" "$version" "$commit" >"$scratch/check" 2>&1 <<'PY'
import glob, json, sys
d, version, commit = sys.argv[1:]
steps = sorted(glob.glob(d + "/steps/*.json"))
assert len(steps) == 4, steps
for p in steps:
    assert json.load(open(p))["slicebench"] == {"version": version, "commit": commit}, p
doc = json.load(open(d + "/results.json"))
assert doc["slicebench"] == [{"version": version, "commit": commit, "steps": 4}], doc["slicebench"]
print("ok")
PY
ok $? "every step file and results.json record the build" "$scratch/check"

"$SLICEBENCH" report "$res" >"$scratch/report.txt" 2>&1 &&
	first "$scratch/report.txt" | grep -qxF "measured by $build; reported by $build"
ok $? "report's first lines: measured by $build, reported by the same" "$scratch/report.txt"
"$SLICEBENCH" report "$res" --format json >"$scratch/report.json" 2>&1 &&
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["slicebench"]
assert d["measured_by"][0]["commit"] == sys.argv[2] and d["reported_by"]["commit"] == sys.argv[2], d' \
		"$scratch/report.json" "$commit" >"$scratch/check" 2>&1
ok $? "report --format json: slicebench.measured_by and reported_by" "$scratch/check"
grep -qF "<p class=\"note\" id=\"provenance\">measured by $build; reported by $build.</p>" "$res/report.html"
ok $? "the page run wrote says which build measured and which reported"

cp -r "$res" "$scratch/other"
"$SLICEBENCH" compare "$res" "$scratch/other" >"$scratch/compare.txt" 2>&1 &&
	first "$scratch/compare.txt" | grep -qF "res: measured by $build; reported by $build other: measured by $build; reported by $build"
ok $? "compare: each host's builds" "$scratch/compare.txt"

# A run begun by an older build, from before the record, and resumed by
# two others: its first step says 0.0, its last nothing.
rm -f "$scratch/other/results.json"
python3 - "$scratch/other" <<'PY'
import glob, json, sys
steps = sorted(glob.glob(sys.argv[1] + "/steps/*.json"))
s = json.load(open(steps[0]))
s["slicebench"] = {"version": "0.0", "commit": "v0.0-1-gabcdef012345"}
json.dump(s, open(steps[0], "w"))
s = json.load(open(steps[-1]))
del s["slicebench"]
json.dump(s, open(steps[-1], "w"))
PY
"$SLICEBENCH" report "$scratch/other" >"$scratch/two.txt" 2>&1 &&
	first "$scratch/two.txt" |
	grep -qxF "measured by slicebench 0.0 (v0.0-1-gabcdef012345), $build and a slicebench that recorded no version; reported by $build"
ok $? "a directory of three builds, one from before the record, names them all" "$scratch/two.txt"

python3 - "$scratch/other" <<'PY'
import glob, json, sys
p = sorted(glob.glob(sys.argv[1] + "/steps/*.json"))[0]
s = json.load(open(p))
s["slicebench"]["commit"] = "<b>\u001b[31m"
json.dump(s, open(p, "w"))
PY
"$SLICEBENCH" report "$scratch/other" >"$scratch/bad.txt" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'steps/.*\.json.*slicebench\.commit: a version or commit' "$scratch/bad.txt"
ok $? "a commit holding markup and an escape: exit 2 naming the file and the key (exit $rc)" "$scratch/bad.txt"

"$SLICEBENCH" cleanup >/dev/null 2>&1
[ -z "$(servers 2>/dev/null)" ]
ok $? "no server left behind"
exit $failed
