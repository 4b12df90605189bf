#!/bin/bash
# Results directories written by someone else: report, compare and
# run --resume refuse a file that does not parse or has not the shape run
# writes (wrong types, absurd values, escape sequences where a name goes)
# with its file and JSON path and exit 2, never a table of nonsense; explain
# DIR --from --to refuses code the directory names (a planted LD_PRELOAD
# library, LD_LIBRARY_PATH=., a planted server binary) unless
# --trust-results-code; a step copied, linked, of 100 MB or disagreeing
# with experiment.json, a host.json that is a link to a root-only file, a
# FIFO, not JSON (its content never quoted) or holds an escape sequence,
# an explain.json (named by its key), report -o through a link, compare of
# one directory twice or of a name with an escape: each refused; --resume
# of no directory and a run that fails at set-up leave no directory behind.
# Prerequisites: ROOT (run), python3.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT
echo "1..39"
server_scratch
trap 'rm -rf "$scratch"' EXIT
fx=$top/t/fixtures/results

# results DIR [PYTHON]: a results directory from the fixtures, the step file
# changed by PYTHON (s is the step, e the experiment).
results() {
	mkdir -p "$1/steps" "$1/placements"
	cp "$fx/placement.json" "$1/placements/shell-v1-r1.json"
	python3 - "$fx" "$1" "${2:-pass}" <<'PY'
import json, sys
fx, d, change = sys.argv[1:]
s = json.load(open(fx + "/step.json")); e = json.load(open(fx + "/experiment.json"))
exec(change)
json.dump(s, open(d + "/steps/shell-v1-r1-t1.json", "w")); json.dump(e, open(d + "/experiment.json", "w"))
PY
}
results "$scratch/good"
"$SLICEBENCH" report "$scratch/good" >"$scratch/out" 2>&1
ok $? "the fixture reports (exit 0)" "$scratch/out"

# refused NAME PYTHON WANT: report of the changed directory exits 2 saying WANT.
refused() {
	results "$scratch/$1" "$2"
	"$SLICEBENCH" report "$scratch/$1" >"$scratch/out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -qF -- "$3" "$scratch/out" && ! grep -q $'\e' "$scratch/out"
	ok $? "report refuses $1 (exit $rc): $(head -c 160 "$scratch/out")" "$scratch/out"
}
refused tps-string 's["tps"] = "fast"' 'steps/shell-v1-r1-t1.json: $.tps: a number'
refused threads-absurd 's["threads"] = 4611686018427387904' '$.threads: an integer from 1 to 100000'
refused tps-huge 's["tps"] = 1e308' '$.tps: a number'
refused context-escape 's["context"] = "\u001b[31mred"' '$.context: a name'
refused intervals-string 's["intervals_tps"] = "x"' '$.intervals_tps: an array'
refused experiment-array 'e = []' 'experiment.json: $: an object'
# The fuzzer's find: the context past the most of experiment.json was
# refused, and its flag written one past the parser's arrays.
results "$scratch/contexts-41" 'e["context_specs"] = [dict(e["context_specs"][0], name="c%d" % i) for i in range(41)]'
"$SLICEBENCH" explain "$scratch/contexts-41" --from c1 --to c2 >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -qF 'experiment.json: $.context_specs: more than 40 contexts' "$scratch/out"
ok $? "explain refuses an experiment.json of 41 contexts, saying so (exit $rc): $(head -c 160 "$scratch/out")" "$scratch/out"
printf '{"tps": ' >"$scratch/tps-string/steps/shell-v1-r1-t1.json"
"$SLICEBENCH" report "$scratch/tps-string" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'shell-v1-r1-t1.json:1:' "$scratch/out"
ok $? "a step file that is not JSON is refused with its line (exit $rc)" "$scratch/out"

"$SLICEBENCH" compare "$scratch/good" "$scratch/threads-absurd" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'threads-absurd/steps/shell-v1-r1-t1.json: $.threads' "$scratch/out"
ok $? "compare refuses it too (exit $rc)" "$scratch/out"

