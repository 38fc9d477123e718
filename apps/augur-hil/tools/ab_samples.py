#!/usr/bin/env python3
"""Before/after comparison of two HIL runs of one scenario from their per-sample files.

    ab_samples.py NAME BEFORE_RUN_DIR AFTER_RUN_DIR [--horizon-s 4] [--header]

Reads prediction_samples.csv of both runs (docs/hil-run-format.md), keeps the predictions of the
runtime's model (modes nominal and reduced_particles) that both runs scored (same prediction time and
road user; the runs' counts can differ) and writes CSV rows to stdout:
scenario,subset,metric,before,after,samples, for the subsets `all` and each motion class (the class of the
sample in the first run), the metrics
  weighted_fde_m  mean FDE of the probability-weighted path at the horizon
  fde_m           mean FDE of the most likely mode
  miss_rate       share of samples whose best mode misses the truth by more than 2 m
  across_abs_mean_m, across_abs_p50_m, across_abs_p90_m, across_abs_max_m
                  the most likely mode's final error across the true direction of travel, absolute
  across_over_10m share of samples with that lateral error above 10 m (a wrong corridor, not a lag)
then for turning vehicles across_better_5m and across_worse_5m (in the `after` column): samples whose
lateral error fell / rose by more than 5 m from the first run to the second, and unpaired_samples: the
samples only one run scored (before, after).
Standard library only.
"""
import argparse
import csv
import math
import os
import sys

MODEL_MODES = {"nominal", "reduced_particles"}
MISS_M = 2.0
WRONG_CORRIDOR_M = 10.0
PAIRED_CHANGE_M = 5.0


def read(run_dir, horizon):
    rows = []
    with open(os.path.join(run_dir, "prediction_samples.csv")) as f:
        for r in csv.DictReader(f):
            if r["mode"] not in MODEL_MODES:
                continue
            weighted = float(r[f"fde_weighted_{horizon}s_m"])
            if math.isnan(weighted):
                continue
            rows.append(r)
    return rows


def quantile(values, q):
    if not values:
        return math.nan
    s = sorted(values)
    return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))]


def summary(rows, horizon):
    n = len(rows)
    if n == 0:
        return {}, 0
    across = [abs(float(r["across_ours_m"])) for r in rows if not math.isnan(float(r["across_ours_m"]))]
    return {
        "weighted_fde_m": sum(float(r[f"fde_weighted_{horizon}s_m"]) for r in rows) / n,
        "fde_m": sum(float(r[f"fde_ours_{horizon}s_m"]) for r in rows) / n,
        "miss_rate": sum(float(r[f"fde_min_{horizon}s_m"]) > MISS_M for r in rows) / n,
        "across_abs_mean_m": sum(across) / len(across) if across else math.nan,
        "across_abs_p50_m": quantile(across, 0.5),
        "across_abs_p90_m": quantile(across, 0.9),
        "across_abs_max_m": max(across) if across else math.nan,
        "across_over_10m": sum(a > WRONG_CORRIDOR_M for a in across) / len(across) if across else math.nan,
    }, n


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("name")
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--horizon-s", type=int, default=4)
    p.add_argument("--header", action="store_true")
    a = p.parse_args()
    # One row per (prediction time, road user) in each run; the comparison is over those both runs scored
    # (the runs' sample counts can differ: the host's load decides which lists a cycle predicts from).
    key = lambda r: (r["t0_s"], r["true_id"])
    before = {key(r): r for r in read(a.before, a.horizon_s)}
    after = {key(r): r for r in read(a.after, a.horizon_s)}
    paired = sorted(k for k in before if k in after)
    out = csv.writer(sys.stdout, lineterminator="\n")
    if a.header:
        out.writerow(["scenario", "subset", "metric", "before", "after", "samples"])
    classes = sorted({before[k]["motion"] for k in paired})
    for subset in ["all"] + classes:
        keys = [k for k in paired if subset == "all" or before[k]["motion"] == subset]
        b, n = summary([before[k] for k in keys], a.horizon_s)
        f, _ = summary([after[k] for k in keys], a.horizon_s)
        for metric in ["weighted_fde_m", "fde_m", "miss_rate", "across_abs_mean_m", "across_abs_p50_m",
                       "across_abs_p90_m", "across_abs_max_m", "across_over_10m"]:
            out.writerow([a.name, subset, metric, f"{b.get(metric, math.nan):.4f}", f"{f.get(metric, math.nan):.4f}", n])
    better = worse = 0
    turning = [k for k in paired if before[k]["motion"] == "turning"]
    for k in turning:
        d = abs(float(after[k]["across_ours_m"])) - abs(float(before[k]["across_ours_m"]))
        better += d < -PAIRED_CHANGE_M
        worse += d > PAIRED_CHANGE_M
    for metric, value in [("across_better_5m", better), ("across_worse_5m", worse)]:
        out.writerow([a.name, "turning", metric, "", value, len(turning)])
    out.writerow([a.name, "all", "unpaired_samples", len(before) - len(paired), len(after) - len(paired), len(paired)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
