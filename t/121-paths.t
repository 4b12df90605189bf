#!/bin/bash
# The paths root writes in, refused before anything starts (exit 2, the
# variable or option and why, nothing made, nothing changed): a
# SLICEBENCH_STATE_DIR with a blank (which the installer split, handing an
# existing root 0700 directory to the server's account), relative, or a
# symbolic link; a SLICEBENCH_RUN_DIR with a newline (which put a
# skip-grant-tables line into my.cnf) or of another user's; run --out and
# explain --out of /etc, of / and of the state directory (where the lock
# made run blame "another slicebench" with its own PID).
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
echo "1..13"
server_scratch
trap 'servers | xargs -r kill -9; rm -rf "$scratch"' EXIT
exp=$top/t/fixtures/run/two-raw.ini
# refused NAME WANT [VAR=VALUE...] -- ARGS...: slicebench ARGS with those
# variables exits 2 saying WANT, and starts no server.
refused() {
	local name=$1 want=$2 vars=()
	shift 2
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	env "${vars[@]}" timeout 60 "$SLICEBENCH" "$@" >"$scratch/$name.out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -qF -- "$want" "$scratch/$name.out" && [ -z "$(servers)" ] && ! grep -q $'\e' "$scratch/$name.out"
	ok $? "$name: exit $rc, $(head -c 200 "$scratch/$name.out" | tr '\n' ' ')" "$scratch/$name.out"
}

# An existing root 0700 directory, and a state directory whose name begins
# with it and goes on after a blank.
mkdir -m 0700 "$scratch/secret"
refused state-blank "SLICEBENCH_STATE_DIR=$scratch/secret dir: refused: a blank" \
	"SLICEBENCH_STATE_DIR=$scratch/secret dir" -- place raw
[ "$(stat -c %U:%a "$scratch/secret")" = root:700 ] && [ ! -e "$scratch/secret dir" ]
ok $? "the root 0700 directory is as it was ($(stat -c %U:%a "$scratch/secret")), nothing made"
refused state-relative "SLICEBENCH_STATE_DIR=state: refused: not an absolute path" SLICEBENCH_STATE_DIR=state -- place raw
ln -s "$scratch/secret" "$scratch/link"
refused state-link "SLICEBENCH_STATE_DIR=$scratch/link: refused: a symbolic link" "SLICEBENCH_STATE_DIR=$scratch/link" -- place raw
refused run-newline 'SLICEBENCH_RUN_DIR=/tmp/r\x0askip-grant-tables: refused: a blank, a control character' \
	$'SLICEBENCH_RUN_DIR=/tmp/r\nskip-grant-tables' -- place raw
[ ! -e "$SLICEBENCH_STATE_DIR" ] && ! grep -rqs skip-grant-tables "$scratch"/*/my.cnf
ok $? "no state directory and no my.cnf were written"
mkdir -m 0755 "$scratch/theirs"
chown nobody "$scratch/theirs"
refused run-theirs "SLICEBENCH_RUN_DIR=$scratch/theirs: refused: not a directory of root's" \
	"SLICEBENCH_RUN_DIR=$scratch/theirs" -- place raw

# --out of a directory that is not a results directory of slicebench's.
refused out-etc "run: --out /etc: refused: a directory that holds other files" -- run "$exp" --out /etc
refused out-root "run: --out /: refused: a directory that holds other files" -- run "$exp" --out /
"$SLICEBENCH" place raw >"$scratch/place.out" 2>&1
ok $? "a place makes the state directory" "$scratch/place.out"
before=$(ls -A "$SLICEBENCH_STATE_DIR" | tr '\n' ' ')
refused out-state "run: --out $SLICEBENCH_STATE_DIR: refused: a directory that holds other files" -- \
	run "$exp" --out "$SLICEBENCH_STATE_DIR"
! grep -q "another slicebench" "$scratch/out-state.out" && [ "$(ls -A "$SLICEBENCH_STATE_DIR" | tr '\n' ' ')" = "$before" ]
ok $? "no other slicebench is blamed, and the state directory holds what it held ($before)" "$scratch/out-state.out"
refused explain-out-etc "explain: --out /etc: refused: a directory that holds other files" -- \
	explain "$exp" inherit newsession --out /etc
exit $failed
