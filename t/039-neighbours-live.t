#!/bin/bash
# Neighbours in a real systemd (the container sandbox, or the guest when
# PID 1 is systemd): a two-thread hog in batch.slice beside a service and a
# raw server in db.slice, db.slice's weight 100 then 1600.  The hog's scope
# (its cgroup for raw) is there during the steps and gone after, its CPU
# time per second is in each step's record beside the server's, and the
# server's share of the two rises with its slice's weight.  Beside the hog
# in batch.slice, an oltp neighbour: its own mariadbd runs in its scope
# (its cgroup for raw) during the steps, its TPS is in each step's record,
# and it is gone after the run, socket and all.  After SIGKILL, cleanup
# stops the hog and the neighbour's server.  Then CPUQuota= 50% 100% 200% in mode = restart
# live: the live steps of a repeat share one server PID and each value's
# quota is read back from the cgroup, as the restarted servers' are.  A
# neighbour whose command ends during a step fails that step.
# The scenarios run in one go
# (t/fixtures/neighbours/scenarios.sh) and print what they saw.
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v mariadbd >/dev/null || sandbox_skip_all "needs MYSQLD"
scratch=$(mktemp -d) || exit 1
box=t039-$$
trap '"$SLICEBENCH" sandbox --name $box down >/dev/null 2>&1; rm -rf "$scratch"' EXIT
sb=$(cd "$(dirname "$SLICEBENCH")" && pwd)/$(basename "$SLICEBENCH")
need_systemd $box "$scratch/up"
echo "1..38"
"${in_systemd[@]}" bash "$top/t/fixtures/neighbours/scenarios.sh" "$sb" "$top/t/fixtures/run" >"$scratch/out" 2>&1
value() { sed -n "s/^$1=//p" "$scratch/out" | head -n1; }
is() { # is KEY WANT DESC
	local got; got=$(value "$1")
	[ "$got" = "$2" ]
	ok $? "$3 ($1: want '$2', got '$got')" "$scratch/out"
}
positive() { awk -v x="$(value "$1")" 'BEGIN { exit !(x + 0 > 0) }'; ok $? "$2 ($1: $(value "$1"))" "$scratch/out"; }
rises() { # rises KIND: the server's share at weight 1600 above that at 100
	awk -v a="$(value "$1-v1.share")" -v b="$(value "$1-v2.share")" 'BEGIN { exit !(b > a) }'
	ok $? "$1: the server's share of the CPU beside the hog rises with db.slice's weight (per mille: $(value "$1-v1.share") at 100, $(value "$1-v2.share") at 1600)" "$scratch/out"
}

v2=false; [ "$("${in_systemd[@]}" stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] && v2=true
is run.rc 0 "a run with a hog beside a service and a raw server exits 0"
is run.steps 4 "with a step per kind and weight"
[ "$(value seen.scope)" -gt 0 ] && [ "$(value seen.scope_in_batch)" -gt 0 ]
ok $? "the hog's scope ran in slicebench_batch.slice during the service's steps (seen $(value seen.scope) times)" "$scratch/out"
[ "$(value seen.raw_cgroup)" -gt 0 ]
ok $? "the raw hog's cgroup sat below raw's batch.slice during its steps (seen $(value seen.raw_cgroup) times)" "$scratch/out"
[ "$(value seen.db_scope)" -gt 0 ]
ok $? "the oltp neighbour's mariadbd ran in its scope in slicebench_batch.slice during the service's steps (seen $(value seen.db_scope) times)" "$scratch/out"
[ "$(value seen.db_raw)" -gt 0 ]
ok $? "and in its cgroup below raw's batch.slice during raw's (seen $(value seen.db_raw) times)" "$scratch/out"
for u in service-v1 service-v2 raw-v1 raw-v2; do
	awk -v x="$(value $u.db_tps)" 'BEGIN { exit !(x + 0 > 0) }' || break
done
ok $? "every step records the oltp neighbour's own TPS above zero ($(for u in service-v1 service-v2 raw-v1 raw-v2; do printf '%s ' "$(value $u.db_tps)"; done))" "$scratch/out"
positive service-v1.db_cpu "and its server's CPU time per second beside the hog's"
positive service-v1.hog "the hog's CPU time per second is in the service's step"
positive raw-v1.hog "and in the raw server's"
positive service-v1.server "the server's is beside it"
rises service
rises raw
is run.units_after "" "no unit, slice or scope is left after the run"
is run.cgroups_after "" "no cgroup is left"
is run.hogs_after "" "and no hog runs"
is run.dbs_after "" "nor the oltp neighbour's mariadbd, and its socket is gone"
[ "$(value kill.hogs_left)" -ge 1 ]
ok $? "SIGKILL of the run leaves its hog running ($(value kill.hogs_left))" "$scratch/out"
[ "$(value kill.dbs_left)" -ge 1 ]
ok $? "and its oltp neighbour's mariadbd ($(value kill.dbs_left))" "$scratch/out"
is kill.cleanup_rc 0 "cleanup exits 0"
[[ "$(value kill.cleanup)" == *"stopped unit slicebench-neighbour-db-"* ]]
ok $? "cleanup says it stopped the oltp neighbour's scope" "$scratch/out"
[[ "$(value kill.cleanup)" == *"stopped unit slicebench-neighbour-hog-"* ]]
ok $? "cleanup says it stopped the hog's scope ($(value kill.cleanup))" "$scratch/out"
is kill.hogs_after "" "and no hog is left"
is kill.dbs_after "" "nor the oltp neighbour's mariadbd or its socket"
[ -z "$(value kill.units_after)" ] && [ -z "$(value kill.servers_after)" ]
ok $? "nor any unit or server" "$scratch/out"
is dies.rc 1 "a run whose neighbour ends during the step exits 1"
is dies.failed true "and its step is failed"
is dies.reason "neighbour sleeper exited with status 0 during the step" "with the neighbour's end as the reason"
is live.rc 0 "a run of mode = restart live exits 0"
is live.steps 12 "with the restart steps and the live steps of both kinds"
is service-live.pids 1 "the service's live steps share one server"
is raw-live.pids 1 "and raw's"
is service.pids 3 "while restart starts one per value"
if $v2; then q="50000 100000 100000 100000 200000 100000 "; else q="50000 100000 200000 "; fi
is service-live.quotas "$q" "each live value's quota is read back from the service's cgroup"
is raw-live.quotas "$q" "and from raw's"
is service.quotas "$q" "as the restarted servers' are"
is live.report 6 "report sets each kind's restart noise against its live noise, value by value"
[ -z "$(value live.units_after)$(value live.cgroups_after)$(value live.servers_after)" ]
ok $? "no unit, cgroup or server is left after it" "$scratch/out"
exit $failed
