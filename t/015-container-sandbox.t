#!/bin/bash
# The container sandbox: up boots a real systemd, exec runs inside it, down
# leaves no process, mount or cgroup behind (nspawn's payload and supervisor
# cgroups included), and a second down is harmless.
top=${SLICEBENCH_TOP:-.}
. "$top/t/lib.sh"
sb=$top/sandbox/slicebench-sandbox
name=t015-$$
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs root"
command -v systemd-nspawn >/dev/null || sandbox_skip_all "no systemd-nspawn"
trap '"$sb" --name $name down >/dev/null 2>&1' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; [ -n "${3:-}" ] && echo "# $3"; fi; }
echo "1..7"
"$sb" --name $name up >/dev/null 2>&1
check "up exits 0" '[ $? = 0 ]'
check "status says up" '"$sb" --name $name status | grep -q ": up"'
pid1=$("$sb" --name $name exec -- cat /proc/1/comm)
check "PID 1 inside is systemd" '[ "$pid1" = systemd ]' "got '$pid1'"
state=$("$sb" --name $name exec -- systemctl is-system-running)
check "the manager is running" '[ "$state" = running ] || [ "$state" = degraded ]' "got '$state'"
"$sb" --name $name down
left=$(find /sys/fs/cgroup -mindepth 1 -maxdepth 2 -type d \( -name "slicebench-$name" -o -name payload -o -name supervisor \) 2>/dev/null)
check "down leaves no cgroup" '[ -z "$left" ]' "left: $left"
check "down leaves no mount" '! grep -q "/sandbox/$name/" /proc/self/mounts'
check "a second down exits 0" '"$sb" --name $name down'
