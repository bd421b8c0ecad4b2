#!/usr/bin/env python3
"""Times geblas.torch.spmm against the usual PyTorch aggregations on the GPU: sum against
torch.sparse.mm, mean and max against gather + scatter_reduce (the PyG way), forward and
forward + backward (gradient of X), on the shared graphs at feature widths 32..512.
Writes a Markdown table (and a plot when matplotlib is there).

    PYTHONPATH=build/python python3 bench/python/bench_torch_spmm.py --data ../shared/data \
        --out docs/notes/python-torch-spmm.md
    ... --graphs --rmat 20:16 --widths 32 128 256   # a generated graph (R-MAT, 1M x 1M, 16M)

--rmat adds R-MAT graphs (scale:edge_factor; probabilities 0.57 / 0.19 / 0.19 / 0.05,
duplicates merged, unit values, seeded): graphs large enough that neither side is bound
by its per-call cost. A baseline that runs out of GPU memory (gather + scatter_reduce
materialises one row of X per entry) is printed and left as NaN.

Each number is the median wall time of --reps calls (after warm-up), measured with
torch.cuda.synchronize() around each call, so it includes every host synchronisation a
call makes (geblas.torch.spmm runs on torch's current stream and, once A's caches are
built in the warm-up, makes none of its own; before the stream API it synchronised
torch's stream before each call and geblas's after).
"""

import argparse
import os
import pathlib
import statistics
import sys
import time

import numpy as np
import scipy.sparse
import torch

import geblas
import geblas.torch as gt

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "common"))
import results as results_module  # noqa: E402  (bench/common/results.py)

DEFAULT_GRAPHS = ["cora", "citeseer", "pubmed", "email-Enron", "musae-facebook", "cit-HepPh",
                  "soc-Slashdot0902", "ego-Twitter-undirected"]


def rmat(scale, edge_factor, seed=20261128):
    """An R-MAT pattern as a float32 CSR array (scipy), 2^scale vertices."""
    rng = np.random.default_rng(seed)
    n, m = 1 << scale, (1 << scale) * edge_factor
    r = np.zeros(m, np.int64)
    c = np.zeros(m, np.int64)
    a, b, cq = 0.57, 0.19, 0.19
    for bit in range(scale):
        u = rng.random(m)
        r |= (u >= a + b).astype(np.int64) << bit
        c |= (((u >= a) & (u < a + b)) | (u >= a + b + cq)).astype(np.int64) << bit
    S = scipy.sparse.csr_array((np.ones(m, np.float32), (r, c)), shape=(n, n))
    S.sum_duplicates()
    S.data[:] = 1
    return S


def load_graph(name, data):
    """A graph of the bench on cuda:0 with unit values (max records its argument for free
    there): "rmat-SCALE-EF" is generated, any other name is read from data/NAME.mtx.gz;
    None, with a message, where that file is absent."""
    if name.startswith("rmat-"):
        scale, ef = (int(x) for x in name.split("-")[1:])
        A = geblas.Matrix.from_scipy(rmat(scale, ef)).to("cuda:0")
    else:
        path = pathlib.Path(data) / f"{name}.mtx.gz"
        if not path.exists():
            print(f"skip {name}: {path} not found")
            return None
        A = geblas.read_matrix_market(path, dtype="float32", device="cuda:0")
    return geblas.apply(A, "one")