"$SLICEBENCH" run "$top/t/fixtures/run/two-raw.ini" --resume "$scratch/tps-huge" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'tps-huge/steps/shell-v1-r1-t1.json: $.tps' "$scratch/out" && [ ! -e "$SLICEBENCH_STATE_DIR" ]
ok $? "run --resume of it is refused before anything starts (exit $rc)" "$scratch/out"

"$SLICEBENCH" run "$top/t/fixtures/run/two-raw.ini" --resume "$scratch/none" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && [ ! -e "$scratch/none" ] && grep -q 'no such directory to resume' "$scratch/out"
ok $? "--resume of a directory that does not exist is refused and makes none (exit $rc)" "$scratch/out"

# Issue 37: a step copied, linked or disagreeing with experiment.json (each
# counted as a start that never was), files that are no regular file of
# the directory (a link to a root-only file, a FIFO that made report hang),
# a step of 100 MB, and content that a parse error would have quoted.
# hostile NAME SHELL WANT: the good directory copied, SHELL run in it,
# report exits 2 within 20 s saying WANT and shows nothing of the secret.
printf '{"secret": "root-only-XYZZY"}\n' >"$scratch/secret.json"; chmod 0600 "$scratch/secret.json"
hostile() {
	rm -rf "$scratch/$1"; cp -r "$scratch/good" "$scratch/$1"
	(cd "$scratch/$1" && eval "$2")
	timeout 20 "$SLICEBENCH" report "$scratch/$1" >"$scratch/out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -qF -- "$3" "$scratch/out" && ! grep -q 'XYZZY\|root:' "$scratch/out"
	ok $? "report refuses $1 (exit $rc): $(head -c 200 "$scratch/out" | tr '\n' ' ')" "$scratch/out"
}
hostile step-copied 'cp steps/shell-v1-r1-t1.json "steps/shell-v1-r1-t1 copy.json"' \
	"shell-v1-r1-t1 copy.json: holds the step of shell-v1-r1 at 1 threads, which only steps/shell-v1-r1-t1.json may hold"
hostile step-linked 'ln -s shell-v1-r1-t1.json steps/shell-v1-r2-t1.json' "steps/shell-v1-r2-t1.json: a symbolic link"
hostile step-threads "python3 -c 'import json; s = json.load(open(\"steps/shell-v1-r1-t1.json\")); s[\"threads\"] = 2; json.dump(s, open(\"steps/shell-v1-r1-t2.json\", \"w\"))'" \
	"steps/shell-v1-r1-t2.json: \$.threads 2 is no thread count of experiment.json"
hostile step-repeat "python3 -c 'import json; s = json.load(open(\"steps/shell-v1-r1-t1.json\")); s.update(repeat=2, unit=\"shell-v1-r2\"); json.dump(s, open(\"steps/shell-v1-r2-t1.json\", \"w\"))'" \
	"\$.repeat 2 is past experiment.json's 1 repeats"
hostile step-context "python3 -c 'import json; s = json.load(open(\"steps/shell-v1-r1-t1.json\")); s.update(context=\"ghost\", unit=\"ghost-v1-r1\"); json.dump(s, open(\"steps/ghost-v1-r1-t1.json\", \"w\"))'" \
	"\$.context ghost is no context of experiment.json"
hostile host-linked "ln -s '$scratch/secret.json' host.json" "host.json: a symbolic link, not a file of the directory's"
hostile host-shadow "printf 'root:\$6\$salt:19000:0:99999:7:::\\n' >host.json" "host.json:1: '[' or '{' expected"
hostile host-fifo 'mkfifo host.json' "host.json: not a regular file"
hostile step-huge 'truncate -s 100M steps/shell-v1-r1-t1.json' "shell-v1-r1-t1.json: 104857600 bytes, more than slicebench writes"
timeout 20 "$SLICEBENCH" compare "$scratch/good" "$scratch/host-fifo" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -qF "host.json: not a regular file" "$scratch/out"
ok $? "compare refuses the FIFO too, without hanging (exit $rc)" "$scratch/out"

