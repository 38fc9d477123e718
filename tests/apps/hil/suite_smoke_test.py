#!/usr/bin/env python3
"""The suite end to end, small: `augur-hil suite --smoke` (two scenarios generated with SUMO, 20 s each).

    suite_smoke_test.py AUGUR_HIL OUT_DIR

Checks that every scenario was generated and benched, that the table names ours, the lane-following and
the constant-velocity baseline with the runtime modes, that the figure was drawn, and that the JUnit file
has one testcase per scenario and target. The targets themselves are not asserted (they judge the model,
not the bench). Needs SUMO, iox-roudi, augur-runtime next to augur-hil, matplotlib.
"""
import csv
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

TARGETS = 4


def main():
    hil, out = sys.argv[1], os.path.abspath(sys.argv[2])
    shutil.rmtree(out, ignore_errors=True)
    result = subprocess.run([hil, "suite", "--smoke", "--out", out, "--jobs", "2"], capture_output=True, text=True,
                            timeout=540)
    print(result.stdout)
    print(result.stderr, file=sys.stderr)
    assert result.returncode == 0, f"augur-hil suite exited {result.returncode}"
    table = open(os.path.join(out, "suite.md"), encoding="utf-8").read()
    for name in ("intersection-priority", "spider-3arms"):
        assert f"| {name} |" in table, name
    assert "augur / lane following (LF) / constant velocity (CV)" in table
    assert "| runtime modes |" in table and ("nominal" in table or "constant_velocity" in table), "modes are named"
    with open(os.path.join(out, "suite.csv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    methods = {r["method"] for r in rows}
    assert methods == {"ours", "lf", "cv"}, methods
    samples = {(r["scenario"], r["method"]): r["samples"] for r in rows
               if r["metric"] == "weighted_fde_m" and r["subset"] == "all"}
    for scenario in ("intersection-priority", "spider-3arms"):  # the same samples for all three
        counts = {samples[(scenario, m)] for m in methods}
        assert len(counts) == 1 and int(counts.pop()) > 0, (scenario, samples)
    assert os.path.getsize(os.path.join(out, "suite.png")) > 10_000
    suite = ET.parse(os.path.join(out, "junit.xml")).getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == 2 * TARGETS, len(cases)
    assert suite.get("errors") == "0", ET.tostring(suite, encoding="unicode")
    print("suite smoke: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
