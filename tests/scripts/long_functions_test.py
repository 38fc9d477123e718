#!/usr/bin/env python3
"""Tests of scripts/long-functions: it measures functions from their declaration to their closing brace,
flags those over the limit unless a comment above them states the reason, is not misled by braces in
comments, literals, control statements, initialisers and lambdas, and runtime/ and apps/ pass it."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "long-functions")
LIMIT = 10


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def body(lines):
    """`lines` statements, one per line."""
    return "".join(f"    x += {i};\n" for i in range(lines))


class LongFunctions(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, text, name="unit.cpp"):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_the_product_trees_pass(self):
        sut = run()
        self.assertEqual(sut.returncode, 0, sut.stdout + sut.stderr)

    def test_a_function_over_the_limit_is_listed_with_its_length(self):
        path = self.write("int f(int x) {\n" + body(LIMIT) + "    return x;\n}\n")  # 1 + LIMIT + 2 lines

        sut = run("--limit", str(LIMIT), path)

        self.assertEqual(sut.returncode, 1)
        self.assertIn(f"unit.cpp:1: f: {LIMIT + 3} lines", sut.stdout)

    def test_a_function_at_the_limit_passes(self):
        path = self.write("int f(int x) {\n" + body(LIMIT - 3) + "    return x;\n}\n")  # LIMIT lines

        sut = run("--limit", str(LIMIT), path)

        self.assertEqual(sut.returncode, 0, sut.stdout)

    def test_the_length_starts_at_the_template_line(self):
        path = self.write("namespace n {\n\ntemplate <typename T>\nT Table<T>::lookup(T x) const noexcept {\n" +
                          body(LIMIT) + "    return x;\n}\n\n}  // namespace n\n")

        sut = run("--limit", str(LIMIT), path)

        self.assertIn(f"unit.cpp:3: Table<T>::lookup: {LIMIT + 4} lines", sut.stdout)

    def test_a_stated_reason_is_accepted_and_listed_with_all(self):
        path = self.write("/// Decodes a message.\n// long-function: one case per message type\nint f(int x) {\n" +
                          body(LIMIT) + "    return x;\n}\n")

        quiet = run("--limit", str(LIMIT), path)
        listed = run("--all", "--limit", str(LIMIT), path)

        self.assertEqual(quiet.returncode, 0, quiet.stdout)
        self.assertEqual(quiet.stdout, "")
        self.assertIn("(long-function: one case per message type)", listed.stdout)

    def test_an_empty_reason_is_not_accepted(self):
        path = self.write("// long-function:\nint f(int x) {\n" + body(LIMIT) + "    return x;\n}\n")

        sut = run("--limit", str(LIMIT), path)

        self.assertEqual(sut.returncode, 1)
        self.assertIn("with no reason", sut.stdout)

    def test_a_marker_above_another_function_does_not_count(self):
        path = self.write("// long-function: a table\nint g() { return 0; }\n\nint f(int x) {\n" + body(LIMIT) +
                          "    return x;\n}\n")

        sut = run("--limit", str(LIMIT), path)

        self.assertEqual(sut.returncode, 1)
        self.assertIn("unit.cpp:4: f:", sut.stdout)

    def test_braces_in_comments_literals_and_statements_stay_inside_the_function(self):
        text = ("int f(int x) {\n"
                "    const char* s = \"}}\";  // }\n"
                "    /* } */ char c = '}';\n"
                "    if (x > 0) {\n        x = 1;\n    }\n"
                "    auto g = [&](int y) { return y + x; };\n"
                "    int table[] = {1, 2, 3};\n"
                "    return g(table[0]) + c + s[0];\n"
                "}\n"
                "int h() { return 1; }\n")
        path = self.write(text)

        sut = run("--limit", "9", path)

        self.assertIn("unit.cpp:1: f: 10 lines", sut.stdout)
        self.assertNotIn("h:", sut.stdout)

    def test_class_members_and_constructors_with_initialisers_are_measured(self):
        text = ("class Stage {\npublic:\n    Stage(int a) : m_a{a}, m_b(a) {\n" + body(LIMIT) + "    }\n"
                "    int m_a{0};\n    int m_b;\n};\n")
        path = self.write(text)

        sut = run("--limit", str(LIMIT), path)

        self.assertIn(f"unit.cpp:3: Stage: {LIMIT + 2} lines", sut.stdout)

    def test_enums_and_aggregates_are_not_functions(self):
        text = "enum class Kind {\n" + "".join(f"    K{i},\n" for i in range(2 * LIMIT)) + "};\n"
        text += "const int TABLE[] = {\n" + "".join(f"    {i},\n" for i in range(2 * LIMIT)) + "};\n"
        path = self.write(text)

        sut = run("--limit", str(LIMIT), path)

        self.assertEqual(sut.returncode, 0, sut.stdout)


if __name__ == "__main__":
    unittest.main()
