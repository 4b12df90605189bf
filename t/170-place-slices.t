#!/bin/bash
# slicebench place with a context inside a [slice] of its experiment: the
# unit is started as run starts it (managed/unit.h), so the slices are
# made around it, its cgroup path goes through them with their settings
# read back, each slice's setting is recorded as written, resolved and read
# back, and nothing of the slices is left afterwards.  raw runs here (its
# slices are cgroups); the service in the container sandbox (slice units).
# Prerequisites: ROOT, MYSQLD; NSPAWN for the service (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
exp=$top/t/fixtures/place/slices.ini
echo "1..9"
server_scratch
trap '"$SLICEBENCH" sandbox --name t170-$$ down >/dev/null 2>&1; servers | xargs -r kill -9; rm -rf "$scratch"' EXIT
cgroups() { find /sys/fs/cgroup -mindepth 1 -type d -name '*slicebench*db*' 2>/dev/null; }
expect() { # expect FILE KEY WANT DESC
	local got; got=$(json_get "$1" "$2")
	[ "$got" = "$3" ]
	ok $? "$4: $2 is '$3' (got '$got')" "$1"
}

"$SLICEBENCH" place --experiment "$exp" raw --json >"$scratch/raw.json" 2>"$scratch/raw.err"
ok $? "place --experiment FILE raw, a context in [slice db-oltp.slice], exits 0" "$scratch/raw.err"
path1=$(json_get "$scratch/raw.json" cpu.path.1) path2=$(json_get "$scratch/raw.json" cpu.path.2)
[[ $path1 == *db.slice* && $path2 == *db-oltp.slice* ]]
ok $? "the server's cgroup path goes through both slices (cpu.path.1 $path1, cpu.path.2 $path2)" "$scratch/raw.json"
expect "$scratch/raw.json" in_force.db-oltp.slice/CPUWeight yes \
	"the inner slice's weight, read back from its cgroup"
expect "$scratch/raw.json" in_force.db.slice/CPUQuota yes "the outer slice's quota"
expect "$scratch/raw.json" setting.db.slice/CPUQuota.written 150% "the outer slice's quota as written"
left=$(cgroups; servers)
[ -z "$left" ]
ok $? "no slice cgroup and no server is left after place (left: ${left:-none})"

# The service, in slice units of a real systemd.
if [ "$(cat /proc/1/comm)" = systemd ]; then
	in_systemd=()
elif command -v systemd-nspawn >/dev/null; then
	"$SLICEBENCH" sandbox --name t170-$$ up >"$scratch/up" 2>&1 || sed 's/^/# /' "$scratch/up"
	in_systemd=("$SLICEBENCH" sandbox --name t170-$$ exec --)
elif [ "${CI:-}" = true ]; then
	for _ in 1 2 3; do n=$((n + 1)); echo "not ok $n - NSPAWN is missing under CI"; done; exit 1
else
	for _ in 1 2 3; do n=$((n + 1)); echo "ok $n # SKIP needs NSPAWN or a running systemd"; done; exit $failed
fi
"${in_systemd[@]}" "$SLICEBENCH" place --experiment "$exp" service --json >"$scratch/svc.json" 2>"$scratch/svc.err"
ok $? "place --experiment FILE service, a context in [slice db.slice], exits 0" "$scratch/svc.err"
expect "$scratch/svc.json" slice slicebench_db.slice "systemd says the service's slice is the experiment's"
units=$("${in_systemd[@]}" systemctl list-units --all --plain --no-legend 'slicebench*' 2>/dev/null | awk '{print $1}')
[ -z "$units" ]
ok $? "no slice unit is left after place (left: ${units:-none})"
exit $failed
