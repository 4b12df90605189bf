#!/bin/bash
# Privilege separation of state, attacked as the issue did, from the server's
# own account (slicebench): symbolic links planted at the temporary names
# root writes through, a forged live record naming a root process, a state
# and a run directory that slicebench did not make, --out through a symbolic
# link, and a server user that is root.  Only the datadir belongs to the
# server's user; what root writes and trusts stays root's.
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
command -v setpriv >/dev/null || skip_all "needs setpriv (util-linux)"
echo "1..19"
server_scratch
state=$SLICEBENCH_STATE_DIR
victim=
trap 'servers | xargs -r kill -9; [ -n "$victim" ] && kill -9 $victim 2>/dev/null; rm -rf "$scratch"' EXIT
# as_server CMD: CMD run by the server's account, as an attacker would.
# running PID: not gone, and not a zombie that no one reaped yet.
running() { [ -e /proc/$1 ] && ! grep -q '^State:[[:space:]]*Z' /proc/$1/status; }
as_server() { setpriv --reuid=slicebench --regid=slicebench --clear-groups -- sh -c "$1" 2>/dev/null; }

"$SLICEBENCH" place raw >"$scratch/out" 2>&1
ok $? "a first place sets up the state directory" "$scratch/out"
[ "$(stat -c %U "$state")" = root ] && [ "$(stat -c %U "$state/datadir")" = slicebench ] &&
	[ "$(stat -c %U "$state/my.cnf")" = root ] && [ "$(stat -c %U "$state/live")" = root ]
ok $? "the state directory, my.cnf and live/ are root's; only the datadir is the server's user's ($(stat -c '%U %a' "$state" "$state/datadir" | tr '\n' ' '))"

