#!/bin/bash
# slicebench place and diff: the placement snapshot of a real server shows
# what the context set (affinity, nice, limits, cgroup weight, session and
# autogroup), hides secrets in the environment, and diff names exactly the
# attributes that differ, never the counters.  Each setting is recorded as
# written, as resolved on this host (CPUAffinity=core:0 as core 0's CPUs)
# and as read back, and place and diff show the three.  The service and user kinds
# run in the container sandbox and land in their unit and slice.
# Prerequisites: ROOT, MYSQLD; NSPAWN for the systemd kinds (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
echo "1..28"
server_scratch
box=t034-$$
trap '"$SLICEBENCH" sandbox --name $box down >/dev/null 2>&1; servers | xargs -r kill -9; rm -rf "$scratch"' EXIT
expect() { # expect FILE KEY WANT DESC
	local got; got=$(json_get "$1" "$2")
	[ "$got" = "$3" ]
	ok $? "$4: $2 is '$3' (got '$got')"
}

GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1 "$SLICEBENCH" place --context raw -p CPUAffinity=core:0 \
	--json >"$scratch/a.json" 2>"$scratch/err"
ok $? "place --context raw --json exits 0" "$scratch/err"
read -r core0 affinity got < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(" ".join(d.get(k, "(none)") for k in sys.argv[2:]))' "$scratch/a.json" setting.CPUAffinity.resolved affinity \
	setting.CPUAffinity.written setting.CPUAffinity.read in_force.CPUAffinity)
[[ $core0 =~ ^[0-9][0-9,-]*$ ]] && [ "$affinity" = "$core0" ]
ok $? "CPUAffinity=core:0 is recorded as the CPUs it resolved to ($core0), which the server has ($affinity)" "$scratch/a.json"
[ "$got" = "core:0 affinity=$core0 yes" ]
ok $? "and as written (core:0) and as read back (affinity=$core0), in force (got '$got')"
expect "$scratch/a.json" client.same_session yes "a raw server with session=inherit"
expect "$scratch/a.json" env.GLIBC_TUNABLES glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1 \
	"an inherited variable whose value holds '=' and ':' (which glibc cuts in place)"
expect "$scratch/a.json" env.glibc.malloc.tcache_count "(none)" "and no part of a value read as a variable of its own"
expect "$scratch/a.json" env.glibc.malloc.arena_max "(none)" "not even the tunable after the ':'"
MYSQL_PWD=hunter2 "$SLICEBENCH" place --context raw --session new -p CPUAffinity=1 -p Nice=5 -p LimitNOFILE=4096 \
	-p CPUWeight=50 --json >"$scratch/b.json" 2>"$scratch/err"
ok $? "place with four properties and session=new exits 0" "$scratch/err"
expect "$scratch/b.json" affinity 1 "CPUAffinity=1"
expect "$scratch/b.json" nice 5 "Nice=5"
# The server starts as its own account, not as root, so it cannot raise
# its limit above LimitNOFILE= (as mariadbd started as root would, with
# CAP_SYS_RESOURCE): the limit set is the limit it runs under.
expect "$scratch/b.json" limit.nofile 4096 "LimitNOFILE=4096"
expect "$scratch/b.json" server.open_files_limit 4096 "the server, asked over SQL, under LimitNOFILE=4096"
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
	expect "$scratch/b.json" cpu.weight 50 "CPUWeight=50 on v2"
else
	expect "$scratch/b.json" cpu.shares 512 "CPUWeight=50 on v1"
fi
expect "$scratch/b.json" session.is_leader yes "session=new"
! grep -q hunter2 "$scratch/b.json" && [ "$(json_get "$scratch/b.json" env.MYSQL_PWD)" = "(set, value withheld)" ]
ok $? "a password in the environment is withheld from the snapshot"
"$SLICEBENCH" diff "$scratch/a.json" "$scratch/b.json" >"$scratch/diff" 2>&1
keys=$(awk 'NR > 1 { print $1 }' "$scratch/diff" | sort | tr '\n' ' ')
for k in affinity nice limit.nofile session.is_leader autogroup client.same_session; do
	[[ " $keys " == *" $k "* ]] || { echo "# missing $k" >>"$scratch/diff"; false; }
done && [[ "$keys" != *cpu.stat.* ]]
ok $? "diff names affinity, nice, limit.nofile, session, autogroup and no counter (got: $keys)" "$scratch/diff"
grep -A2 -x "  CPUAffinity" "$scratch/diff" >"$scratch/setting"
[ "$(sed -n 2p "$scratch/setting")" = "    $scratch/a.json: core:0 -> $core0 -> affinity=$core0: in force" ] &&
	[ "$(sed -n 3p "$scratch/setting")" = "    $scratch/b.json: 1 -> 1 -> affinity=1: in force" ]
