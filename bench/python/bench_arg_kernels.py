#!/usr/bin/env python3
"""Kernel times of max aggregation's pieces on the GPU, beside the plain products:
plus_times (A and A'), max_times, the max with its argument (geblas.torch.spmm's forward
when X needs a gradient) and its backward scatter, each timed alone with CUDA events
(median of 25 calls after 5 warm-up calls) on torch's current stream. Prints a Markdown
table. Where forward + backward of reduce="max" is slower than of "sum", this says which
kernel costs it.

    PYTHONPATH=build/python python3 bench/python/bench_arg_kernels.py --data ../shared/data \\
        --rmat 20:16 --graphs ego-Twitter-undirected soc-Slashdot0902 --widths 16 32 64 128 512
"""

import argparse
import os
import pathlib
import statistics

import torch

import geblas
from bench_torch_spmm import load_graph, results_module


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


def main():
    default_data = os.environ.get("GEBLAS_DATA_DIR", str(pathlib.Path(__file__).resolve().parents[3] / "shared" / "data"))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=default_data)
    p.add_argument("--graphs", nargs="*", default=["ego-Twitter-undirected", "soc-Slashdot0902"])
    p.add_argument("--rmat", nargs="*", default=["20:16"], help="generated graphs, scale:edge_factor")
    p.add_argument("--widths", nargs="*", type=int, default=[16, 32, 64, 128, 512])
    results_module.add_argument(p)
    args = p.parse_args()
    if not torch.cuda.is_available() or geblas.cuda_device_count() == 0:
        raise SystemExit("bench_arg_kernels: needs a CUDA GPU")
    results = results_module.Results("bench_arg_kernels", args.results, device=torch.cuda.get_device_name(0))
    raw = geblas._geblas
    dev = torch.device("cuda:0")

    def stream():
        return torch.cuda.current_stream().cuda_stream

    print("| graph | F | plus_times | plus_times A' | max_times | max with argument | argument scatter |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in [f"rmat-{s.replace(':', '-')}" for s in args.rmat] + args.graphs:
        A = load_graph(name, args.data)
        if A is None:
            continue
        n = A.nrows
        for F in args.widths:
            X = torch.randn(A.ncols, F, device=dev)
            Y = torch.empty(n, F, device=dev)
            arg = torch.empty(n, F, dtype=torch.int32, device=dev)
            grad = torch.randn(n, F, device=dev)
            dX = torch.empty(A.ncols, F, device=dev)
            Yt = torch.empty(A.ncols, F, device=dev)
            Xt = torch.randn(n, F, device=dev)
            t = [event_ms(lambda: raw._spmm(A, X, Y, "plus_times", False, stream())),
                 event_ms(lambda: raw._spmm(A, Xt, Yt, "plus_times", True, stream())),
                 event_ms(lambda: raw._spmm(A, X, Y, "max_times", False, stream())),
                 event_ms(lambda: raw._spmm_arg(A, X, Y, arg, "max", stream())),
                 event_ms(lambda: raw._spmm_arg_scatter(arg, grad, dX, stream()))]
            print(f"| {name} | {F} | " + " | ".join(f"{x:.3f}" for x in t) + " |", flush=True)
            for kernel, ms in zip(("plus_times", "plus_times A'", "max_times", "max with argument", "argument scatter"), t):
                results.add({"graph": name, "F": F, "kernel": kernel}, "ms", ms, "ms")
    results.write()


if __name__ == "__main__":
    main()
