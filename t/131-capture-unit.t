#!/bin/bash
# The published study's likeliest cause, made real in the container
# sandbox: a unit built like Percona Server's (contrib/percona-like), whose
# ExecStartPre= helper appends LD_PRELOAD of Debian's libjemalloc.so.2 to
# its EnvironmentFile=, running.  place --unit captures its main process
# (jemalloc mapped, LD_PRELOAD in its environment, as /proc shows; its
# helper and the helper's THP line listed, THP untouched); a context that
# mirrors it takes the environment its server really got, said; run
# against a shell-started server (raw) measures the gap with its interval
# (the allocator jemalloc against glibc in the placements), and explain
# names LD_PRELOAD, the allocator with it, among the factors.  The capture
# replayed (from =) is a service with jemalloc again.  With the unit
# stopped the mirror says the environment is not known.
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI),
# libjemalloc2.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
jemalloc=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
[ -r $jemalloc ] || sandbox_skip_all "needs libjemalloc2 (make deps)"
scratch=$(mktemp -d -p "$top" .t131.XXXXXX) || exit 1 # inside the checkout, which the sandbox binds
sandbox_test t131
echo "1..18"
sbx() { "${in_systemd[@]}" "$@"; }
thp=/sys/kernel/mm/transparent_hugepage/enabled

sbx sh -c "cat $thp >$scratch/thp.before && sh $top/contrib/percona-like/install.sh" >"$scratch/setup" 2>&1
ok $? "the Percona-like unit starts in the sandbox" "$scratch/setup"
main=$(sbx systemctl show -p MainPID --value percona-like.service)

sbx "$sb" place --unit percona-like.service --json >"$scratch/snap.json" 2>"$scratch/err"
ok $? "place --unit captures its main process (PID $main)" "$scratch/err"
get() { json_get "$1" "$2"; }
snap=$scratch/snap.json
[ "$(get "$snap" capture.pid)" = "$main" ] && [ "$(get "$snap" capture.kind)" = service ] &&
	[ "$(get "$snap" capture.unit)" = percona-like.service ]
ok $? "its main PID, a service ($(get "$snap" capture.pid), $(get "$snap" capture.kind))"
[ "$(get "$snap" env.LD_PRELOAD)" = $jemalloc ] && sbx grep -qz "^LD_PRELOAD=$jemalloc\$" /proc/$main/environ
ok $? "LD_PRELOAD of jemalloc, which its helper put in its EnvironmentFile, as /proc/PID/environ holds it"
[ "$(get "$snap" allocator)" = jemalloc ] && sbx grep -q libjemalloc /proc/$main/maps
ok $? "the allocator mapped is jemalloc, as /proc/PID/maps shows ($(get "$snap" allocator))"
[ "$(get "$snap" capture.exec_start_pre.1)" = /usr/local/sbin/ps-mysqld-helper ] &&
	[[ $(get "$snap" capture.host_write.1) == "/usr/local/sbin/ps-mysqld-helper:"*": echo never > $thp" ]] &&
	[ "$(sbx cat $thp)" = "$(cat "$scratch/thp.before")" ]
ok $? "its helper and the helper's host-wide THP line are listed, THP left as it was ($(cat "$scratch/thp.before"))"

exp=$top/t/fixtures/capture/percona.ini
sbx "$sb" run "$exp" --dry-run >"$scratch/dry" 2>&1
grep -q "mirrors percona-like.service .*its ExecStartPre= ran before its server: /usr/local/sbin/ps-mysqld-helper; the environment its server got after them is taken, as read from its main process (LD_PRELOAD=$jemalloc: root's alone); host-wide writes of its helpers, listed and not applied: /usr/local/sbin/ps-mysqld-helper:[0-9]*: echo never" "$scratch/dry"
ok $? "the mirror takes the environment its server got after its helper, and says so" "$scratch/dry"

