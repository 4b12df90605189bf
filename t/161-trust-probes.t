#!/bin/bash
# The trust boundary attacked as issue 42's probe did, for real: a library
# in a directory anyone may write, owned by nobody, that marks its loading
# (and would call setresuid(0,0,0) and write in /etc); capabilities that
# reach root; a group that reads /etc/shadow; a snapshot's unit settings
# (capture.setting.*), its account and an environment name holding = and a
# blank; experiment.json and placements for explain RESULTS; -p on the
# command line.  Each source is refused with exit 2 naming the file and line
# (or JSON key, or option) before anything starts, and the library never
# loads.  A PATH of root's own directories, where a program named mariadbd
# waits, does not choose the server: it is exec'd by the absolute path found
# before the environment is replaced.  Group= of the account's own group
# starts a raw server (it failed every start).
# Prerequisites: ROOT, MYSQLD, a C compiler.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
command -v cc >/dev/null || sandbox_skip_all "needs cc"
server_scratch
# A directory of root's alone, for the PATH probe (dir_check_trusted).
rootdir=/usr/local/lib/slicebench-t161-$$
trap 'servers | xargs -r kill -9; "$SLICEBENCH" cleanup >/dev/null 2>&1; rm -rf "$rootdir"; [ -n "${SLICEBENCH_TEST_KEEP:-}" ] || rm -rf "$scratch"' EXIT
echo "1..28"
account=$(awk -F: '$1 == "slicebench"' /etc/passwd | grep -q . && echo slicebench || echo daemon)

# The attacker's library, in a world-writable directory, owned by nobody:
# marks its loading, then tries to become root and write in /etc.
evil=$scratch/open
mkdir -m 1777 "$evil"
cat >"$scratch/evil.c" <<EOF
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void evil(void)
{
	close(open("$scratch/loaded", O_CREAT | O_WRONLY, 0666));
	if (setresuid(0, 0, 0) == 0)
		close(open("/etc/slicebench-t161-owned", O_CREAT | O_WRONLY, 0644));
}
EOF
cc -shared -fPIC -o "$evil/evil.so" "$scratch/evil.c" && chown nobody:nogroup "$evil/evil.so" && chmod 0755 "$evil/evil.so"
ok $? "the attacker's library is built, nobody's, in a directory anyone may write"
# untouched: nothing loaded, nothing started, nothing written.
untouched() { [ ! -e "$scratch/loaded" ] && [ ! -e /etc/slicebench-t161-owned ] && [ -z "$(servers)" ] && [ ! -e "$scratch/out" ]; }
# refused NAME WANT: the experiment NAME.ini (written from stdin) is refused
# by run --dry-run and by run, exit 2, saying WANT, nothing touched.
refused() {
	cat >"$scratch/$1.ini"
	"$SLICEBENCH" run "$scratch/$1.ini" --dry-run >"$scratch/$1.dry" 2>&1; local dry=$?
	"$SLICEBENCH" run "$scratch/$1.ini" --out "$scratch/out" >"$scratch/$1.run" 2>&1; local rc=$?
	[ $dry = 2 ] && [ $rc = 2 ] && grep -qF -- "$2" "$scratch/$1.run" && untouched
	ok $? "$1: run --dry-run and run exit 2 ($dry, $rc): $(head -c 230 "$scratch/$1.run")" "$scratch/$1.run"
}
head_ini='[experiment]
threads = 1
duration = 2s
tables = 1
table-size = 100
'

