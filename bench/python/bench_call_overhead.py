#!/usr/bin/env python3
"""The fixed cost of one geblas call from Python, measured on problems so small that the
product itself is nearly free (issue 15): geblas.mxm on NumPy arrays (CPU) layer by layer,
and, where torch is installed, geblas.torch.spmm forward and forward + backward on a tiny
graph against torch.sparse.mm (on the GPU when torch and geblas can use one, else on the
CPU). Without torch the torch part is skipped with a message.

    PYTHONPATH=build/python python3 bench/python/bench_call_overhead.py

Each figure is the median over --rounds rounds of the mean time of --calls calls in a tight
loop (time.perf_counter_ns): on a GPU the loop is synchronised once per round, so the
figure is the host time per call when the kernels are shorter than it (the fixed cost the
issue is about); "sync" columns synchronise after every call, as bench_torch_spmm.py does.
The script uses the public API only (layers that a build lacks print "n/a"), so it runs
unchanged against an older build for a before / after comparison.
"""

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

import geblas

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "common"))
import results as results_module  # noqa: E402  (bench/common/results.py)


def per_call_us(fn, calls, rounds, sync=None):
    """Median over rounds of the mean microseconds per call of `calls` back-to-back calls."""
    for _ in range(min(calls, 200)):
        fn()
    if sync:
        sync()
    means = []
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            fn()
        if sync:
            sync()
        means.append((time.perf_counter_ns() - t0) / calls / 1e3)
    return statistics.median(means)


def synced_us(fn, calls, sync):
    """Median microseconds of one call with a synchronisation after each (latency)."""
    for _ in range(20):
        fn()
    sync()
    times = []
    for _ in range(calls):
        t0 = time.perf_counter_ns()
        fn()
        sync()
        times.append((time.perf_counter_ns() - t0) / 1e3)
    return statistics.median(times)


def tiny_graph(n, nnz_per_row, seed=1):
    rng = np.random.default_rng(seed)
    S = sp.random(n, n, density=nnz_per_row / n, format="csr", random_state=rng, dtype=np.float32)
    S.data[:] = 1  # unit values: max records its argument the cheap way
    return S


RESULTS = None  # --results FILE (bench/common/results.py)


def row(name, us, note=""):
    print(f"  {name:<60s} {us:9.2f} us  {note}", flush=True)
    if RESULTS:
        RESULTS.add({"layer": name}, "host us per call", us, "us")


def optional(name, make, calls, rounds):
    """A layer that only some builds have: its time, or n/a."""
    try:
        fn = make()
        fn()
    except (AttributeError, TypeError) as e:
        print(f"  {name:<60s}       n/a     ({type(e).__name__}: {e})")
        return
    row(name, per_call_us(fn, calls, rounds))


