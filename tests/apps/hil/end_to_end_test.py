#!/usr/bin/env python3
"""End-to-end bench run: `augur-hil demo` starts a real RouDi (iox-roudi) and a real augur-runtime
process, replays a few seconds of the committed scenario through shared memory, stops both, scores the
recording and writes the report. Checks that every list went in and was accepted, that every output
channel was recorded each cycle, that the scores are in a sane range, that the report and its figures
exist, that the exit status agrees with the verdict written into the run, and that the runtime recorded
its trace (`--trace`): closed JSON with a slice per cycle and the traffic in its counters.

    end_to_end_test.py AUGUR_HIL AUGUR_RUNTIME CONFIG OUT_DIR
"""
import csv
import json
import os
import shutil
import subprocess
import sys

START_S = 20.0        # into the committed scenario: traffic at the junction
DURATION_S = 5.0      # 50 lists, about 25 runtime cycles at 5 Hz
STEP_S = 0.1
CYCLE_S = 0.2
MAX_POSITION_RMSE_M = 1.0     # perception noise is 0.3 m per axis
MAX_ADE_1S_M = 3.0            # a time-alignment error of one step would already show here
TIMEOUT_S = 240


def read_rows(path):
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def fail(message):
    print(f"end_to_end_test: FAIL: {message}", file=sys.stderr)
    return 1


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    hil, runtime, config, out = sys.argv[1:]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    trace = os.path.join(out, "trace.json")
    command = [hil, "demo", "--runtime", runtime, "--config", config, "--out", out, "--trace", trace,
               "--start-s", str(START_S), "--duration-s", str(DURATION_S),
               "--max-deadline-misses", "1000000", "--max-ade-4s", "1000"]
    print("end_to_end_test: " + " ".join(command), flush=True)
    result = subprocess.run(command, timeout=TIMEOUT_S)
    if result.returncode not in (0, 1):
        return fail(f"augur-hil demo exited with {result.returncode}")

    run = {r["key"]: r["value"] for r in read_rows(os.path.join(out, "run.csv"))}
    verdict_held = run.get("verdict") == "held"
    if (result.returncode == 0) != verdict_held:
        return fail(f"exit status {result.returncode} but verdict {run.get('verdict')!r}")
    if not verdict_held:
        return fail("thresholds far above any sane run did not hold")

    metrics = {r["name"]: float(r["value"]) for r in read_rows(os.path.join(out, "metrics.csv"))}
    lists = round(DURATION_S / STEP_S)
    if metrics["lists_published"] != lists:
        return fail(f"{metrics['lists_published']} lists published, expected {lists}")
    # Every list is valid: each is accepted, or rejected as stale when an overrunning cycle (the CPU
    # backend on a loaded machine) left it in the queue past runtime.max_input_age_ms; most are accepted.
    stale = metrics.get("rejected_stale", 0)
    if metrics["accepted_inputs"] + stale != lists or metrics["accepted_inputs"] < lists / 2:
        return fail(f"the runtime accepted {metrics['accepted_inputs']} of {lists} lists ({stale} stale)")
    rejected = {k: v for k, v in metrics.items() if k.startswith("rejected_") and k != "rejected_stale" and v != 0}
    if rejected:
        return fail(f"rejected lists: {rejected}")
    # Overrunning cycles skip periods (the CPU backend on a loaded machine): ask for half of them.
    min_cycles = round(DURATION_S / CYCLE_S / 2)
    for name in ("recorded_health", "recorded_track_lists", "recorded_intention_lists", "recorded_predictions"):
        if metrics[name] < min_cycles:
            return fail(f"{name} = {metrics[name]}, expected at least {min_cycles}")
    if metrics["recorder_queue_overflows"] != 0:
        return fail("the recorder lost samples")
    # One row per cycle's own Health message; the watchdog's alarms (Health messages published while
    # a cycle overran, as on a loaded machine) are counted apart and have no row.
    cycles = read_rows(os.path.join(out, "cycles.csv"))
    if len(cycles) != metrics["recorded_health"] - metrics["watchdog_alarms"]:
        return fail(f"cycles.csv holds {len(cycles)} rows for {metrics['recorded_health']} Health messages, "
                    f"{metrics['watchdog_alarms']} of them watchdog alarms")
    if metrics["tracking_cycles"] < min_cycles - 2 or metrics["associated_pairs"] == 0:
        return fail(f"tracking scored {metrics['tracking_cycles']} cycles, {metrics['associated_pairs']} pairs")
    if not 0.0 < metrics["position_rmse"] < MAX_POSITION_RMSE_M:
        return fail(f"position RMSE {metrics['position_rmse']} m")

    errors = read_rows(os.path.join(out, "horizon_errors.csv"))
    for method in ("ours", "lf", "cv"):
        at_1s = [r for r in errors if r["method"] == method and float(r["horizon_s"]) == 1.0]
        if not at_1s or int(at_1s[0]["samples"]) == 0:
            return fail(f"no {method} samples at 1 s")
        if not float(at_1s[0]["ade_m"]) < MAX_ADE_1S_M:
            return fail(f"{method} ADE at 1 s is {at_1s[0]['ade_m']} m")
    samples = {(r["method"], r["horizon_s"]): r["samples"] for r in errors}
    if any(samples[("ours", h)] != samples[(b, h)] for (m, h) in samples if m == "ours" for b in ("lf", "cv")):
        return fail("ours and the baselines were not scored on the same samples")

    figures = ["summary.md", "latency.png", "errors_vs_horizon.png"]
    # The snapshot needs a prediction with an occupancy grid: a runtime that stepped down to its
    # constant-velocity mode for the whole run (a loaded machine) publishes none.
    if os.path.exists(os.path.join(out, "snapshot_grid.csv")):
        figures.append("occupancy_snapshot.png")
    elif not any(c["mode"] == "2" for c in cycles):
        return fail("no occupancy snapshot although the runtime never ran in its constant-velocity mode")
    for name in figures:
        path = os.path.join(out, "report", name)
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            return fail(f"{path} missing")
    with open(trace, encoding="utf-8") as f:
        events = json.load(f)  # strict: the runtime stopped cleanly and closed the array
    trace_cycles = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cycle"]
    if len(trace_cycles) < min_cycles:
        return fail(f"the trace holds {len(trace_cycles)} cycles, expected at least {min_cycles}")
    vehicles = [e["args"]["value"] for e in events if e.get("ph") == "C" and e["name"] == "vehicles"]
    ages = [e for e in events if e.get("ph") == "C" and e["name"] == "input age ms"]
    if not vehicles or max(vehicles) == 0 or not ages:
        return fail("the trace's counters do not show the replayed traffic")
    print("end_to_end_test: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