# High 1: capabilities and code from an experiment file.
refused caps "caps.ini:9: AmbientCapabilities: refused in [context a]: CAP_SETGID CAP_SETUID would be the server account's" <<EOF
$head_ini
[context a]
kind = raw
AmbientCapabilities = CAP_SETUID CAP_SETGID
EOF
refused preload "preload.ini:9: Environment: refused in [context a]: LD_PRELOAD=$evil/evil.so chooses code the server would run" <<EOF
$head_ini
[context a]
kind = raw
Environment = LD_PRELOAD=$evil/evil.so
EOF
refused whole-env "whole-env.ini:9: environment: refused in [context a]: LD_PRELOAD=$evil/evil.so" <<EOF
$head_ini
[context a]
kind = raw
environment = HOME=/ LD_PRELOAD=$evil/evil.so
EOF
printf '#!/bin/sh\ntouch %s/ran\nexec /usr/sbin/mariadbd "$@"\n' "$scratch" >"$evil/mariadbd" && chmod 0755 "$evil/mariadbd"
refused path "path.ini:9: Environment: refused in [context a]: PATH=$evil:/usr/sbin:/usr/bin chooses code the server would run" <<EOF
$head_ini
[context a]
kind = raw
Environment = PATH=$evil:/usr/sbin:/usr/bin
EOF
refused path-proxy "path-proxy.ini:10: Environment: refused in [proxy hp]: LD_PRELOAD=$evil/evil.so" <<EOF
$head_ini
[proxy hp]
engine = haproxy
kind = raw
Environment = LD_PRELOAD=$evil/evil.so
[context a]
kind = raw
proxy = hp
EOF
refused env-file "env-file.ini:9: EnvironmentFile: refused in [context a]: /etc/shadow is read by root into the server's environment, and not every account may read it" <<EOF
$head_ini
[context a]
kind = service
EnvironmentFile = /etc/shadow
EOF
printf 'LD_PRELOAD=%s\n' "$evil/evil.so" >"$evil/env" && chown nobody "$evil/env"
refused env-file-user "env-file-user.ini:9: EnvironmentFile: refused in [context a]: $evil/env is read by root into the server's environment, and $evil/env is not root's alone" <<EOF
$head_ini
[context a]
kind = raw
EnvironmentFile = $evil/env
EOF
# The command line: -p passes the same gate.
"$SLICEBENCH" place raw -p "Environment=LD_PRELOAD=$evil/evil.so" >"$scratch/p.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "property: .*LD_PRELOAD=$evil/evil.so chooses code the server would run" "$scratch/p.out" && untouched
ok $? "place raw -p Environment=LD_PRELOAD=...: exit 2 ($rc), nothing started" "$scratch/p.out"
"$SLICEBENCH" place raw -p "AmbientCapabilities=CAP_SYS_ADMIN" >"$scratch/p.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "CAP_SYS_ADMIN would be the server account's" "$scratch/p.out" && untouched
ok $? "place raw -p AmbientCapabilities=CAP_SYS_ADMIN: exit 2 ($rc)" "$scratch/p.out"

# High 2: any group for the server's account.
for g in shadow disk root; do
	refused "group-$g" "group-$g.ini:9: Group: refused in [context a]: $g is not the group of the server's account" <<EOF
$head_ini
[context a]
kind = raw
Group = $g
EOF
done
refused groups-shadow "groups-shadow.ini:8: groups: bad value 'shadow' (no account's own group" <<EOF
$head_ini
[server]
groups = shadow
[context a]
kind = raw
Group = shadow
EOF
refused user-nobody "user-nobody.ini:9: User: refused in [context a]: nobody is another account than the server's own" <<EOF
$head_ini
[context a]
kind = raw
User = nobody
EOF

# High 3 and 6, M1: a snapshot's unit settings, its environment's names,
# its account.
# snap FILE KEY VALUE...: a snapshot of those keys (a key may hold = and blanks).
snap() { python3 -c 'import json,sys; a=sys.argv[2:]; json.dump(dict(zip(a[::2], a[1::2])), open(sys.argv[1],"w"))' "$@"; }
replayed() { # NAME WANT KEY VALUE...: a raw context replaying them
	local name=$1 want=$2
	shift 2
	snap "$scratch/$name.json" capture.kind raw user "$account" "$@"
	refused "$name" "$name.ini:9: from: $name.json: $want" <<EOF
$head_ini
[context a]
kind = raw
from = $name.json
EOF
}
replayed snap-caps "capture.setting.AmbientCapabilities: refused: CAP_SETGID CAP_SETUID would be" \
	capture.setting.AmbientCapabilities "CAP_SETUID CAP_SETGID"
replayed snap-env "capture.setting.Environment: refused: LD_PRELOAD=$evil/evil.so chooses code" \
	capture.setting.Environment "LD_PRELOAD=$evil/evil.so"