# 1. Symbolic links at the next PIDs' temporary names of my.cnf.
printf 'root only\n' >"$scratch/secret"; chmod 0600 "$scratch/secret"
next=$(cat /proc/sys/kernel/ns_last_pid)
# One process plants them all, so that planting uses up no PID of the range.
as_server "python3 -c 'import os
for i in range($next + 1, $next + 3000):
    os.symlink(\"$scratch/secret\", \"$state/my.cnf.tmp.%d\" % i)'"
planted=$(find "$state" -maxdepth 1 -type l | wc -l)
[ "$planted" = 0 ]
ok $? "the server's account cannot plant links in the state directory ($planted planted)"
"$SLICEBENCH" place raw >"$scratch/out" 2>&1
ok $? "place runs again" "$scratch/out"
[ "$(cat "$scratch/secret")" = "root only" ] && [ -f "$state/my.cnf" ] && [ ! -L "$state/my.cnf" ]
ok $? "a root-only file is not overwritten through a planted link (it holds: $(head -c 40 "$scratch/secret" | tr '\n' ' '))"
find "$state" -maxdepth 1 -type l -delete

# 2. A forged live record naming a root process (PID and start time).
( sleep 300 & echo $! >"$scratch/victim" ); victim=$(cat "$scratch/victim")
start=$(awk '{print $22}' /proc/$victim/stat)
record="{\"kind\":\"raw\",\"uid\":-1,\"server_pid\":$victim,\"server_start\":$start,\"owner_pid\":1}"
as_server "mv '$state/live' '$state/live.old' && mkdir '$state/live' && printf '%s' '$record' >'$state/live/x.json'"
"$SLICEBENCH" cleanup >"$scratch/out" 2>&1
running $victim
ok $? "cleanup does not kill a root process named by a record the server's account forged" "$scratch/out"
[ ! -e "$state/live/x.json" ] && [ "$(stat -c %U "$state/live")" = root ]
ok $? "the server's account could not replace live/ ($(ls "$state/live" | tr '\n' ' '))"
# The same record in a live/ that others may write (a mistake of the admin's).
rm -rf "$state/live.old"; chmod 0777 "$state/live"
as_server "printf '%s' '$record' >'$state/live/x.json'"
"$SLICEBENCH" cleanup >"$scratch/out" 2>&1
running $victim && grep -q "ignored $state/live: not a directory that root alone can write" "$scratch/out"
ok $? "records in a live/ that others can write are not trusted, and cleanup says so" "$scratch/out"
rm -f "$state/live/x.json"; chmod 0700 "$state/live"
chown slicebench "$state/live/" && as_server "printf '%s' '$record' >'$state/live/y.json'"
chown root "$state/live"; chmod 0700 "$state/live"
"$SLICEBENCH" cleanup >"$scratch/out" 2>&1
running $victim && grep -q "ignored $state/live/y.json: not a file that root alone wrote" "$scratch/out"
ok $? "a record that root did not write is ignored, and cleanup says so" "$scratch/out"
rm -f "$state/live/y.json"

# 3. A state and a run directory that slicebench did not make.
mkdir -m 0755 "$scratch/srv" "$scratch/mnt"
SLICEBENCH_STATE_DIR=$scratch/srv SLICEBENCH_RUN_DIR=$scratch/mnt "$SLICEBENCH" place raw >"$scratch/out" 2>&1
ok $? "place with a state and a run directory of the admin's" "$scratch/out"
got=$(stat -c '%U:%a' "$scratch/srv" "$scratch/mnt" | tr '\n' ' ')
[ "$got" = "root:755 root:755 " ]
ok $? "neither is chowned nor made 0700 (got $got)"
a=$(ls "$scratch/run") b=$(ls "$scratch/mnt")
[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && [ "$(stat -c %U:%a "$scratch/mnt/$b")" = slicebench:700 ]
ok $? "the socket lives in a 0700 directory of its own per state directory ($a, $b)"
mkdir -m 0755 "$scratch/other"; chown slicebench "$scratch/other"
SLICEBENCH_STATE_DIR=$scratch/other SLICEBENCH_RUN_DIR=$scratch/mnt "$SLICEBENCH" place raw >"$scratch/out" 2>&1; rc=$?
[ $rc = 1 ] && grep -q "cannot lock $scratch/other/lock: .*a directory of root's that no one else can write" "$scratch/out" &&
	[ -z "$(ls "$scratch/other")" ]
ok $? "a state directory that the server's account owns is refused, saying why, and left as it was (exit $rc)" "$scratch/out"
# The layout before this one gave the state directory to the server's user:
# one whose datadir carries root's marker is taken back, and what that user
# planted in it goes.
chown slicebench "$scratch/srv"
as_server "ln -s '$scratch/secret' '$scratch/srv/my.cnf.tmp.1'"
SLICEBENCH_STATE_DIR=$scratch/srv SLICEBENCH_RUN_DIR=$scratch/mnt "$SLICEBENCH" place raw >"$scratch/out" 2>&1; rc=$?
[ $rc = 0 ] && [ "$(stat -c %U:%a "$scratch/srv")" = root:755 ] && [ ! -e "$scratch/srv/my.cnf.tmp.1" ] &&
	[ ! -L "$scratch/srv/my.cnf.tmp.1" ] && grep -q "took $scratch/srv back from the server's user" "$scratch/out"
ok $? "an old-layout state directory is taken back, what the server's account planted removed (exit $rc)" "$scratch/out"

# 4. --out through a symbolic link.
mkdir "$scratch/etc"; ln -s "$scratch/etc" "$scratch/link"
"$SLICEBENCH" run "$top/t/fixtures/run/two-raw.ini" --out "$scratch/link" >"$scratch/out" 2>&1; rc=$?
[ $rc != 0 ] && [ -z "$(ls -A "$scratch/etc")" ] && grep -q "$scratch/link" "$scratch/out"
ok $? "run --out through a symbolic link is refused and writes nothing there (exit $rc)" "$scratch/out"

# 5. [server] user = root.
sed 's/^\[server\]$/[server]\nuser = root/' "$top/t/fixtures/run/two-raw.ini" >"$scratch/root-user.ini"
roots() { find "$state/datadir" -user root | sort; }
before=$(roots)
"$SLICEBENCH" run "$scratch/root-user.ini" --out "$scratch/res-root" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "root-user.ini:[0-9]*: user: bad value .root. (the server.s account is never root" "$scratch/out" && [ -z "$(servers)" ]
ok $? "[server] user = root is refused as the file is read, with its line (exit $rc)" "$scratch/out"
after=$(roots)
[ "$before" = "$after" ] && [ "$(stat -c %U "$state/datadir")" = slicebench ]
ok $? "and the shared datadir gained no file of root's ($(comm -13 <(echo "$before") <(echo "$after") | head -n 3 | tr '\n' ' '))"

# 6. The same datadir for another server user ([server] user = mysql after
# the default's runs): what the default user owned becomes mysql's, and a
# link that user planted in it is not followed to root's file.
if id mysql >/dev/null 2>&1; then
	as_server "ln -s '$scratch/secret' '$state/datadir/planted'"
	sed 's/^\[server\]$/[server]\nuser = mysql/; s/^threads = .*/threads = 1/; s/^repeat = .*/repeat = 1/' \
		"$top/t/fixtures/run/two-raw.ini" >"$scratch/mysql-user.ini"
	"$SLICEBENCH" run "$scratch/mysql-user.ini" --out "$scratch/res-mysql" >"$scratch/out" 2>&1; rc=$?
	[ $rc = 0 ] && [ "$(stat -c %U "$state/datadir")" = mysql ] && [ -z "$(find "$state/datadir" -user slicebench)" ] &&
		[ "$(stat -c %U "$state/datadir/.slicebench-datadir")" = root ]
	ok $? "a run as mysql takes over the default user's datadir, root's marker kept (exit $rc)" "$scratch/out"
	# Each start's datadir is a pristine copy of the dataset's template, so
	# the planted link is gone; if it is there it must be mysql's own.
	[ "$(stat -c %U:%a "$scratch/secret")" = root:600 ] &&
		{ [ ! -L "$state/datadir/planted" ] || [ "$(stat -c %U "$state/datadir/planted")" = mysql ]; }
	ok $? "the planted link did not hand root's file over ($(stat -c %U:%a "$scratch/secret"))"
else
	echo "ok 18 # SKIP no mysql account (mariadb-server makes it)"
	echo "ok 19 # SKIP no mysql account"
fi
exit $failed
