#!/usr/bin/env python3
"""augur-hil suite: the prediction measured on roads it was not developed on, in one command.

    augur-hil suite [--out DIR] [--jobs N] [--duration-s S] [--warm-up-s W] [--seed N]
                    [--scenarios NAME,...] [--smoke] [--list] [--config FILE] [--no-namespaces]
                    [--fail-on-targets] [--generate-only] [--reuse-scenarios] [-- BENCH OPTIONS...]

For each scenario of the suite (SCENARIOS below; `--list` prints them) this
  1. generates the traffic from the seed at run time (scripts/scenarios/build-scenario: netconvert or
     netgenerate, randomTrips.py, sumo) into OUT/scenarios/NAME: nothing is committed;
  2. writes a deployment for it (the --config file with map.path set to the scenario's network);
  3. runs `augur-hil demo` on it (RouDi, augur-runtime, replay, scoring, report) into OUT/runs/NAME,
     its output in OUT/runs/NAME/bench.log. With --jobs N up to N benches run at once, each in its own
     IPC and mount namespace (unshare --ipc --mount, a private /tmp and /dev/shm: iceoryx 2.0 allows
     one RouDi per namespace), so they neither race each other's RouDi nor anyone else's; every bench
     runs in its own process group, and an interrupted suite ends them all;
then reads every run's horizon_errors*.csv and writes
  OUT/suite.md     the table: scenario x metric x ours / lane following / constant velocity at 4 s, the
                   targets per scenario, the runtime modes our predictions were made in, and the
                   command, device, date and commit. "Ours" is what the runtime's model predicted
                   (nominal and reduced-particles modes; the baselines on the same samples): predictions
                   made in the runtime's constant-velocity fallback are not the model's and are left out;
  OUT/suite.csv    the same values, one row per scenario, subset (model, all), metric and method;
  OUT/suite.png    the figure: weighted FDE, minFDE, miss rate and Brier score per scenario and method;
  OUT/junit.xml    JUnit XML for CI: one testcase per scenario and target (a scenario whose bench
                   failed is an error, one left out is skipped).
Exit status: 0 every bench ran (targets are reported, not enforced, unless --fail-on-targets); 1 a
target did not hold with --fail-on-targets; 2 bad command line; 3 a scenario could not be generated
or its bench failed.

Targets (the model is judged by them; the suite reports them, it does not tune anything):
  weighted FDE at 4 s <= 0.8 x constant velocity and <= 0.9 x lane following; minFDE at 4 s <= 0.6 x
  constant velocity; miss rate (minFDE > 2 m) at 4 s below both baselines. Brier score reported.
Standard library plus matplotlib (the figure). Needs SUMO (Debian sumo, sumo-tools).
"""
import argparse
import concurrent.futures
import csv
import datetime
import math
import os
import platform
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BUILD_SCENARIO = os.path.join(SOURCE_DIR, "scripts", "scenarios", "build-scenario")
DEFAULT_CONFIG = os.path.join(SOURCE_DIR, "config", "default.yaml")
HORIZON_S = 4.0
SUMO_WARMUP_S = 45.0  # simulated before the recorded part, so the network carries steady traffic
TRUTH_TAIL_S = 5.0    # recorded after the replayed part, so the last predictions have a 4 s truth

# The suite: name -> (build-scenario kind, its options). Periods are the mean time between departures
# (seconds): small is congested. Seeds are the suite's seed plus the index, so --seed N gives a new suite.
SCENARIOS = [
    ("intersection-priority", "intersection", ["--period-s", "3.0"]),
    ("intersection-tls", "tls", ["--period-s", "1.2"]),
    ("t-junction", "tjunction", ["--period-s", "2.0"]),
    ("roundabout-1lane", "roundabout", ["--period-s", "2.0"]),
    ("roundabout-2lane", "roundabout2", ["--period-s", "1.0"]),
    ("spider-3arms", "spider", ["--arms", "3", "--period-s", "2.0"]),
    ("spider-5arms", "spider", ["--arms", "5", "--period-s", "1.5"]),
    ("spider-6arms-tls", "spider", ["--arms", "6", "--junction-type", "traffic_light", "--period-s", "1.0"]),
    ("grid-3x3-sparse", "grid", ["--grid-number", "3", "--period-s", "3.0"]),
    ("grid-4x4-tls-congested", "grid", ["--grid-number", "4", "--lanes", "2", "--junction-type", "traffic_light",
                                         "--period-s", "0.5"]),
    ("random", "random", ["--period-s", "1.0"]),
    ("highway-ramp", "highway", ["--period-s", "0.8"]),
    ("lanelet2-example", "lanelet2", []),
]
SMOKE = ["intersection-priority", "spider-3arms"]

