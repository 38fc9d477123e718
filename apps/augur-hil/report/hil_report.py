#!/usr/bin/env python3
"""Writes the HIL bench report from a recorded run: a Markdown summary and three PNG figures.

    hil_report.py RUN_DIR [--out DIR]          (default DIR: RUN_DIR/report)

RUN_DIR holds the files the bench writes after a run (format: docs/hil-run-format.md):
    run.csv              key,value: scenario, map, backend, deadline, thresholds, date, command
    cycles.csv           one row per runtime cycle: latency, mode, stale flag, input flag
    horizon_errors.csv   ADE/FDE (most likely, weighted mean, best), miss rate and Brier score per horizon,
                         "ours", "lf" (lane-following baseline) and "cv" (constant velocity)
    horizon_errors_by_mode.csv, horizon_errors_by_class.csv (optional) the same by runtime mode and motion class
    metrics.csv          name,value,unit: tracking RMSE, OSPA/GOSPA, occupancy hit rate, rejections ...
    snapshot_grid.csv    one occupancy grid frame (augur::OccupancyGrid layout, probabilities 0..1)
    snapshot_paths.csv   at the snapshot: ego, true futures, our corridors, the lane-following modes, the CV prediction
Output:
    summary.md                     tables and the acceptance verdict, with links to the figures
    latency.png                    cycle latency over time against the deadline line, misses marked
    errors_vs_horizon.png          ADE / FDE / miss rate against horizon, ours and both baselines, with the runtime
                                   modes our predictions were made in
    occupancy_snapshot.png         the grid over the map (SUMO network lanes), true futures, predictions; the colour
                                   scale is logarithmic from 1 % so that cells of 1-20 % stay visible
Prints the summary to stdout. Exit status 0 when the report was written (the verdict is in the
summary; the bench's own exit status gates releases), 1 when the run directory is unreadable.
Needs python3-matplotlib and python3-numpy (Debian).
"""
import argparse
import csv
import math
import os
import sys
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")
import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

RUN_FORMAT = "augur-hil-run 1"
MODE_NAMES = ["nominal", "reduced_particles", "constant_velocity", "hold_last", "no_prediction"]
MODE_COLOURS = ["#1b9e77", "#7570b3", "#e6ab02", "#d95f02", "#e7298a"]
DPI = 110
MIN_DRAWN_PROBABILITY = 0.01  # occupancy below this is left transparent in the snapshot (the hit threshold)
COLOUR_TICKS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
METHODS = {"ours": ("augur", "#1f77b4"), "lf": ("lane following", "#2ca02c"), "cv": ("constant velocity", "#ff7f0e")}


class RunError(Exception):
    pass


def read_csv(run_dir, name, required=True):
    path = os.path.join(run_dir, name)
    if not os.path.exists(path):
        if required:
            raise RunError(f"{path}: missing")
        return None
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def read_run(run_dir):
    rows = read_csv(run_dir, "run.csv")
    run = {r["key"]: r["value"] for r in rows}
    if run.get("format") != RUN_FORMAT:
        raise RunError(f"{run_dir}/run.csv: format is {run.get('format')!r}, this writer reads {RUN_FORMAT!r}")
    for key in ("scenario", "backend", "deadline_us"):
        if key not in run:
            raise RunError(f"{run_dir}/run.csv: no '{key}'")
    return run


def read_grid(run_dir):
    path = os.path.join(run_dir, "snapshot_grid.csv")
    if not os.path.exists(path):
        return None
    meta, rows = {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                key, _, value = line[1:].strip().partition(" ")
                meta[key] = float(value)
            elif line.strip():
                rows.append([float(v) for v in line.split(",")])
    cells = np.array(rows)
    if cells.shape != (int(meta["height_cells"]), int(meta["width_cells"])):
        raise RunError(f"{path}: {cells.shape} cells, header says {int(meta['height_cells'])}x{int(meta['width_cells'])}")
    return meta, cells


def parse_shape(text):
    return np.array([tuple(map(float, p.split(",")[:2])) for p in text.split()])


def read_map(net_path):
    """Lanes (centre line, width, internal?) and junction outlines of a SUMO network."""
    lanes, junctions = [], []
    if not net_path or not os.path.exists(net_path):
        return lanes, junctions
    root = ET.parse(net_path).getroot()
    for edge in root.iter("edge"):
        for lane in edge.iter("lane"):
            lanes.append((parse_shape(lane.get("shape")), float(lane.get("width", "3.2")), edge.get("function") == "internal"))
    for junction in root.iter("junction"):
        if junction.get("type") != "internal" and junction.get("shape"):
            junctions.append(parse_shape(junction.get("shape")))
    return lanes, junctions


def lane_polygon(shape, width_m):
    """Outline of a lane of `width_m` around its centre line (n×2 array), as a closed polygon."""
    if len(shape) < 2:
        return shape
    tangent = np.gradient(shape, axis=0)
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
    normal = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1) * (0.5 * width_m)
    return np.concatenate([shape + normal, (shape - normal)[::-1]])


