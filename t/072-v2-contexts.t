#!/bin/bash
# The systemd tests again, in the cgroup v2 guest: one boot runs the bus,
# service/scope and user context tests and the raw context, each of which
# checks the v2 files (cpu.max, cpu.weight) itself, then the placement
# snapshots of every kind and a short sweep through the command line.
top=${SLICEBENCH_TOP:-.}
. "$top/t/lib.sh"
vm=$top/sandbox/slicebench-vm
build=${SLICEBENCH_BUILD:-$top/build}
tests="020-bus-transient 031-raw-context 032-systemd-contexts 033-user-context 034-place 044-sweep-cli"

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
done'
out=$(cd "$top" && "$vm" --name t072-$$ run -- bash -c "$script" sh "$(cd "$top" && pwd)" $tests 2>&1)
n=0
echo "1..$(echo $tests | wc -w)"
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