# report -o through a link (it overwrote the link's target), compare of
# one directory twice or of a name with an escape sequence, an explain.json
# refused without naming its key, a host.json string with an escape.
printf 'root only\n' >"$scratch/target"; chmod 0600 "$scratch/target"
ln -s "$scratch/target" "$scratch/report-link"
"$SLICEBENCH" report "$scratch/good" -o "$scratch/report-link" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "report-link: a symbolic link" "$scratch/out" && [ "$(cat "$scratch/target")" = "root only" ]
ok $? "report -o LINK is refused, its target untouched (exit $rc)" "$scratch/out"
"$SLICEBENCH" report "$scratch/good" -o "$scratch/report.txt" >"$scratch/out" 2>&1 &&
	[ -f "$scratch/report.txt" ] && [ ! -L "$scratch/report.txt" ] && grep -q TPS "$scratch/report.txt"
ok $? "report -o FILE writes the file" "$scratch/out"
"$SLICEBENCH" compare "$scratch/good" "$scratch/good/" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "are the same directory" "$scratch/out"
ok $? "compare refuses one directory given twice (exit $rc)" "$scratch/out"
cp -r "$scratch/good" "$scratch/$(printf 'esc\033[31m')"
"$SLICEBENCH" compare "$scratch/good" "$scratch/$(printf 'esc\033[31m')" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -qF 'esc\x1b[31m: a control character' "$scratch/out" && ! grep -q $'\e' "$scratch/out"
ok $? "compare refuses a name with an escape sequence, showing it escaped (exit $rc)" "$scratch/out"
hostile host-escape "printf '{\"hostname\": \"\\\\u001b[2Jbox\"}' >host.json" 'host.json: $.hostname: text without a control character'
mkdir -p "$scratch/explained"
printf '{"format_version": 1, "experiment": "svs", "a": "a", "b": "b", "hybrids": "raw", "unmovable": "", "confidence": 0.95, "width": 7, "closure_is_a": false, "factors": [], "stages": []}' \
	>"$scratch/explained/explain.json"
"$SLICEBENCH" report "$scratch/explained" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -qF 'explain.json: $.width (above 0, at most 1): not as explain writes it' "$scratch/out"
ok $? "an explain.json with a bad width is refused naming the key (exit $rc)" "$scratch/out"

# Issue 37, high 1: explain DIR --from A --to B re-measures, and the
# directory chooses no code: a planted library in a placement's
# LD_PRELOAD (one that marks its loading), a planted server binary in
# experiment.json, refused with file and key before anything starts;
# the host's own library is taken, and --trust-results-code takes the rest.
printf '#include <fcntl.h>\n#include <unistd.h>\n__attribute__((constructor)) static void planted(void) { close(open("%s", O_CREAT | O_WRONLY, 0644)); }\n' \
	"$scratch/loaded" | cc -shared -fPIC -o "$scratch/planted.so" -x c - && chmod 0666 "$scratch/planted.so"
printf '#!/bin/sh\ntouch %s\n' "$scratch/ran" >"$scratch/mariadbd" && chmod 0777 "$scratch/mariadbd"
# sent DIR PYTHON: a results directory of explain's fixtures, changed by
# PYTHON (e the experiment, pa and pb the placements of service and weighted).
sent() {
	mkdir -p "$1/steps" "$1/placements"
	python3 - "$fx" "$1" "$2" <<'PY'
import json, sys
fx, d, change = sys.argv[1:]
e = json.load(open(fx + "/experiment.json")); pa = json.load(open(fx + "/placement.json")); pb = dict(pa)
exec(change)
json.dump(e, open(d + "/experiment.json", "w"))
json.dump(pa, open(d + "/placements/service-v1-r1.json", "w")); json.dump(pb, open(d + "/placements/weighted-v1-r1.json", "w"))
PY
}
# explained NAME WANT [OPTIONS]: explain of it exits 2 saying WANT, and
# nothing ran, loaded or was written.
explained() {
	"$SLICEBENCH" explain "$scratch/$1" --from service --to weighted --out "$scratch/out-$1" "${@:3}" >"$scratch/out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -qF -- "$2" "$scratch/out" && [ ! -e "$scratch/loaded" ] && [ ! -e "$scratch/ran" ] &&
		[ ! -e "$scratch/out-$1" ] && [ ! -e "$SLICEBENCH_STATE_DIR" ]
	ok $? "explain refuses $1 (exit $rc): $(head -c 220 "$scratch/out" | tr '\n' ' ')" "$scratch/out"
}
sent "$scratch/preload" "pa['env.LD_PRELOAD'] = '$scratch/planted.so'"
explained preload "preload/placements/service-v1-r1.json: env.LD_PRELOAD: LD_PRELOAD=$scratch/planted.so chooses code the server would run, and $scratch/planted.so is not root's alone"
grep -q -- "--trust-results-code takes it" "$scratch/out"
ok $? "and says which option would take it" "$scratch/out"
sent "$scratch/libpath" "pa['env.LD_LIBRARY_PATH'] = '.'"
explained libpath "env.LD_LIBRARY_PATH: LD_LIBRARY_PATH=. chooses code the server would run, and '.' in . is not an absolute directory"
sent "$scratch/spec" "e['context_specs'][0]['properties']['Environment'] = 'LD_PRELOAD=$scratch/planted.so'"
explained spec "spec/experiment.json: \$.context_specs[0].properties.Environment: refused in [context service]: LD_PRELOAD=$scratch/planted.so chooses code the server would run"

