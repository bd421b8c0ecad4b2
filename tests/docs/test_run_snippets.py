#!/usr/bin/env python3
"""Tests of run_snippets.py on the documents in fixtures/: one whose every block passes
(each info string and marker once), one whose blocks each fail in their own way, and
malformed ones the runner must refuse. Takes run_snippets.py's --source-dir, --build-dir,
--python, --cxx, --work-dir and --no-python-package."""

import argparse
import pathlib
import re
import subprocess
import sys
import unittest

HERE = pathlib.Path(__file__).resolve().parent
RUNNER = HERE / "run_snippets.py"
FIXTURES = HERE / "fixtures"
OPTS = None


def run(fixture, *extra):
    cmd = [sys.executable, str(RUNNER), str(FIXTURES / fixture), "--source-dir", OPTS.source_dir,
           "--build-dir", OPTS.build_dir, "--python", OPTS.python, "--cxx", OPTS.cxx,
           "--work-dir", str(pathlib.Path(OPTS.work_dir) / fixture.replace(".md", ""))]
    if OPTS.no_python_package:
        cmd.append("--no-python-package")
    p = subprocess.run(cmd + list(extra), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def statuses(out):
    """[(line, info, status)] of the per-block report lines, in order."""
    return [(int(m.group(1)), m.group(2), m.group(3))
            for m in re.finditer(r"^tests/docs/fixtures/\w+\.md:(\d+) \(([^)]*)\): (\w+)", out, re.MULTILINE)]


class Passing(unittest.TestCase):
    def test_every_block_passes(self):
        rc, out = run("passing.md")
        self.assertEqual(rc, 0, out)
        python_status = "skipped" if OPTS.no_python_package else "ok"
        self.assertEqual(statuses(out), [
            (5, "text", "shown"), (10, "no info string", "skipped"), (16, "sh", "ok"),
            (22, "console", "ok"), (31, "cpp", "ok"), (47, "cpp", "ok"), (52, "sh", "ok"),
            (57, "python", python_status), (61, "cmake", "ok"), (71, "sh", "ok"),
            (78, "python", python_status), (85, "sh", "skipped"), (91, "sh", "ok"),
            (99, "sh", python_status)], out)
        self.assertIn("skipped (a full build: the test's scratch install stands in for it)", out)
        self.assertIn("skipped (needs a CUDA device", out)
        n_ok = 8 if OPTS.no_python_package else 11
        self.assertRegex(out, rf"\n{n_ok} passed, 0 failed, {14 - 1 - n_ok} skipped\n$")

    def test_gpu_run_skips_whole_without_a_device(self):
        rc, out = run("passing.md", "--gpu")
        has_gpu = subprocess.run("nvidia-smi -L", shell=True, capture_output=True).returncode == 0
        if has_gpu:
            self.skipTest("a CUDA device is present: the gpu run is the gpu test's")
        self.assertEqual(rc, 77, out)
        self.assertIn("the blocks marked gpu are skipped", out)


class Failing(unittest.TestCase):
    def test_each_failure_is_caught(self):
        rc, out = run("failing.md", "--timeout", "5")
        self.assertEqual(rc, 1, out)
        want = ["FAILED"] * 7 + ["ok"] + ["FAILED"] * 3
        if OPTS.no_python_package:  # the fixture's two python blocks (the 5th and 10th)
            want[4] = want[9] = "skipped"
        self.assertEqual([s for *_, s in statuses(out)], want, out)
        self.assertIn("(sh): FAILED (exit 1", out)        # set -e: the first failing command
        self.assertNotIn("not reached", out)
        self.assertIn("(console): FAILED (exit 4", out)
        self.assertIn("(cpp): FAILED (exit 3", out)       # the program's own status
        self.assertIn("undeclared", out)                   # the compiler's message is shown
        if not OPTS.no_python_package:
            self.assertIn("(python): FAILED (exit 5", out)
        self.assertIn("no_such_package_anywhere", out)     # the CMake block's error is shown
        self.assertIn("'missing' is not in the block", out)
        self.assertIn("(sh): FAILED (timed out after 5.0 s)", out)
        # The hung block's background child went with it.
        left = []
        for cmdline in pathlib.Path("/proc").glob("[0-9]*/cmdline"):
            try:
                if cmdline.read_bytes() == b"sleep\x0031.5\x00":
                    left.append(cmdline.parent.name)
            except OSError:  # a process that ended meanwhile
                pass
        self.assertEqual(left, [], "a timed-out block left processes behind")
        if not OPTS.no_python_package:
            self.assertIn("def f(:", out)                   # a python file block is byte-compiled
        self.assertIn("undeclared_too", out)               # a cpp file block is compiled
        if OPTS.no_python_package:
            self.assertRegex(out, r"\n1 passed, 8 failed, 2 skipped\n$")
        else:
            self.assertRegex(out, r"\n1 passed, 10 failed, 0 skipped\n$")


class Malformed(unittest.TestCase):
    def check(self, fixture, *messages):
        rc, out = run(fixture)
        self.assertEqual(rc, 1, out)
        for message in messages:
            self.assertIn(message, out)
        self.assertIn(f"0 passed, {len(messages)} failed", out)

    def test_blocks_without_info_string(self):
        self.check("unclassified.md", "unclassified.md:7: a fenced block without an info string",
                   "unclassified.md:11: a fenced block without an info string")

    def test_unknown_info_string(self):
        self.check("unknown_info.md", "unknown info string 'rust'")

    def test_skip_needs_a_reason(self):
        self.check("skip_without_reason.md", "'snippet: skip' needs a reason")

    def test_unknown_marker(self):
        self.check("unknown_marker.md", "unknown snippet marker 'skp'")

    def test_marker_above_no_fence(self):
        self.check("orphan_marker.md", "orphan_marker.md:3: a snippet marker must be right above a fence")

    def test_unclosed_fence(self):
        self.check("unclosed.md", "unclosed.md:3: the fence opened here is never closed")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    for a in ("--source-dir", "--build-dir", "--python", "--cxx", "--work-dir"):
        ap.add_argument(a, required=True)
    ap.add_argument("--no-python-package", action="store_true")
    OPTS = ap.parse_args()
    unittest.main(argv=[sys.argv[0], "-v"])
