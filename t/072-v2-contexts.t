#!/bin/bash
# The systemd tests again, in the cgroup v2 guest: one boot runs the bus,
# service/scope and user context tests and the raw context, each of which
# checks the v2 files (cpu.max, cpu.weight) itself, then the placement
# snapshots of every kind and a short sweep through the command line.  The
# guest's two CPUs are two L3 groups (sandbox/slicebench-vm), so the same
# boot checks llc:N: the topology test, slicebench host, and AllowedCPUs=
# llc:1 resolved, recorded (as written and as resolved) and in force in a
# raw cgroup and in a service.
top=${SLICEBENCH_TOP:-.}
. "$top/t/lib.sh"
vm=$top/sandbox/slicebench-vm
build=${SLICEBENCH_BUILD:-$top/build}
tests="012-topology 020-bus-transient 031-raw-context 032-systemd-contexts 033-user-context 034-place 044-sweep-cli"

[ "$(id -u)" = 0 ] || sandbox_skip_all "needs root"
command -v qemu-system-x86_64 >/dev/null || sandbox_skip_all "no qemu-system-x86_64"
for t in $tests; do
	[ -x "$build/t/$t.t" ] || [ -x "$top/t/$t.t" ] || sandbox_skip_all "$build/t/$t.t is not built"
done

# C tests from the build tree, shell tests from t/.
b=${build#$top/}
script='cd "$1"; shift; export SLICEBENCH=$PWD/'"$b"'/slicebench SLICEBENCH_TOP=$PWD
for t in "$@"; do
	echo "=== $t"
	if [ -x '"$b"'/t/$t.t ]; then ./'"$b"'/t/$t.t 2>&1; else bash t/$t.t 2>&1; fi
	echo "=== rc $?"
done
f=t/fixtures/run/llc.ini s0=$SECONDS
echo "=== llc"
echo "host.l3_groups=$($SLICEBENCH host --json | jq -r ".cpu.l3_groups | join(\" \")")"
echo "host.text=$($SLICEBENCH host 2>/dev/null | sed -n "s/^cpu.l3_groups: *//p")"
echo "plan=$($SLICEBENCH run $f --dry-run | sed -n "s/^  *[^ ]*  *\([a-z]*\) .*\(AllowedCPUs=[^ ]*\).*/\1:\2/p" | tr "\n" " ")"
$SLICEBENCH place --experiment $f raw service --json >/tmp/llc.json
echo "place.rc=$?"
for c in raw service; do
	echo "$c=$(jq -r --arg c $c "[.[\$c][\"cpuset.cpus.effective\", \"in_force.AllowedCPUs\", \"setting.AllowedCPUs.written\", \"setting.AllowedCPUs.resolved\"]] | join(\",\")" /tmp/llc.json)"
done
echo "seconds=$((SECONDS - s0))"
echo "=== llc end"'
out=$(cd "$top" && "$vm" --name t072-$$ run -- bash -c "$script" sh "$(cd "$top" && pwd)" $tests 2>&1)
n=0
echo "1..$(($(echo $tests | wc -w) + 6))"
for t in $tests; do
	n=$((n + 1))
	section=$(printf '%s\n' "$out" | sed -n "/^=== $t\$/,/^=== rc /p")
	rc=$(printf '%s\n' "$section" | sed -n 's/^=== rc //p')
	if [ "$rc" = 0 ] && printf '%s\n' "$section" | grep -q '^ok ' && ! printf '%s\n' "$section" | grep -q '^not ok'; then
		echo "ok $n - $t passes in the cgroup v2 guest ($(printf '%s\n' "$section" | grep -c '^ok ') checks)"
	else
		echo "not ok $n - $t passes in the cgroup v2 guest (rc ${rc:-none})"
		printf '%s\n' "${section:-$out}" | tail -n 40 | sed 's/^/# /'
	fi
done

# llc:N in the guest: group 1 is CPU 1 alone.
llc=$(printf '%s\n' "$out" | sed -n '/^=== llc$/,/^=== llc end$/p')
value() { printf '%s\n' "$llc" | sed -n "s/^$1=//p" | head -n1; }
expect() { # expect KEY WANT DESC
	local got; got=$(value "$1")
	n=$((n + 1))
	if [ "$got" = "$2" ]; then
		echo "ok $n - $3"
	else
		echo "not ok $n - $3"
		echo "# ${BASH_SOURCE[0]}:${BASH_LINENO[0]}: $1: want '$2', got '$got'"
		printf '%s\n' "${llc:-$out}" | tail -n 20 | sed 's/^/# /'
	fi
}
expect host.l3_groups "0 1" "slicebench host --json in the guest: cpu.l3_groups [\"0\", \"1\"]"
expect host.text "0 1" "slicebench host prints them: cpu.l3_groups: 0 1"
expect plan "raw:AllowedCPUs=1 service:AllowedCPUs=1 " "run --dry-run plans AllowedCPUs=llc:1 as the list it resolved to, 1, for each kind"
expect place.rc 0 "place of a raw and a service context with AllowedCPUs=llc:1 exits 0"
expect raw "1,yes,llc:1,1" "the raw cgroup's cpuset.cpus.effective is 1, in force, recorded as written (llc:1) and resolved (1)"
expect service "1,yes,llc:1,1" "the service's cpuset.cpus.effective is 1, in force, recorded as written (llc:1) and resolved (1)"
echo "# the llc checks took $(value seconds)s in the guest"
