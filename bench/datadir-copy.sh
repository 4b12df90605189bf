#!/bin/bash
# What a start costs before its server starts: the pristine copy of the
# dataset's template datadir (slices/server/datadir.c) against a reload
# (an empty datadir made, a server started, the dataset prepared, the
# server stopped: what each start would cost to start from the same rows
# without the template), for the quickstart's dataset and for one of 10
# million rows.  Each dataset is one `slicebench run` of a raw context,
# $starts units of one 1 s step, in a state directory of the bench's own:
# the first run prepares and keeps the template (its "preparing" line to
# its first unit's start is the reload), a second run takes its copies
# (run.log's "a pristine datadir (copy|reflink of MB in N files) in S s"
# lines; each file is written back to disk before the server starts).
#
#   bench/datadir-copy.sh [--starts N] [--big "TABLES ROWS"] [--no-big]
set -euo pipefail

starts=5 big="4 2500000"
while [ $# -gt 0 ]; do
	case $1 in
	--starts) starts=$2; shift 2 ;;
	--big) big=$2; shift 2 ;;
	--no-big) big=; shift ;;
	*) echo "usage: $0 [--starts N] [--big \"TABLES ROWS\"] [--no-big]" >&2; exit 2 ;;
	esac
done

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools "$sb" mariadbd mariadb-install-db
make_workdir
export SLICEBENCH_STATE_DIR=$work/state SLICEBENCH_RUN_DIR=$work/run-dir
echo "load before: $(cat /proc/loadavg)"
echo "filesystem of the state directory: $(df -T "$work" | awk 'NR == 2 { print $2 }')"

# "HH:MM:SS.mmm" of a run.log line -> seconds of the day
secs() { awk '{ split($2, t, ":"); print t[1] * 3600 + t[2] * 60 + t[3] }'; }

one_dataset() { # NAME TABLES ROWS
	local name=$1 tables=$2 rows=$3 exp=$work/$1.ini prep first copies
	cat >"$exp" <<EOF
[experiment]
description = the pristine copy per start against a reload, $tables x $rows rows
threads = 1
duration = 1s
repeat = $starts
tables = $tables
table-size = $rows

[server]
buffer-pool = 256M

[context shell]
kind = raw
EOF
	"$sb" run "$exp" --out "$work/$name-1" -q >/dev/null 2>"$work/$name-1.err" ||
		{ cat "$work/$name-1.err" >&2; exit 1; }
	"$sb" run "$exp" --out "$work/$name-2" -q >/dev/null 2>"$work/$name-2.err" ||
		{ cat "$work/$name-2.err" >&2; exit 1; }
	prep=$(grep -m1 ' preparing ' "$work/$name-1/run.log" | secs)
	first=$(grep -m1 'starting the server' "$work/$name-1/run.log" | secs)
	grep ': a pristine datadir (' "$work/$name-2/run.log" | sed 's/.* in \([0-9.]*\) s$/\1/' >"$work/$name.copies"
	copies=$(median <"$work/$name.copies")
	printf '%-28s %10.2f %10.2f %8s %s\n' "$tables x $rows" "$(awk -v a="$prep" -v b="$first" 'BEGIN { print b - a }')" \
		"$copies" "$(ratio "$(awk -v a="$prep" -v b="$first" 'BEGIN { print b - a }')" "$copies")" \
		"$(grep -m1 ': a pristine datadir (' "$work/$name-2/run.log" | sed 's/.*a pristine datadir (\([^)]*\)).*/\1/')"
}

echo "# $starts starts a dataset; the copy: the median of the second run's"
printf '%-28s %10s %10s %8s %s\n' dataset reload_s copy_s ratio "the copy"
quick=$(awk -F' *= *' '/^tables/ { t = $2 } /^table-size/ { s = $2 } END { print t, s }' "$bench_top/experiments/quickstart.ini")
# shellcheck disable=SC2086
one_dataset quickstart $quick
# shellcheck disable=SC2086
[ -z "$big" ] || one_dataset big $big
"$sb" cleanup --templates >/dev/null
echo "load after: $(cat /proc/loadavg)"
