#!/usr/bin/env python3
"""The benches' results files read back as the renderer reads them: runs
results_writer_probe (the C++ writer, bench/common/results.hpp) and the Python writer
(bench/common/results.py) into one file and checks every row through
tools/render_performance.py's loader: columns, provenance, case keys with ';' and '%',
quoted text, units, and that --results was taken out of the bench's arguments.

Usage: test_results_roundtrip.py SOURCE_DIR PROBE_PROGRAM
"""

import os
import subprocess
import sys
import tempfile


def main(argv):
    source, probe = argv[1], argv[2]
    sys.path.insert(0, os.path.join(source, "tools"))
    sys.path.insert(0, os.path.join(source, "bench", "common"))
    import render_performance as render
    import results as py_results

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "probe.csv")
        out = subprocess.run([probe, "--runs", "3", "--results", path, "--x"], capture_output=True, text=True,
                             check=True, env=dict(os.environ, GEBLAS_COMMIT="abc1234")).stdout
        assert out.splitlines() == ["arg --runs", "arg 3", "arg --x"], f"--results left in argv: {out!r}"
        r = py_results.Results("probe.py", path, device="test device")
        r.add({"graph": "x;y", "F": 32}, "fwd", 0.5, "ms")
        r.add({"graph": "x;y", "F": 32}, "nan case", float("nan"))
        r.write()
        rows = render.load(d, "probe")
        got = {(tuple(sorted(row["key"].items())), row["metric"]): (row["value"], row["unit"]) for row in rows}
        want = {
            ((("N", "32"), ("graph", "wiki-Vote")), "ms"): ("0.0123457", "ms"),
            ((("N", "32"), ("graph", "wiki-Vote")), "speed-up"): ("1.61", "x"),
            ((("N", "64"), ("graph", "a;b%c")), "nnz"): ("30492154", ""),
            ((("N", "64"), ("graph", "a;b%c")), "ratio"): ("2.5", ""),
            ((("N", "32"), ("graph", "wiki-Vote")), "check"): ('ok, "quoted"', ""),
            ((("N", "32"), ("graph", "wiki-Vote")), "printed"): ("2.38", "x"),
            ((("N", "32"), ("graph", "wiki-Vote")), "printed text"): ("0.9x (cit-HepPh)", ""),
            ((("F", "32"), ("graph", "x;y")), "fwd"): ("0.5", "ms"),
            ((("F", "32"), ("graph", "x;y")), "nan case"): ("nan", ""),
        }
        assert got == want, f"rows differ:\n got {got}\nwant {want}"
        cpp = [row for row in rows if row["bench"] == "results_writer_probe"]
        assert len(cpp) == 7 and all(row["commit"] == "abc1234" for row in cpp), cpp
        assert all(row["command"].endswith("--runs 3 --x") and "--results" not in row["command"] for row in cpp)
        assert all(row["date"].endswith(" UTC") and row["host"] and row["device"] for row in rows)
        assert {row["device"] for row in rows if row["bench"] == "probe.py"} == {"test device"}
        header_lines = [line for line in open(path) if line.startswith("date,")]
        assert len(header_lines) == 1, "appending to a file must not repeat the header"
    print("the C++ and Python writers' rows read back as written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
