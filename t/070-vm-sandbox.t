#!/bin/bash
# 070-vm-sandbox: one boot of sandbox/slicebench-vm (pure cgroup v2, real
# systemd) running a script of checks; each line of its output is asserted.
# The guest is booted with one L3 over both CPUs (--l3 1, a monolithic
# Xeon's shape), which its slicebench host must show; t/072 boots the
# default, one L3 per CPU.
# Prerequisites: ROOT, QEMU.  Under CI=true a missing prerequisite fails.
set -u
top=${SLICEBENCH_TOP:-.}
. "$top/t/lib.sh"
vm=$top/sandbox/slicebench-vm

[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v qemu-system-x86_64 >/dev/null || sandbox_skip_all "needs QEMU (qemu-system-x86_64)"
[ -x "$vm" ] || sandbox_skip_all "no $vm (set SLICEBENCH_TOP)"

scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT

checks='
echo "controllers=$(cat /sys/fs/cgroup/cgroup.controllers)"
echo "pid1=$(cat /proc/1/comm)"
systemd-run -q -p CPUQuota=50% -p CPUWeight=200 -p AllowedCPUs=1 --unit sbt1 sleep 120
d=/sys/fs/cgroup/system.slice/sbt1.service
echo "cpu.max=$(cat $d/cpu.max)"
echo "cpu.weight=$(cat $d/cpu.weight)"
echo "cpuset.cpus.effective=$(cat $d/cpuset.cpus.effective)"
echo "vendor=$(grep -m1 vendor_id /proc/cpuinfo | sed "s/.*: //")"
echo "insandbox=$SLICEBENCH_IN_SANDBOX"
h=$("$SLICEBENCH" host --json)
echo "host.mode=$(printf "%s" "$h" | jq -r .cgroup.mode)"
echo "host.v2_controllers=$(printf "%s" "$h" | jq -r ".cgroup.v2_controllers | join(\" \")")"
echo "host.vendor=$(printf "%s" "$h" | jq -r .cpu.vendor)"
echo "host.l3_groups=$(printf "%s" "$h" | jq -r ".cpu.l3_groups | join(\" \")")"
# The user manager gets the cpu controller only if user@.service delegates it.
echo "user.delegated=$(cat /sys/fs/cgroup/user.slice/cgroup.subtree_control 2>/dev/null)"
# A whole run: the same limits through systemd (service) and cgroupfs (raw).
w=$(mktemp -d); chmod 0755 "$w"
SLICEBENCH_STATE_DIR=$w/s SLICEBENCH_RUN_DIR=$w/r "$SLICEBENCH" run "$TOP/t/fixtures/run/v2-run.ini" --out "$w/res" >/dev/null 2>&1
echo "run.rc=$?"
echo "run.steps=$(ls "$w/res/steps" | wc -l)"
for c in service raw; do
	p=$w/res/placements/$c-v1-r1.json
	echo "run.$c=$(jq -r "[.\"cpu.max\", .\"cpuset.cpus.effective\", .\"in_force.CPUQuota\", .\"in_force.AllowedCPUs\"] | join(\",\")" "$p")"
done
'
start=$SECONDS
SLICEBENCH=$(cd "$(dirname "${SLICEBENCH:-$top/slicebench}")" && pwd)/$(basename "${SLICEBENCH:-slicebench}")
export SLICEBENCH
"$vm" --name t070 --cpus 2 --l3 1 run -- env SLICEBENCH="$SLICEBENCH" TOP="$(cd "$top" && pwd)" bash -c "$checks" >"$scratch/out" 2>"$scratch/err"
rc=$?
elapsed=$((SECONDS - start))

n=0 failed=0
echo "1..17"
report() { # report OK DESC [DIAG...]
	local ok=$1 desc=$2; shift 2
	n=$((n + 1))
	if [ "$ok" = 0 ]; then
		echo "ok $n - $desc"
	else
		failed=1
		echo "not ok $n - $desc"
		for l in "$@"; do echo "# $l"; done
	fi
}
value() { sed -n "s/^$1=//p" "$scratch/out" | head -n1; }
expect() { # expect KEY WANT DESC  (exact)
	local got; got=$(value "$1")
	[ "$got" = "$2" ]
	report $? "$3" "${BASH_SOURCE[0]}:${BASH_LINENO[0]}: $1: want '$2', got '$got'"
}
has_word() { # has_word KEY WORD DESC
	local got; got=$(value "$1")
	[[ " $got " == *" $2 "* ]]
	report $? "$3" "${BASH_SOURCE[0]}:${BASH_LINENO[0]}: $1: want a word '$2' in '$got'"
}

[ $rc = 0 ]
report $? "run boots, runs the checks and exits 0 (${elapsed}s)" "exit status $rc" \
	"$(sed 's/^/stderr: /' "$scratch/err" | tail -n 30)"
has_word controllers cpu "root cgroup.controllers has cpu"
has_word controllers cpuset "root cgroup.controllers has cpuset"
expect pid1 systemd "PID 1 is systemd"
expect cpu.max "50000 100000" "CPUQuota=50% gives cpu.max 50000 100000"
expect cpu.weight 200 "CPUWeight=200 gives cpu.weight 200"
expect cpuset.cpus.effective 1 "AllowedCPUs=1 gives cpuset.cpus.effective 1"
expect vendor AuthenticAMD "guest CPU vendor is AuthenticAMD"
expect host.mode unified "slicebench host in the guest says cgroup mode unified"
has_word host.v2_controllers cpu "slicebench host lists the v2 cpu controller"
has_word host.v2_controllers cpuset "slicebench host lists the v2 cpuset controller"
expect host.vendor AuthenticAMD "slicebench host says AuthenticAMD"
expect host.l3_groups "0-1" "booted with --l3 1, slicebench host shows one L3 group over both CPUs"
expect run.rc 0 "a run of a service and a raw context exits 0 in the guest"
expect run.steps 2 "with a step for each"
expect run.service "50000 100000,1,yes,yes" "the service's placement: cpu.max, cpuset, both in force"
expect run.raw "50000 100000,1,yes,yes" "the raw cgroup's placement: the same, written by slicebench"
echo "# user.slice delegates: $(value user.delegated)"
echo "# wall time ${elapsed}s"
[ "$(value insandbox)" = vm ] || echo "# warning: SLICEBENCH_IN_SANDBOX is '$(value insandbox)', want vm"
exit $failed
