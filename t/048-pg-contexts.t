#!/bin/bash
# PostgreSQL as the managed server in a real systemd (the container sandbox,
# or the guest when PID 1 is systemd): the shipped experiment
# pgbench-readonly, its steps and client counts cut short (the same file
# with threads, warmup, duration, repeat, scale and buffer-pool replaced),
# runs in a service and a shell-started (raw) context with TPS above zero,
# with R and D counts in every second's telemetry and report --telemetry's
# load table, the server's CPU time (its backends') in every step; the placements record both and diff names the unit, slice,
# session and autogroup; after a run, after SIGINT, and after SIGKILL of
# slicebench and cleanup (service and raw) no unit, postgres, socket or
# System V segment is left; Debian's postgresql@15-main.service is mirrored
# by a transient unit of slicebench's, and Debian's own server does not run
# in the sandbox; the whole pgbench-readonly plans 1 to 800 clients, and
# explain plans its service against its shell; explain credits a known
# CPUQuota= effect to CPUQuota=.  The scenarios run in one
# go (t/fixtures/pg/scenarios.sh) and print what they saw.
# Prerequisites: ROOT, POSTGRES, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
[ -x /usr/lib/postgresql/15/bin/initdb ] || sandbox_skip_all "needs POSTGRES (postgresql-15)"
scratch=$(mktemp -d -p "$top" .t048.XXXXXX) || exit 1 # inside the checkout, which the sandbox binds
sandbox_test t048
echo "1..36"
# The shipped experiment, short: each key replaced must be there to replace.
shipped=$top/experiments/pgbench-readonly.ini short=$scratch/pgbench-readonly.ini
sed -e '0,/^threads = .*/s//threads = 1 40/' -e 's/^warmup = .*/warmup = 1s/' -e 's/^duration = .*/duration = 3s/' \
	-e 's/^repeat = .*/repeat = 1/' -e 's/^scale = .*/scale = 1/' -e 's/^buffer-pool = .*/buffer-pool = 128M/' \
	"$shipped" >"$short"
[ "$(diff "$shipped" "$short" | grep -c '^>')" = 6 ]
ok $? "the short pgbench-readonly differs from the shipped one in its 6 sizes and times only" "$short"
"${in_systemd[@]}" "$SLICEBENCH" run "$shipped" --dry-run >"$scratch/plan" 2>&1 &&
	grep -q '^threads: 1 8 64 200 800$' "$scratch/plan" && grep -q '^6 .* x 5 thread counts = 30 steps' "$scratch/plan"
ok $? "the shipped pgbench-readonly plans 1 to 800 clients, a service and a shell 3 times each" "$scratch/plan"
"${in_systemd[@]}" "$SLICEBENCH" explain "$shipped" service shell --threads 64 --dry-run >"$scratch/kinds" 2>&1 &&
	grep -q '^explain pgbench-readonly: service against shell at 64 threads' "$scratch/kinds" &&
	grep -q 'the kind of context (service against raw)' "$scratch/kinds"
ok $? "explain plans pgbench-readonly's service against its shell, the kind's attributes from the placements" "$scratch/kinds"
"${in_systemd[@]}" bash "$top/t/fixtures/pg/scenarios.sh" "$sb" "$top/t/fixtures/pg" "$short" >"$scratch/out" 2>&1
value() { sed -n "s/^$1=//p" "$scratch/out" | head -n1; }
is() { # is KEY WANT DESC
	local got; got=$(value "$1")
	[ "$got" = "$2" ]
	ok $? "$3 ($1: want '$2', got '$got')" "$scratch/out"
}

