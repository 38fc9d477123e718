#!/usr/bin/env python3
"""Tests of scripts/check-prose: it flags run identifiers, "not kept" and dates in source comments, leaves
ordinary English and code alone, and the product's trees pass it."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "check-prose")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class CheckProse(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_the_product_trees_pass(self):
        sut = run()
        self.assertEqual(sut.returncode, 0, sut.stdout + sut.stderr)

    def test_run_identifiers_are_flagged(self):
        lines = ["without it the step measured 1.9 us slower, run FY.",
                 "(H200, docs/benchmarks.md runs GN–GP)",
                 "measured in runs AX and BA",
                 "scan run S2 of that day",
                 "the final tree (run F9)",
                 "(docs/benchmarks.md run Z: two copies)"]
        path = self.write("note.md", "\n".join(lines) + "\n")

        sut = run(path)

        self.assertEqual(sut.returncode, 1)
        for number in range(1, len(lines) + 1):
            self.assertIn(f"note.md:{number}: run identifier", sut.stdout)

    def test_a_label_on_the_next_line_is_flagged(self):
        path = self.write("cdf.cuh", "/// measured 0.3 µs faster (H100, docs/benchmarks.md runs\n"
                                     "/// DZ and EA) at seed scale\n")

        sut = run(path)

        self.assertEqual(sut.returncode, 1)
        self.assertIn("cdf.cuh:1: run identifier", sut.stdout)

    def test_not_kept_is_flagged(self):
        path = self.write("note.md", "A variant was measured, Not kept.\n")

        sut = run(path)

        self.assertEqual(sut.returncode, 1)
        self.assertIn("note.md:1: \"not kept\"", sut.stdout)

    def test_a_date_in_a_source_comment_is_flagged_but_not_in_code(self):
        path = self.write("tuning.hpp", "// measured on the H100 (2026-11-21)\n"
                                        "info.date = \"2026-01-01T00:00:00Z\";\n")

        sut = run(path)

        self.assertEqual(sut.returncode, 1)
        self.assertIn("tuning.hpp:1: date 2026-11-21", sut.stdout)
        self.assertNotIn("tuning.hpp:2:", sut.stdout)

    def test_ordinary_prose_and_code_pass(self):
        path = self.write("clean.cpp", "// Runs PROGRAM with ARGS and checks its exit status.\n"
                                       "// The bench runs CPU and CUDA backends; it runs a RouDi.\n"
                                       "// run A of the filter: the runtime runs ON_INPUT triggers.\n"
                                       "int runs = 0; // runs counted per cycle\n")

        sut = run(path)

        self.assertEqual(sut.returncode, 0, sut.stdout)


if __name__ == "__main__":
    unittest.main()
