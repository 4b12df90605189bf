#!/bin/bash
# place --pid and from = SNAPSHOT.json, on a server slicebench did not
# start: a mariadbd started by hand as a DBA would, under
# `taskset -c CPU nice -n 5 prlimit --nofile=1024` with MALLOC_ARENA_MAX=1
# (and a password in its environment).  The capture reads what
# independent tools read (taskset, ps, /proc/PID/limits and environ, mariadb), masks
# the secret, and leaves the process as it was: same cgroups, affinity,
# nice and limits, no process, cgroup or file made.  The replay starts
# [server]'s own binary with all of it, and each reads back alike
# (taskset, ps, /proc on the replayed server), compared attribute by
# attribute with the capture.  Bad input: a snapshot whose LD_PRELOAD
# names a library anyone could have put there, or a symbolic link, exits 2
# with FILE:LINE: from and starts nothing; Debian's libjemalloc.so.2 is
# taken and said.  No systemd needed: the server ran in no unit (raw).
# Prerequisites: ROOT, MYSQLD (and strace, which .ci/deps installs).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
command -v strace >/dev/null || sandbox_skip_all "needs strace"
server_scratch
out=$(mktemp -d) || exit 1 # the test's own files, apart from slicebench's state
trap 'servers | xargs -r kill -9; "$SLICEBENCH" cleanup >/dev/null 2>&1; [ -n "${SLICEBENCH_TEST_KEEP:-}" ] || rm -rf "$scratch" "$out"' EXIT
echo "1..24"
cpu=$(($(nproc) - 1))

# The datadir and option file, made by slicebench once; the server that
# made them is stopped.
"$SLICEBENCH" place --context raw >"$out/setup" 2>&1
ok $? "the managed datadir is made" "$out/setup"
cnf=$SLICEBENCH_STATE_DIR/my.cnf
sock=$(sed -n 's/^socket=//p' "$cnf")

# By hand, with a clean environment: what a DBA's shell would run.
(cd / && exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin MALLOC_ARENA_MAX=1 MYSQL_PWD=hunter2 \
	taskset -c $cpu nice -n 5 prlimit --nofile=1024 mariadbd --defaults-file="$cnf" >/dev/null 2>&1) &
for _ in $(seq 100); do [ -S "$sock" ] && pid=$(servers) && [ -n "$pid" ] && break; sleep 0.2; done
for _ in $(seq 50); do mariadb-admin --socket="$sock" ping >/dev/null 2>&1 && break; sleep 0.2; done
[ -n "${pid:-}" ] && mariadb-admin --socket="$sock" ping >/dev/null 2>&1
ok $? "a mariadbd started by hand answers (PID ${pid:-none})"

state() { # what place --pid must leave alone
	cat /proc/$pid/cgroup; taskset -p $pid | sed 's/.*: //'; ps -o ni= -p $pid; cat /proc/$pid/limits
	find "$scratch" -newer "$out/marker"
	servers
}
touch "$out/marker"; sleep 1
state >"$out/before"
# strace sees every call that could change something: files opened for
# writing or made, directories, signals, affinity, priority, limits.
strace -f -qq -o "$out/calls" -e trace=open,openat,creat,mkdir,mkdirat,unlink,unlinkat,rename,renameat,renameat2,kill,tgkill,sched_setaffinity,setpriority,prlimit64,ptrace,process_vm_writev \
	"$SLICEBENCH" place --pid $pid --json >"$out/snap.json" 2>"$out/err"
ok $? "place --pid exits 0" "$out/err"
state >"$out/after"
{
	diff "$out/before" "$out/after"
	grep -E 'O_WRONLY|O_RDWR|O_CREAT|^[0-9]+ +(creat|mkdir|unlink|rename|tgkill|ptrace|process_vm_writev)' "$out/calls"
	# On the server, not on slicebench itself (a sanitizer sets its own).
	grep -E "^[0-9]+ +(kill\\($pid, [^0]|sched_setaffinity\\($pid,|setpriority\\(PRIO_[A-Z]+, $pid,|prlimit64\\($pid, RLIMIT_[A-Z]+, \\{)" "$out/calls"
} >"$out/changed"
[ ! -s "$out/changed" ]
ok $? "the process is untouched: same cgroups, affinity, nice, limits, no file made; no call that writes or signals (strace)" "$out/changed"