def percentile_nearest_rank(values, q):
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def resolve(run_dir, path):
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(run_dir, path))


def plot_latency(run, cycles, path):
    deadline_ms = float(run["deadline_us"]) / 1000.0
    t = np.array([float(c["t_s"]) for c in cycles])
    lat = np.array([float(c["latency_us"]) / 1000.0 for c in cycles])
    mode = np.array([int(c["mode"]) for c in cycles])
    fig, ax = plt.subplots(figsize=(10, 4.2))
    for m in sorted(set(mode.tolist())):
        sel = mode == m
        ax.plot(t[sel], lat[sel], ".", ms=3, color=MODE_COLOURS[m % len(MODE_COLOURS)],
                label=f"cycle latency ({MODE_NAMES[m] if m < len(MODE_NAMES) else m})")
    ax.axhline(deadline_ms, color="red", ls="--", lw=1.2, label=f"deadline {deadline_ms:g} ms")
    misses = lat > deadline_ms
    if misses.any():
        ax.plot(t[misses], lat[misses], "x", color="red", ms=7, label=f"deadline misses ({int(misses.sum())})")
    ax.set_yscale("log")
    ax.set_xlabel("run time (s)")
    ax.set_ylabel("cycle latency (ms, log)")
    ax.set_title(f"Cycle latency — {run['scenario']}, {run['backend']} backend")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def mode_split(by_mode, horizon=4.0):
    """Samples of our predictions per runtime mode at `horizon`, e.g. {"nominal": 812, "constant_velocity": 40}."""
    split = {}
    for r in by_mode or []:
        if r["method"] == "ours" and abs(float(r["horizon_s"]) - horizon) < 1e-6 and int(r["samples"]) > 0:
            split[r["mode"]] = int(r["samples"])
    return split


def mode_label(split):
    total = sum(split.values())
    if not total:
        return "runtime modes unknown"
    return ", ".join(f"{m} {100.0 * n / total:.0f} %" for m, n in sorted(split.items(), key=lambda kv: -kv[1]))


MODEL_MODES = ("nominal", "reduced_particles")  # the modes in which the runtime's model predicts
ERROR_COLUMNS = ("ade_m", "fde_m", "min_ade_m", "min_fde_m", "weighted_ade_m", "weighted_fde_m", "miss_rate", "brier")


def model_errors(errors, by_mode):
    """horizon_errors rows over the predictions the runtime's model made (nominal and reduced-particles modes;
    the baselines on the same samples), from the per-mode rows: a constant-velocity fallback of the runtime
    is not the model's prediction. Without per-mode rows, or when no prediction was made in the fallback,
    the rows as they are. Every column is a mean over samples, so modes combine weighted by their samples."""
    if not by_mode or not any(r["mode"] not in MODEL_MODES for r in by_mode):
        return errors, False
    groups = {}
    for r in by_mode:
        if r["mode"] in MODEL_MODES:
            groups.setdefault((r["method"], r["horizon_s"]), []).append(r)
    rows = []
    for (method, horizon), members in groups.items():
        n = sum(int(r["samples"]) for r in members)
        if n == 0:
            continue
        row = {"method": method, "horizon_s": horizon, "samples": str(n)}
        for k in ERROR_COLUMNS:
            values = [(int(r["samples"]), r.get(k)) for r in members if r.get(k) not in (None, "")]
            if values:
                row[k] = str(sum(c * float(v) for c, v in values) / max(1, sum(c for c, _ in values)))
        rows.append(row)
    return rows, True


