#!/bin/bash
# Every bad input refused before anything starts: experiment files with a
# buffer-pool that is no size (or smuggles a my.cnf line), durations of 0, of
# 9999999h (which wrapped to 0) and in hex, a line longer than inih's buffer
# (which split it), a NUL byte (which cut it), an escape sequence, /dev/zero
# and a FIFO, and (issue 37) a numeric or root [server] user, User=root, a
# binary root alone did not put there, a CR, bytes not UTF-8, a C1 control,
# a second [experiment], EnvironmentFile= of /dev/zero or a FIFO,
# TasksMax=0, LimitNOFILE=0, NUMAPolicy=bind without NUMAMask= (and a BOM
# counted as no line), --only '', explain of a results directory whose
# experiment.json holds what no experiment file may, explain's --width out
# of 1..100 and an unknown --order, calibrate of a context the file lacks,
# --pairs out of 10..1000, an unknown option and a bad --duration, a VM
# topology the host cannot give, (issue 42) explain --threads above the
# server's connections and a dataset the disk cannot hold, in a dry run
# too: each exits 2 naming the file, line and key (or the option), and
# leaves no results, state or sandbox directory.
# Prerequisites: ROOT, MYSQLD (the engine of the files must be installed).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
echo "1..46"
server_scratch
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1

# refused NAME WANT [LINES...]: the experiment file NAME.ini of [experiment]
# LINES (after tables on lines 2 and 3), and a raw context, run for real: exit 2, saying WANT,
# and nothing made.
refused() {
	local name=$1 want=$2
	shift 2
	{ printf '[experiment]\ntables = 1\ntable-size = 100\n'; printf '%s\n' "$@"; printf '[context a]\nkind = raw\n'; } >"$name.ini"
	timeout 20 "$SLICEBENCH" run "./$name.ini" --out "$scratch/res-$name" >"$name.out" 2>&1
	check_refused $? "$name" "$want"
}
check_refused() {
	local rc=$1 name=$2 want=$3
	[ "$rc" = 2 ] && grep -qF -- "$want" "$name.out" && [ ! -e "$scratch/res-$name" ] && [ ! -e "$SLICEBENCH_STATE_DIR" ] &&
		! grep -q $'\e' "$name.out"
	ok $? "$name: exit $rc, $(head -c 150 "$name.out")" "$name.out"
}
refused buffer-pool-word "buffer-pool-word.ini:6: buffer-pool: bad value 'abc'" "threads = 1" "[server]" "buffer-pool = abc"
refused buffer-pool-peta "buffer-pool-peta.ini:6: buffer-pool: bad value '1P'" "threads = 1" "[server]" "buffer-pool = 1P"
refused buffer-pool-inject "buffer-pool-inject.ini:6: buffer-pool: bad value '128M;init-file=/etc/shadow'" "threads = 1" \
	"[server]" "buffer-pool = 128M;init-file=/etc/shadow"
refused duration-zero "duration-zero.ini:5: duration: bad value '0s'" "threads = 1" "duration = 0s"
refused duration-wraps "duration-wraps.ini:5: duration: bad value '9999999h'" "threads = 1" "duration = 9999999h"
refused duration-hex "duration-hex.ini:5: duration: bad value '0x10s'" "threads = 1" "duration = 0x10s"
refused long-line "long-line.ini:4: a line longer than" "description = $(printf 'x%.0s' $(seq 250)) duration=0s" "threads = 1"
refused escape "escape.ini:4: a control character (0x1b)" $'description = \e[2J\e[31mred' "threads = 1"
refused threads-over-connections "threads-over-connections.ini:4: threads: 100000 threads need max-connections above" "threads = 100000"
# Issue 37: what failed only at run time (or never), refused as the file is read.
refused user-numeric "user-numeric.ini:6: user: bad value '0' (a user name starts with a lowercase letter" "threads = 1" \
	"[server]" "user = 0"
refused user-root "user-root.ini:6: user: bad value 'root' (the server's account is never root" "threads = 1" "[server]" "user = root"
refused user-root-unit "user-root-unit.ini:7: User: bad value 'root'" "threads = 1" "[context b]" "kind = raw" "User = root"
cp /bin/true "$scratch/planted"; chmod 0777 "$scratch/planted"
refused binary-planted "binary-planted.ini:6: binary: $scratch/planted: refused, since what it names runs as the server" \
	"threads = 1" "[server]" "binary = $scratch/planted"