sbx "$sb" run "$top/experiments/percona-jemalloc.ini" --dry-run >"$scratch/shipped" 2>&1
grep -q '^experiment percona-jemalloc ' "$scratch/shipped" && grep -q "LD_PRELOAD=$jemalloc: root's alone" "$scratch/shipped"
ok $? "the shipped experiments/percona-jemalloc.ini validates here, the unit running, and plans" "$scratch/shipped"

started=$(date +%s)
sbx "$sb" run "$exp" --out "$scratch/run" >"$scratch/run.out" 2>&1
ok $? "run of the mirror against a shell-started server exits 0 ($(($(date +%s) - started)) s)" "$scratch/run.out"
pa=$(ls "$scratch"/run/placements/percona-*r1.json 2>/dev/null | head -n 1)
pb=$(ls "$scratch"/run/placements/shell-*r1.json 2>/dev/null | head -n 1)
[ "$(get "$pa" allocator)" = jemalloc ] && [ "$(get "$pb" allocator)" = glibc ] && [ "$(get "$pa" env.LD_PRELOAD)" = $jemalloc ]
ok $? "the placements show jemalloc against glibc ($(get "$pa" allocator) against $(get "$pb" allocator))"
gap=$(grep -E '^2 +[0-9.]+ .* [0-9.]+x \([0-9.]+-[0-9.]+\) p[=<][0-9.e-]+' "$scratch/run.out")
[ -n "$gap" ]
ok $? "the gap is measured with its interval and p: ${gap:-none}" "$scratch/run.out"
echo "# load: $(cat /proc/loadavg)"
grep -A1 '^verdicts:' "$scratch/run.out" | tail -n 1 | sed 's/^/# /'

sbx "$sb" explain "$scratch/run" --from percona --to shell --what-if >"$scratch/explain" 2>&1
factors=$(grep '^explain percona: percona against shell' "$scratch/explain")
[[ $factors == *"Environment= (LD_PRELOAD (allocator jemalloc against glibc))"* ]] && ! grep -q 'no hybrid can take it:.*allocator' "$scratch/explain"
ok $? "explain names the environment's LD_PRELOAD, the allocator with it, as a factor: ${factors:0:240}" "$scratch/explain"

# The capture replayed: a service (where it ran), jemalloc preloaded again.
cp "$snap" "$scratch/snap-copy.json"
printf '[experiment]\nthreads = 1\n\n[server]\nuser = mysql\n\n[context replayed]\nfrom = snap-copy.json\n' >"$scratch/replay.ini"
sbx "$sb" place --experiment "$scratch/replay.ini" replayed --json >"$scratch/replay.json" 2>"$scratch/replay.err"
ok $? "place of the replayed capture exits 0" "$scratch/replay.err"
grep -q "replays snap-copy.json (PID $main, /usr/sbin/mariadbd, service): took LD_PRELOAD=$jemalloc (root's alone: taken)" "$scratch/replay.err" &&
	[ "$(get "$scratch/replay.json" allocator)" = jemalloc ] && [[ $(get "$scratch/replay.json" unit) == *.service ]]
ok $? "it runs as a service with jemalloc, and says what it took ($(get "$scratch/replay.json" allocator))" "$scratch/replay.err"
[[ $(get "$scratch/replay.json" replay.differs) != *allocator* && $(get "$scratch/replay.json" replay.differs) != *LD_PRELOAD* ]] &&
	grep -q "reproduced [0-9]* of [0-9]* attributes of the capture" "$scratch/replay.err"
ok $? "compared with the capture: $(get "$scratch/replay.json" replay.reproduced), the allocator among them" "$scratch/replay.err"

sbx systemctl stop percona-like.service
sbx "$sb" run "$exp" --dry-run >"$scratch/stopped" 2>&1
grep -q "the environment its server got after them is not known (the unit is not running here" "$scratch/stopped"
ok $? "with the unit stopped the mirror says the environment is not known" "$scratch/stopped"
[ "$(sbx cat $thp)" = "$(cat "$scratch/thp.before")" ]
ok $? "THP is still $(cat "$scratch/thp.before")"
[ -z "$(sbx pgrep -x mariadbd)" ]
ok $? "no server is left in the sandbox"
exit $failed