get() { json_get "$1" "$2"; }
snap=$out/snap.json
[ "$(get "$snap" affinity)" = "$(taskset -cp $pid | sed 's/.*: //')" ] && [ "$(get "$snap" affinity)" = $cpu ]
ok $? "affinity $(get "$snap" affinity), as taskset reads it"
[ "$(get "$snap" nice)" = "$(ps -o ni= -p $pid | tr -d ' ')" ] && [ "$(get "$snap" nice)" = 5 ]
ok $? "nice $(get "$snap" nice), as ps reads it"
# prlimit --pid needs CAP_SYS_RESOURCE over another user's process (a
# container has none): the kernel's table, read by awk.
soft_nofile() { awk '/^Max open files/ { print $4 }' /proc/$1/limits; }
[ "$(get "$snap" limit.nofile)" = "$(soft_nofile $pid)" ] && [ "$(get "$snap" limit.nofile)" = 1024 ]
ok $? "limit.nofile $(get "$snap" limit.nofile), as /proc/PID/limits says"
[ "$(get "$snap" env.MALLOC_ARENA_MAX)" = "$(tr '\0' '\n' </proc/$pid/environ | sed -n 's/^MALLOC_ARENA_MAX=//p')" ] &&
	[ "$(get "$snap" env.MALLOC_ARENA_MAX)" = 1 ]
ok $? "env.MALLOC_ARENA_MAX $(get "$snap" env.MALLOC_ARENA_MAX), as /proc/PID/environ holds it"
[ "$(get "$snap" env.MYSQL_PWD)" = "(set, value withheld)" ] && ! grep -q hunter2 "$snap"
ok $? "the password in its environment is withheld (env.MYSQL_PWD '$(get "$snap" env.MYSQL_PWD)')"
[ "$(get "$snap" capture.exe)" = "$(readlink /proc/$pid/exe)" ] && [ "$(get "$snap" capture.kind)" = raw ] &&
	[ "$(get "$snap" capture.socket)" = "$sock" ]
ok $? "its binary, the kind where it ran (raw: no unit) and its socket ($(get "$snap" capture.kind), $(get "$snap" capture.socket))"
[[ $(get "$snap" server.read) == "yes: as root over $sock" ]] &&
	[ "$(get "$snap" server.open_files_limit)" = "$(mariadb --socket="$sock" -N -e 'SELECT @@open_files_limit')" ] &&
	[ "$(get "$snap" server.thread_cache_size)" = "$(mariadb --socket="$sock" -N -e 'SELECT @@thread_cache_size')" ]
ok $? "the server's own settings, read over its socket (open_files_limit $(get "$snap" server.open_files_limit)), as mariadb reads them"

"$SLICEBENCH" place --pid 999999999 >"$out/none" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "no process 999999999" "$out/none"
ok $? "place --pid of no process: exit 2 naming it (exit $rc)" "$out/none"
"$SLICEBENCH" place --pid $pid raw >"$out/both" 2>&1; rc=$?
[ $rc = 2 ]
ok $? "place --pid with a context to start: exit 2 (exit $rc)" "$out/both"

kill $pid
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.2; done

# The replay, from a file beside its experiment.
mkdir "$out/exp" && cp "$snap" "$out/exp/snap.json"
printf '[experiment]\nthreads = 1\n\n[context replay]\nfrom = snap.json\n' >"$out/exp/replay.ini"
"$SLICEBENCH" place --experiment "$out/exp/replay.ini" replay --json --keep >"$out/replay.json" 2>"$out/replay.err"
ok $? "place of the replay exits 0" "$out/replay.err"
grep -q "^slicebench: \[context replay\] replays snap.json (PID $pid, .*, raw): took .*CPUAffinity=$cpu, Nice=5, .*LimitNOFILE=1024" "$out/replay.err" &&
	grep -q "the server is \[server\]'s binary" "$out/replay.err"
