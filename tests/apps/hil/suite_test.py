#!/usr/bin/env python3
"""The suite runner's own parts (apps/augur-hil/tools/hil_suite.py) on run folders made here: the deployment
it writes per scenario, the scores it takes from a run (the runtime's constant-velocity fallback left out,
modes combined by their samples), the targets and the JUnit file. No SUMO, no bench: the suite end to end is
hil.suite_smoke."""
import os
import shutil
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

SOURCE_DIR = os.environ.get("AUGUR_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "../../..")))
sys.path.insert(0, os.path.join(SOURCE_DIR, "apps", "augur-hil", "tools"))
import hil_suite  # noqa: E402

COLUMNS = ["horizon_s", "samples", "ade_m", "fde_m", "min_ade_m", "min_fde_m", "weighted_ade_m", "weighted_fde_m",
           "miss_rate", "brier"]


def write(path, header, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(str(v) for v in r) + "\n")


def errors_row(samples, fde, miss=0.5, brier=0.3):
    return [4, samples, fde / 2, fde, fde / 2, fde, fde / 2, fde, miss, brier]


class SuiteParts(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="augur_suite_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_the_deployment_points_at_the_scenarios_map(self):
        target = os.path.join(self.tmp, "config.yaml")
        hil_suite.write_config(hil_suite.DEFAULT_CONFIG, "/maps/a b/map.net.xml", target)
        text = open(target, encoding="utf-8").read()
        self.assertIn("  path: /maps/a b/map.net.xml", text)
        self.assertIn("  format: sumo", text)
        self.assertIn("cycle_period_ms: 200", text)  # the rest as it was
        self.assertEqual(text.count("path: /maps/a b/map.net.xml"), 1)

    def test_scores_leave_out_the_constant_velocity_fallback_and_combine_modes_by_samples(self):
        write(os.path.join(self.tmp, "horizon_errors.csv"), ["method"] + COLUMNS,
              [["ours"] + errors_row(40, 6.0), ["lf"] + errors_row(40, 5.0), ["cv"] + errors_row(40, 8.0)])
        write(os.path.join(self.tmp, "horizon_errors_by_mode.csv"), ["mode", "method"] + COLUMNS,
              [["nominal", "ours"] + errors_row(10, 2.0), ["nominal", "lf"] + errors_row(10, 4.0),
               ["nominal", "cv"] + errors_row(10, 8.0),
               ["reduced_particles", "ours"] + errors_row(10, 4.0), ["reduced_particles", "lf"] + errors_row(10, 4.0),
               ["reduced_particles", "cv"] + errors_row(10, 8.0),
               ["constant_velocity", "ours"] + errors_row(20, 9.0), ["constant_velocity", "lf"] + errors_row(20, 6.0),
               ["constant_velocity", "cv"] + errors_row(20, 8.0)])
        write(os.path.join(self.tmp, "run.csv"), ["key", "value"], [["backend", "cpu"]])

        model, everything, modes, info = hil_suite.collect(self.tmp)

        self.assertEqual(model["ours"]["samples"], 20)
        self.assertAlmostEqual(model["ours"]["weighted_fde_m"], 3.0)  # (10·2 + 10·4) / 20
        self.assertAlmostEqual(model["lf"]["weighted_fde_m"], 4.0)
        self.assertEqual(everything["ours"]["samples"], 40)
        self.assertEqual(modes, {"nominal": 10, "reduced_particles": 10, "constant_velocity": 20})
        self.assertEqual(hil_suite.mode_text(modes), "constant_velocity 50 %, nominal 25 %, reduced_particles 25 %")
        self.assertEqual(info["backend"], "cpu")
        held = {key: check(model) for key, _, check in hil_suite.TARGETS}
        self.assertEqual(held, {"weighted_fde_vs_cv": True,   # 3 <= 0.8 · 8
                                "weighted_fde_vs_lf": True,   # 3 <= 0.9 · 4
                                "min_fde_vs_cv": True,        # 3 <= 0.6 · 8
                                "miss_rate_below_baselines": False})  # 0.5, not below 0.5

    def test_junit_has_a_testcase_per_scenario_and_target(self):
        ok = {"name": "a", "status": "ok", "time_s": 8.0, "modes": {"nominal": 1},
              "errors": {m: {"weighted_fde_m": 1.0, "min_fde_m": 1.0, "miss_rate": 0.1} for m in ("ours", "lf", "cv")}}
        failed = {"name": "b", "status": "error", "detail": "bench failed", "time_s": 1.0}
        skipped = {"name": "c", "status": "skipped", "detail": "no map", "time_s": 0.0}
        path = os.path.join(self.tmp, "junit.xml")

        hil_suite.write_junit(path, [ok, failed, skipped])

        suite = ET.parse(path).getroot().find("testsuite")
        targets = len(hil_suite.TARGETS)
        self.assertEqual(len(suite.findall("testcase")), 3 * targets)
        self.assertEqual(suite.get("errors"), str(targets))
        self.assertEqual(suite.get("skipped"), str(targets))
        # a prediction only as good as both baselines holds no target (ratios 1 > 0.8, 0.9, 0.6; miss not below)
        self.assertEqual(suite.get("failures"), str(targets))
        names = {(c.get("classname"), c.get("name")) for c in suite.findall("testcase")}
        self.assertIn(("hil.suite.a", "min_fde_vs_cv"), names)


if __name__ == "__main__":
    unittest.main(verbosity=2)