def timed(fn, reps, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def guarded(fn, reps):
    """The baseline's time, or NaN when PyTorch refuses the case (printed)."""
    try:
        return timed(fn, reps)
    except (RuntimeError, NotImplementedError) as e:
        print(f"    baseline failed: {str(e).splitlines()[0]}")
        return float("nan")


def scatter(rows, cols, n, reduce):
    def aggregate(X):
        out = torch.zeros((n, X.shape[1]), dtype=X.dtype, device=X.device)
        index = rows.unsqueeze(1).expand(-1, X.shape[1])
        return out.scatter_reduce(0, index, X[cols], reduce=reduce, include_self=False)
    return aggregate


def main():
    default_data = os.environ.get("GEBLAS_DATA_DIR", str(pathlib.Path(__file__).resolve().parents[3] / "shared" / "data"))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=default_data)
    p.add_argument("--graphs", nargs="*", default=DEFAULT_GRAPHS)
    p.add_argument("--widths", nargs="*", type=int, default=[32, 64, 128, 256, 512])
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--rmat", nargs="*", default=[], help="generated graphs, scale:edge_factor (e.g. 20:16)")
    p.add_argument("--out", default=None, help="Markdown file for the table (a .png plot beside it)")
    results_module.add_argument(p)
    args = p.parse_args()
    if not torch.cuda.is_available() or geblas.cuda_device_count() == 0:
        raise SystemExit("bench_torch_spmm: needs a CUDA GPU")
    dev = torch.device("cuda:0")
    results = results_module.Results("bench_torch_spmm", args.results, device=torch.cuda.get_device_name(0))
    rows_out = []
    for name in args.graphs + [f"rmat-{s.replace(':', '-')}" for s in args.rmat]:
        A = load_graph(name, args.data)
        if A is None:
            continue
        A_torch = A.to_torch()
        r, c, _ = A.tuples()
        rows, cols = torch.from_numpy(r).to(dev), torch.from_numpy(c).to(dev)
        n = A.nrows
        print(f"{name}: {n} vertices, {A.nvals} entries", flush=True)
        for F in args.widths:
            X = torch.randn(A.ncols, F, device=dev, requires_grad=True)
            G = torch.randn(n, F, device=dev)
            cases = {
                "sum": (lambda: gt.spmm(A, X, "sum"), lambda: torch.sparse.mm(A_torch, X), "torch.sparse.mm"),
                "mean": (lambda: gt.spmm(A, X, "mean"), scatter(rows, cols, n, "mean").__call__, "scatter_reduce"),
                "max": (lambda: gt.spmm(A, X, "max"), scatter(rows, cols, n, "amax").__call__, "scatter_reduce"),
            }
            for reduce, (ours, theirs, their_name) in cases.items():
                their = theirs if reduce == "sum" else (lambda f=theirs: f(X))
                with torch.no_grad():
                    f_ours, f_theirs = timed(ours, args.reps), guarded(their, args.reps)
                b_ours = timed(lambda: ours().backward(G), args.reps)
                b_theirs = guarded(lambda: their().backward(G), args.reps)
                X.grad = None
                rows_out.append((name, A.nvals, F, reduce, their_name, f_ours, f_theirs, b_ours, b_theirs))
                key = {"graph": name, "F": F, "reduce": reduce, "baseline": their_name}
                for metric, ms in (("geblas fwd", f_ours), ("baseline fwd", f_theirs), ("geblas fwd+bwd", b_ours),
                                   ("baseline fwd+bwd", b_theirs)):
                    results.add(key, metric, ms, "ms")
                print(f"  F={F:4d} {reduce:4s}: forward {f_ours:8.3f} ms vs {f_theirs:8.3f} ms ({f_theirs / f_ours:5.2f}x); "
                      f"fwd+bwd {b_ours:8.3f} ms vs {b_theirs:8.3f} ms ({b_theirs / b_ours:5.2f}x) [{their_name}]",
                      flush=True)
            del X, G
        torch.cuda.empty_cache()
    results.write()
    lines = ["| graph | nnz | F | reduce | baseline | geblas fwd ms | baseline fwd ms | speed-up | "
             "geblas fwd+bwd ms | baseline fwd+bwd ms | speed-up |", "|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|"]
    for (name, nnz, F, reduce, base, fo, ft, bo, bt) in rows_out:
        lines.append(f"| {name} | {nnz} | {F} | {reduce} | {base} | {fo:.3f} | {ft:.3f} | {ft / fo:.2f}x | "
                     f"{bo:.3f} | {bt:.3f} | {bt / bo:.2f}x |")
    table = "\n".join(lines)
    print(table)
    if args.out:
        out = pathlib.Path(args.out)
        header = (f"# geblas.torch.spmm vs PyTorch aggregation ({torch.cuda.get_device_name(0)}, torch "
                  f"{torch.__version__})\n\nMedian wall ms of {args.reps} calls; written by "
                  f"bench/python/bench_torch_spmm.py.\n\n")
        out.write_text(header + table + "\n")
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            fig, axes = plt.subplots(1, 3, figsize=(15, 4), sharey=True)
            for ax, reduce in zip(axes, ["sum", "mean", "max"]):
                for name in dict.fromkeys(r[0] for r in rows_out):
                    pts = [(r[2], r[8] / r[7]) for r in rows_out if r[0] == name and r[3] == reduce]
                    ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=name)
                ax.axhline(1, color="grey", lw=0.8)
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_title(f"{reduce}: baseline / geblas, forward + backward")
                ax.set_xlabel("feature width F")
            axes[0].set_ylabel("speed-up")
            axes[-1].legend(fontsize=7)
            fig.tight_layout()
            fig.savefig(out.with_suffix(".png"), dpi=120)
        except ImportError:
            print("matplotlib not installed: no plot")


if __name__ == "__main__":
    main()
