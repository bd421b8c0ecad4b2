"""Bench results as data, for the Python benches: the same CSV columns and provenance as
bench/common/results.hpp (date, bench, commit, device, host, command, notes, case, metric,
value, unit), appended to the file given by --results FILE or $GEBLAS_BENCH_RESULTS, so
that tools/render_performance.py reads both alike.

    results = Results("bench_torch_spmm", args.results, device=torch.cuda.get_device_name(0))
    results.add({"graph": "cora", "F": 32}, "geblas fwd", 0.12, "ms")
    results.write()
"""

import csv
import datetime
import os
import platform
import shlex
import socket
import subprocess
import sys

COLUMNS = ["date", "bench", "commit", "device", "host", "command", "notes", "case", "metric", "value", "unit"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def add_argument(parser):
    """Adds --results FILE to an argparse parser."""
    parser.add_argument("--results", default=os.environ.get("GEBLAS_BENCH_RESULTS"),
                        help="append the results as CSV rows with their provenance (default: $GEBLAS_BENCH_RESULTS)")


def current_commit():
    if os.environ.get("GEBLAS_COMMIT"):
        return os.environ["GEBLAS_COMMIT"]
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def escape(text):
    """';' separates a case's pairs, so a name or value holding one (or '%') is %-escaped."""
    return str(text).replace("%", "%25").replace(";", "%3B")


def format_value(value):
    if isinstance(value, str):
        return value
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


class Results:
    def __init__(self, bench, path, device=None):
        self.bench, self.path, self.rows = bench, path, []
        if not path:
            return
        self.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        self.commit = current_commit()
        self.device = device or f"{platform.processor() or platform.machine()} ({os.cpu_count()} cores)"
        self.host = socket.gethostname()
        self.command = " ".join(shlex.quote(a) for a in [sys.executable] + sys.argv)

    def add(self, key, metric, value, unit=""):
        """One measurement of the case `key` (a dict, written as k=v;k=v); unit "x" marks a ratio."""
        if not self.path:
            return
        case = ";".join(f"{escape(k)}={escape(v)}" for k, v in key.items())
        self.rows.append([self.date, self.bench, self.commit, self.device, self.host, self.command, "", case, metric,
                          format_value(value), unit])

    def write(self):
        """Appends the rows (with the header when the file is new) and clears them."""
        if not self.path or not self.rows:
            return
        fresh = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
        with open(self.path, "a", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            if fresh:
                w.writerow(COLUMNS)
            w.writerows(self.rows)
        print(f"{self.bench}: {len(self.rows)} results appended to {self.path}", file=sys.stderr)
        self.rows = []
