#!/bin/bash
# Who runs what, read from /proc while it runs: the datadir's installer
# (mariadb-install-db and the bootstrap mariadbd it starts), the server in
# every kind of context (raw on the host; service, user, scope and login in
# the container sandbox) and a neighbour's command all run as the server's
# account, never as root; the installer leaves the packaged
# plugin/auth_pam_tool_dir as it was; and the user kind leaves no linger and
# no user manager of its own behind, after a clean stop and after cleanup.
# Prerequisites: ROOT, MYSQLD, NSPAWN (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
server_scratch
sandbox_test t120
echo "1..12"
# uids PATTERN: "real/effective/saved/fs cmdline" of each process matching it.
uids_script='for p in $(pgrep -f -- "$1" | grep -vx $$); do
	u=$(awk "/^Uid:/ {print \$2 \"/\" \$3 \"/\" \$4 \"/\" \$5}" /proc/$p/status 2>/dev/null)
	[ -n "$u" ] && printf "%s %s\n" "$u" "$(tr "\0" " " </proc/$p/cmdline 2>/dev/null | cut -c1-60)"
done'
uids() { sh -c "$uids_script" uids "$1"; }
# in_box_uids PATTERN: the same, read in the container's /proc.
in_box_uids() { "${in_systemd[@]}" sh -c "$uids_script" uids "$1"; }
# all_server FILE: every line of FILE is the server's account's, four times.
all_server() { [ -s "$1" ] && ! grep -v "^$uid/$uid/$uid/$uid " "$1" | grep -q .; }

pam=/usr/lib/mysql/plugin/auth_pam_tool_dir
pam_before=$(stat -c '%u:%g %a' "$pam" 2>/dev/null)
"$SLICEBENCH" place raw --keep >"$scratch/place.out" 2>&1 &
place=$!
: >"$scratch/installer"
while kill -0 $place 2>/dev/null; do
	uids "(mariadb-install-db|--bootstrap).*$SLICEBENCH_STATE_DIR/" >>"$scratch/installer"
	sleep 0.05
done
wait $place
ok $? "place raw --keep with a fresh state directory" "$scratch/place.out"
uid=$(id -u slicebench)
grep -q mariadb-install-db "$scratch/installer" && grep -q "mariadbd --no-defaults" "$scratch/installer" && all_server "$scratch/installer"
ok $? "mariadb-install-db and its bootstrap mariadbd ran as the server's account (uid $uid): $(sort -u "$scratch/installer" | head -n 4 | tr '\n' ';')"
[ "$(stat -c '%u:%g %a' "$pam" 2>/dev/null)" = "$pam_before" ]
ok $? "the packaged $pam is as it was ($pam_before)"
uids "--defaults-file=$scratch/" >"$scratch/server"
all_server "$scratch/server"
ok $? "raw: the server runs as the server's account: $(cat "$scratch/server")"
"$SLICEBENCH" cleanup >/dev/null 2>&1

# A neighbour's command: chosen by the experiment file, run as the account.
cat >"$scratch/nb.ini" <<EOF
[experiment]
threads = 1
duration = 3s
repeat = 1
tables = 1
table-size = 100
[context a]
kind = raw
[neighbour beside]
kind = command
command = sleep 97
EOF
"$SLICEBENCH" run "$scratch/nb.ini" --out "$scratch/res-nb" >"$scratch/nb.out" 2>&1 &
run=$!
: >"$scratch/nb"
while kill -0 $run 2>/dev/null; do uids '^sleep 97' >>"$scratch/nb"; sleep 0.1; done
wait $run
rc=$?
[ $rc = 0 ] && all_server "$scratch/nb"
ok $? "a neighbour's command runs as the server's account (exit $rc): $(sort -u "$scratch/nb" | head -n 2 | tr '\n' ';')" "$scratch/nb.out"

# The systemd kinds, and the forked kinds under systemd, in the sandbox
# (whose state directory is its own /var/lib/slicebench).
# user: the linger and the manager its start brought go with the server.
gone() {
	! "${in_systemd[@]}" test -e /var/lib/systemd/linger/slicebench &&
		[ "$("${in_systemd[@]}" systemctl is-active "user@$uid.service" 2>/dev/null)" != active ]
}
for kind in service user scope login; do
	"${in_systemd[@]}" "$sb" place $kind --keep >"$scratch/$kind.out" 2>&1
	in_box_uids "--defaults-file=/var/lib/slicebench/" >"$scratch/$kind"
	all_server "$scratch/$kind"
	ok $? "$kind: the server runs as the server's account: $(head -c 100 "$scratch/$kind")" "$scratch/$kind.out"
	"${in_systemd[@]}" "$sb" cleanup >"$scratch/$kind.cleanup" 2>&1
	if [ $kind = user ]; then
		gone
		ok $? "after cleanup of a kept user context: no linger, user@$uid.service not active" "$scratch/user.cleanup"
		"${in_systemd[@]}" "$sb" place user >"$scratch/user2.out" 2>&1
		ok $? "place user (stopped at its end)" "$scratch/user2.out"
		gone
		ok $? "no linger, and user@$uid.service not active, after it"
	fi
done
exit $failed
