#!/bin/bash
# The experiment's own slices in a real systemd (the container sandbox, or
# the guest when PID 1 is systemd): a service, a scope and a raw context in
# nested slices with the top slice's weight varied; every level's weight
# and quota read back from the placements, the same for systemd's slice
# units and raw's cgroups, and each slice's settings recorded as written,
# resolved and read back; nothing left after the run, after SIGINT, or
# after SIGKILL and cleanup.  The scenarios run in one go
# (t/fixtures/slices/scenarios.sh) and print what they saw.
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v mariadbd >/dev/null || sandbox_skip_all "needs MYSQLD"
sandbox_test t037
echo "1..24"
"${in_systemd[@]}" bash "$top/t/fixtures/slices/scenarios.sh" "$sb" "$top/t/fixtures/run/slices.ini" >"$scratch/out" 2>&1
value() { sed -n "s/^$1=//p" "$scratch/out" | head -n1; }
is() { # is KEY WANT DESC
	local got; got=$(value "$1")
	[ "$got" = "$2" ]
	ok $? "$3 ($1: want '$2', got '$got')" "$scratch/out"
}
v2=false; [ "$("${in_systemd[@]}" stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] && v2=true
# Level NAME:WEIGHT:QUOTA for weights 100 and 400 of db.slice, 200 of db-oltp.slice.
if $v2; then w100=100 w400=400 w200=200 q="150000 100000" nq="max 100000" read400=cpu.weight=400
else w100=1024 w400=4096 w200=2048 q=150000 nq=-1 read400=cpu.shares=4096; fi

is run.rc 0 "a run of three kinds in nested slices exits 0"
is run.steps 6 "with a step per kind and weight"
is service-v1-r1.levels "slicebench_db.slice:$w100:$q slicebench_db-oltp.slice:$w200:$nq " \
	"the service's path: db.slice with CPUWeight=100 and its quota, then db-oltp.slice"
is service-v2-r1.levels "slicebench_db.slice:$w400:$q slicebench_db-oltp.slice:$w200:$nq " \
	"the vary value sets db.slice's weight (400)"
is service-v1-r1.slice slicebench_db-oltp.slice "systemd says the service's slice is slicebench_db-oltp.slice"
is scope-v1-r1.slice slicebench_db.slice "and the scope's slicebench_db.slice"
is raw-v1-r1.levels "RAW_db.slice:$w100:$q slicebench_db-oltp.slice:$w200:$nq " \
	"raw builds the same tree in cgroupfs, with the same settings"
is raw-v2-r1.levels "RAW_db.slice:$w400:$q slicebench_db-oltp.slice:$w200:$nq " \
	"and takes the vary value the same way"
is service-v2-r1.db_weight "400|400|$read400|yes|" "the service's placement records db.slice's CPUWeight=400 as written, resolved and read back"
is raw-v2-r1.db_weight "400|400|$read400|yes|" "and raw's the same"
is run.units_after "" "no slicebench unit or slice is left after the run"
is run.cgroups_after "" "no slicebench cgroup is left after the run"
is diff.level1 "slicebench_db.slice|RAW_db.slice" "diff shows the first level of both paths"
is diff.level1_weight "" "and no difference in its weight"
is int.rc 130 "SIGINT while raw runs in its slices exits 130"
is int.cgroups "" "and leaves no cgroup"
is int.servers "" "and no server"
[[ "$(value kill.units_left)" == *slicebench_db.slice* ]]
ok $? "SIGKILL leaves the slices (units: $(value kill.units_left))" "$scratch/out"
is kill.cleanup_rc 0 "cleanup exits 0"
[[ "$(value kill.cleanup)" == *"stopped unit slicebench_db.slice"* ]]
ok $? "cleanup says it stopped slicebench_db.slice ($(value kill.cleanup))" "$scratch/out"
[ -z "$(value kill.units_after)" ] && [ -z "$(value kill.servers_after)" ]
ok $? "and no unit, slice or server is left" "$scratch/out"
[ "$(value killraw.cgroups_left)" -ge 2 ]
ok $? "SIGKILL of a raw run leaves its cgroup tree ($(value killraw.cgroups_left) cgroups)" "$scratch/out"
is killraw.cleanup_rc 0 "cleanup exits 0"
[ -z "$(value killraw.cgroups_after)" ] && [ -z "$(value killraw.servers_after)" ]
ok $? "and removes every level, and the server" "$scratch/out"
exit $failed
