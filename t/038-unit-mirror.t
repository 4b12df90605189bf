#!/bin/bash
# unit = mariadb.service: a service context that mirrors Debian's installed
# unit (read over D-Bus in the container sandbox) runs the server as mysql
# (its User=, which becomes the server's user where the file names none;
# a file's [server] user that differs is refused, FILE:LINE: User),
# with its LimitNOFILE=, AmbientCapabilities=CAP_IPC_LOCK and a private
# mount namespace (ProtectSystem=full, ProtectHome=); diff against a login
# context names those and the session, autogroup, environment and cgroup.
# A unit that is not installed, or not a service: exit 2, FILE:LINE: unit.
# The sandbox itself: Debian's mariadbd does not run beside ours.
# Prerequisites: ROOT, MYSQLD, NSPAWN (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
[ -f /lib/systemd/system/mariadb.service ] || sandbox_skip_all "needs Debian's mariadb.service installed"
server_scratch
sandbox_test t038
echo "1..15"
"${in_systemd[@]}" sh -c '! pgrep -x mariadbd && ! systemctl -q is-active mariadb.service'
ok $? "the sandbox runs no mariadbd of Debian's own"
exp=$top/t/fixtures/attrs/debian-mirror.ini
"${in_systemd[@]}" "$SLICEBENCH" place --experiment "$exp" debian shell --json >"$scratch/p.json" 2>"$scratch/err"
ok $? "place the mirror and a login context exits 0" "$scratch/err"
grep -q "mirrors mariadb.service (its User=mysql is the server's user, every context's); not reproduced: .*ExecStart" "$scratch/err"
ok $? "the unit's User= is the server's, and what the mirror does not reproduce is listed by name" "$scratch/err"
get() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]].get(sys.argv[3], "(none)"))' \
	"$scratch/p.json" "$1" "$2"; }
[ "$(get debian user)" = mysql ]
ok $? "the mirror runs the server as mysql (got $(get debian user))"
# LimitNOFILE=32768, or the hard limit this machine allows, said why.
hard=$(ulimit -Hn) nofile=$(get debian limit.nofile)
[ "$nofile" = 32768 ] || { [ "$hard" -lt 32768 ] && [ "$nofile" = "$hard" ] && [[ $(get debian in_force.LimitNOFILE) == no:* ]]; }
ok $? "LimitNOFILE=32768 from the unit (got $nofile; this machine's hard limit $hard)"
(( (0x$(get debian cap.ambient) >> 14) & 1 ))
ok $? "CAP_IPC_LOCK is an ambient capability (cap.ambient $(get debian cap.ambient))"
[ "$(get debian mount.namespace)" = private ] && [[ $(get debian mount./usr) == ro* ]] && [ "$(get debian mount./home)" = inaccessible ]
ok $? "a private mount namespace: /usr $(get debian mount./usr), /home $(get debian mount./home)"
[[ $(get shell unit) == session-*.scope ]]
ok $? "the login context sits in a session scope ($(get shell unit))"
sub() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$scratch/p.json" "$1"; }
sub debian >"$scratch/a.json"; sub shell >"$scratch/b.json"
"$SLICEBENCH" diff "$scratch/a.json" "$scratch/b.json" >"$scratch/diff" 2>&1
keys=$(awk 'NR > 1 { print $1 }' "$scratch/diff" | tr '\n' ' ')
miss=
for k in limit.nofile cap.ambient mount.namespace session.is_leader autogroup cgroup.systemd slice; do
	[[ " $keys " == *" $k "* ]] || miss="$miss $k"
done
[ -z "$miss" ] && [[ $keys == *env.* ]]
ok $? "diff names the limits, capabilities, mount namespace, session, autogroup, environment and cgroup (missing:${miss:- none})" "$scratch/diff"
"${in_systemd[@]}" "$SLICEBENCH" run "$top/t/fixtures/attrs/unit-missing.ini" --dry-run >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "unit-missing.ini:4: unit: no unit no-such-unit-here.service" "$scratch/out"
ok $? "a unit that is not installed: exit 2 and FILE:LINE: unit (exit $rc)" "$scratch/out"
"${in_systemd[@]}" "$SLICEBENCH" run "$top/t/fixtures/attrs/unit-not-service.ini" --dry-run >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "unit-not-service.ini:4: unit: dbus.socket is not a service" "$scratch/out"
ok $? "a unit that is not a service: exit 2 (exit $rc)" "$scratch/out"
# A file the sandbox can read: in the checkout, which it binds.
bound=$(mktemp -d -p "$top" .t038.XXXXXX) || exit 1
{ cat "$exp"; printf '[server]\nuser = slicebench\n'; } >"$bound/other-user.ini"
"${in_systemd[@]}" "$SLICEBENCH" run "$bound/other-user.ini" --dry-run >"$scratch/out" 2>&1; rc=$?
rm -rf "$bound"
[ $rc = 2 ] && grep -q "other-user.ini:[0-9]*: User: mariadb.service runs the server as mysql, but the server's user is slicebench; set \[server\] user = mysql" "$scratch/out"
ok $? "a [server] user that is not the unit's: exit 2 naming both (exit $rc): $(head -c 160 "$scratch/out")" "$scratch/out"

# A mirrored unit is input too (issue 42): its settings pass the same gate,
# and a helper's line of any length is listed whole.
long=$(printf 'x%.0s' $(seq 1500))
"${in_systemd[@]}" sh -c "printf '#!/bin/sh\ntrue %s; sysctl -w vm.swappiness=1\necho never >/sys/kernel/mm/transparent_hugepage/enabled\n' '$long' \
		>/usr/local/sbin/t038-helper && chmod 0755 /usr/local/sbin/t038-helper &&
	printf '[Service]\nUser=mysql\nAmbientCapabilities=CAP_SYS_ADMIN CAP_SETUID\nExecStart=/usr/sbin/mariadbd\n' >/etc/systemd/system/t038-caps.service &&
	printf '[Service]\nUser=mysql\nExecStartPre=/usr/local/sbin/t038-helper\nExecStart=/usr/sbin/mariadbd\n' >/etc/systemd/system/t038-helper.service &&
	systemctl daemon-reload" >"$scratch/units" 2>&1
bound=$(mktemp -d -p "$top" .t038.XXXXXX) || exit 1
for u in caps helper; do printf '[experiment]\nthreads = 1\n\n[context m]\nkind = service\nunit = t038-%s.service\n' $u >"$bound/$u.ini"; done
"${in_systemd[@]}" "$SLICEBENCH" run "$bound/caps.ini" --dry-run >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "caps.ini:6: AmbientCapabilities: refused in \[context m\], from t038-caps.service: CAP_SETUID CAP_SYS_ADMIN would be the server account's" "$scratch/out"
ok $? "a mirrored unit's AmbientCapabilities=CAP_SYS_ADMIN CAP_SETUID: exit 2, the unit named (exit $rc): $(head -c 200 "$scratch/out")" "$scratch/out"
"${in_systemd[@]}" "$SLICEBENCH" run "$bound/helper.ini" --dry-run >"$scratch/out" 2>&1; rc=$?
rm -rf "$bound"
[ $rc = 0 ] && grep -q "t038-helper:2: true x\{1500\}; sysctl -w vm.swappiness=1, /usr/local/sbin/t038-helper:3: echo never" "$scratch/out"
ok $? "a helper's line of 1500 bytes is listed whole, the next with its own number (exit $rc)" "$scratch/out"
[ -z "$(servers)" ]
ok $? "no server is left"
exit $failed
