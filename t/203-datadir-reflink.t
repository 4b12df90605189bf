#!/bin/bash
# The pristine copy where the filesystem has reflinks: the state directory
# on an XFS made with reflink=1 (a 600 MB image, loop-mounted), a run of two
# units of a raw context: each unit's datadir is a reflink of the template
# (run.log says "reflink"), the copy shares the template's extents (the
# filesystem's used space grows by far less than the datadir's size), and
# the run's steps have TPS above zero.  ext4 (this machine's root) has no
# reflinks: t/201 and t/200 hold the copy there.
# Prerequisites: ROOT, MYSQLD, mkfs.xfs (xfsprogs) and a loop device.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
command -v mkfs.xfs >/dev/null || skip_all "mkfs.xfs is missing (make test-deps installs xfsprogs)"
grep -qw xfs /proc/filesystems || modprobe xfs 2>/dev/null || skip_all "the kernel has no XFS"
echo "1..4"
scratch=$(mktemp -d) || exit 1
chmod 0755 "$scratch"
trap 'pgrep -f -- "--defaults-file=$scratch/" | xargs -r kill -9; umount "$scratch/mnt" 2>/dev/null; rm -rf "$scratch"' EXIT
truncate -s 600M "$scratch/xfs.img" && mkfs.xfs -q -m reflink=1 "$scratch/xfs.img" && mkdir "$scratch/mnt" &&
	mount -o loop "$scratch/xfs.img" "$scratch/mnt" && chmod 0755 "$scratch/mnt"
ok $? "an XFS with reflinks, loop-mounted"
empty=$(df -m --output=used "$scratch/mnt" | tail -1)
export SLICEBENCH_STATE_DIR=$scratch/mnt/state SLICEBENCH_RUN_DIR=$scratch/run
cat >"$scratch/two.ini" <<'INI'
[experiment]
description = two starts from the template on a filesystem with reflinks
threads = 1
duration = 1s
repeat = 2
tables = 1
table-size = 2000
[server]
buffer-pool = 64M
[context shell]
kind = raw
INI
"$SLICEBENCH" run "$scratch/two.ini" --out "$scratch/res" >"$scratch/out" 2>"$scratch/err"
ok $? "the run exits 0" "$scratch/err"
n=$(grep -c ': a pristine datadir (reflink of ' "$scratch/res/run.log")
[ "$n" = 2 ]
ok $? "both units' datadirs are reflinks of the template ($n)" "$scratch/res/run.log"
grep ': a pristine datadir' "$scratch/res/run.log" | sed 's/^/# /'
sync
data=$(du -sm --apparent-size "$SLICEBENCH_STATE_DIR/datadir" | cut -f1)
used=$(($(df -m --output=used "$scratch/mnt" | tail -1) - empty))
python3 - "$scratch/res/results.json" >"$scratch/check" 2>&1 <<'PY'
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
assert len(steps) == 2 and all(s["tps"] > 0 for s in steps), [s["tps"] for s in steps]
print("ok")
PY
r=$?
# The template and the last copy: two datadirs' bytes, one datadir's
# blocks and what the server wrote into its copy.
[ $r = 0 ] && [ "$data" -gt 50 ] && [ "$used" -lt $((data * 3 / 2)) ]
ok $? "the steps have TPS above zero; the template and the copy ($data MB each) take $used MB of the filesystem" "$scratch/check"
