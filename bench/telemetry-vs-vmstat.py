#!/usr/bin/env python3
"""Each step's host figures beside vmstat's for the same seconds.

usage: bench/telemetry-vs-vmstat.py RESULTS_DIR VMSTAT_LOG [PS_LOG]

RESULTS_DIR is a run's results directory; VMSTAT_LOG the output of
`vmstat -n -t 1` (UTC, as the sandbox and this host keep it) taken beside
the run (a line late on a loaded host stamps the next second: the
nearest line is taken); PS_LOG, optional, lines of "EPOCH R D" from a loop that counted
`ps -eLo stat` on the host each second.  A telemetry sample carries its
wall-clock second ("wall_s", stored to the second): the vmstat line of that
second covers the same second but for the fraction between the two clocks'
ticks, so a step's first and last samples, which straddle its edges, are
left out.  Prints a Markdown table, one row per step: our CPU idle % against
vmstat's id, the load average's range, R (/proc/stat's procs_running, the
host's) against vmstat's r, and D (threads in D state as ps counts them, in
slicebench's PID namespace) against vmstat's b (blocked on I/O, which is
not D) and the host's ps count.  doc/figures.md says how each is read.
"""
import calendar
import json
import sys
import time


def vmstat_seconds(path):
    by_second = {}
    for line in open(path):
        f = line.split()
        if len(f) < 19 or not f[0].isdigit():
            continue
        t = calendar.timegm(time.strptime(f[-2] + " " + f[-1], "%Y-%m-%d %H:%M:%S"))
        by_second[t] = {"r": int(f[0]), "b": int(f[1]), "id": int(f[14]), "us": int(f[12]), "sy": int(f[13])}
    return by_second


def ps_seconds(path):
    by_second = {}
    for line in open(path) if path else []:
        t, r, d = line.split()
        by_second[int(float(t))] = (int(r), int(d))
    return by_second


def mean(v):
    return sum(v) / len(v) if v else float("nan")


def row(step, vm, ps):
    ours = {"idle": [], "load": [], "r": [], "d": []}
    theirs = {"id": [], "r": [], "b": [], "ps_r": [], "ps_d": []}
    samples = step.get("telemetry", [])
    # The first and last second of a step straddle its edges: vmstat's
    # second and ours are up to a second apart, and the step before or
    # after (another client count, a server starting) falls in one and not
    # the other; only the step's inner seconds are the same seconds.
    if len(samples) >= 3:
        samples = samples[1:-1]
    for s in samples:
        sec = round(s.get("wall_s", 0))
        # vmstat's stamp is its line's second, cut down; a late line skips one.
        v = vm.get(sec) or vm.get(sec - 1) or vm.get(sec + 1)
        if v is None or s.get("cpu_idle_pct") is None:
            continue
        ours["idle"].append(s["cpu_idle_pct"])
        ours["load"].append(s["load1"])
        ours["r"].append(s["procs_running"])
        ours["d"].append(s.get("tasks_uninterruptible", 0))
        theirs["id"].append(v["id"])
        theirs["r"].append(v["r"])
        theirs["b"].append(v["b"])
        p = ps.get(sec) or ps.get(sec - 1)
        if p:
            theirs["ps_r"].append(p[0])
            theirs["ps_d"].append(p[1])
    if not ours["idle"]:
        return None
    rule = step.get("failure_class", "kept") if step.get("failed") else "kept"
    return ("| %s | %d | %.0f%s | %d | %.1f / %.1f | %.1f..%.1f | %.1f (%d) / %.1f (%d) | %.1f / %.1f / %s |" % (
        step["context"], step["threads"], step["tps"], "" if rule == "kept" else " (" + rule + ")",
        len(ours["idle"]), mean(ours["idle"]), mean(theirs["id"]), min(ours["load"]), max(ours["load"]),
        mean(ours["r"]), max(ours["r"]), mean(theirs["r"]), max(theirs["r"]), mean(ours["d"]), mean(theirs["b"]),
        "%.1f" % mean(theirs["ps_d"]) if theirs["ps_d"] else "-"))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    doc = json.load(open(sys.argv[1] + "/results.json"))
    vm = vmstat_seconds(sys.argv[2])
    ps = ps_seconds(sys.argv[3] if len(sys.argv) > 3 else None)
    print("| context | clients | TPS | seconds | CPU idle %: ours / vmstat's id | load min..max "
          "| R mean (max): ours / vmstat's r | D mean: ours / vmstat's b / host's ps |")
    print("|---|---|---|---|---|---|---|---|")
    for step in sorted(doc["steps"], key=lambda s: s.get("started_at", 0)):
        line = row(step, vm, ps)
        print(line if line else "| %s | %d | no sample in vmstat's seconds |||||| " % (step["context"], step["threads"]))


main()
