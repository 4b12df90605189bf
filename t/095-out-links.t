#!/bin/bash
# --out through a symbolic link that the server's account planted on the way
# (a world-writable sticky directory, as /tmp, holding a link to a directory
# of root's): refused before anything starts, nothing written where the link
# points.  Prerequisites: ROOT, setpriv and the server's account.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT
command -v setpriv >/dev/null || skip_all "needs setpriv (util-linux)"
id slicebench >/dev/null 2>&1 || skip_all "needs the server's account slicebench (make deps)"
echo "1..3"
server_scratch
trap 'rm -rf "$scratch"' EXIT
mkdir -m 1777 "$scratch/tmp"
mkdir -m 0755 "$scratch/etc"
setpriv --reuid=slicebench --regid=slicebench --clear-groups -- ln -s "$scratch/etc" "$scratch/tmp/results"
[ -L "$scratch/tmp/results" ] && [ "$(stat -c %U "$scratch/tmp/results")" = slicebench ]
ok $? "the server's account planted $scratch/tmp/results -> $scratch/etc"

"$SLICEBENCH" run "$top/t/fixtures/run/two-raw.ini" --out "$scratch/tmp/results/mine" >"$scratch/out" 2>&1
rc=$?
[ $rc != 0 ] && [ -z "$(ls -A "$scratch/etc")" ] && grep -q "root did not make" "$scratch/out" &&
	! grep -q 'started' "$scratch/out"
ok $? "run --out under that link is refused, says why, starts nothing and writes nothing there (exit $rc)" "$scratch/out"
[ ! -e "$SLICEBENCH_STATE_DIR" ]
ok $? "not even the state directory was made"
exit $failed
