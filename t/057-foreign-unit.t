#!/bin/bash
# cleanup stops only the units it started: a record carries the unit's
# InvocationID (with the server's PID and start time), and a unit of the
# same name that came back after slicebench was SIGKILLed (systemd-run
# --unit=slicebench-... of one's own) survives cleanup and the automatic
# cleanup of the next run; slicebench's own left unit is still stopped.
# Runs in a real systemd (t/fixtures/units/foreign.sh).
# Prerequisites: ROOT, MYSQLD, NSPAWN or a running systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
command -v mariadbd >/dev/null || sandbox_skip_all "needs MYSQLD"
sandbox_test t057
echo "1..9"
"${in_systemd[@]}" bash "$top/t/fixtures/units/foreign.sh" "$sb" >"$scratch/out" 2>&1
value() { sed -n "s/^$1=//p" "$scratch/out" | head -n1; }

[[ "$(value record)" == *'"invocation":"'* ]]
ok $? "the live record carries the unit's InvocationID ($(value record))" "$scratch/out"
[ "$(value left)" = active ] && [ "$(value foreign)" = active ]
ok $? "SIGKILL left the unit; after it went, a foreign one came back under its name" "$scratch/out"
[ "$(value after_next)" = active ]
ok $? "the foreign unit survives the automatic cleanup of the next run (next: exit $(value next.rc))" "$scratch/out"
[[ "$(value next.err)" == *"left unit slicebench-sweep-service.service alone"* ]]
ok $? "which says it left it alone ($(value next.err))" "$scratch/out"
[ "$(value cleanup.rc)" = 0 ] && [[ "$(value cleanup.out)" == *"left unit slicebench-sweep-service.service alone: it is not the one slicebench started"* ]]
ok $? "slicebench cleanup says it leaves the foreign unit alone ($(value cleanup.out))" "$scratch/out"
[ "$(value after_cleanup)" = active ]
ok $? "the foreign unit survives cleanup ($(value after_cleanup))" "$scratch/out"
[ -z "$(value records)" ]
ok $? "the stale record is gone ($(value records))" "$scratch/out"
[[ "$(value own.cleanup)" == *"stopped unit slicebench-sweep-service.service"* ]]
ok $? "slicebench's own left unit is still stopped by cleanup ($(value own.cleanup))" "$scratch/out"
[ "$(value own.after)" != active ]
ok $? "and gone ($(value own.after))" "$scratch/out"
exit $failed
