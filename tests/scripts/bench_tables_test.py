#!/usr/bin/env python3
"""Tests of scripts/bench-tables: the committed result files load, docs/benchmarks.md carries their
current tables, --check notices a stale table, --compare reports old, new and their ratio per metric."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "bench-tables")
BENCHMARKS = os.path.join(ROOT, "docs", "benchmarks.md")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def result_file(folder, name, results, defaults=None):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"family": "example", "title": "Example", "defaults": defaults or {
            "device": "a device", "date": "2026-01-01", "commit": "0000000", "command": "bench"},
            "results": results}, f)
    return path


class BenchTables(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_committed_result_files_give_one_table_per_family(self):
        sut = run()
        self.assertEqual(sut.returncode, 0, sut.stderr)
        for title in ("Particle filter", "Kalman bank", "Markov-chain", "Flock patterns", "Runtime cycle",
                      "HIL bench", "Track association"):
            self.assertIn(f"### {title}", sut.stdout)
        self.assertIn("| metric | target | device | value | date | commit | command |", sut.stdout)

    def test_benchmarks_md_carries_the_current_tables(self):
        sut = run("--check", BENCHMARKS)
        self.assertEqual(sut.returncode, 0, sut.stderr)

    def test_check_fails_when_a_value_changed(self):
        results = os.path.join(self.tmp, "results")
        shutil.copytree(os.path.join(ROOT, "docs", "results"), results)
        doc = os.path.join(self.tmp, "benchmarks.md")
        shutil.copy(BENCHMARKS, doc)
        self.assertEqual(run("--results", results, "--write", doc).returncode, 0)
        self.assertEqual(run("--results", results, "--check", doc).returncode, 0)
        path = os.path.join(results, "kalman.json")
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        data["results"][0]["value"] = 1234.5
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f)

        sut = run("--results", results, "--check", doc)

        self.assertEqual(sut.returncode, 1)
        self.assertIn("differ", sut.stderr)

    def test_compare_gives_old_new_and_ratio_per_metric(self):
        old = result_file(self.tmp, "old.json", [{"metric": "step", "value": 40.0, "unit": "us"},
                                                 {"metric": "gone", "value": 1, "unit": ""}])
        new = result_file(self.tmp, "new.json", [{"metric": "step", "value": 30.0, "unit": "us"},
                                                 {"metric": "added", "value": 2, "unit": ""}])

        sut = run("--compare", old, new)

        self.assertEqual(sut.returncode, 0, sut.stderr)
        self.assertIn("| step | 40.0 us | 30.0 us | 0.750 |", sut.stdout)
        self.assertIn("| gone | 1 | — | — |", sut.stdout)
        self.assertIn("| added | — | 2 | — |", sut.stdout)

    def test_compare_reads_the_csv_that_the_association_benchmark_writes(self):
        csv_path = os.path.join(ROOT, "docs", "results", "association.csv")

        sut = run("--compare", csv_path, csv_path)

        self.assertEqual(sut.returncode, 0, sut.stderr)
        self.assertIn("| association_traffic_p99_us |", sut.stdout)
        self.assertIn("| 1.000 |", sut.stdout)

    def test_a_result_without_a_commit_is_an_error(self):
        results = os.path.join(self.tmp, "results")
        os.mkdir(results)
        result_file(results, "bad.json", [{"metric": "step", "value": 1}],
                    defaults={"device": "d", "date": "2026-01-01", "command": "bench"})

        sut = run("--results", results)

        self.assertEqual(sut.returncode, 2)
        self.assertIn("has no commit", sut.stderr)


if __name__ == "__main__":
    unittest.main()