ok $? "the replay says what it took and that the binary is [server]'s" "$out/replay.err"
again=$(servers)
[ -n "$again" ] && [ "$(taskset -cp $again | sed 's/.*: //')" = $cpu ] && [ "$(ps -o ni= -p $again | tr -d ' ')" = 5 ] &&
	[ "$(soft_nofile $again)" = 1024 ] &&
	tr '\0' '\n' </proc/$again/environ | grep -qx MALLOC_ARENA_MAX=1
ok $? "the replayed server reads back alike to taskset, ps, its limits and its environ (PID ${again:-none})"
for k in affinity nice limit.nofile env.MALLOC_ARENA_MAX; do
	[ "$(get "$out/replay.json" $k)" = "$(get "$snap" $k)" ] || echo "$k: $(get "$out/replay.json" $k) against $(get "$snap" $k)"
done >"$out/unlike"
[ ! -s "$out/unlike" ]
ok $? "and in its placement: affinity, nice, limit.nofile, MALLOC_ARENA_MAX as captured" "$out/unlike"
reproduced=$(get "$out/replay.json" replay.reproduced)
differs=$(get "$out/replay.json" replay.differs)
[[ $reproduced =~ ^[0-9]+\ of\ [0-9]+$ ]] && grep -q "reproduced $reproduced attributes of the capture" "$out/replay.err" &&
	[[ $differs != *affinity* && $differs != *nice* && $differs != *limit.nofile* && $differs != *MALLOC_ARENA_MAX* ]]
ok $? "compared with the capture: $reproduced reproduced, and none of those differs (differs: ${differs:0:200})" "$out/replay.err"
"$SLICEBENCH" diff "$snap" "$out/replay.json" >"$out/diff" 2>&1
head -n 1 "$out/diff" | grep -qx "$snap: a capture of PID $pid (/usr/sbin/mariadbd), which ran as raw" &&
	! grep -q '^capture\.\|^replay\.' "$out/diff" && ! grep -q '^affinity \|^nice \|^limit.nofile ' "$out/diff"
ok $? "diff of the capture and its replay says where the capture came from once, and no affinity, nice or limit" "$out/diff"
"$SLICEBENCH" cleanup >/dev/null 2>&1
[ -z "$(servers)" ]
ok $? "cleanup stops the kept replay"

# Input that would choose code root runs.
mkdir -m 1777 "$out/tmp" && cp /bin/true "$out/tmp/evil.so"
python3 - "$snap" "$out/exp" "$out/tmp/evil.so" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
d["env.LD_PRELOAD"] = sys.argv[3]
json.dump(d, open(os.path.join(sys.argv[2], "evil.json"), "w"))
d["env.LD_PRELOAD"] = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
json.dump(d, open(os.path.join(sys.argv[2], "je.json"), "w"))
EOF
printf '[experiment]\nthreads = 1\n\n[context replay]\nfrom = evil.json\n' >"$out/exp/evil.ini"
"$SLICEBENCH" place --experiment "$out/exp/evil.ini" replay >"$out/evil" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "evil.ini:5: from: evil.json: env.LD_PRELOAD: refused: LD_PRELOAD=$out/tmp/evil.so chooses code the server would run" "$out/evil" && [ -z "$(servers)" ]
ok $? "a snapshot's LD_PRELOAD in a directory anyone can write: exit 2, FILE:LINE: from, nothing started (exit $rc)" "$out/evil"
ln -s snap.json "$out/exp/link.json"
printf '[experiment]\nthreads = 1\n\n[context replay]\nfrom = link.json\n' >"$out/exp/link.ini"
"$SLICEBENCH" run "$out/exp/link.ini" --dry-run >"$out/link" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "link.ini:5: from: .*link.json: a symbolic link" "$out/link"
ok $? "a snapshot that is a symbolic link: exit 2 (exit $rc)" "$out/link"
printf '[experiment]\nthreads = 1\n\n[context replay]\nfrom = je.json\n' >"$out/exp/je.ini"
"$SLICEBENCH" run "$out/exp/je.ini" --dry-run >"$out/je" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "took LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 (root's alone: taken)" "$out/je"
ok $? "Debian's libjemalloc.so.2 is taken, and the replay says so (exit $rc)" "$out/je"
[ -z "$(servers)" ]
ok $? "no server is left"
exit $failed