def numpy_part(args):
    g = geblas._geblas
    S = tiny_graph(args.n, 4)
    A = geblas.Matrix.from_scipy(S)
    X = np.ones((args.n, args.f), np.float32)
    Y = np.empty((args.n, args.f), np.float32)
    c, r = args.calls, args.rounds
    print(f"geblas.mxm on NumPy, CPU: A {A.nrows} x {A.ncols} with {A.nvals} entries, X {X.shape}; "
          f"{c} calls x {r} rounds")
    row("floor: a pybind11 call without arguments", per_call_us(g.cuda_compiled, c, r))
    row("A.nrows (a property)", per_call_us(lambda: A.nrows, c, r))
    row("A.device (a property returning a string)", per_call_us(lambda: A.device, c, r))
    row("import X (_geblas._dense_view: NumPy -> borrowed view)", per_call_us(lambda: g._dense_view(X), c, r))
    row("_geblas.mxm(A, X, out=Y) (binding + product)", per_call_us(lambda: g.mxm(A, X, out=Y), c, r))
    row("_geblas.mxm(A, X, 'plus_times', out=Y) (positional)",
        per_call_us(lambda: g.mxm(A, X, "plus_times", out=Y), c, r))
    row("_geblas.mxm(A, X, out=Y, transpose_a=False) (one option)",
        per_call_us(lambda: g.mxm(A, X, out=Y, transpose_a=False), c, r))
    row("_geblas.mxm(A, X) (+ result allocation, Exported)", per_call_us(lambda: g.mxm(A, X), c, r))
    row("_geblas.mxm(A, X).numpy() (+ NumPy view of it)", per_call_us(lambda: g.mxm(A, X).numpy(), c, r))
    row("geblas.mxm(A, X, out=Y) (the package)", per_call_us(lambda: geblas.mxm(A, X, out=Y), c, r))
    row("geblas.mxm(A, X)", per_call_us(lambda: geblas.mxm(A, X), c, r))
    row("geblas.mxm(A, X, semiring='max_plus')", per_call_us(lambda: geblas.mxm(A, X, semiring="max_plus"), c, r))
    row("A @ X", per_call_us(lambda: A @ X, c, r))
    items = [A, X, None, None]
    optional("  layer: geblas._flavor(operands)", lambda: (lambda: geblas._flavor(items)), c, r)

    def streams():
        def enter_exit():
            with geblas._TorchStreams(items):
                pass
        return enter_exit
    optional("  layer: with geblas._TorchStreams(operands): pass", streams, c, r)
    e = g.mxm(A, X)
    optional("  layer: geblas._result(Exported, 'numpy') (a NumPy view)",
             lambda: (lambda: geblas._result(e, "numpy")), c, r)
    print("  reference points:")
    row("  SciPy: S @ X", per_call_us(lambda: S @ X, c, r))
    row("  NumPy: np.empty_like(X)", per_call_us(lambda: np.empty_like(X), c, r))
    row("  NumPy: X @ small (2 x f) matrix", per_call_us(lambda: X[:2] @ X[:2].T, c, r))


