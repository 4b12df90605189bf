#!/bin/bash
# Faults in a real systemd (the container sandbox, or the guest when PID 1
# is systemd), with a service and a scope: SIGINT mid-run leaves no unit and
# no server and keeps valid step files; a server killed mid-step gives failed
# steps with the reason and the next context still runs; after SIGKILL of
# slicebench, cleanup stops the unit it left.  The scenarios run in one go
# (t/fixtures/faults/scenarios.sh) and print what they saw.
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v mariadbd >/dev/null || sandbox_skip_all "needs MYSQLD"
sandbox_test t056
echo "1..20"
"${in_systemd[@]}" bash "$top/t/fixtures/faults/scenarios.sh" "$sb" "$top/t/fixtures/faults/two-kinds.ini" \
	"$top/t/fixtures/run/client-scope.ini" >"$scratch/out" 2>&1
value() { sed -n "s/^$1=//p" "$scratch/out" | head -n1; }
is() { # is KEY WANT DESC
	local got; got=$(value "$1")
	[ "$got" = "$2" ]
	ok $? "$3 ($1: want '$2', got '$got')" "$scratch/out"
}

is int.rc 130 "SIGINT mid-run exits 130"
steps=$(value int.steps)
[ "${steps:-0}" -ge 2 ] && [ "$steps" -lt 4 ]
ok $? "the steps finished before the signal are kept ($steps of 4)" "$scratch/out"
is int.valid yes "every kept step file is valid JSON"
is int.units "" "no slicebench unit is left after SIGINT"
is int.servers "" "no server is left after SIGINT"
is crash.rc 1 "a run with failed steps exits 1"
is crash.service_failed 2 "both steps of the service whose server was killed are failed"
reason=$(value crash.reason)
[[ $reason == *"Lost connection"* || $reason == *"no longer running"* || $reason == *"server"* ]]
ok $? "with the reason ($reason)" "$scratch/out"
is crash.scope_ok 2 "the next context (the scope) still runs both steps"
[[ "$(value kill.units_left)" == *slicebench-service.service* ]]
ok $? "SIGKILL of slicebench leaves its service running (units: $(value kill.units_left))" "$scratch/out"
[[ "$(value kill.cleanup)" == *"stopped unit slicebench-service.service"* ]] && [ "$(value kill.cleanup_rc)" = 0 ]
ok $? "cleanup says it stopped slicebench-service.service ($(value kill.cleanup))" "$scratch/out"
[ -z "$(value kill.units_after)" ] && [ -z "$(value kill.servers_after)" ]
ok $? "and no unit or server is left" "$scratch/out"
is client.rc 0 "a run with [client] scope = yes exits 0"
[[ "$(value client.cgroup)" == */slicebench-client-client-scope-*.scope ]]
ok $? "the client ran in its own scope ($(value client.cgroup))" "$scratch/out"
is client.units_after "" "and the scope is gone after the run"
is journal.start 1 "the run's start marker is in the journal"
is journal.end 1 "and so is its end marker, with the count of steps"
is foreign.rc 1 "a unit of the same name that slicebench did not start is refused"
is foreign.err "slicebench-place-service.service already exists and was not started by this run " \
	"in one sentence that names the unit"
is foreign.still_active active "and neither place nor cleanup touched it"
exit $failed
