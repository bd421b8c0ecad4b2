#!/usr/bin/env python3
"""A GAT layer's forward + backward on the GPU, geblas against PyG: geblas.torch.gat_conv
(geblas's fused attention: one kernel computes the scores, the row softmax and the
aggregation, the backward one more plus the transpose's aggregation) and
torch_geometric.nn.GATConv (gathers, scatters and exponentials over the edges), on the
same Parameter objects, so both compute the same function of the same weights.

Each case: X (n x in) float32, a layer with `heads` heads of `C` channels (concat), its
forward, then backward of a fixed random gradient into the weights (W, att_src, att_dst,
bias: what training computes; X needs no gradient). Before any time is taken the two
outputs and the four weight gradients are compared (relative 1e-4, both ways). Each time
is the median of --reps calls after warm-up, torch.cuda.synchronize() around each call.

    PYTHONPATH=build/python python3 bench/python/bench_gat.py --data ../shared/data \\
        --graphs cora soc-Slashdot0902 ego-Twitter-undirected rmat-20-16 --heads 1:64 8:8

Graph names as bench_torch_spmm.py takes them (rmat-SCALE-EF generated, others read from
--data). Prints a Markdown table; the speed-up is PyG's time over geblas's.
"""

import argparse
import pathlib
import sys

import torch

import geblas
import geblas.torch as gt
from bench_torch_spmm import load_graph, timed

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "common"))
import results as results_module  # noqa: E402  (bench/common/results.py)


def edge_index_of(A):
    """PyG's edge_index of geblas.Matrix A: the entry A(i, j) is the edge j -> i (row i
    aggregates over its columns), so sources are the columns and targets the rows."""
    indptr, indices, _ = (torch.utils.dlpack.from_dlpack(e) for e in A._csr())
    rows = torch.repeat_interleave(torch.arange(A.nrows, device=indptr.device), torch.diff(indptr))
    return torch.stack([indices.to(torch.int64), rows])


def weights_of(conv):
    lin = conv.lin if getattr(conv, "lin", None) is not None else conv.lin_src
    return lin.weight, conv.att_src, conv.att_dst, conv.bias


def close(a, b, what):
    err = (a - b).abs().max().item()
    scale = max(a.abs().max().item(), b.abs().max().item(), 1e-30)
    if err > 1e-4 * scale:
        raise SystemExit(f"WRONG: {what} differs from PyG's by {err:.3e} (scale {scale:.3e})")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default="../shared/data")
    p.add_argument("--graphs", nargs="+", default=["cora", "soc-Slashdot0902", "ego-Twitter-undirected", "rmat-20-16"])
    p.add_argument("--heads", nargs="+", default=["1:64", "8:8"], help="HEADS:CHANNELS per case")
    p.add_argument("--in-channels", type=int, default=64)
    p.add_argument("--reps", type=int, default=10)
    results_module.add_argument(p)
    args = p.parse_args()
    try:
        from torch_geometric.nn import GATConv
    except ImportError as e:
        raise SystemExit(f"torch_geometric is needed for the baseline: {e}")
    torch.manual_seed(0)
    dev = torch.device("cuda:0")
    results = results_module.Results("bench_gat", args.results, device=torch.cuda.get_device_name(0))
    print("| graph | nnz | heads x C | geblas fwd+bwd ms | PyG fwd+bwd ms | speed-up | geblas fwd ms | PyG fwd ms |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for name in args.graphs:
        A = load_graph(name, args.data)
        if A is None:
            continue
        ei = edge_index_of(A)
        n = A.nrows
        X = torch.randn(n, args.in_channels, device=dev)
        for spec in args.heads:
            heads, C = (int(x) for x in spec.split(":"))
            conv = GATConv(args.in_channels, C, heads=heads, concat=True, add_self_loops=True).to(dev)
            W, att_src, att_dst, bias = weights_of(conv)
            params = [W, att_src, att_dst, bias]
            G = torch.randn(n, heads * C, device=dev)

            def ours():
                return gt.gat_conv(A, X, W, att_src, att_dst, bias, heads=heads, concat=True)

            def theirs():
                return conv(X, ei)

            def step(fn):
                for q in params:
                    q.grad = None
                y = fn()
                y.backward(G)
                return y

            y1 = step(ours)
            g1 = [q.grad.clone() for q in params]
            y2 = step(theirs)
            g2 = [q.grad.clone() for q in params]
            close(y1.detach(), y2.detach(), f"{name} {spec} output")
            for q1, q2, what in zip(g1, g2, ("W", "att_src", "att_dst", "bias")):
                close(q1, q2, f"{name} {spec} grad {what}")
            ours_both = timed(lambda: step(ours), args.reps)
            theirs_both = timed(lambda: step(theirs), args.reps)
            with torch.no_grad():
                ours_fwd = timed(ours, args.reps)
                theirs_fwd = timed(theirs, args.reps)
            nnz = ei.shape[1]
            print(f"| {name} | {nnz} | {heads} x {C} | {ours_both:.3f} | {theirs_both:.3f} | "
                  f"{theirs_both / ours_both:.2f}x | {ours_fwd:.3f} | {theirs_fwd:.3f} |", flush=True)
            key = {"graph": name, "nnz": nnz, "heads": heads, "C": C, "in": args.in_channels}
            for metric, value in (("geblas fwd+bwd", ours_both), ("pyg fwd+bwd", theirs_both),
                                  ("geblas fwd", ours_fwd), ("pyg fwd", theirs_fwd)):
                results.add(key, metric, value, "ms")
            results.add(key, "speed-up fwd+bwd", theirs_both / ours_both, "x")
            del conv, G
        del A, ei, X
        torch.cuda.empty_cache()
    results.write()


if __name__ == "__main__":
    main()
