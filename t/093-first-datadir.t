#!/bin/bash
# The first datadir under interruption: SIGINT 0.3 s into a fresh run's
# datadir creation ends the run (exit 130) leaving no mariadb-install-db, no
# bootstrap mariadbd and no datadir without its marker, and the next run
# sets up; after a SIGKILL there, cleanup kills the installer it left and
# removes the half-made datadir, which it proves its own (STATE/datadir.new
# in root's state directory, the installer's process group by its leader's
# start time).
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
echo "1..8"
server_scratch
trap 'pkill -9 -f -- "$scratch/"; rm -rf "$scratch"' EXIT
left() { pgrep -af -- "$scratch/" | grep -v "^$$ " | cut -c1-100 | tr '\n' ';'; }
# interrupt SIG: a fresh run, SIG 0.3 s into its datadir's creation.
interrupt() {
	"$SLICEBENCH" run "$top/t/fixtures/run/two-raw.ini" --out "$scratch/res-$1" >/dev/null 2>"$scratch/$1.err" &
	pid=$!
	for _ in $(seq 600); do pgrep -f "mariadb-install-db.*$SLICEBENCH_STATE_DIR/" >/dev/null && break; sleep 0.05; done
	sleep 0.3
	kill -"$1" $pid; wait $pid 2>/dev/null; rc=$?
}

interrupt INT
[ $rc = 130 ]
ok $? "SIGINT during the first datadir's creation exits 130 (got $rc)" "$scratch/INT.err"
sleep 0.3
[ -z "$(left)" ]
ok $? "no mariadb-install-db or bootstrap mariadbd is left ($(left))"
[ ! -e "$SLICEBENCH_STATE_DIR/datadir" ] && [ ! -e "$SLICEBENCH_STATE_DIR/datadir.new" ]
ok $? "nor a datadir without its marker ($(ls "$SLICEBENCH_STATE_DIR" | tr '\n' ' '))"
"$SLICEBENCH" place raw >/dev/null 2>"$scratch/next.err"
ok $? "the next start sets up and runs" "$scratch/next.err"

export SLICEBENCH_STATE_DIR=$scratch/state2
interrupt KILL
[ -e "$SLICEBENCH_STATE_DIR/datadir.new" ] && [ ! -e "$SLICEBENCH_STATE_DIR/datadir" ]
ok $? "SIGKILL leaves a half-made datadir under its temporary name only ($(ls "$SLICEBENCH_STATE_DIR" | tr '\n' ' '))"
"$SLICEBENCH" cleanup >"$scratch/cleanup.out" 2>&1
grep -q "removed the half-made datadir $SLICEBENCH_STATE_DIR/datadir.new" "$scratch/cleanup.out"
ok $? "cleanup removes it and says so" "$scratch/cleanup.out"
sleep 0.3
[ -z "$(left)" ] && [ ! -e "$SLICEBENCH_STATE_DIR/datadir.new" ]
ok $? "with the installer it left ($(left))"
"$SLICEBENCH" place raw >/dev/null 2>"$scratch/next2.err"
ok $? "and the next start sets up and runs" "$scratch/next2.err"
exit $failed
