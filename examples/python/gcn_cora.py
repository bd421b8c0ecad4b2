#!/usr/bin/env python3
"""A 2-layer GCN (Kipf & Welling 2017) and a 2-layer GraphSAGE with max aggregation
(Hamilton et al. 2017) trained on Cora, with geblas.torch.spmm doing the neighbourhood
aggregation, and the same models with the usual PyTorch aggregation (torch.sparse.mm for
GCN, gather + scatter_reduce for max) for comparison: accuracy per epoch and time per epoch.

Split: Planetoid's public one (Yang et al. 2016, used by Kipf and Welling): 20 labelled
vertices per class for training (140), 500 for validation, 1000 for testing, as
cora.labels.txt marks them. GCN test accuracy lands near 0.81, where the paper puts it;
examples/python/gnn_accuracy.py measures it over seeds and datasets.

    PYTHONPATH=build/python python3 examples/python/gcn_cora.py --data DIR [--epochs 200]
"""

import argparse
import os
import pathlib
import time

import numpy as np
import torch
import torch.nn.functional as F

import geblas
import geblas.torch as gt


def load_cora(data_dir, device):
    A = geblas.read_matrix_market(data_dir / "cora.mtx.gz", dtype="float32")
    features = geblas.read_matrix_market(data_dir / "cora.features.mtx.gz", dtype="float32")
    X = torch.from_numpy(features.to_dense())
    X = X / X.sum(1, keepdim=True).clamp(min=1)  # row-normalised bag of words, as GCN does
    labels = np.full(A.nrows, -1, dtype=np.int64)
    split = {"train": [], "val": [], "test": []}
    for line in open(data_dir / "cora.labels.txt"):
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split()
        labels[int(fields[0])] = int(fields[1])
        if len(fields) > 2 and fields[2] in split:
            split[fields[2]].append(int(fields[0]))
    masks = [torch.tensor(sorted(split[k]), dtype=torch.int64, device=device) for k in ("train", "val", "test")]
    return A, X.to(device), torch.from_numpy(labels).to(device), masks


class GCN(torch.nn.Module):
    def __init__(self, aggregate, n_in, n_hidden, n_out, dropout=0.5):
        super().__init__()
        self.aggregate, self.dropout = aggregate, dropout
        self.lin1 = torch.nn.Linear(n_in, n_hidden)
        self.lin2 = torch.nn.Linear(n_hidden, n_out)

    def forward(self, X):
        H = F.dropout(X, self.dropout, self.training)
        H = F.relu(self.aggregate(self.lin1(H)))
        H = F.dropout(H, self.dropout, self.training)
        return self.aggregate(self.lin2(H))


class SageMax(torch.nn.Module):
    """h' = W_self h + W_neigh max_{j in N(i)} h_j (PyG's SAGEConv with aggr='max')."""

    def __init__(self, aggregate, n_in, n_hidden, n_out, dropout=0.5):
        super().__init__()
        self.aggregate, self.dropout = aggregate, dropout
        self.self1, self.neigh1 = torch.nn.Linear(n_in, n_hidden), torch.nn.Linear(n_in, n_hidden, bias=False)
        self.self2, self.neigh2 = torch.nn.Linear(n_hidden, n_out), torch.nn.Linear(n_hidden, n_out, bias=False)

    def forward(self, X):
        H = F.dropout(X, self.dropout, self.training)
        # Project first, then aggregate: max over 16 columns instead of 1433.
        H = F.relu(self.self1(H) + self.aggregate(self.neigh1(H)))
        H = F.dropout(H, self.dropout, self.training)
        return self.self2(H) + self.aggregate(self.neigh2(H))


def train(name, model, X, y, masks, epochs, lr=0.01, weight_decay=5e-4):
    train_idx, val_idx, test_idx = masks
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    best_val, test_at_best, times = 0.0, 0.0, []
    for epoch in range(1, epochs + 1):
        if X.is_cuda:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        model.train()
        opt.zero_grad()
        loss = F.cross_entropy(model(X)[train_idx], y[train_idx])
        loss.backward()
        opt.step()
        if X.is_cuda:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        model.eval()
        with torch.no_grad():
            pred = model(X).argmax(1)
        acc = [(pred[i] == y[i]).float().mean().item() for i in (train_idx, val_idx, test_idx)]
        if acc[1] >= best_val:
            best_val, test_at_best = acc[1], acc[2]
        if epoch == 1 or epoch % 20 == 0 or epoch == epochs:
            print(f"  {name:<26} epoch {epoch:3d}  loss {loss.item():.4f}  train {acc[0]:.3f}  val {acc[1]:.3f}  "
                  f"test {acc[2]:.3f}  {1e3 * times[-1]:.2f} ms/epoch")
    median_ms = 1e3 * float(np.median(times[5:] if len(times) > 10 else times))
    print(f"  {name:<26} best val {best_val:.3f} -> test {test_at_best:.3f}; median {median_ms:.2f} ms per "
          f"training epoch (forward + backward + step)")
    return test_at_best, median_ms


def scatter_max(A_rows, A_cols, n):
    """The usual PyTorch max aggregation: gather the neighbours, scatter_reduce 'amax';
    rows without neighbours give 0."""
    def aggregate(H):
        out = torch.zeros((n, H.shape[1]), dtype=H.dtype, device=H.device)
        index = A_rows.unsqueeze(1).expand(-1, H.shape[1])
        return out.scatter_reduce(0, index, H[A_cols], reduce="amax", include_self=False)
    return aggregate


def main():
    # Cora is not bundled with geblas: its folder comes from --data or GEBLAS_DATA_DIR.
    default_data = os.environ.get("GEBLAS_DATA_DIR")
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=default_data, required=default_data is None,
                   help="folder with cora.mtx.gz, cora.features.mtx.gz, cora.labels.txt (default: $GEBLAS_DATA_DIR)")
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() and geblas.cuda_device_count() else "cpu")
    args = p.parse_args()
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    A, X, y, masks = load_cora(pathlib.Path(args.data), device)
    n_classes = int(y.max().item()) + 1
    print(f"cora: {A.nrows} vertices, {A.nvals} entries, {X.shape[1]} features, {n_classes} classes; "
          f"split {[len(m) for m in masks]}; device {device}")

    A_dev = A.to(str(device)) if device.type == "cuda" else A
    A_hat = geblas.gcn_normalize(A_dev)  # D^-1/2 (A + I) D^-1/2, built on the device
    A_hat_torch = A_hat.to_torch()        # the same matrix for torch.sparse.mm
    rows, cols, _ = A.tuples()
    rows, cols = torch.from_numpy(rows).to(device), torch.from_numpy(cols).to(device)

    results = {}
    for name, aggregate, model in [
        ("GCN geblas", lambda H: gt.spmm(A_hat, H, "sum"), GCN),
        ("GCN torch.sparse.mm", lambda H: torch.sparse.mm(A_hat_torch, H), GCN),
        ("SAGE-max geblas", lambda H: gt.spmm(A_dev, H, "max"), SageMax),
        ("SAGE-max scatter_reduce", scatter_max(rows, cols, A.nrows), SageMax),
    ]:
        torch.manual_seed(args.seed)
        m = model(aggregate, X.shape[1], 16, n_classes).to(device)
        results[name] = train(name, m, X, y, masks, args.epochs)
    print("summary (test accuracy at best validation, median ms per training epoch):")
    for name, (acc, ms) in results.items():
        print(f"  {name:<26} {acc:.3f}  {ms:.2f} ms")


if __name__ == "__main__":
    main()
