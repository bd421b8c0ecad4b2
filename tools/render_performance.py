#!/usr/bin/env python3
"""Renders docs/PERFORMANCE.md from its template (docs/PERFORMANCE.md.in) and the committed
results (bench/results/*.csv, written by the benches' --results option: see
bench/common/results.hpp), so that every table on the page is the data of one run, with
that run's command, device, date and commit beside it.

The template is Markdown with three directives; each NAME is bench/results/NAME.csv, and
KEY=VALUE filters select the rows whose case has that key and value (quote a pair that
holds spaces: "group=shared >= 100k"):

    {{run NAME [KEY=VALUE ...]}}      the run's provenance as a two-column table
    {{table NAME [KEY=VALUE ...]}}    the lines up to {{end}}: the header lines as written,
    | {graph} | {N} | {ratio} |       then the last line once per case, each {FIELD} being
    {{end}}                           a key of the case or a metric measured for it
    {{value NAME KEY=VALUE ... metric=METRIC}}   one value, inside prose

Only the latest run of a file (its latest date, after the filters) is used. A value with
unit "x" prints as 1.23x. A directive naming a file, field or case that is not in the data
fails the rendering, so the page cannot quote what the data lacks.

With --plots DIR it also draws PNG plots of speed-up per graph and N (the PLOTS list)
when matplotlib is installed; without matplotlib it says so and renders the tables.

Usage: render_performance.py               write docs/PERFORMANCE.md
       render_performance.py --check       exit 1 (with a diff) if docs/PERFORMANCE.md differs
       render_performance.py --plots DIR   also draw the plots into DIR
       render_performance.py --self-test
"""

import argparse
import csv
import difflib
import os
import re
import shlex
import sys
import tempfile
from urllib.parse import unquote

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMNS = ["date", "bench", "commit", "device", "host", "command", "notes", "case", "metric", "value", "unit"]
# (file, filters, x key, series key, metric, title): speed-up per graph and N
PLOTS = [
    ("cpu-spmm", {}, "N", "graph", "grbD/g", "CPU SpMM plus_times: SuiteSparse dense-output time / geblas time"),
    ("cpu-spgemm", {"C": "masked"}, "graph", "type", "ratio", "CPU masked SpGEMM: geblas time / SuiteSparse time"),
    ("gpu-spmm-fp32", {}, "N", None, "geomean vs best cuSPARSE", "GPU SpMM fp32: best cuSPARSE time / geblas time"),
]


class RenderError(Exception):
    pass


def parse_case(case):
    out = {}
    for pair in case.split(";") if case else []:
        k, _, v = pair.partition("=")
        out[unquote(k)] = unquote(v)
    return out


def load(results_dir, name):
    path = os.path.join(results_dir, name + ".csv")
    if not os.path.exists(path):
        raise RenderError(f"no results file {path}")
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            raise RenderError(f"{path}: columns {reader.fieldnames}, expected {COLUMNS}")
        rows = list(reader)
    for r in rows:
        r["key"] = parse_case(r["case"])
    return rows


def select(results_dir, name, filters):
    rows = [r for r in load(results_dir, name) if all(r["key"].get(k) == v for k, v in filters.items())]
    if not rows:
        raise RenderError(f"{name}: no rows match {filters}")
    latest = max(r["date"] for r in rows)
    return [r for r in rows if r["date"] == latest]


def formatted(row):
    return row["value"] + ("x" if row["unit"] == "x" else "")


def cases(rows):
    """[(key dict, {metric: formatted value})] in the order the cases first appear."""
    table = {}
    for r in rows:
        key, metrics = table.setdefault(r["case"], (r["key"], {}))
        metrics[r["metric"]] = formatted(r)
    return list(table.values())


def parse_directive(text):
    words = shlex.split(text)
    filters = {}
    for w in words[2:]:
        k, sep, v = w.partition("=")
        if not sep:
            raise RenderError(f"'{w}' in {{{{{text}}}}} is not KEY=VALUE")
        filters[k] = v
    if len(words) < 2:
        raise RenderError(f"{{{{{text}}}}} names no results file")
    return words[0], words[1], filters


def markdown_cell(text):
    return text.replace("|", "\\|")


def render_run(rows, name):
    r = rows[0]
    lines = ["| | |", "|---|---|"]
    if r["command"]:
        lines.append(f"| command | {r['command'] if '`' in r['command'] else '`' + markdown_cell(r['command']) + '`'} |")
    device = r["device"] + (f" (host {r['host']})" if r["host"] else "")
    if device:
        lines.append(f"| device | {device} |")
    date = r["date"] + (f", {r['commit']}" if r["commit"] and r["commit"] not in r["date"] else "")
    lines.append(f"| date, tree | {date} |")
    if r["notes"]:
        lines.append(f"| notes | {r['notes']} |")
    lines.append(f"| data | [bench/results/{name}.csv](../bench/results/{name}.csv) |")
    return lines


FIELD = re.compile(r"\{([^{}]+)\}")