def plot_errors(run, errors, path, by_mode=None):
    split = mode_split(by_mode)
    errors, only_model = model_errors(errors, by_mode)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.0))
    for key, (label, colour) in METHODS.items():
        rows = sorted((r for r in errors if r["method"] == key), key=lambda r: float(r["horizon_s"]))
        if not rows:
            continue
        h = [float(r["horizon_s"]) for r in rows]
        axes[0].plot(h, [float(r["weighted_ade_m"]) for r in rows], "o-", color=colour, label=f"{label} weighted ADE")
        axes[1].plot(h, [float(r["weighted_fde_m"]) for r in rows], "o-", color=colour, label=f"{label} weighted FDE")
        if key != "cv":
            axes[0].plot(h, [float(r["ade_m"]) for r in rows], "^:", color=colour, label=f"{label} most likely ADE")
            axes[1].plot(h, [float(r["fde_m"]) for r in rows], "^:", color=colour, label=f"{label} most likely FDE")
            axes[1].plot(h, [float(r["min_fde_m"]) for r in rows], "s--", color=colour, label=f"{label} minFDE")
        axes[2].plot(h, [100.0 * float(r["miss_rate"]) for r in rows], "o-", color=colour, label=label)
    for ax, title, unit in zip(axes, ("Average displacement", "Final displacement", "Miss rate (minFDE > 2 m)"),
                               ("m", "m", "%")):
        ax.set_title(title)
        ax.set_xlabel("horizon (s)")
        ax.set_ylabel(unit)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_ylim(bottom=0)
    scope = ("the runtime's model only (nominal and reduced-particles modes; its constant-velocity fallback left out)"
             if only_model else "all predictions")
    fig.suptitle(f"Prediction error against horizon — {run['scenario']}, {scope}\nruntime modes of all predictions: "
                 f"{mode_label(split)}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def plot_snapshot(run, run_dir, grid, paths, path):
    meta, cells = grid
    x0, y0, res = meta["origin_x_m"], meta["origin_y_m"], meta["resolution_m"]
    extent = (x0, x0 + res * cells.shape[1], y0, y0 + res * cells.shape[0])
    fig, ax = plt.subplots(figsize=(8, 8))
    lanes, junctions = read_map(resolve(run_dir, run.get("map", "")))
    for outline in junctions:
        if len(outline) >= 3:
            ax.fill(*outline.T, color="#9a9a9a", lw=0, zorder=1)
    for shape, width, internal in lanes:
        if internal:  # paths through junctions: centre lines only
            ax.plot(shape[:, 0], shape[:, 1], ":", color="#d0d0d0", lw=0.6, zorder=1.2)
        else:
            ax.fill(*lane_polygon(shape, width).T, facecolor="#a8a8a8", edgecolor="#e8e8e8", lw=0.6, zorder=1.1)
    # Logarithmic from the hit threshold: the runtime spreads a corridor's mass over a frame's window, so
    # most occupied cells hold 1-20 %, which a linear scale to 1 leaves nearly invisible.
    masked = np.ma.masked_less(cells, MIN_DRAWN_PROBABILITY)
    image = ax.imshow(masked, origin="lower", extent=extent, cmap="viridis", alpha=0.85, zorder=2,
                      norm=mcolors.LogNorm(vmin=MIN_DRAWN_PROBABILITY, vmax=1.0), interpolation="nearest")
    bar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="occupancy probability (log scale)")
    bar.set_ticks(COLOUR_TICKS)
    bar.set_ticklabels([f"{100 * t:g} %" for t in COLOUR_TICKS])
    by_key = {}
    for r in paths:
        by_key.setdefault((r["kind"], r["vehicle_id"], r["candidate"]), []).append(r)
    labelled = set()
    for (kind, vid, cand), rows in sorted(by_key.items()):
        rows.sort(key=lambda r: int(r["step"]))
        xs = [float(r["x_m"]) for r in rows]
        ys = [float(r["y_m"]) for r in rows]
        if kind == "ego":
            ax.plot(xs[:1], ys[:1], "*", color="red", ms=16, zorder=6, label="ego")
            continue
        style = {"truth": dict(color="white", lw=2.2, ls="-", marker="o", ms=3),
                 "ours": dict(color="#1f77b4", lw=1.6, ls="-"),
                 "lf": dict(color="#2ca02c", lw=1.2, ls="-."),
                 "cv": dict(color="#ff7f0e", lw=1.4, ls="--")}.get(kind)
        if style is None:
            continue
        mode = run.get("snapshot_mode", "")
        ours_label = f"augur corridors, {mode} mode (width ∝ probability)" if mode else "augur corridors (width ∝ probability)"
        label = {"truth": "true future", "ours": ours_label, "lf": "lane following (width ∝ probability)",
                 "cv": "constant velocity"}[kind]
        if kind in ("ours", "lf"):
            style = dict(style, lw=0.6 + 3.0 * float(rows[0]["probability"]))
        ax.plot(xs, ys, zorder={"truth": 5, "cv": 4.5, "ours": 4, "lf": 4.2}[kind], label=None if kind in labelled else label,
                **style)
        labelled.add(kind)
        if kind == "truth":
            ax.annotate(vid, (xs[0], ys[0]), color="white", fontsize=7, zorder=7, xytext=(3, 3),
                        textcoords="offset points")
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.set_aspect("equal")
    ax.set_facecolor("#303030")
    ax.set_xlabel("x (m, map frame)")
    ax.set_ylabel("y (m, map frame)")
    ax.set_title(f"Occupancy at +{meta.get('horizon_s', 0):g} s from t = {meta.get('t_s', 0):g} s — {run['scenario']}")
    ax.legend(loc="lower left", fontsize=8, framealpha=0.85)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def fmt(value, digits=3):
    return f"{value:.{digits}f}"


