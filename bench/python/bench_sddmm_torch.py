#!/usr/bin/env python3
"""The attention scores s_e = <x_row(e), y_col(e)> on a graph's edges from torch on the GPU,
three ways: geblas.torch.sddmm(A, X, Y) (geblas's sampled-product kernel), torch's
torch.sparse.sampled_addmm(A_csr, X, Y.t(), beta=0) (cuSPARSE's SDDMM) and the gather way
(X[row] * Y[col]).sum(1) (two E x F temporaries), float32, at feature widths 32, 64, 128,
256. Each time is the median of 25 calls after 5 warm-up calls, CUDA events on torch's
current stream; every method's values are checked against the gather way's (float64)
before its time is printed. Prints a Markdown table; ratios over geblas's time (above 1:
geblas faster). The gather way is skipped where its temporaries would pass --gather-limit
bytes.

    PYTHONPATH=build/python python3 bench/python/bench_sddmm_torch.py --data ../shared/data \\
        --graphs cit-HepPh email-Enron soc-Slashdot0902 ego-Twitter-undirected --rmat 20:16
"""

import argparse
import os
import pathlib
import statistics
import sys

import torch

import geblas
import geblas.torch as gt
from bench_torch_spmm import load_graph

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "common"))
import results as results_module  # noqa: E402  (bench/common/results.py)


def event_ms(fn, reps=25, warmup=5):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def max_error(got, rows, cols, X, Y):
    """Largest |got - exact| over the edges, relative to the sum of the terms' magnitudes,
    in float64 by edge chunks."""
    worst = 0.0
    chunk = max(1, (1 << 26) // X.shape[1])
    for s in range(0, rows.numel(), chunk):
        r, c = rows[s:s + chunk], cols[s:s + chunk]
        terms = X[r].double() * Y[c].double()
        err = (got[s:s + chunk].double() - terms.sum(1)).abs() / (terms.abs().sum(1) + 1e-30)
        worst = max(worst, err.max().item() if err.numel() else 0.0)
    return worst


def main():
    default_data = os.environ.get("GEBLAS_DATA_DIR", str(pathlib.Path(__file__).resolve().parents[3] / "shared" / "data"))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=default_data)
    p.add_argument("--graphs", nargs="*", default=["cit-HepPh", "email-Enron", "soc-Slashdot0902",
                                                   "ego-Twitter-undirected"])
    p.add_argument("--rmat", nargs="*", default=["20:16"], help="generated graphs, scale:edge_factor")
    p.add_argument("--widths", nargs="*", type=int, default=[32, 64, 128, 256])
    p.add_argument("--gather-limit", type=float, default=16e9, help="bytes of the gather way's temporaries")
    results_module.add_argument(p)
    args = p.parse_args()
    if not torch.cuda.is_available() or geblas.cuda_device_count() == 0:
        raise SystemExit("bench_sddmm_torch: needs a CUDA GPU usable by torch and geblas")
    results = results_module.Results("bench_sddmm_torch", args.results, device=torch.cuda.get_device_name(0))
    dev = torch.device("cuda:0")
    tol = 1e-5  # of the terms' magnitude sum: float folds of <= 256 terms in any order stay well inside
    print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}; median ms of 25 calls; ratios: "
          "that way's time / geblas's (above 1: geblas faster)")
    print("| graph | F | nnz | geblas ms | sampled_addmm ms | gather ms | sampled_addmm / geblas | gather / geblas |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    bad = False
    for name in [f"rmat-{s.replace(':', '-')}" for s in args.rmat] + args.graphs:
        A = load_graph(name, args.data)
        if A is None:
            continue
        indptr, cols32, vals = (torch.utils.dlpack.from_dlpack(e) for e in A._csr())
        A_csr = torch.sparse_csr_tensor(indptr.to(torch.int32), cols32, vals, size=(A.nrows, A.ncols), device=dev)
        rows = torch.repeat_interleave(torch.arange(A.nrows, device=dev), torch.diff(indptr),
                                       output_size=cols32.numel())
        cols = cols32.long()
        E = cols.numel()
        for F in args.widths:
            torch.manual_seed(F)
            X = torch.rand(A.nrows, F, device=dev) * 2 - 1
            Y = torch.rand(A.ncols, F, device=dev) * 2 - 1
            Yt = Y.t()
            ways = {"geblas": lambda: gt.sddmm(A, X, Y),
                    "sampled_addmm": lambda: torch.sparse.sampled_addmm(A_csr, X, Yt, beta=0.0).values(),
                    "gather": lambda: (X[rows] * Y[cols]).sum(1)}
            if 2 * E * F * 4 > args.gather_limit:
                del ways["gather"]
            ms = {}
            for way, fn in ways.items():
                err = max_error(fn(), rows, cols, X, Y)
                if not err <= tol:
                    print(f"# {name} F={F}: {way} WRONG (relative error {err:.2e})")
                    bad = True
                    continue
                ms[way] = event_ms(fn)
                results.add({"graph": name, "F": F, "way": way}, "ms", ms[way], "ms")
            g = ms.get("geblas")

            def cell(way):
                return f"{ms[way]:.3f}" if way in ms else "-"

            def ratio(way):
                if g is None or way not in ms:
                    return "-"
                results.add({"graph": name, "F": F, "way": way}, f"{way}/geblas", ms[way] / g, "x")
                return f"{ms[way] / g:.2f}x"

            print(f"| {name} | {F} | {E} | {cell('geblas')} | {cell('sampled_addmm')} | {cell('gather')} | "
                  f"{ratio('sampled_addmm')} | {ratio('gather')} |", flush=True)
    results.write()
    if bad:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