ok $? "diff shows CPUAffinity= on each side as written -> resolved -> read back" "$scratch/diff"

"$SLICEBENCH" place --experiment "${SLICEBENCH_TOP:-.}/t/fixtures/run/two-raw.ini" inherit newsession --json \
	>"$scratch/two.json" 2>"$scratch/err"
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%s:%s" % (k, v["session.is_leader"]) for k, v in d.items()))' "$scratch/two.json" 2>&1)
[ "$got" = "inherit:no newsession:yes" ]
ok $? "place --experiment with two contexts places each in turn (got: $got)" "$scratch/err"
"$SLICEBENCH" place raw --keep -p CPUAffinity=core:0 -p UMask=0077 >"$scratch/keep" 2>"$scratch/err"
grep -qx "  CPUAffinity: core:0 -> $core0 -> affinity=$core0: in force" "$scratch/keep"
ok $? "place prints CPUAffinity=core:0 as written, resolved ($core0) and read back" "$scratch/keep"
# mariadbd sets its own umask from $UMASK: in force only if it kept 0077.
u=$(grep "^  UMask: " "$scratch/keep")
[[ $u == "  UMask: 0077 -> 0077 -> umask=0077: in force" ||
	$u =~ ^"  UMask: 0077 -> 0077 -> umask="0[0-7]{3}": not in force: umask is "0[0-7]{3}", not 0077" ]]
ok $? "place prints UMask= with what was read back and whether it is in force ($u)" "$scratch/keep"
kept=$(servers)
[ -n "$kept" ] && grep -q "left place-raw running (PID $kept)" "$scratch/err"
ok $? "place --keep leaves the server running and says so (PID ${kept:-none})" "$scratch/err"
"$SLICEBENCH" cleanup >"$scratch/cleanup" 2>&1
sleep 0.5
grep -q "killed the server, PID $kept" "$scratch/cleanup" && [ -z "$(servers)" ]
ok $? "cleanup stops the kept server" "$scratch/cleanup"

# Under a running systemd (the VM guest) the systemd kinds run here;
# elsewhere in a throwaway container.
if [ "$(cat /proc/1/comm)" = systemd ]; then
	in_systemd=()
elif command -v systemd-nspawn >/dev/null; then
	"$SLICEBENCH" sandbox --name $box up >"$scratch/up" 2>&1 || sed 's/^/# /' "$scratch/up"
	in_systemd=("$SLICEBENCH" sandbox --name $box exec --)
elif [ "${CI:-}" = true ]; then
	for _ in 1 2 3 4; do n=$((n + 1)); echo "not ok $n - NSPAWN is missing under CI"; done; exit 1
else
	for _ in 1 2 3 4; do n=$((n + 1)); echo "ok $n # SKIP needs NSPAWN or a running systemd"; done; exit $failed
fi
"${in_systemd[@]}" "$SLICEBENCH" place --context service --json >"$scratch/svc.json" 2>"$scratch/err"
expect "$scratch/svc.json" unit slicebench-place-service.service "a service"
expect "$scratch/svc.json" slice system.slice "a service"
"${in_systemd[@]}" "$SLICEBENCH" place --context user --json >"$scratch/user.json" 2>"$scratch/err"
expect "$scratch/user.json" slice app.slice "a user service"
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
	# user@.service delegates cpu (Debian: Delegate=pids memory cpu) but not
	# cpuset, so AllowedCPUs= is accepted by the user manager and not in force.
	"$SLICEBENCH" place --context user -p CPUWeight=200 -p AllowedCPUs=1 --json >"$scratch/user2.json" 2>"$scratch/err"
	expect "$scratch/user2.json" in_force.CPUWeight yes "CPUWeight=200 under the user manager"
	got=$(json_get "$scratch/user2.json" in_force.AllowedCPUs)
	[[ $got == yes || $got == no:* ]] && { [[ $got == yes ]] || grep -q "AllowedCPUs= is not in force" "$scratch/err"; }
	ok $? "AllowedCPUs=1 under the user manager is checked and, if not applied, warned about (in_force: $got)" "$scratch/err"
else
	"${in_systemd[@]}" "$SLICEBENCH" place --context service -p CPUQuota=50% --json >"$scratch/svc2.json" 2>"$scratch/err"
	expect "$scratch/svc2.json" in_force.CPUQuota yes "CPUQuota=50% on a service"
	expect "$scratch/svc2.json" cpu.cfs_quota_us 50000 "CPUQuota=50% on a service"
fi
"${in_systemd[@]}" "$SLICEBENCH" place --context scope --json >"$scratch/scope.json" 2>"$scratch/err"
expect "$scratch/scope.json" unit slicebench-place-scope.scope "a scope"
exit $failed