def torch_part(args):
    try:
        import torch
    except ImportError:
        print("torch part skipped: torch is not installed for this interpreter")
        return
    import geblas.torch as gt
    cuda = torch.cuda.is_available() and geblas.cuda_device_count() > 0
    device = "cuda:0" if cuda else "cpu"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    S = tiny_graph(args.n, 4)
    A = geblas.Matrix.from_scipy(S, device=device)
    At = A.to_torch()
    X = torch.randn(args.n, args.f, device=device)
    Xg = X.clone().requires_grad_(True)
    G = torch.randn(args.n, args.f, device=device)
    c, r = args.calls // 10, args.rounds
    print(f"\ngeblas.torch.spmm on {device} ({torch.cuda.get_device_name(0) if cuda else 'no CUDA'}), torch "
          f"{torch.__version__}: A {A.nrows} x {A.ncols} with {A.nvals} entries, X {tuple(X.shape)}; "
          f"{c} calls x {r} rounds (host us per call; 'sync': a synchronisation after each call)")
    rows = torch.from_numpy(np.repeat(np.arange(S.shape[0]), np.diff(S.indptr))).to(device)
    cols = torch.from_numpy(S.indices.astype(np.int64)).to(device)

    def scatter(x, reduce):
        out = torch.zeros((S.shape[0], x.shape[1]), dtype=x.dtype, device=x.device)
        return out.scatter_reduce(0, rows.unsqueeze(1).expand(-1, x.shape[1]), x[cols], reduce=reduce,
                                  include_self=False)

    def both(name, fn):
        host = per_call_us(fn, c, r, sync)
        lat = synced_us(fn, c, sync)
        row(name, host, f"sync {lat:8.2f} us")
        return host

    with torch.no_grad():
        both("floor: torch.empty_like(X)", lambda: torch.empty_like(X))
        ours = both("forward: gt.spmm(A, X, 'sum')", lambda: gt.spmm(A, X, "sum"))
        theirs = both("forward: torch.sparse.mm(A, X)", lambda: torch.sparse.mm(At, X))
        print(f"  {'':60s} torch.sparse.mm / geblas = {theirs / ours:.2f}x (host time)")
        # the graph as torch and PyG hold it: built once, then cached on the input
        edge_index = torch.stack([cols, rows])
        both("forward: gt.spmm(torch CSR tensor, X, 'sum')", lambda: gt.spmm(At, X, "sum"))
        if hasattr(gt, "Graph"):  # builds before geblas.torch.Graph take no edge_index
            both("forward: gt.spmm(edge_index, X, 'sum', num_nodes=n)",
                 lambda: gt.spmm(edge_index, X, "sum", num_nodes=args.n))
            graph = gt.Graph(edge_index, num_nodes=args.n)
            both("forward: gt.spmm(geblas.torch.Graph, X, 'sum')", lambda: gt.spmm(graph, X, "sum"))
        both("forward: gt.spmm(A, X, 'mean')", lambda: gt.spmm(A, X, "mean"))
        both("forward: gt.spmm(A, X, 'max')", lambda: gt.spmm(A, X, "max"))
        both("forward: scatter_reduce amax (the PyG way)", lambda: scatter(X, "amax"))
        both("layer: geblas.mxm(A, X, out=Y) (the package, torch)", lambda: geblas.mxm(A, X, out=G))
        if cuda:
            handle = torch.cuda.current_stream().cuda_stream

            def scope():
                s = geblas._geblas._StreamScope(device, handle)
                s.__enter__()
                s.__exit__(None, None, None)
            optional("layer: torch.cuda.current_stream(device).cuda_stream",
                     lambda: (lambda: torch.cuda.current_stream(torch.device(device)).cuda_stream), c, r)
            optional("layer: geblas._torch_stream_handle(device) (raw handle)",
                     lambda: (lambda: geblas._torch_stream_handle(device)), c, r)
            optional("layer: _StreamScope create + enter + exit (StreamGuard)", lambda: scope, c, r)
            optional("layer: with geblas._TorchStreams([], devices=[device])",
                     lambda: (lambda: geblas._TorchStreams([], devices=[device]).__enter__().__exit__()), c, r)
        optional("layer: Tensor.__dlpack__() (what the binding calls)", lambda: X.__dlpack__, c, r)
        optional("layer: torch.utils.dlpack.to_dlpack(X) (a capsule)",
                 lambda: (lambda: torch.utils.dlpack.to_dlpack(X)), c, r)
        optional("layer: spmm argument checks (geblas.torch._check_dense)",
                 lambda: (lambda: gt._check_dense(X, gt._graph_of(A)[0])), c, r)
    ours = both("fwd+bwd: gt.spmm(A, X, 'sum').backward(G)", lambda: gt.spmm(A, Xg, "sum").backward(G))
    theirs = both("fwd+bwd: torch.sparse.mm(A, X).backward(G)", lambda: torch.sparse.mm(At, Xg).backward(G))
    print(f"  {'':60s} torch.sparse.mm / geblas = {theirs / ours:.2f}x (host time)")
    both("fwd+bwd: gt.spmm(A, X, 'mean').backward(G)", lambda: gt.spmm(A, Xg, "mean").backward(G))
    both("fwd+bwd: gt.spmm(A, X, 'max').backward(G)", lambda: gt.spmm(A, Xg, "max").backward(G))
    both("fwd+bwd: scatter_reduce amax (the PyG way)", lambda: scatter(Xg, "amax").backward(G))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=64, help="vertices of the tiny graph (4 entries a row)")
    p.add_argument("--f", type=int, default=16, help="feature width")
    p.add_argument("--calls", type=int, default=20000, help="calls per round (the torch part uses a tenth)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--no-torch", action="store_true", help="the NumPy part only")
    results_module.add_argument(p)
    args = p.parse_args()
    global RESULTS
    RESULTS = results_module.Results("bench_call_overhead", args.results)
    print(f"geblas {geblas.__version__}, NumPy {np.__version__}")
    numpy_part(args)
    if not args.no_torch:
        torch_part(args)
    RESULTS.write()


if __name__ == "__main__":
    main()