def render_table(rows, name, body):
    if len(body) < 3:
        raise RenderError(f"{{{{table {name}}}}} needs its header, separator and row lines before {{{{end}}}}")
    header, template = body[:-1], body[-1]
    known = set()
    table = cases(rows)
    for key, metrics in table:
        known |= set(key) | set(metrics)
    for field in FIELD.findall(template):
        if field not in known:
            raise RenderError(f"{{{{table {name}}}}}: no case key or metric '{field}' in the data")
    # The template's fields that are case keys: a case without one of them (a summary
    # row beside the per-case rows) is not a row of this table.
    key_fields = set(FIELD.findall(template)) & {k for key, _ in table for k in key}
    out = list(header)
    for key, metrics in table:
        if not key_fields <= set(key):
            continue
        values = dict(metrics)
        values.update(key)
        out.append(FIELD.sub(lambda m: values.get(m.group(1), ""), template))
    return out


def render_value(results_dir, text):
    _, name, filters = parse_directive(text)
    metric = filters.pop("metric", None)
    if metric is None:
        raise RenderError(f"{{{{{text}}}}} names no metric=")
    found = [r for r in select(results_dir, name, filters) if r["metric"] == metric]
    if len(found) != 1:
        raise RenderError(f"{{{{{text}}}}}: {len(found)} values match, expected 1")
    return formatted(found[0])


VALUE = re.compile(r"\{\{(value [^}]*)\}\}")


def render(template, results_dir):
    out, lines, i = [], template.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("{{run ") or stripped.startswith("{{table "):
            kind, name, filters = parse_directive(stripped[2:-2])
            rows = select(results_dir, name, filters)
            if kind == "run":
                out += render_run(rows, name)
                i += 1
                continue
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "{{end}}"), None)
            if end is None:
                raise RenderError(f"line {i + 1}: {{{{table {name}}}}} without {{{{end}}}}")
            out += render_table(rows, name, lines[i + 1:end])
            i = end + 1
            continue
        out.append(VALUE.sub(lambda m: render_value(results_dir, m.group(1)), line))
        i += 1
    return "\n".join(out)


def draw_plots(results_dir, out_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (Debian: python3-matplotlib): tables rendered, no plots drawn",
              file=sys.stderr)
        return []
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name, filters, x_key, series_key, metric, title in PLOTS:
        rows = [r for r in select(results_dir, name, filters) if r["metric"] == metric]
        series = {}
        for r in rows:
            label = r["key"].get(series_key, metric) if series_key else metric
            series.setdefault(label, []).append((r["key"][x_key], float(r["value"])))
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for label, points in series.items():
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_xlabel(x_key)
        ax.set_ylabel(metric)
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7)
        ax.tick_params(axis="x", labelrotation=30 if x_key == "graph" else 0, labelsize=7)
        fig.tight_layout()
        path = os.path.join(out_dir, f"{name}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def self_test():
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "t.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(COLUMNS)
            old = ["2026-01-01 00:00 UTC", "b", "aaaaaaa", "dev", "", "b --x", "", ]
            new = ["2026-02-01 00:00 UTC", "b", "bbbbbbb", "dev", "", "b --y", "", ]
            w.writerow(old + ["N=32", "speed", "9.99", "x"])
            w.writerow(new + ["N=32", "speed", "1.50", "x"])
            w.writerow(new + ["N=64", "speed", "2.00", "x"])
            w.writerow(new + ["N=64", "graph", "a%3Bb", ""])
            w.writerow(new + ["summary=all", "speed", "1.70", "x"])
        tmpl = "{{table t}}\n| N | speed |\n|---|---|\n| {N} | {speed} |\n{{end}}\nmin {{value t N=32 metric=speed}}"
        got = render(tmpl, d)
        assert got == "| N | speed |\n|---|---|\n| 32 | 1.50x |\n| 64 | 2.00x |\nmin 1.50x", got  # latest run only
        assert "bbbbbbb" in "\n".join(render("{{run t}}", d).split("\n"))
        for bad in ("{{table t}}\n| a |\n|---|\n| {nothing} |\n{{end}}", "{{value t N=16 metric=speed}}",
                    "{{table missing}}\n| a |\n|---|\n| {N} |\n{{end}}", "{{table t}}\n| a |\n|---|\n| {N} |"):
            try:
                render(bad, d)
            except RenderError:
                continue
            raise AssertionError(f"must fail: {bad!r}")
    print("self-test passed")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true")
    p.add_argument("--plots", metavar="DIR")
    p.add_argument("--self-test", action="store_true")
    p.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    a = p.parse_args(argv[1:])
    if a.self_test:
        self_test()
        return 0
    template_path = os.path.join(a.root, "docs", "PERFORMANCE.md.in")
    page_path = os.path.join(a.root, "docs", "PERFORMANCE.md")
    results_dir = os.path.join(a.root, "bench", "results")
    with open(template_path, encoding="utf-8") as f:
        template = f.read()
    try:
        page = render(template, results_dir)
    except RenderError as e:
        print(f"{template_path}: {e}", file=sys.stderr)
        return 1
    if a.plots:
        for path in draw_plots(results_dir, a.plots):
            print(f"wrote {path}")
    if a.check:
        with open(page_path, encoding="utf-8") as f:
            current = f.read()
        if current != page:
            sys.stderr.writelines(difflib.unified_diff(current.splitlines(True), page.splitlines(True),
                                                       page_path, "rendered"))
            print(f"\n{page_path} is not what tools/render_performance.py renders from bench/results: "
                  "run it and commit the page", file=sys.stderr)
            return 1
        print(f"{page_path} is what bench/results renders")
        return 0
    with open(page_path, "w", encoding="utf-8") as f:
        f.write(page)
    print(f"wrote {page_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