replayed snap-envfile "capture.setting.EnvironmentFile: refused: /etc/shadow is read by root" \
	capture.setting.EnvironmentFile /etc/shadow
replayed snap-split "env.X=1 LD_PRELOAD: refused: 'X=1 LD_PRELOAD' is no environment variable's name" \
	"env.X=1 LD_PRELOAD" /usr/lib/x86_64-linux-gnu/libc.so.6
replayed snap-split-path "env.X=1 PATH: refused: 'X=1 PATH' is no environment variable's name" \
	"env.X=1 PATH" "$evil"
replayed snap-user "user: refused: nobody is another account than the server's own" user nobody
replayed snap-group "group: refused: shadow is not the group" group shadow

# explain RESULTS: experiment.json's settings and the placements' names.
fx=$top/t/fixtures/results
sent() { # DIR PYTHON: explain's fixtures, changed
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
explained() { # NAME WANT PYTHON
	sent "$scratch/$1" "$3"
	"$SLICEBENCH" explain "$scratch/$1" --from service --to weighted --out "$scratch/out" >"$scratch/$1.out" 2>&1; rc=$?
	[ $rc = 2 ] && grep -qF -- "$2" "$scratch/$1.out" && untouched
	ok $? "explain RESULTS $1: exit 2 ($rc): $(head -c 200 "$scratch/$1.out")" "$scratch/$1.out"
}
explained json-caps "experiment.json: \$.context_specs[0].properties.AmbientCapabilities: refused in [context service]" \
	"e['context_specs'][0]['properties']['AmbientCapabilities'] = 'CAP_SETUID'"
explained json-split "service-v1-r1.json: env.X=1 LD_PRELOAD: 'X=1 LD_PRELOAD' is no environment variable's name" \
	"pa['env.X=1 LD_PRELOAD'] = '/usr/lib/x86_64-linux-gnu/libc.so.6'"
"$SLICEBENCH" explain "$scratch/json-split" --from service --to weighted --trust-results-code --out "$scratch/out" \
	>"$scratch/trusted.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "is no environment variable's name" "$scratch/trusted.out" && untouched
ok $? "--trust-results-code does not take a name that would split either (exit $rc)" "$scratch/trusted.out"

# High 6, the other half: a PATH of root's own directories (the gate takes
# it) where a program named mariadbd waits chooses nothing: the server is
# /usr/sbin/mariadbd, exec'd by its absolute path.
mkdir -p "$rootdir" && chmod 0755 "$rootdir"
printf '#!/bin/sh\ntouch %s/ran\nexec /usr/sbin/mariadbd "$@"\n' "$scratch" >"$rootdir/mariadbd" && chmod 0755 "$rootdir/mariadbd"
"$SLICEBENCH" place raw -p "environment=PATH=$rootdir:/usr/sbin:/usr/bin HOME=/" --keep >"$scratch/abs.out" 2>&1
pid=$(servers | head -n 1)
[ -n "$pid" ] && [ "$(readlink /proc/$pid/exe)" = "$(readlink -f /usr/sbin/mariadbd)" ] && [ ! -e "$scratch/ran" ] &&
	tr '\0' '\n' </proc/$pid/environ | grep -qx "PATH=$rootdir:/usr/sbin:/usr/bin"
ok $? "a replaced PATH=$rootdir:... does not choose the server: $(readlink /proc/${pid:-0}/exe) runs, with that PATH" "$scratch/abs.out"
"$SLICEBENCH" cleanup >/dev/null 2>&1

# Low: Group= of the account's own group in a raw context starts.
group=$(id -gn "$account")
"$SLICEBENCH" place raw -p "Group=$group" --keep >"$scratch/group.out" 2>&1; rc=$?
pid=$(servers | head -n 1)
[ $rc = 0 ] && [ -n "$pid" ] && [ "$(awk '/^Gid:/ {print $2}' /proc/$pid/status)" = "$(getent group "$group" | cut -d: -f3)" ]
ok $? "Group=$group (the account's own) starts a raw server, which runs with it (exit $rc)" "$scratch/group.out"
"$SLICEBENCH" cleanup >/dev/null 2>&1
untouched
ok $? "nothing loaded the library, nothing wrote in /etc, no server is left"
exit $failed