def write_summary(run, cycles, errors, metrics, out_dir, figures, by_mode=None, by_class=None):
    deadline_us = float(run["deadline_us"])
    lat = [float(c["latency_us"]) for c in cycles]
    misses = sum(1 for v in lat if v > deadline_us)
    stale = sum(1 for c in cycles if c["stale"] == "1")
    no_input = sum(1 for c in cycles if c["had_input"] == "0")
    mode_changes = sum(1 for a, b in zip(cycles, cycles[1:]) if a["mode"] != b["mode"])
    lines = [f"# HIL bench report — {run['scenario']}", ""]
    lines += [f"- backend: {run['backend']}" + (f" ({run['device']})" if run.get("device") else ""),
              f"- date: {run.get('date', 'unknown')}", f"- command: `{run.get('command', 'unknown')}`",
              f"- replay speed factor: {run.get('speed_factor', '1')}", ""]
    lines += ["## Timing", "", "| cycles | p50 (ms) | p99 (ms) | max (ms) | deadline (ms) | deadline misses | mode changes | stale outputs | cycles without input |",
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    if lat:
        lines.append(f"| {len(lat)} | {fmt(percentile_nearest_rank(lat, 0.5) / 1e3)} | {fmt(percentile_nearest_rank(lat, 0.99) / 1e3)} | "
                     f"{fmt(max(lat) / 1e3)} | {deadline_us / 1e3:g} | {misses} | {mode_changes} | {stale} | {no_input} |")
    lines.append("")
    rejections = [m for m in metrics if m["name"].startswith("rejected_")]
    if rejections:
        lines += ["Rejected inputs by reason: " + ", ".join(f"{m['name'][len('rejected_'):]} {m['value']}" for m in rejections), ""]
    lines += ["## Prediction", "",
              "Each cell: augur / lane following (LF) / constant velocity (CV), all on the same samples. Weighted: the "
              "probability-weighted path (the seed paper's definition); most likely: the most probable mode; min: the "
              "best published mode; miss: minFDE > 2 m; Brier: of the corridor taken (docs/hil-bench.md).", "",
              f"Runtime modes of all predictions (4 s): {mode_label(mode_split(by_mode))}. "
              + ("The table holds the predictions of the runtime's model (nominal and reduced-particles modes) and "
                 "the baselines on the same samples; those made in its constant-velocity fallback are not the "
                 "model's and appear only in the table by runtime mode." if model_errors(errors, by_mode)[1] else
                 "All of them are the runtime's model's."), "",
              "| horizon (s) | samples | weighted ADE (m) | weighted FDE (m) | most likely FDE (m) | minFDE (m) | miss rate | Brier |",
              "| ---: | ---: | --- | --- | --- | --- | --- | --- |"]
    by_all = {(r["method"], round(float(r["horizon_s"]), 3)): r for r in errors}  # what the bench's verdict judged
    errors, _ = model_errors(errors, by_mode)
    by = {(r["method"], round(float(r["horizon_s"]), 3)): r for r in errors}

    def triple(h, key, digits=2):
        cells = []
        for method in ("ours", "lf", "cv"):
            r = by.get((method, h))
            cells.append(fmt(float(r[key]), digits) if r and r.get(key) not in (None, "") else "—")
        return " / ".join(cells)
    for h in sorted({round(float(r["horizon_s"]), 3) for r in errors}):
        o = by.get(("ours", h))
        lines.append(f"| {h:g} | {o['samples'] if o else '—'} | {triple(h, 'weighted_ade_m')} | {triple(h, 'weighted_fde_m')} | "
                     f"{triple(h, 'fde_m')} | {triple(h, 'min_fde_m')} | {triple(h, 'miss_rate')} | {triple(h, 'brier')} |")
    lines.append("")
    for title, rows_, column in (("runtime mode", by_mode, "mode"), ("motion class", by_class, "motion")):
        if not rows_:
            continue
        lines += [f"At 4 s by {title} (augur / LF / CV):", "",
                  f"| {column} | samples | weighted FDE (m) | minFDE (m) | miss rate | Brier |", "| --- | ---: | --- | --- | --- | --- |"]
        groups = {}
        for r in rows_:
            if abs(float(r["horizon_s"]) - 4.0) < 1e-6:
                groups.setdefault(r[column], {})[r["method"]] = r
        for group, methods in groups.items():
            def t(key, methods=methods):
                return " / ".join(fmt(float(methods[m][key]), 2) if m in methods else "—" for m in ("ours", "lf", "cv"))
            samples = methods.get("ours", {}).get("samples", "—")
            lines.append(f"| {group} | {samples} | {t('weighted_fde_m')} | {t('min_fde_m')} | {t('miss_rate')} | {t('brier')} |")
        lines.append("")
    others = [m for m in metrics if not m["name"].startswith("rejected_")]
    if others:
        lines += ["## Tracking and occupancy", "", "| metric | value | unit |", "| --- | ---: | --- |"]
        lines += [f"| {m['name']} | {m['value']} | {m['unit']} |" for m in others]
        lines.append("")
    verdict = []
    if "threshold_deadline_misses" in run:
        limit = int(run["threshold_deadline_misses"])
        verdict.append((f"deadline misses: {misses} (allowed: at most {limit})", misses <= limit))
    if "threshold_ade_4s_m" in run:
        limit = float(run["threshold_ade_4s_m"])
        row = by_all.get(("ours", 4.0))
        ade = float(row["ade_m"]) if row else float("inf")
        verdict.append((f"ADE at 4 s: {fmt(ade)} m (allowed: at most {limit:g} m)", ade <= limit))
    if verdict:
        passed = all(ok for _, ok in verdict)
        lines += ["## Acceptance", "", f"**{'PASS' if passed else 'FAIL'}**", ""]
        lines += [f"- {'pass' if ok else 'FAIL'}: {text}" for text, ok in verdict]
        lines.append("")
    lines += ["## Figures", ""] + [f"- [{title}]({name})" for title, name in figures] + [""]
    text = "\n".join(lines)
    with open(os.path.join(out_dir, "summary.md"), "w", encoding="utf-8") as f:
        f.write(text)
    return text


def main():
    p = argparse.ArgumentParser(description="Writes the HIL bench report (Markdown + PNG) from a recorded run.")
    p.add_argument("run_dir")
    p.add_argument("--out", default=None)
    a = p.parse_args()
    out_dir = a.out or os.path.join(a.run_dir, "report")
    try:
        run = read_run(a.run_dir)
        cycles = read_csv(a.run_dir, "cycles.csv")
        errors = read_csv(a.run_dir, "horizon_errors.csv")
        metrics = read_csv(a.run_dir, "metrics.csv", required=False) or []
        grid = read_grid(a.run_dir)
        paths = read_csv(a.run_dir, "snapshot_paths.csv", required=False) or []
        by_mode = read_csv(a.run_dir, "horizon_errors_by_mode.csv", required=False) or []
        by_class = read_csv(a.run_dir, "horizon_errors_by_class.csv", required=False) or []
    except (RunError, KeyError, ValueError) as e:
        print(f"hil_report: {e}", file=sys.stderr)
        return 1
    os.makedirs(out_dir, exist_ok=True)
    figures = []
    if cycles:
        plot_latency(run, cycles, os.path.join(out_dir, "latency.png"))
        figures.append(("cycle latency against the deadline", "latency.png"))
    if errors:
        plot_errors(run, errors, os.path.join(out_dir, "errors_vs_horizon.png"), by_mode)
        figures.append(("prediction error against horizon", "errors_vs_horizon.png"))
    if grid is not None:
        plot_snapshot(run, a.run_dir, grid, paths, os.path.join(out_dir, "occupancy_snapshot.png"))
        figures.append(("occupancy snapshot with the map, true futures and predictions", "occupancy_snapshot.png"))
    print(write_summary(run, cycles, errors, metrics, out_dir, figures, by_mode, by_class))
    print(f"hil_report: report in {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