is debian.postgres inactive "the sandbox runs no postgres of Debian's own"
is run.rc 0 "a run of a service and a shell-started postgres exits 0"
is run.positive 4 "all 4 steps have TPS above zero"
is run.blocked_key True "every telemetry sample has the running and the blocked task counts"
is run.server_cpu 4 "every step has the server's CPU time, its backends' with the postmaster's"
is run.server_wait 4 "and the share of the server's run time on a client's CPU, from the backends' threads"
[[ "$(value report.load)" =~ ^[0-9.]+\.\.[0-9.]+\ \|\ [0-9.]+,\ [0-9]+\ \|\ [0-9.]+,\ [0-9]+$ ]]
ok $? "report --telemetry shows load min..max | R mean, max | D mean, max (got: $(value report.load))" "$scratch/out"
is run.service_unit slicebench-service.service "the service's placement names its unit"
is run.service_user slicebench "postgres runs as slicebench's unprivileged user"
is run.shell_unit "" "the shell-started one has no unit"
is run.max_connections "850 850" "both report the experiment's max_connections (800 clients and ours) over SQL"
is diff.rc 0 "diff of the two contexts exits 0"
is diff.keys "autogroup session.is_leader slice unit " "diff names the unit, slice, session and autogroup"
for s in run int kill rawkill; do
	[ -z "$(value $s.units)" ] && [ -z "$(value $s.servers)" ] && [ -z "$(value $s.sockets)" ] && [ "$(value $s.segments)" = 0 ]
	ok $? "after $s: no unit, postgres, socket or segment ($(value $s.units)|$(value $s.servers)|$(value $s.sockets)|$(value $s.segments))" "$scratch/out"
done
is int.rc 130 "SIGINT mid-run exits 130"
[[ "$(value kill.units_left)" == *slicebench-service.service* ]]
ok $? "SIGKILL of slicebench leaves its service running (units: $(value kill.units_left))" "$scratch/out"
[[ "$(value kill.cleanup)" == *"stopped unit slicebench-service.service"* ]] && [ "$(value kill.cleanup_rc)" = 0 ]
ok $? "cleanup stops it ($(value kill.cleanup))" "$scratch/out"
[ -n "$(value rawkill.servers_left)" ] && [[ "$(value rawkill.sockets_left)" == *.s.PGSQL.5432* ]]
ok $? "SIGKILL of slicebench leaves the shell-started postgres and its socket ($(value rawkill.servers_left))" "$scratch/out"
[[ "$(value rawkill.cleanup)" == *"killed the server, PID"* ]] && [ "$(value rawkill.cleanup_rc)" = 0 ]
ok $? "cleanup kills it ($(value rawkill.cleanup))" "$scratch/out"
is mirror.rc 0 "place mirrors Debian's postgresql@15-main.service"
is mirror.note "mirrors postgresql@15-main.service" "and says so"
is mirror.unit slicebench-debian.service "on a transient unit of slicebench's"
is mirror.user slicebench "running the server as slicebench's user"
[ -z "$(value mirror.units)" ] && [ -z "$(value mirror.servers)" ]
ok $? "nothing is left after place"

exp=$top/t/fixtures/pg/explain.ini
"${in_systemd[@]}" "$SLICEBENCH" explain "$exp" limited free --threads 8 --dry-run >"$scratch/whatif" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '4 mixes x 3 repeats' "$scratch/whatif"
ok $? "explain --dry-run on postgres prints the plan (exit $rc)" "$scratch/whatif"
"${in_systemd[@]}" "$SLICEBENCH" explain "$exp" limited free --threads 8 --repeat 3 --duration 2s --out "$scratch/known" \
	>"$scratch/known.out" 2>&1
ok $? "explain of a known effect on postgres exits 0" "$scratch/known.out"
sentence=$(grep ' explains ' "$scratch/known.out")
[[ $sentence == "CPUQuota= explains "* ]]
ok $? "CPUQuota= is named as the cause (got: ${sentence:-nothing})" "$scratch/known.out"
share=$(sed -n 's/^CPUQuota= explains \([0-9-]*\)%.*/\1/p' "$scratch/known.out")
[ -n "$share" ] && [ "$share" -ge 70 ] && [ "$share" -le 150 ]
ok $? "with most of the gap (${share:-?}%)" "$scratch/known.out"
[ "$(ls "$scratch/known/screen/steps" | wc -l)" = 12 ] && "$SLICEBENCH" report "$scratch/known/screen" >/dev/null && "$SLICEBENCH" report "$scratch/known" >/dev/null
ok $? "the screen's 12 measurements are a results directory that report reads, and so is the explain directory"
"${in_systemd[@]}" sh -c '! pgrep -u slicebench -x postgres'
ok $? "no postgres is left in the sandbox"
exit $failed