METHODS = [("ours", "augur"), ("lf", "lane following"), ("cv", "constant velocity")]
METRICS = [("weighted_ade_m", "weighted ADE (m)"), ("weighted_fde_m", "weighted FDE (m)"),
           ("fde_m", "most likely FDE (m)"), ("min_fde_m", "minFDE (m)"), ("miss_rate", "miss rate"),
           ("brier", "Brier")]
TARGETS = [
    ("weighted_fde_vs_cv", "weighted FDE <= 0.8 x CV", lambda e: e["ours"]["weighted_fde_m"] <= 0.8 * e["cv"]["weighted_fde_m"]),
    ("weighted_fde_vs_lf", "weighted FDE <= 0.9 x LF", lambda e: e["ours"]["weighted_fde_m"] <= 0.9 * e["lf"]["weighted_fde_m"]),
    ("min_fde_vs_cv", "minFDE <= 0.6 x CV", lambda e: e["ours"]["min_fde_m"] <= 0.6 * e["cv"]["min_fde_m"]),
    ("miss_rate_below_baselines", "miss rate < LF and < CV",
     lambda e: e["ours"]["miss_rate"] < min(e["lf"]["miss_rate"], e["cv"]["miss_rate"])),
]

g_children = {}  # pid -> Popen, every bench and generator still running
g_lock = threading.Lock()
g_stopping = threading.Event()


def log(message):
    print(f"augur-hil suite: {message}", file=sys.stderr, flush=True)


def run_child(argv, log_path, cwd=None, env=None):
    """Runs argv in its own process group, output to log_path; returns the exit status."""
    with open(log_path, "w", encoding="utf-8") as out:
        out.write("$ " + " ".join(shlex.quote(a) for a in argv) + "\n")
        out.flush()
        if g_stopping.is_set():
            return 130
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, env=env, start_new_session=True)
        with g_lock:
            g_children[p.pid] = p
        try:
            return p.wait()
        finally:
            with g_lock:
                g_children.pop(p.pid, None)


def stop_children(signum, _frame):
    """Ends every bench's process group (the bench ends its RouDi and runtime), then exits."""
    g_stopping.set()
    with g_lock:
        children = list(g_children.values())
    for p in children:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 15.0
    for p in children:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    log(f"stopped by signal {signum}")
    os._exit(128 + signum)


def namespace_prefix(network=False):
    """The command prefix that runs a program in its own IPC and mount namespace with a private /tmp and
    /dev/shm (with `network`, also in its own network namespace with only the loopback interface, up), or
    None when this machine does not allow it (not root and no user namespaces)."""
    namespaces = ["--ipc", "--mount"] + (["--net"] if network else []) + ["--propagation", "private"]
    script = ("mount -t tmpfs tmpfs /tmp && mount -t tmpfs tmpfs /dev/shm && "
              + ("ip link set lo up && " if network else "") + 'exec "$0" "$@"')
    for prefix in (["unshare"] + namespaces, ["unshare", "--user", "--map-root-user"] + namespaces):
        probe = prefix + ["sh", "-c", script, "true"]
        try:
            if subprocess.run(probe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20).returncode == 0:
                return prefix + ["sh", "-c", script]
        except (OSError, subprocess.TimeoutExpired):
            pass
    return None


