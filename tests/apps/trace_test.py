#!/usr/bin/env python3
"""The trace of a real augur-runtime run, loaded as the viewers load it (docs/design/runtime.md, "The trace").

    trace_test.py CASE AUGUR_RUNTIME CONFIG

CASE
  complete  a short run (--cycles) with the motion stage delayed past the deadline
            (AUGUR_FAULT_STAGE_DELAY): the closed file is strict JSON; every stage slice lies inside its
            cycle's slice on the cycle thread; the delay shows as deadline-miss instants, watchdog alarms and
            mode changes; counters and process / thread names are there
  killed    a run killed with SIGKILL once the file holds a few cycles: the file ends at an event boundary,
            without the closing bracket, and loads once "]" is appended, with the same nesting

The runtime runs with --embedded-roudi (the test holds the iceoryx resource lock).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

CYCLES = 6
DELAY = "motion:250"  # the shipped deployment's deadline is 200 ms
KILL_AFTER_CYCLES = 4
TOLERANCE_US = 0.0005  # the file's times have nanosecond resolution


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check_nesting(events):
    """Every stage slice inside its cycle's slice, on the same thread, the stages not overlapping."""
    cycles = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "cycle":
            cycles[e["args"]["cycle"]] = e
    if not cycles:
        fail("no cycle slices")
    stages_by_cycle = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "stage":
            cycle = cycles.get(e["args"]["cycle"])
            if cycle is None:
                continue  # its cycle's slice was not written yet (a killed run)
            if (e["pid"], e["tid"]) != (cycle["pid"], cycle["tid"]):
                fail("stage %s of cycle %d is not on its cycle's thread" % (e["name"], e["args"]["cycle"]))
            if e["ts"] < cycle["ts"] - TOLERANCE_US or e["ts"] + e["dur"] > cycle["ts"] + cycle["dur"] + TOLERANCE_US:
                fail("stage %s of cycle %d lies outside the cycle's slice" % (e["name"], e["args"]["cycle"]))
            stages_by_cycle.setdefault(e["args"]["cycle"], []).append(e)
    for cycle, stages in stages_by_cycle.items():
        stages.sort(key=lambda s: s["ts"])
        for a, b in zip(stages, stages[1:]):
            if a["ts"] + a["dur"] > b["ts"] + TOLERANCE_US:
                fail("stages %s and %s of cycle %d overlap" % (a["name"], b["name"], cycle))
    if not stages_by_cycle:
        fail("no stage slices inside a cycle slice")
    return cycles, stages_by_cycle


def check_names(events):
    names = {(e["name"], e["args"]["name"]) for e in events if e.get("ph") == "M"}
    if not any(kind == "process_name" and name.startswith("augur-runtime") for kind, name in names):
        fail("no process name: %s" % sorted(names))
    for track in ("cycle (stages)", "watchdog"):
        if ("thread_name", track) not in names:
            fail("no thread named '%s': %s" % (track, sorted(names)))


def run_complete(runtime, config, work):
    trace = os.path.join(work, "trace.json")
    env = dict(os.environ, AUGUR_FAULT_STAGE_DELAY=DELAY)
    done = subprocess.run([runtime, "--config", config, "--embedded-roudi", "--cycles", str(CYCLES), "--trace", trace],
                          env=env, stderr=subprocess.PIPE, text=True, timeout=120)
    if done.returncode != 0:
        fail("augur-runtime exited with %d:\n%s" % (done.returncode, done.stderr))
    if "trace written to " + trace not in done.stderr:
        fail("no 'trace written' line:\n" + done.stderr)
    with open(trace) as f:
        events = json.load(f)  # strict JSON: the run closed the array
    check_names(events)
    cycles, _ = check_nesting(events)
    if len(cycles) != CYCLES:
        fail("%d cycle slices, expected %d" % (len(cycles), CYCLES))
    instants = [e for e in events if e.get("ph") == "i"]
    misses = [e for e in instants if e["name"] == "deadline miss"]
    alarms = [e for e in instants if e["name"] == "watchdog alarm"]
    changes = [e for e in instants if e["name"].startswith("mode ")]
    if not misses or not alarms or not changes:
        fail("with the delay: %d deadline misses, %d watchdog alarms, %d mode changes" %
             (len(misses), len(alarms), len(changes)))
    if not any(c["args"]["from"] == "nominal" for c in changes):
        fail("no mode change from nominal: %s" % changes)
    if any(a["tid"] == next(iter(cycles.values()))["tid"] for a in alarms):
        fail("watchdog alarms on the cycle thread")
    missed = [c for c in cycles.values() if c["args"]["deadline_missed"] == 1]
    if not missed:
        fail("no cycle slice says it missed its deadline")
    counters = {e["name"] for e in events if e.get("ph") == "C"}
    for name in ("vehicles", "particles per vehicle"):
        if name not in counters:
            fail("no '%s' counter: %s" % (name, sorted(counters)))
    print("ok: %d events, %d cycles, %d misses, %d alarms, %d mode changes" %
          (len(events), len(cycles), len(misses), len(alarms), len(changes)))


def cycles_in(path):
    try:
        with open(path) as f:
            return f.read().count('"cat":"cycle"')
    except FileNotFoundError:
        return 0


def run_killed(runtime, config, work):
    trace = os.path.join(work, "trace.json")
    log = open(os.path.join(work, "runtime.log"), "w")
    process = subprocess.Popen([runtime, "--config", config, "--embedded-roudi", "--trace", trace], stderr=log)
    deadline = time.monotonic() + 60
    while cycles_in(trace) < KILL_AFTER_CYCLES and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if process.poll() is not None:
        fail("augur-runtime ended before it was killed (status %d)" % process.returncode)
    process.send_signal(signal.SIGKILL)
    process.wait()
    with open(trace) as f:
        text = f.read()
    if text.rstrip().endswith("]"):
        fail("a killed run wrote the closing bracket")
    try:
        json.loads(text)
        fail("the cut-off file loaded without its closing bracket: strict JSON must refuse it")
    except json.JSONDecodeError:
        pass
    events = json.loads(text + "]")  # what the viewers do with a missing bracket
    check_names(events)
    cycles, _ = check_nesting(events)
    if len(cycles) < KILL_AFTER_CYCLES:
        fail("%d cycles survived the kill, expected at least %d" % (len(cycles), KILL_AFTER_CYCLES))
    print("ok: %d events, %d cycles kept after SIGKILL" % (len(events), len(cycles)))


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("complete", "killed"):
        print(__doc__)
        return 2
    case, runtime, config = sys.argv[1:]
    with tempfile.TemporaryDirectory() as work:
        (run_complete if case == "complete" else run_killed)(runtime, config, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
