#!/usr/bin/env python3
"""Checks that every number in README.md's "Headline results" table appears verbatim in the
committed results data (bench/results/*.csv, which docs/PERFORMANCE.md is rendered from),
so that the README quotes the measurements and never keeps its own.

A number is a run of digits with its decimal points and dashes (1.61, 0.79, 2026-11-29)
and a trailing "x" when it has one (1.61x); it must occur in PERFORMANCE.md with the same
text and not as part of a longer number (1.6 does not match 1.61, 78x does not match
178x). In the data, a value is read as the renderer prints it (value 1.61 with unit "x"
is 1.61x), beside its case (N=32), its text values and its run's date. The table is the
first Markdown table after the heading; a README without that heading or table fails too,
so the check cannot pass by finding nothing.

Usage: check_readme_numbers.py README.md bench/results    (a folder of results CSV files)
       check_readme_numbers.py README.md FILE             (any text)
       check_readme_numbers.py --self-test
"""

import csv
import os
import re
import sys

HEADING = "## Headline results"
NUMBER = re.compile(r"\d(?:[\d.\-]*\d)?x?")


def results_table(readme_text):
    """The body rows of the first table after HEADING, as lists of cell texts."""
    lines = readme_text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == HEADING)
    except StopIteration:
        raise ValueError(f"no '{HEADING}' heading")
    rows = []
    in_table = False
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            in_table = True
            rows.append(line)
        elif in_table:
            break
    if len(rows) < 3:  # header, separator, at least one row
        raise ValueError(f"no table with rows after '{HEADING}'")
    return [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in rows[2:]]


def occurs(number, text):
    """Whether `number` occurs in `text` as a whole number (not inside a longer one)."""
    tail = r"(?![\w])" if number.endswith("x") else r"(?!x?\.?\d)"
    return re.search(r"(?<![\d.])" + re.escape(number) + tail, text) is not None


def missing_numbers(readme_text, performance_text):
    """[(row number, number)] for each number of the table not found in performance_text."""
    missing = []
    for r, cells in enumerate(results_table(readme_text), start=1):
        for cell in cells:
            for number in NUMBER.findall(cell):
                if not occurs(number, performance_text):
                    missing.append((r, number))
    return missing


def results_text(folder):
    """The results data of `folder` as text: per row its date, case, metric and value as printed."""
    lines = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".csv"):
            continue
        with open(os.path.join(folder, name), newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                value = row["value"] + ("x" if row["unit"] == "x" else "")
                lines.append(f"{row['date']} | {row['case']} | {row['metric']} | {value}")
    if not lines:
        raise ValueError(f"no results rows in {folder}")
    return "\n".join(lines)


def self_test():
    perf = "geomean 1.61x at N = 32; 166.0 (unchecked); 2026-11-29 04:14 UTC; 178x"
    table = HEADING + "\n\n| what | result |\n|---|---|\n| SpMM, N = 32 | {} |\n"
    assert missing_numbers(table.format("1.61x, 166.0 (2026-11-29)"), perf) == [], \
        "a table whose numbers all occur must pass"
    # a changed digit, a shortened number, a number inside a longer one, a dropped
    # decimal, another date: each must be reported
    for wrong in ("1.62x", "1.6x", "78x", "166", "2026-11-28"):
        found = [n for _, n in missing_numbers(table.format(wrong), perf)]
        assert found == [wrong], f"{wrong} must be reported missing, got {found}"
    for broken in ("no heading here\n", HEADING + "\n\ntext but no table\n"):
        try:
            missing_numbers(broken, perf)
        except ValueError:
            continue
        raise AssertionError("a README without the table must fail")
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "r.csv"), "w", encoding="utf-8") as f:
            f.write("date,bench,commit,device,host,command,notes,case,metric,value,unit\n"
                    "2026-11-29 04:14 UTC,b,c,d,,cmd,,N=32,speed,1.61,x\n")
        data = results_text(d)
        assert missing_numbers(table.format("1.61x at N = 32 (2026-11-29)"), data) == [], data
        assert [n for _, n in missing_numbers(table.format("1.62x at N = 64 (2026-11-28)"), data)] == \
            ["1.62x", "64", "2026-11-28"], "a value, a case and a date not in the data must be reported"
        try:
            results_text(os.path.join(d, "empty-folder-that-is-missing"))
        except OSError:
            pass
        else:
            raise AssertionError("a missing results folder must fail")
    print("self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        readme = f.read()
    try:
        if os.path.isdir(argv[2]):
            performance = results_text(argv[2])
        else:
            with open(argv[2], encoding="utf-8") as f:
                performance = f.read()
        missing = missing_numbers(readme, performance)
    except ValueError as e:
        print(f"{argv[1]}: {e}", file=sys.stderr)
        return 1
    for row, number in missing:
        print(f"{argv[1]}: '{HEADING}' row {row}: {number} does not appear in {argv[2]}", file=sys.stderr)
    if missing:
        return 1
    print(f"every number of {argv[1]}'s results table appears in {argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