refused carriage-return "carriage-return.ini:4: a control character (0x0d)" $'description = a\rb' "threads = 1"
refused not-utf8 "not-utf8.ini:4: not UTF-8 (byte 0xff, column 16)" $'description = a\xffb' "threads = 1"
refused c1-control "c1-control.ini:4: a control character (U+009b)" $'description = \xc2\x9b31m' "threads = 1"
refused experiment-twice "experiment-twice.ini:5: [experiment] is given twice (first on line 1)" "threads = 1" "[experiment]" \
	"duration = 1s"
refused env-file-zero "env-file-zero.ini:7: EnvironmentFile: bad value '/dev/zero' (a regular file" "threads = 1" \
	"[context b]" "kind = raw" "EnvironmentFile = /dev/zero"
mkfifo "$scratch/env.fifo"
refused env-file-fifo "env-file-fifo.ini:7: EnvironmentFile: bad value '$scratch/env.fifo' (a regular file" "threads = 1" \
	"[context b]" "kind = raw" "EnvironmentFile = $scratch/env.fifo"
refused tasks-max-zero "tasks-max-zero.ini:7: TasksMax: bad value '0' (pids.max of the unit: a number from 1 (systemd: 0 is out of range)" \
	"threads = 1" "[context b]" "kind = raw" "TasksMax = 0"
refused nofile-zero "nofile-zero.ini:7: LimitNOFILE: bad value '0'" "threads = 1" "[context b]" "kind = raw" "LimitNOFILE = 0"
refused numa-bind "numa-bind.ini:7: NUMAPolicy: bind and interleave need NUMAMask=" "threads = 1" "[context b]" "kind = raw" \
	"NUMAPolicy = bind"
# A byte order mark is no line of its own: the unknown key is on line 2.
printf '\xef\xbb\xbf[experiment]\nbogus = 1\n[context a]\nkind = raw\n' >bom.ini
timeout 20 "$SLICEBENCH" run ./bom.ini --out "$scratch/res-bom" >bom.out 2>&1
check_refused $? bom "bom.ini:2: bogus: unknown key in [experiment]"

printf '[experiment]\nthreads = 1\nduration = 5s\0duration = 0s\n[context a]\nkind = raw\n' >nul.ini
timeout 20 "$SLICEBENCH" run ./nul.ini --out "$scratch/res-nul" >nul.out 2>&1
check_refused $? nul "nul.ini:3: a NUL byte"
{ printf '[experiment]\nthreads = 1\n'; printf 'description = %s\n' "$(head -c 100000 /dev/zero | tr '\0' y)"; printf '[context a]\nkind = raw\n'; } >huge-line.ini
timeout 20 "$SLICEBENCH" run ./huge-line.ini --out "$scratch/res-huge-line" >huge-line.out 2>&1
check_refused $? huge-line "huge-line.ini:3: a line longer than"

timeout 5 "$SLICEBENCH" run /dev/zero --out "$scratch/res-zero" >zero.out 2>&1
check_refused $? zero "/dev/zero: not a regular file"
mkfifo fifo.ini
timeout 5 "$SLICEBENCH" run ./fifo.ini --out "$scratch/res-fifo" >fifo.out 2>&1
check_refused $? fifo "fifo.ini: not a regular file"
timeout 20 "$SLICEBENCH" run "$top/t/fixtures/run/two-raw.ini" --only '' --out "$scratch/res-only" >only.out 2>&1
check_refused $? only "--only: give the contexts to run"

# explain RESULTS reads experiment.json with the experiment file's rules.
# explained NAME PYTHON WANT: experiment.json changed by PYTHON (e).
explained() {
	mkdir -p "$1/steps"
	python3 - "$top/t/fixtures/results/experiment.json" "$1/experiment.json" "$2" <<'PY'
import json, sys
e = json.load(open(sys.argv[1])); exec(sys.argv[3]); json.dump(e, open(sys.argv[2], "w"))
PY
	timeout 20 "$SLICEBENCH" explain "$1" --from service --to weighted --dry-run >"$1.out" 2>&1
	check_refused $? "$1" "$3"
}
explained tables-negative 'e["tables"] = -1' "tables-negative/experiment.json: tables: bad value '-1'"
explained pool-inject 'e["server"]["buffer_pool"] = "1M\ninit-file=/etc/shadow"' "pool-inject/experiment.json: buffer-pool: bad value"
explained duration-absurd 'e["duration_s"] = 1e300' "duration-absurd/experiment.json: duration: bad value"