def write_config(template, map_path, target):
    """The deployment `template` with map.path set to `map_path` (absolute) and format sumo."""
    with open(template, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out, in_map = [], False
    for line in lines:
        if re.match(r"^\S", line):
            in_map = line.startswith("map:")
        if in_map and re.match(r"^\s+path:", line):
            line = re.sub(r"path:\s*\S+", f"path: {map_path}", line, count=1)
        if in_map and re.match(r"^\s+format:", line):
            line = re.sub(r"format:\s*\S+", "format: sumo", line, count=1)
        out.append(line)
    with open(target, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def at_horizon(rows, horizon=HORIZON_S):
    return [r for r in rows if abs(float(r["horizon_s"]) - horizon) < 1e-6]


MODEL_MODES = ("nominal", "reduced_particles")  # the modes in which the runtime's model predicts


def combine(rows):
    """Sample-weighted means of horizon_errors rows (every metric is a mean over samples)."""
    total = sum(int(r["samples"]) for r in rows)
    if total == 0:
        return None
    out = {"samples": total}
    for k, _ in METRICS:
        values = [(int(r["samples"]), r.get(k)) for r in rows if r.get(k) not in (None, "")]
        if values:
            out[k] = sum(n * float(v) for n, v in values) / sum(n for n, _ in values)
    return out


def collect(run_dir):
    """At 4 s: {method: {metric: value, samples}} over the predictions the runtime's model made (nominal and
    reduced-particles modes, the baselines on the same samples), the same over all predictions, the
    runtime-mode split of our samples, and run.csv."""
    all_rows = at_horizon(read_rows(os.path.join(run_dir, "horizon_errors.csv")))
    everything = {r["method"]: combine([r]) for r in all_rows}
    by_mode = at_horizon(read_rows(os.path.join(run_dir, "horizon_errors_by_mode.csv")))
    model = {}
    for m, _ in METHODS:
        combined = combine([r for r in by_mode if r["method"] == m and r["mode"] in MODEL_MODES])
        if combined:
            model[m] = combined
    modes = {r["mode"]: int(r["samples"]) for r in by_mode if r["method"] == "ours" and int(r["samples"]) > 0}
    info = {r["key"]: r["value"] for r in read_rows(os.path.join(run_dir, "run.csv"))}
    return model, everything, modes, info


def split_rows(run_dirs, name, column):
    """The 4 s rows of `name` (horizon_errors_by_mode.csv, horizon_errors_by_class.csv) of all runs, combined
    per value of `column` and method: {value: {method: scores}}."""
    groups = {}
    for run_dir in run_dirs:
        for r in at_horizon(read_rows(os.path.join(run_dir, name))):
            groups.setdefault(r[column], {}).setdefault(r["method"], []).append(r)
    return {value: {m: combine(rows) for m, rows in methods.items()} for value, methods in groups.items()}


def mode_text(modes):
    total = sum(modes.values())
    if not total:
        return "—"
    return ", ".join(f"{m} {100.0 * n / total:.0f} %" for m, n in sorted(modes.items(), key=lambda kv: -kv[1]))


def run_scenario(entry, index, a, prefix):
    """Generates one scenario and runs the bench on it; returns a result dict."""
    name, kind, options = entry
    seed = a.seed + index
    scenario_dir = os.path.join(a.out, "scenarios", name)
    run_dir = os.path.join(a.out, "runs", name)
    os.makedirs(run_dir, exist_ok=True)
    result = {"name": name, "kind": kind, "seed": seed, "run_dir": run_dir, "status": "ok", "detail": "", "time_s": 0.0}
    started = time.monotonic()
    build = [BUILD_SCENARIO, kind, scenario_dir, "--seed", str(seed), "--warmup-s", f"{SUMO_WARMUP_S:g}",
             "--duration-s", f"{a.duration_s + TRUTH_TAIL_S:g}"] + options
    # What the scenario was generated from: a folder generated from the same is reused with --reuse-scenarios
    # (a host without SUMO benches scenarios generated elsewhere; a new build is benched on identical traffic).
    recipe = " ".join([kind, f"seed={seed}", f"warmup_s={SUMO_WARMUP_S:g}",
                       f"duration_s={a.duration_s + TRUTH_TAIL_S:g}"] + options)
    recipe_path = os.path.join(scenario_dir, "recipe.txt")
    reusable = (a.reuse_scenarios and os.path.exists(os.path.join(scenario_dir, "scenario.csv"))
                and os.path.exists(recipe_path) and open(recipe_path).read().strip() == recipe)
    if reusable:
        log(f"{name}: reusing the scenario generated from the same recipe")
    else:
        if kind == "lanelet2":
            lanelet_map = os.environ.get("AUGUR_LANELET2_MAP",
                                         os.path.join(SOURCE_DIR, "data", "maps", "lanelet2_mapping_example.osm"))
            if not os.path.exists(lanelet_map):
                result.update(status="skipped", detail=f"no Lanelet2 example map at {lanelet_map} (set AUGUR_LANELET2_MAP)")
                return result
        log(f"{name}: generating (seed {seed})")
        status = run_child(build, os.path.join(run_dir, "generate.log"))
        if status != 0:
            result.update(status="error", detail=f"scenario generation failed (status {status}, {run_dir}/generate.log)")
            return result
        with open(recipe_path, "w") as f:
            f.write(recipe + "\n")
    if a.generate_only:
        result.update(status="skipped", detail="generated only")
        return result
    config = os.path.join(run_dir, "config.yaml")
    write_config(a.config, os.path.join(os.path.abspath(scenario_dir), "map.net.xml"), config)
    bench = [a.hil, "demo", "--config", config, "--scenario", scenario_dir, "--out", run_dir, "--runtime", a.runtime,
             "--duration-s", f"{a.duration_s:g}", "--warm-up-s", f"{a.warm_up_s:g}", "--no-acceptance"] + a.bench_args
    log(f"{name}: bench ({a.duration_s:g} s of traffic)")
    status = run_child((prefix or []) + bench, os.path.join(run_dir, "bench.log"))
    result["time_s"] = time.monotonic() - started
    if status not in (0, 1):
        result.update(status="error", detail=f"augur-hil demo failed (status {status}, {run_dir}/bench.log)")
        return result
    errors, everything, modes, info = collect(run_dir)
    result.update(errors=errors, everything=everything, modes=modes, info=info)
    if not all((everything.get(m) or {}).get("samples", 0) > 0 for m, _ in METHODS):
        result.update(status="error", detail="nothing scored at 4 s for one of the methods")
    elif not all(m in errors for m, _ in METHODS):
        result.update(status="error", detail="the runtime predicted in its constant-velocity fallback throughout: "
                                             "nothing of its model to score (see runs/NAME/report)")
    log(f"{name}: done in {result['time_s']:.0f} s")
    return result


def collect_existing(entry, index, a):
    """The result of a run already in OUT/runs/NAME (--collect-only)."""
    name, kind, _ = entry
    run_dir = os.path.join(a.out, "runs", name)
    result = {"name": name, "kind": kind, "seed": a.seed + index, "run_dir": run_dir, "status": "ok", "detail": "",
              "time_s": 0.0}
    if not os.path.exists(os.path.join(run_dir, "horizon_errors.csv")):
        result.update(status="skipped", detail=f"no run in {run_dir}")
        return result
    errors, everything, modes, info = collect(run_dir)
    result.update(errors=errors, everything=everything, modes=modes, info=info)
    if not all(m in errors for m, _ in METHODS):
        result.update(status="error", detail="nothing of the runtime's model scored at 4 s")
    return result


def git_commit():
    try:
        return subprocess.run(["git", "-C", SOURCE_DIR, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def fmt(v, digits=2):
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def write_outputs(a, results, command):
    scored = [r for r in results if r["status"] == "ok"]
    infos = [r["info"] for r in scored if r.get("info")]
    backends = sorted({i.get("backend", "?") for i in infos})
    devices = sorted({i.get("device", "?") for i in infos})
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = ["# HIL suite", "",
             f"- command: `{command}`",
             f"- backend: {', '.join(backends) or '—'}; device: {'; '.join(devices) or platform.processor() or '—'}",
             f"- date: {date}; commit: {a.commit}; benches run {min((i.get('date', '?') for i in infos), default='—')} to "
             f"{max((i.get('date', '?') for i in infos), default='—')}",
             f"- {a.duration_s:g} s of traffic per scenario, first {a.warm_up_s:g} s not scored; all values at 4 s",
             "",
             "Each cell: augur / lane following (LF) / constant velocity (CV) on the same samples: the predictions "
             "the runtime's model made (nominal and reduced-particles modes). Predictions the runtime made in its "
             "constant-velocity fallback (a loaded machine) are not augur's model and are left out of every column; "
             "\"runtime modes\" gives the split of all predictions, suite.csv (subset `all`) the scores over all of "
             "them. Weighted: the probability-weighted path; most likely: the most probable mode; min: the best "
             "published mode; miss: minFDE > 2 m; Brier: of the corridor taken.", "",
             "| scenario | samples | runtime modes | " + " | ".join(label for _, label in METRICS) + " |",
             "| --- | ---: | --- | " + " | ".join("---" for _ in METRICS) + " |"]
    for r in results:
        if r["status"] != "ok":
            lines.append(f"| {r['name']} | — | {r['status']}: {r['detail']} | " + " | ".join("—" for _ in METRICS) + " |")
            continue
        e = r["errors"]
        cells = [" / ".join(fmt(e.get(m, {}).get(k)) for m, _ in METHODS) for k, _ in METRICS]
        lines.append(f"| {r['name']} | {e['ours']['samples']} | {mode_text(r['modes'])} | " + " | ".join(cells) + " |")
    for title, name, column in (("runtime mode (all scenarios; the fallback is the runtime's, not the model's)",
                                 "horizon_errors_by_mode.csv", "mode"),
                                ("motion class (all scenarios, all predictions)", "horizon_errors_by_class.csv", "motion")):
        groups = split_rows([r["run_dir"] for r in scored], name, column)
        if not groups:
            continue
        lines += ["", f"By {title}:", "",
                  f"| {column} | samples | " + " | ".join(label for _, label in METRICS) + " |",
                  "| --- | ---: | " + " | ".join("---" for _ in METRICS) + " |"]
        for value, methods in groups.items():
            if "ours" not in methods or methods["ours"] is None:
                continue
            cells = [" / ".join(fmt((methods.get(m) or {}).get(k)) for m, _ in METHODS) for k, _ in METRICS]
            lines.append(f"| {value} | {methods['ours']['samples']} | " + " | ".join(cells) + " |")
    lines += ["", "Targets (the model's; reported, not tuned for):", "",
              "| scenario | " + " | ".join(label for _, label, _ in TARGETS) + " |",
              "| --- | " + " | ".join("---" for _ in TARGETS) + " |"]
    for r in scored:
        lines.append(f"| {r['name']} | " + " | ".join("held" if check(r["errors"]) else "**not held**"
                                                     for _, _, check in TARGETS) + " |")
    lines.append("")
    with open(os.path.join(a.out, "suite.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    with open(os.path.join(a.out, "suite.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "seed", "subset", "metric", "method", "value", "samples", "modes", "backend", "device",
                    "date", "commit"])
        for r in scored:
            for subset, errors in (("model", r["errors"]), ("all", r["everything"])):
                for m, _ in METHODS:
                    for k, _ in METRICS:
                        w.writerow([r["name"], r["seed"], subset, k, m, errors[m].get(k, ""), errors[m]["samples"],
                                    mode_text(r["modes"]), r["info"].get("backend", ""), r["info"].get("device", ""),
                                    date, a.commit])
    write_junit(os.path.join(a.out, "junit.xml"), results)
    print("\n".join(lines))
    write_figure(os.path.join(a.out, "suite.png"), scored, a)


def write_junit(path, results):
    suite = ET.Element("testsuite", name="augur-hil suite")
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for r in results:
        for key, label, check in TARGETS:
            case = ET.SubElement(suite, "testcase", classname=f"hil.suite.{r['name']}", name=key,
                                 time=f"{r['time_s'] / len(TARGETS):.1f}")
            counts["tests"] += 1
            if r["status"] == "skipped":
                ET.SubElement(case, "skipped", message=r["detail"])
                counts["skipped"] += 1
            elif r["status"] != "ok":
                ET.SubElement(case, "error", message=r["detail"])
                counts["errors"] += 1
            elif not check(r["errors"]):
                e = r["errors"]
                detail = (f"{label}: weighted FDE {fmt(e['ours']['weighted_fde_m'])} / LF {fmt(e['lf']['weighted_fde_m'])} / "
                          f"CV {fmt(e['cv']['weighted_fde_m'])} m; minFDE {fmt(e['ours']['min_fde_m'])} / "
                          f"{fmt(e['lf']['min_fde_m'])} / {fmt(e['cv']['min_fde_m'])} m; miss rate "
                          f"{fmt(e['ours']['miss_rate'])} / {fmt(e['lf']['miss_rate'])} / {fmt(e['cv']['miss_rate'])}; "
                          f"augur's modes {mode_text(r['modes'])}")
                ET.SubElement(case, "failure", message=label).text = detail
                counts["failures"] += 1
    for k, v in counts.items():
        suite.set(k, str(v))
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def write_figure(path, scored, a):
    if not scored:
        return
    try:
        import matplotlib
    except ImportError:
        print(f"augur-hil suite: no figure ({path}): matplotlib is not installed (python3-matplotlib)", file=sys.stderr)
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [r["name"] for r in scored]
    colours = {"ours": "#1f77b4", "lf": "#2ca02c", "cv": "#ff7f0e"}
    panels = [("weighted_fde_m", "weighted FDE at 4 s (m)"), ("min_fde_m", "minFDE at 4 s (m)"),
              ("miss_rate", "miss rate at 4 s (minFDE > 2 m)"), ("brier", "Brier score of the corridor taken")]
    fig, axes = plt.subplots(len(panels), 1, figsize=(max(8, 0.9 * len(names) + 3), 3.0 * len(panels)), sharex=True)
    width = 0.27
    for ax, (key, title) in zip(axes, panels):
        for i, (m, label) in enumerate(METHODS):
            values = [r["errors"][m].get(key, float("nan")) for r in scored]
            ax.bar([x + (i - 1) * width for x in range(len(names))], values, width, color=colours[m], label=label)
        ax.set_title(title, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].legend(fontsize=8, ncol=3)
    axes[-1].set_xticks(range(len(names)))
    fallback = [r["modes"].get("constant_velocity", 0) / max(1, sum(r["modes"].values())) for r in scored]
    axes[-1].set_xticklabels([f"{n}\n({100 * f:.0f} % CV fallback, left out)" if f > 0 else n
                              for n, f in zip(names, fallback)], rotation=30, ha="right", fontsize=7)
    backend = ", ".join(sorted({r["info"].get("backend", "?") for r in scored}))
    fig.suptitle(f"HIL suite at 4 s, the three methods on the same samples: the predictions of the runtime's model\n"
                 f"(nominal and reduced-particles modes; {backend} backend, {a.duration_s:g} s per scenario)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(prog="augur-hil suite", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--hil", required=True, help=argparse.SUPPRESS)
    p.add_argument("--runtime", required=True, help=argparse.SUPPRESS)
    p.add_argument("--out", default="hil-suite", help="output folder [hil-suite]")
    p.add_argument("--jobs", type=int, default=1, help="benches at once, each in its own namespaces [1]")
    p.add_argument("--duration-s", type=float, default=90.0, help="seconds of traffic replayed per scenario [90]")
    p.add_argument("--warm-up-s", type=float, default=5.0, help="first seconds of each replay not scored [5]")
    p.add_argument("--seed", type=int, default=1000, help="the suite's seed; scenario i uses seed + i [1000]")
    p.add_argument("--scenarios", default="", help="comma-separated names (--list) [all]")
    p.add_argument("--smoke", action="store_true", help=f"the CI smoke: {', '.join(SMOKE)}, 20 s each")
    p.add_argument("--list", action="store_true", help="print the scenarios and exit")
    p.add_argument("--config", default=DEFAULT_CONFIG, help="the deployment template (its map.path is replaced)")
    p.add_argument("--no-namespaces", action="store_true", help="run benches in the machine's namespaces (--jobs 1 only)")
    p.add_argument("--fail-on-targets", action="store_true", help="exit 1 when a target does not hold")
    p.add_argument("--generate-only", action="store_true", help="generate the scenarios into OUT/scenarios, bench none")
    p.add_argument("--reuse-scenarios", action="store_true",
                   help="bench OUT/scenarios/NAME where it was generated from the same recipe (seed, duration, "
                        "options; its recipe.txt) instead of generating it again: no SUMO needed then")
    p.add_argument("--collect-only", action="store_true", help="write the table, figure and JUnit file from the runs "
                                                                "already in --out (no SUMO, no bench)")
    p.add_argument("bench_args", nargs="*", help="after --: further options for augur-hil demo")
    a = p.parse_args()
    if a.list:
        for name, kind, options in SCENARIOS:
            print(f"{name:26s} {kind:13s} {' '.join(options)}")
        return 0
    chosen = SCENARIOS
    if a.smoke:
        chosen = [s for s in SCENARIOS if s[0] in SMOKE]
        if "--duration-s" not in sys.argv:
            a.duration_s = 20.0
    if a.scenarios:
        wanted = a.scenarios.split(",")
        unknown = [w for w in wanted if w not in {s[0] for s in SCENARIOS}]
        if unknown:
            p.error(f"unknown scenarios {', '.join(unknown)} (--list)")
        chosen = [s for s in SCENARIOS if s[0] in wanted]
    if a.jobs < 1 or a.duration_s <= 0 or a.warm_up_s < 0 or a.warm_up_s >= a.duration_s:
        p.error("--jobs >= 1, --duration-s > 0 and 0 <= --warm-up-s < --duration-s")
    a.out = os.path.abspath(a.out)
    a.commit = git_commit()
    a.config = os.path.abspath(a.config)
    prefix = None
    if not a.no_namespaces:
        prefix = namespace_prefix()
        if prefix is None:
            if a.jobs > 1:
                log("this machine allows no private IPC and mount namespaces (unshare); run with --jobs 1")
                return 2
            log("no private namespaces (unshare not allowed): the bench shares this machine's RouDi slot and waits for it")
        elif any(os.path.commonpath([path, "/tmp"]) == "/tmp" for path in (a.out, a.hil, a.runtime, a.config)):
            log("a private /tmp hides paths under /tmp: put --out (and the build) elsewhere, or --no-namespaces")
            return 2
    elif a.jobs > 1:
        p.error("--no-namespaces runs one bench at a time (iceoryx 2.0: one RouDi per machine)")
    os.makedirs(a.out, exist_ok=True)
    signal.signal(signal.SIGINT, stop_children)
    signal.signal(signal.SIGTERM, stop_children)
    command = " ".join(shlex.quote(x) for x in ["augur-hil", "suite"] + [x for x in sys.argv[1:]
                                                                         if x not in (a.hil, a.runtime, "--hil", "--runtime")])
    log(f"{len(chosen)} scenarios, {a.duration_s:g} s each, {a.jobs} at a time"
        f"{', each in its own IPC and mount namespace' if prefix else ''}; output in {a.out}")
    index_of = {s[0]: i for i, s in enumerate(SCENARIOS)}
    if a.collect_only:
        results = [collect_existing(s, index_of[s[0]], a) for s in chosen]
    else:
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            futures = [pool.submit(run_scenario, s, index_of[s[0]], a, prefix) for s in chosen]
            results = [f.result() for f in futures]
    write_outputs(a, results, command)
    log(f"table {a.out}/suite.md, figure {a.out}/suite.png, JUnit {a.out}/junit.xml")
    if any(r["status"] == "error" for r in results):
        return 3
    if a.fail_on_targets and any(not check(r["errors"]) for r in results if r["status"] == "ok" for _, _, check in TARGETS):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
