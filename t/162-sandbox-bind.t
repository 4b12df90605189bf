#!/bin/bash
# sandbox exec binds a results directory by descriptor, and nothing else:
# the probe's race (a directory of nobody's swapped with a symbolic link to
# /etc by renameat2's RENAME_EXCHANGE in a loop while `sandbox exec --
# slicebench run --out DIR/x` starts) binds the host's /etc in none of 24
# tries, and nothing at all (exit 2, the path someone else can change);
# a link to /etc as DIR, a top-level directory and a verb without --out bind
# nothing; a results directory of root's is bound itself (made where
# missing), not /tmp nor its parent, and what is written there lands on
# the host.  Prerequisites: ROOT, NSPAWN (fails under CI), a C compiler.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT
command -v cc >/dev/null || sandbox_skip_all "needs cc"
command -v setpriv >/dev/null || sandbox_skip_all "needs setpriv"
scratch=$(mktemp -d) && chmod 0755 "$scratch"
sandbox_test t162
echo "1..12"
in_box() { "$SLICEBENCH" sandbox --name "$box" exec -- "$@"; }
binds=${SLICEBENCH_RUNDIR:-/run/slicebench}/sandbox/$box/binds
# host_binds: "ROOT MOUNTPOINT" of each mount at a slot of the sandbox.
host_binds() { awk -v b="$binds/" 'index($5, b) == 1 {print $4, $5}' /proc/self/mountinfo; }
# box_mounts_of ROOT: the container's mounts whose root is ROOT (/etc: the host's, bound).
box_etc() { in_box awk '$4 == "/etc" || index($4, "/etc/") == 1 {print $4, $5}' /proc/self/mountinfo; }

# The attacker, nobody: a directory of its own holding d (its directory)
# and l (a link to /etc), swapped without end.
cat >"$scratch/swap.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	for (;;)
		renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE);
}
EOF
cc -o "$scratch/swap" "$scratch/swap.c"
ok $? "the swapper is built"
attack=$scratch/attack
mkdir "$attack" "$attack/d" && ln -s /etc "$attack/l" && chown -h nobody:nogroup "$attack" "$attack/d" "$attack/l"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$scratch/swap" "$attack/d" "$attack/l" &
swapper=$!
trap 'kill $swapper 2>/dev/null; "$SLICEBENCH" sandbox --name $box down >/dev/null 2>&1; [ -n "${SLICEBENCH_TEST_KEEP:-}" ] || rm -rf "$scratch"' EXIT
before=$(ls -a /etc | md5sum)
refusals=0 binds_seen=0
for i in $(seq 1 24); do
	in_box "$sb" run /nonexistent.ini --out "$attack/d/x$i" >"$scratch/race.$i" 2>&1
	[ $? = 2 ] && grep -q "is not bound: " "$scratch/race.$i" && refusals=$((refusals + 1))
	binds_seen=$((binds_seen + $(host_binds | wc -l)))
done
kill $swapper
wait $swapper 2>/dev/null
[ $refusals = 24 ] && [ $binds_seen = 0 ]
ok $? "24 tries under the swap: refused each time ($refusals), nothing bound ($binds_seen): $(grep -h 'not bound' "$scratch"/race.* | sort | uniq -c | head -n 3 | tr '\n' ';')" "$scratch/race.1"
[ -z "$(box_etc)" ] && [ "$(ls -a /etc | md5sum)" = "$before" ]
ok $? "the container has no mount of the host's /etc, and /etc is as it was: $(box_etc | head -n 2)"

# A link to /etc as DIR, a top-level directory, a verb without --out.
ln -s /etc "$scratch/etc-link"
in_box "$sb" run /nonexistent.ini --out "$scratch/etc-link" >"$scratch/link" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "a symbolic link or not a directory" "$scratch/link" && [ -z "$(host_binds)" ]
ok $? "--out a link to /etc: exit 2, nothing bound ($rc)" "$scratch/link"
in_box "$sb" run /nonexistent.ini --out=/srv >"$scratch/top" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "top-level directory" "$scratch/top" && [ -z "$(host_binds)" ]
ok $? "--out=/srv, a top-level directory: exit 2, nothing bound ($rc)" "$scratch/top"
in_box "$sb" run /nonexistent.ini --out /tmp >"$scratch/tmp" 2>&1; rc=$?
[ $rc = 2 ] && [ -z "$(host_binds)" ]
ok $? "--out /tmp: exit 2, nothing bound ($rc)" "$scratch/tmp"
in_box "$sb" report "$scratch/none" --out "$scratch/report-out" >"$scratch/report" 2>&1
[ -z "$(host_binds)" ] && [ ! -e "$scratch/report-out" ]
ok $? "report (no --out of its own) binds nothing" "$scratch/report"
in_box sh -c "'$sb' run /nonexistent.ini --out '$scratch/sh-out'" >"$scratch/sh" 2>&1
[ -z "$(host_binds)" ] && [ ! -e "$scratch/sh-out" ]
ok $? "a command that is not slicebench's binds nothing" "$scratch/sh"

# A results directory of root's: itself, made, bound; /tmp and its parent not.
out=$scratch/results/run1
in_box "$sb" run /nonexistent.ini --out "$out" >"$scratch/good" 2>&1
[ -d "$out" ] && [ "$(stat -c %u "$out")" = 0 ] && host_binds | grep -qx "$out $binds/[0-9]*"
ok $? "--out $out: made on the host, and it is what is bound: $(host_binds | tr '\n' ';')" "$scratch/good"
in_box touch "$out/written-inside"
[ -e "$out/written-inside" ]
ok $? "what the container writes there lands on the host"
# (the container's own /tmp is a tmpfs of its own: a bind shows the host's path as its root)
in_box sh -c "awk '(\$5 == \"/tmp\" || \$5 == \"$scratch\" || \$5 == \"$scratch/results\") && \$4 != \"/\"' /proc/self/mountinfo" >"$scratch/parents"
[ ! -s "$scratch/parents" ] && [ "$(host_binds | wc -l)" = 1 ]
ok $? "neither /tmp, nor $scratch, nor its results/ is bound in the container" "$scratch/parents"
mkdir -m 0777 "$scratch/open"
in_box "$sb" run /nonexistent.ini --out "$scratch/open/x" >"$scratch/open.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "writable by someone other than root" "$scratch/open.out" && [ ! -e "$scratch/open/x" ]
ok $? "under a directory anyone may write: exit 2, nothing made ($rc)" "$scratch/open.out"
exit $failed
