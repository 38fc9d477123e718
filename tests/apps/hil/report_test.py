#!/usr/bin/env python3
"""The HIL report writer (apps/augur-hil/report/hil_report.py) on synthetic recorded data made here.

The synthetic run uses the committed scenario's map and true trajectories, a latency series with two
deadline misses and a mode change, made-up errors per horizon, and an occupancy frame with mass where
the synthetic corridors end. The test checks the summary's figures and verdict and that every PNG is
a real, non-blank image of the expected size.
"""
import csv
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

import numpy as np

SOURCE_DIR = os.environ.get("AUGUR_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "../../..")))
WRITER = os.path.join(SOURCE_DIR, "apps", "augur-hil", "report", "hil_report.py")
SCENARIO = os.path.join(SOURCE_DIR, "data", "scenarios", "intersection-4way")
SEED = 5
CYCLES = 300
CYCLE_S = 0.2
DEADLINE_US = 200_000
MISS_CYCLES = (100, 101)
SNAPSHOT_STEP = 300          # scenario step (30 s) of the snapshot
FRAME_HORIZON_S = 2.0
GRID_SIDE = 128
GRID_RES_M = 0.5
OURS_ADE = [0.12, 0.35, 0.70, 1.15]
CV_ADE = [0.13, 0.45, 0.97, 1.71]


def load_scenario():
    rows = []
    with open(os.path.join(SCENARIO, "scenario.csv"), encoding="utf-8") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            rows.append((int(r["step"]), int(r["id"]), float(r["x_m"]), float(r["y_m"]), float(r["heading_rad"]),
                         float(r["speed_mps"])))
    return rows


def write_csv(path, header, rows):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def make_run(run_dir, ade_threshold_m, miss_threshold):
    rng = random.Random(SEED)
    os.makedirs(run_dir, exist_ok=True)
    write_csv(os.path.join(run_dir, "run.csv"), ["key", "value"], [
        ["format", "augur-hil-run 1"], ["scenario", "intersection"], ["scenario_dir", SCENARIO],
        ["map", os.path.join(SCENARIO, "map.net.xml")], ["backend", "cpu"], ["device", "synthetic"],
        ["deadline_us", DEADLINE_US], ["speed_factor", "1"], ["date", "2026-01-01"], ["command", "report_test.py"],
        ["threshold_deadline_misses", miss_threshold], ["threshold_ade_4s_m", ade_threshold_m]])
    cycles = []
    for c in range(CYCLES):
        latency = 20_000 * math.exp(rng.gauss(0.0, 0.25))
        mode = 1 if MISS_CYCLES[-1] < c <= MISS_CYCLES[-1] + 30 else 0
        if c in MISS_CYCLES:
            latency = 250_000
        cycles.append([c, f"{c * CYCLE_S:.1f}", f"{latency:.1f}", mode, 1 if c in MISS_CYCLES else 0,
                       0 if 200 <= c < 205 else 1])
    write_csv(os.path.join(run_dir, "cycles.csv"), ["cycle", "t_s", "latency_us", "mode", "stale", "had_input"], cycles)
    errors = []
    for i, h in enumerate((1.0, 2.0, 3.0, 4.0)):
        errors.append(["ours", h, 5000, OURS_ADE[i], 2.6 * OURS_ADE[i], 0.8 * OURS_ADE[i], 0.7 * 2.6 * OURS_ADE[i],
                       0.9 * OURS_ADE[i], 0.9 * 2.6 * OURS_ADE[i], 0.05 * h])
        errors.append(["lf", h, 5000, 1.25, 2.5 * h, 1.0, 2.0 * h, 1.5, 3.0 * h, 0.07 * h, 0.5])
        errors.append(["cv", h, 5000, CV_ADE[i], 2.8 * CV_ADE[i], CV_ADE[i], 2.8 * CV_ADE[i], CV_ADE[i], 2.8 * CV_ADE[i],
                       0.09 * h, 1.5])
    errors[-3].append(0.25)  # the Brier score of ours at 4 s (earlier rows leave it out: an older run)
    write_csv(os.path.join(run_dir, "horizon_errors.csv"),
              ["method", "horizon_s", "samples", "ade_m", "fde_m", "min_ade_m", "min_fde_m", "weighted_ade_m", "weighted_fde_m",
               "miss_rate", "brier"], errors)
    by_mode = []
    for mode, scale, samples in (("nominal", 1.0, 4500), ("constant_velocity", 3.0, 500)):
        for method, base in (("ours", 1.0), ("lf", 1.5), ("cv", 2.0)):
            v = scale * base
            by_mode.append([mode, method, 4.0, samples, v, 2 * v, v, 2 * v, v, 2 * v, 0.1 * v, 0.2 * v])
    write_csv(os.path.join(run_dir, "horizon_errors_by_mode.csv"),
              ["mode", "method", "horizon_s", "samples", "ade_m", "fde_m", "min_ade_m", "min_fde_m", "weighted_ade_m",
               "weighted_fde_m", "miss_rate", "brier"], by_mode)
    write_csv(os.path.join(run_dir, "metrics.csv"), ["name", "value", "unit"], [
        ["position_rmse", "0.412", "m"], ["velocity_rmse", "0.533", "m/s"], ["mean_ospa", "1.9", "m"],
        ["mean_gospa", "3.1", "m"], ["occupancy_hit_rate", "0.81", ""], ["rejected_stale", "3", "lists"],
        ["rejected_duplicate_id", "1", "lists"]])

    states = load_scenario()
    at = {(s[0], s[1]): s for s in states}
    now = [s for s in states if s[0] == SNAPSHOT_STEP]
    ego = now[0]
    x0 = ego[2] - GRID_SIDE * GRID_RES_M / 2
    y0 = ego[3] - GRID_SIDE * GRID_RES_M / 2
    grid = [[0.0] * GRID_SIDE for _ in range(GRID_SIDE)]
    paths = [["ego", ego[1], 0, 1.0, 0, f"{ego[2]:.3f}", f"{ego[3]:.3f}"]]
    frame_steps = round(FRAME_HORIZON_S / 0.1)
    for s in now[1:]:
        if math.hypot(s[2] - ego[2], s[3] - ego[3]) > 30.0:
            continue
        truth = [at[(SNAPSHOT_STEP + k, s[1])] for k in range(1, 41) if (SNAPSHOT_STEP + k, s[1]) in at]
        paths += [["truth", s[1], 0, 1.0, k + 1, f"{p[2]:.3f}", f"{p[3]:.3f}"] for k, p in enumerate(truth)]
        cv = [(s[2] + s[5] * math.cos(s[4]) * 0.1 * k, s[3] + s[5] * math.sin(s[4]) * 0.1 * k) for k in range(1, 41)]
        paths += [["cv", s[1], 0, 1.0, k + 1, f"{x:.3f}", f"{y:.3f}"] for k, (x, y) in enumerate(cv, start=0)]
        candidates = [(0.7, [(p[2] + 0.3, p[3] - 0.2) for p in truth]), (0.3, cv)]
        for c, (prob, pts) in enumerate(candidates):
            paths += [["ours", s[1], c, prob, k + 1, f"{x:.3f}", f"{y:.3f}"] for k, (x, y) in enumerate(pts)]
            if len(pts) >= frame_steps:
                cx, cy = pts[frame_steps - 1]
                for row in range(GRID_SIDE):
                    for col in range(GRID_SIDE):
                        d2 = (x0 + (col + 0.5) * GRID_RES_M - cx) ** 2 + (y0 + (row + 0.5) * GRID_RES_M - cy) ** 2
                        grid[row][col] = min(1.0, grid[row][col] + prob * math.exp(-d2 / (2 * 1.5 ** 2)))
    write_csv(os.path.join(run_dir, "snapshot_paths.csv"),
              ["kind", "vehicle_id", "candidate", "probability", "step", "x_m", "y_m"], paths)
    with open(os.path.join(run_dir, "snapshot_grid.csv"), "w", encoding="utf-8") as f:
        f.write(f"# t_s {SNAPSHOT_STEP * 0.1:.1f}\n# horizon_s {FRAME_HORIZON_S}\n# frame 1\n# origin_x_m {x0:.3f}\n"
                f"# origin_y_m {y0:.3f}\n# resolution_m {GRID_RES_M}\n# width_cells {GRID_SIDE}\n# height_cells {GRID_SIDE}\n")
        for row in grid:
            f.write(",".join(f"{v:.4f}" for v in row) + "\n")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def run_writer(run_dir):
    return subprocess.run([sys.executable, WRITER, run_dir], capture_output=True, text=True)


class ReportWriter(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="augur_report_")
        self.run_dir = os.path.join(self.tmp, "run")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_writes_summary_with_timing_errors_and_a_failing_verdict(self):
        make_run(self.run_dir, ade_threshold_m=2.0, miss_threshold=0)
        os.remove(os.path.join(self.run_dir, "horizon_errors_by_mode.csv"))  # every prediction from the model
        result = run_writer(self.run_dir)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(self.run_dir, "report", "summary.md"), encoding="utf-8") as f:
            summary = f.read()
        self.assertIn("| 300 |", summary)                   # cycles
        self.assertIn("| 250.000 | 200 | 2 | 2 |", summary)  # max, deadline, misses, mode changes (0→1→0)
        # at 4 s: samples, weighted ADE, weighted FDE, most likely FDE of ours / lane following / constant velocity
        self.assertIn("| 4 | 5000 | 1.03 / 1.50 / 1.71 | 2.69 / 12.00 / 4.79 | 2.99 / 10.00 / 4.79 |", summary)
        self.assertIn("| 0.25 / 0.50 / 1.50 |", summary)  # Brier at 4 s

        self.assertIn("stale 3, duplicate_id 1", summary)
        self.assertIn("| position_rmse | 0.412 | m |", summary)
        self.assertIn("**FAIL**", summary)
        self.assertIn("- FAIL: deadline misses: 2 (allowed: at most 0)", summary)
        self.assertIn("- pass: ADE at 4 s: 1.150 m (allowed: at most 2 m)", summary)
        self.assertIn(summary.strip(), result.stdout)

    def test_passes_when_every_threshold_holds(self):
        make_run(self.run_dir, ade_threshold_m=1.2, miss_threshold=2)
        result = run_writer(self.run_dir)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("**PASS**", result.stdout)
        make_run(self.run_dir, ade_threshold_m=1.1, miss_threshold=2)
        self.assertIn("**FAIL**", run_writer(self.run_dir).stdout)

    def test_draws_three_non_blank_figures(self):
        import matplotlib.image as mpimg
        make_run(self.run_dir, ade_threshold_m=2.0, miss_threshold=0)
        self.assertEqual(run_writer(self.run_dir).returncode, 0)
        for name, min_w, min_h in (("latency.png", 800, 300), ("errors_vs_horizon.png", 900, 300),
                                   ("occupancy_snapshot.png", 700, 700)):
            path = os.path.join(self.run_dir, "report", name)
            w, h = png_size(path)
            self.assertGreaterEqual((w, h), (min_w, min_h), name)
            pixels = mpimg.imread(path)
            self.assertGreater(float(pixels[..., :3].std()), 0.05, f"{name} looks blank")

    def test_predictions_of_the_runtimes_constant_velocity_fallback_are_not_labelled_as_ours(self):
        make_run(self.run_dir, ade_threshold_m=2.0, miss_threshold=0)
        result = run_writer(self.run_dir)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(self.run_dir, "report", "summary.md"), encoding="utf-8") as f:
            summary = f.read()
        self.assertIn("nominal 90 %, constant_velocity 10 %", summary)  # which runtime mode made the predictions
        # The main table: the nominal samples only, for all three methods.
        self.assertIn("| 4 | 4500 | 1.00 / 1.50 / 2.00 | 2.00 / 3.00 / 4.00 |", summary)
        self.assertIn("| constant_velocity | 500 | 6.00 / 9.00 / 12.00 |", summary)  # apart, by mode
        self.assertIn("- pass: ADE at 4 s: 1.150 m", summary)  # the verdict is the bench's, on all predictions

    def test_occupancy_colour_scale_shows_cells_of_one_to_twenty_percent(self):
        import matplotlib.image as mpimg
        make_run(self.run_dir, ade_threshold_m=2.0, miss_threshold=0)
        path = os.path.join(self.run_dir, "snapshot_grid.csv")
        with open(path, encoding="utf-8") as f:
            header = [line for line in f if line.startswith("#")]
        with open(path, "w", encoding="utf-8") as f:  # a grid whose cells all hold 1 % or 20 %
            f.writelines(header)
            for row in range(GRID_SIDE):
                f.write(",".join("0.2000" if col >= GRID_SIDE // 2 else "0.0100" for col in range(GRID_SIDE)) + "\n")
        os.remove(os.path.join(self.run_dir, "snapshot_paths.csv"))
        self.assertEqual(run_writer(self.run_dir).returncode, 0)
        pixels = mpimg.imread(os.path.join(self.run_dir, "report", "occupancy_snapshot.png"))[..., :3]
        h, w = pixels.shape[:2]
        left = pixels[h // 2, int(w * 0.3)]
        right = pixels[h // 2, int(w * 0.6)]
        background = np.array([0x30, 0x30, 0x30]) / 255.0
        self.assertGreater(float(np.abs(left - background).sum()), 0.15, left)  # 1 % cells are drawn
        # 20 % lies well up the scale (viridis green), not near its dark end as on a linear scale to 100 %.
        self.assertGreater(float(right[1]), 0.45, right)

    def test_refuses_a_run_of_another_format(self):
        make_run(self.run_dir, ade_threshold_m=2.0, miss_threshold=0)
        write_csv(os.path.join(self.run_dir, "run.csv"), ["key", "value"], [["format", "augur-hil-run 9"]])
        result = run_writer(self.run_dir)
        self.assertEqual(result.returncode, 1)
        self.assertIn("augur-hil-run 1", result.stderr)

    def test_refuses_a_grid_whose_size_disagrees_with_its_header(self):
        make_run(self.run_dir, ade_threshold_m=2.0, miss_threshold=0)
        with open(os.path.join(self.run_dir, "snapshot_grid.csv"), "a", encoding="utf-8") as f:
            f.write(",".join(["0"] * GRID_SIDE) + "\n")
        result = run_writer(self.run_dir)
        self.assertEqual(result.returncode, 1)
        self.assertIn("cells", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