sent "$scratch/binary" "e['server']['binary'] = '$scratch/mariadbd'"
explained binary "binary/experiment.json: \$.server.binary: $scratch/mariadbd: refused, since what it names runs as the server"
sent "$scratch/other-binary" "e['server']['binary'] = '/usr/bin/perl'"
explained other-binary "other-binary/experiment.json: \$.server.binary: /usr/bin/perl chooses the program the server runs, and is not mariadb's own"
host_lib=$(ls /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 2>/dev/null || echo libc.so.6)
sent "$scratch/host" "pa['env.LD_PRELOAD'] = '$host_lib'"
"$SLICEBENCH" explain "$scratch/host" --from service --to weighted --what-if >"$scratch/out" 2>&1
ok $? "the host's own library ($host_lib) is taken (--what-if)" "$scratch/out"
"$SLICEBENCH" explain "$scratch/preload" --from service --to weighted --what-if --trust-results-code >"$scratch/out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "taken, as --trust-results-code says" "$scratch/out" && [ ! -e "$scratch/loaded" ]
ok $? "--trust-results-code takes the planted one, saying so (--what-if, exit $rc)" "$scratch/out"

# CSV a spreadsheet would run (issue 42's M7): host facts of a directory
# from elsewhere that begin with = + - @ are text in compare's CSV.
for h in a b; do cp -r "$top/t/fixtures/output/quickstart" "$scratch/csv-$h"; done
python3 - "$scratch/csv-b/host.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
h["hostname"] = '=HYPERLINK("http://attacker/","click")'
h["kernel"] = "+cmd|' /C calc'!A0" if isinstance(h.get("kernel"), str) else {"release": "@SUM(1+1)*cmd|' /C calc'!A0"}
json.dump(h, open(sys.argv[1], "w"))
PY
"$SLICEBENCH" compare "$scratch/csv-a" "$scratch/csv-b" --format csv >"$scratch/csv.out" 2>"$scratch/csv.err"; rc=$?
[ $rc = 0 ] && grep -q "HYPERLINK" "$scratch/csv.out"
ok $? "compare --format csv of a host named =HYPERLINK(...) (exit $rc)" "$scratch/csv.err"
python3 - "$scratch/csv.out" >"$scratch/csv.check" 2>&1 <<'PY'
import csv, sys
bad = [c for row in csv.reader(open(sys.argv[1])) for c in row if c[:1] in ("=", "+", "@", "\t", "\r") or (c[:1] == "-" and not c.lstrip("-").replace(".", "", 1).isdigit())]
assert not bad, bad
print("no cell a spreadsheet would run")
PY
ok $? "no cell begins with = + - @ TAB or CR but a number: $(cat "$scratch/csv.check")" "$scratch/csv.check"

# A state directory that is not root's alone: the run fails at set-up.
mkdir -m 0777 "$SLICEBENCH_STATE_DIR"
"$SLICEBENCH" run "$top/t/fixtures/run/two-raw.ini" --out "$scratch/setup-fails" >"$scratch/out" 2>&1; rc=$?
[ $rc != 0 ] && [ ! -e "$scratch/setup-fails" ]
ok $? "a run that fails at set-up leaves no results directory (exit $rc)" "$scratch/out"
exit $failed
