#!/usr/bin/env python3
"""A benchmark's --json result file as scripts/bench-tables reads it: augur-bench-association --quick writes
one, bench-tables makes its table and compares it with the committed docs/results/association.csv.

  bench_json_test.py BENCH_PROGRAM SOURCE_DIR WORK_DIR
  (AUGUR_TEST_EMULATOR: the command that runs a cross-compiled BENCH_PROGRAM, e.g. qemu-aarch64 -L SYSROOT)
"""
import json
import os
import shutil
import shlex
import subprocess
import sys
import unittest

PROGRAM, ROOT, WORK = sys.argv[1:4]
SCRIPT = os.path.join(ROOT, "scripts", "bench-tables")


class BenchJson(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.results = os.path.join(WORK, "results")
        shutil.rmtree(cls.results, ignore_errors=True)
        os.makedirs(cls.results)
        cls.path = os.path.join(cls.results, "association.json")
        emulator = shlex.split(os.environ.get("AUGUR_TEST_EMULATOR", ""))
        cls.bench = subprocess.run(emulator + [PROGRAM, "--quick", "--json", cls.path], capture_output=True,
                                   text=True, timeout=120)

    def test_the_benchmark_writes_its_rows_with_device_date_commit_and_command(self):
        self.assertEqual(self.bench.returncode, 0, self.bench.stderr)
        with open(self.path, encoding="utf-8") as f:
            data = json.load(f)
        self.assertEqual(data["family"], "association")
        defaults = data["defaults"]
        self.assertRegex(defaults["date"], r"^\d{4}-\d{2}-\d{2}$")
        self.assertRegex(defaults["commit"], r"^([0-9a-f]{12}(-dirty)?|unknown)$")
        self.assertEqual(defaults["command"], f"augur-bench-association --quick --json {self.path}")
        self.assertIn("one core", defaults["device"])
        metrics = [r["metric"] for r in data["results"]]
        self.assertEqual(len(metrics), 9)
        self.assertIn("association_traffic_p99_us", metrics)
        for r in data["results"]:
            self.assertGreater(r["value"], 0, r["metric"])

    def test_bench_tables_makes_its_table(self):
        sut = subprocess.run([sys.executable, SCRIPT, "--results", self.results], capture_output=True, text=True)

        self.assertEqual(sut.returncode, 0, sut.stderr)
        self.assertIn("### Track association (CPU)", sut.stdout)
        self.assertIn("| association_traffic_p99_us | <= 1000 |", sut.stdout)

    def test_bench_tables_compares_it_with_the_committed_csv(self):
        committed = os.path.join(ROOT, "docs", "results", "association.csv")

        sut = subprocess.run([sys.executable, SCRIPT, "--compare", committed, self.path], capture_output=True,
                             text=True)

        self.assertEqual(sut.returncode, 0, sut.stderr)
        rows = [line for line in sut.stdout.splitlines() if line.startswith("| association_")]
        self.assertEqual(len(rows), 9)
        for row in rows:
            ratio = row.rstrip(" |").rsplit("|", 1)[1].strip()
            self.assertRegex(ratio, r"^\d+\.\d{3}$", row)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