# An option out of its range, before anything starts.
optioned() {
	local name=$1 want=$2
	shift 2
	timeout 20 "$SLICEBENCH" "$@" >"$name.out" 2>&1
	check_refused $? "$name" "$want"
}
optioned width-zero "explain: --width: bad value '0' (an integer from 1 to 100)" \
	explain "$top/t/fixtures/run/two-raw.ini" a b --width 0 --out "$scratch/res-width-zero"
optioned width-over "explain: --width: bad value '101' (an integer from 1 to 100)" \
	explain "$top/t/fixtures/run/two-raw.ini" a b --width 101 --out "$scratch/res-width-over"
optioned order-sideways "run: --order: bad value 'sideways' (random or fixed)" \
	run "$top/t/fixtures/run/two-raw.ini" --order sideways --out "$scratch/res-order-sideways"
# A VM topology the host cannot give: refused before qemu starts, and no
# guest state is made (SLICEBENCH_RUNDIR is the scratch's).
export SLICEBENCH_RUNDIR=$scratch/run
optioned l3-divides "--l3 2 does not divide --cpus 3 into equal L3 groups" sandbox --kind vm --name t097 --cpus 3 --l3 2 up
[ ! -e "$scratch/run" ]
ok $? "and no guest state is made"
optioned cpus-over "--cpus $((2 * $(nproc --all) + 1)): this host has $(nproc --all) CPUs to emulate them with" \
	sandbox --kind vm --name t097 --cpus $((2 * $(nproc --all) + 1)) up
# calibrated NAME WANT ARGS...: calibrate ARGS refused before anything starts.
calibrated() { optioned "$1" "$2" calibrate "${@:3}" --out "$scratch/res-$1"; }
calibrated calibrate-no-context "calibrate: $top/t/fixtures/run/two-raw.ini has no context 'nosuch'" \
	"$top/t/fixtures/run/two-raw.ini" nosuch
calibrated calibrate-pairs-few "calibrate: --pairs: bad value '9' (an integer from 10 to 1000)" \
	"$top/t/fixtures/run/two-raw.ini" inherit --pairs 9
calibrated calibrate-pairs-many "calibrate: --pairs: bad value '1001' (an integer from 10 to 1000)" \
	"$top/t/fixtures/run/two-raw.ini" inherit --pairs 1001
calibrated calibrate-unknown "calibrate: unknown option --bogus" "$top/t/fixtures/run/two-raw.ini" inherit --bogus
calibrated calibrate-duration "calibrate: --duration: bad value '0x10s'" "$top/t/fixtures/run/two-raw.ini" inherit --duration 0x10s
optioned explain-threads "explain: --threads 10000 need max-connections above 10000, and [server] max-connections is" \
	explain "$top/t/fixtures/run/two-raw.ini" a b --threads 10000 --dry-run
# A dataset of 1e11 rows: refused, dry or not, before anything starts.
printf '[experiment]\nthreads = 1\ntables = 100\ntable-size = 1000000000\n[context a]\nkind = raw\n' >huge.ini
optioned huge-dry "run: the dataset of 100000000000 rows takes about 24000.0 GB, and " run ./huge.ini --dry-run
optioned huge "run: the dataset of 100000000000 rows takes about 24000.0 GB, and " run ./huge.ini --out "$scratch/res-huge"
printf '[experiment]\nthreads = 1\ntables = 4\ntable-size = 1000000\n[context a]\nkind = raw\n' >big.ini
"$SLICEBENCH" run ./big.ini --dry-run >big.out 2>&1; rc=$?
[ $rc = 0 ] && grep -q "^the dataset: 4000000 rows, about 960 MB; preparing them takes up to 2 min" big.out &&
	grep -q "; about 2 min$" big.out
ok $? "a dataset that fits: its size and preparing time in the plan's estimate (exit $rc): $(grep dataset big.out)" big.out
exit $failed
