# geblas.torch's graph inputs (edge_index, torch sparse layouts, batches, the cache) and the
# PyG drop-in layers geblas.torch.nn.GCNConv / SAGEConv, against dense plain-torch oracles
# built by hand from the edge lists, and against PyG's own layers where torch_geometric is
# importable. Random graphs have isolated vertices; Cora comes from GEBLAS_DATA_DIR.
import numpy as np
import pytest

import geblas

torch = pytest.importorskip("torch", reason="geblas.torch needs PyTorch")
import geblas.torch as gt  # noqa: E402
import geblas.torch.nn as gnn  # noqa: E402

try:
    import torch_geometric.nn as pyg_nn
except Exception:  # not installed, or installed without its compiled parts
    pyg_nn = None
needs_pyg = pytest.mark.skipif(pyg_nn is None, reason="needs torch_geometric")
has_cuda = torch.cuda.is_available() and geblas.cuda_device_count() > 0
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not has_cuda, reason="needs a CUDA GPU"))]
REDUCES = ["sum", "mean", "max", "min"]


def random_edges(seed, n=40, e=150, isolated=(5, 17, 39), self_loops=True, duplicates=False, device="cpu"):
    """A random directed edge list over n vertices; the `isolated` vertices have no edge."""
    g = torch.Generator().manual_seed(seed)
    keep = torch.tensor([v for v in range(n) if v not in isolated])
    src = keep[torch.randint(len(keep), (e,), generator=g)]
    dst = keep[torch.randint(len(keep), (e,), generator=g)]
    if not self_loops:
        mask = src != dst
        src, dst = src[mask], dst[mask]
    ei = torch.stack([src, dst])
    if not duplicates:
        key = torch.unique(ei[0] * n + ei[1])
        perm = torch.randperm(key.numel(), generator=g)
        key = key[perm]
        ei = torch.stack([key // n, key % n])
    return ei.to(device)


def dense(ei, n_dst, n_src, w=None, dtype=torch.float64):
    """M(target, source) = sum of the weights of the edges source -> target."""
    w = torch.ones(ei.shape[1], dtype=dtype, device=ei.device) if w is None else w
    M = torch.zeros(n_dst, n_src, dtype=w.dtype, device=ei.device)
    return M.index_put((ei[1], ei[0]), w, accumulate=True)


def oracle(M, X, reduce, present=None):
    present = (M != 0) if present is None else present
    if reduce in ("sum", "mean"):
        Y = M @ X
        if reduce == "mean":
            Y = Y / present.sum(1).clamp(min=1).unsqueeze(1).to(X.dtype)
        return Y
    terms = M.unsqueeze(2) * X.unsqueeze(0)
    fill = -torch.inf if reduce == "max" else torch.inf
    terms = torch.where(present.unsqueeze(2), terms, torch.full((), fill, dtype=X.dtype, device=X.device))
    Y = terms.amax(1) if reduce == "max" else terms.amin(1)
    return torch.where(present.any(1, keepdim=True), Y, torch.zeros((), dtype=X.dtype, device=X.device))


def dtype_for(device):
    return torch.float64 if device == "cpu" else torch.float32


def tol(device):
    return dict(rtol=1e-10, atol=1e-10) if device == "cpu" else dict(rtol=1e-5, atol=1e-5)


# --- inputs ------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("aggregate", ["rows", "columns"])
def test_edge_index_against_dense(device, reduce, aggregate):
    dt = dtype_for(device)
    ei = random_edges(1, device=device)
    n = 40
    w = torch.rand(ei.shape[1], dtype=dt, device=device) + 0.5
    X = torch.randn(n, 6, dtype=dt, device=device)
    Y = gt.spmm(ei, X, reduce, edge_weight=w, num_nodes=n, aggregate=aggregate)
    M = dense(ei, n, n, w)
    if aggregate == "columns":
        M = M.t()
    torch.testing.assert_close(Y, oracle(M, X, reduce), **tol(device))
    # isolated vertices aggregate nothing
    assert torch.all(Y[[5, 17, 39]] == 0)
    # unweighted: every edge weighs 1
    Y1 = gt.spmm(ei, X, reduce, num_nodes=n, aggregate=aggregate)
    M1 = dense(ei, n, n, dtype=dt)
    torch.testing.assert_close(Y1, oracle(M1.t() if aggregate == "columns" else M1, X, reduce), **tol(device))


def test_bipartite_edge_index():
    ei = torch.tensor([[0, 4, 4, 2], [1, 0, 2, 2]])  # sources 0..4, targets 0..2
    X = torch.randn(5, 3, dtype=torch.float64)
    Y = gt.spmm(ei, X, "sum", num_nodes=(5, 3))
    assert Y.shape == (3, 3)
    torch.testing.assert_close(Y, dense(ei, 3, 5) @ X)
    with pytest.raises(geblas.InvalidIndex):
        gt.spmm(ei, X, "sum", num_nodes=(5, 2))


def test_duplicate_edges_sum_and_mean_as_scatter():
    ei = torch.tensor([[0, 0, 1, 2, 0], [1, 1, 2, 1, 1]])  # 0 -> 1 three times
    w = torch.tensor([1.0, 2.0, 3.0, 4.0, 0.5], dtype=torch.float64)
    X = torch.randn(4, 2, dtype=torch.float64)
    want = torch.zeros(4, 2, dtype=torch.float64).index_add(0, ei[1], w.unsqueeze(1) * X[ei[0]])
    torch.testing.assert_close(gt.spmm(ei, X, "sum", edge_weight=w, num_nodes=4), want)
    count = torch.zeros(4, dtype=torch.float64).index_add(0, ei[1], torch.ones(5, dtype=torch.float64))
    want_mean = torch.zeros(4, 2, dtype=torch.float64).index_add(0, ei[1], X[ei[0]]) / count.clamp(min=1)[:, None]
    torch.testing.assert_close(gt.spmm(ei, X, "mean", num_nodes=4), want_mean)
    with pytest.raises(NotImplementedError):
        gt.spmm(ei, X, "max", num_nodes=4)


@pytest.mark.parametrize("layout", ["csr", "csc", "coo"])
@pytest.mark.parametrize("aggregate", ["rows", "columns"])
def test_torch_sparse_layouts(layout, aggregate):
    ei = random_edges(2)
    w = torch.rand(ei.shape[1], dtype=torch.float64) + 0.5
    M = dense(ei, 40, 40, w)  # rows aggregate: PyG's adj_t
    S = {"csr": M.to_sparse_csr(), "csc": M.to_sparse_csc(), "coo": M.to_sparse()}[layout]
    X = torch.randn(40, 5, dtype=torch.float64)
    for reduce in REDUCES:
        want = oracle(M if aggregate == "rows" else M.t(), X, reduce)
        torch.testing.assert_close(gt.spmm(S, X, reduce, aggregate=aggregate), want)


def test_cache_reused_and_rebuilt_after_in_place_change():
    ei = random_edges(3)
    X = torch.randn(40, 4, dtype=torch.float64)
    g1 = gt.graph.cached_graph(ei, 40, "rows", torch.float64)
    assert gt.graph.cached_graph(ei, 40, "rows", torch.float64) is g1
    torch.testing.assert_close(gt.spmm(ei, X, num_nodes=40), dense(ei, 40, 40) @ X)
    ei[0].copy_((ei[0] * 7 + 3) % 40)  # in place: the version counter moves, the object stays
    g2 = gt.graph.cached_graph(ei, 40, "rows", torch.float64)
    assert g2 is not g1
    assert gt.graph.cached_graph(ei, 40, "rows", torch.float64) is g2
    torch.testing.assert_close(gt.spmm(ei, X, num_nodes=40), dense(ei, 40, 40) @ X)
    # another key (dtype, orientation) is another Graph of the same object
    assert gt.graph.cached_graph(ei, 40, "columns", torch.float64) is not g2
    # the entry goes with the object
    del ei, g1, g2
    import gc
    gc.collect()
    before = len(gt.graph._cache)
    e2 = random_edges(4)
    gt.spmm(e2, X, num_nodes=40)
    assert len(gt.graph._cache) == before + 1
    del e2
    gc.collect()
    assert len(gt.graph._cache) == before


def test_sparse_values_changed_in_place_are_seen():
    ei = random_edges(4)
    M = dense(ei, 40, 40, torch.rand(ei.shape[1], dtype=torch.float64) + 0.5)
    S = M.to_sparse_csr()
    X = torch.randn(40, 3, dtype=torch.float64)
    torch.testing.assert_close(gt.spmm(S, X), M @ X)
    S.values().mul_(3)
    torch.testing.assert_close(gt.spmm(S, X), 3 * M @ X)
    # the cache keeps nothing that keeps S alive
    import gc
    gc.collect()
    before = len(gt.graph._cache)
    del S
    gc.collect()
    assert len(gt.graph._cache) == before - 1


def test_layer_cache_goes_with_the_graph():
    import gc
    conv = gnn.GCNConv(4, 3).double()
    x = torch.randn(40, 4, dtype=torch.float64)
    ei = random_edges(14)
    conv(x, ei)
    gc.collect()
    before = len(gt.graph._cache)
    del ei
    gc.collect()
    assert len(gt.graph._cache) == before - 1


@pytest.mark.parametrize("device", DEVICES)
def test_edge_weight_gradient(device):
    dt = dtype_for(device)
    ei = random_edges(5, duplicates=True, device=device)
    w = (torch.rand(ei.shape[1], dtype=dt, device=device) + 0.5).requires_grad_()
    X = torch.randn(40, 4, dtype=dt, device=device, requires_grad=True)
    G = torch.randn(40, 4, dtype=dt, device=device)
    (gt.spmm(ei, X, "sum", edge_weight=w, num_nodes=40) * G).sum().backward()
    w2, X2 = w.detach().clone().requires_grad_(), X.detach().clone().requires_grad_()
    ((dense(ei, 40, 40, w2) @ X2) * G).sum().backward()
    torch.testing.assert_close(w.grad, w2.grad, **tol(device))
    torch.testing.assert_close(X.grad, X2.grad, **tol(device))


def test_sparse_values_gradient():
    ei = random_edges(6)
    M = dense(ei, 40, 40, torch.rand(ei.shape[1], dtype=torch.float64) + 0.5)
    C = M.to_sparse_csr()
    v = C.values().clone().requires_grad_()
    S = torch.sparse_csr_tensor(C.crow_indices(), C.col_indices(), v, size=C.shape)
    X = torch.randn(40, 4, dtype=torch.float64)
    G = torch.randn(40, 4, dtype=torch.float64)
    # the second call takes the cached Graph and reads the values again
    loss = (gt.spmm(S, X) * G).sum() + (gt.spmm(S, X) * G).sum()
    loss.backward()
    rows = torch.repeat_interleave(torch.arange(40), torch.diff(C.crow_indices()))
    want = 2 * (G[rows] * X[C.col_indices()]).sum(1)
    torch.testing.assert_close(v.grad, want)


def test_bad_inputs_raise():
    X = torch.randn(10, 2)
    with pytest.raises(geblas.DimensionMismatch):
        gt.spmm(torch.zeros(3, 4, dtype=torch.int64), X)
    with pytest.raises(geblas.DomainMismatch):
        gt.spmm(torch.zeros(2, 4), X)
    with pytest.raises(geblas.InvalidIndex):
        gt.spmm(torch.tensor([[0, 10], [1, 2]]), X, num_nodes=10)
    with pytest.raises(geblas.InvalidIndex):
        gt.spmm(torch.tensor([[0, -1], [1, 2]]), X, num_nodes=10)
    with pytest.raises(geblas.DimensionMismatch):  # X has 10 rows, the graph 12 vertices
        gt.spmm(torch.tensor([[0, 1], [1, 2]]), X, num_nodes=12)
    with pytest.raises(geblas.DimensionMismatch):
        gt.spmm(torch.tensor([[0, 1], [1, 2]]), X, num_nodes=10, edge_weight=torch.ones(3))
    with pytest.raises(geblas.InvalidValue):
        gt.spmm(torch.tensor([[0, 1], [1, 2]]), X, num_nodes=10, aggregate="target")
    with pytest.raises(geblas.DomainMismatch):
        gt.spmm(torch.tensor([[0, 1], [1, 2]]), X, num_nodes=10, edge_weight=torch.ones(2, dtype=torch.int64))
    with pytest.raises(geblas.DomainMismatch):
        gt.spmm([[0, 1], [1, 2]], X)
    g = gt.Graph(torch.tensor([[0, 1], [1, 2]]), num_nodes=10)
    with pytest.raises(geblas.InvalidValue):
        gt.spmm(g, X, num_nodes=10)
    with pytest.raises(geblas.DomainMismatch):  # a float32 graph, float64 X
        gt.spmm(g, X.double())


@pytest.mark.skipif(not has_cuda, reason="needs a CUDA GPU")
def test_device_mismatch_raises():
    with pytest.raises(geblas.DeviceMismatch):
        gt.spmm(torch.tensor([[0, 1], [1, 2]]), torch.randn(3, 2, device="cuda"), num_nodes=3)
    with pytest.raises(geblas.DeviceMismatch):
        gt.Graph(torch.tensor([[0, 1], [1, 2]], device="cuda"), num_nodes=3, edge_weight=torch.ones(2))


@pytest.mark.parametrize("device", DEVICES)
def test_batch_of_graphs_is_block_diagonal(device):
    dt = dtype_for(device)
    sizes = [7, 1, 12, 5]
    graphs = [(random_edges(10 + k, n=s, e=3 * s, isolated=(), device=device), s) for k, s in enumerate(sizes)]
    b = gt.Graph.batch(graphs, dtype=dt)
    assert b.ptr.tolist() == [0, 7, 8, 20, 25]
    X = torch.randn(25, 3, dtype=dt, device=device)
    for reduce in REDUCES:
        Y = gt.spmm(b, X, reduce)
        for k, (ei, s) in enumerate(graphs):
            lo = int(b.ptr[k])
            want = oracle(dense(ei, s, s, dtype=dt), X[lo:lo + s], reduce)
            torch.testing.assert_close(Y[lo:lo + s], want, **tol(device))
    # PyG's Batch: one edge_index with the offsets in it, and its ptr / batch vector
    ei = torch.cat([g[0] + int(b.ptr[k]) for k, g in enumerate(graphs)], 1)
    batch = torch.repeat_interleave(torch.arange(4, device=device), torch.tensor(sizes, device=device))
    g2 = gt.Graph(ei, batch=batch, dtype=dt)
    torch.testing.assert_close(gt.spmm(g2, X), gt.spmm(b, X), **tol(device))
    bad = torch.cat([ei, torch.tensor([[0], [24]], device=device)], 1)
    with pytest.raises(geblas.InvalidValue, match="joins two graphs"):
        gt.Graph(bad, ptr=b.ptr)


# --- layers against dense oracles --------------------------------------------------------

def gcn_dense(ei, n, w, improved=False, add_self_loops=True, normalize=True):
    """The GCN operator by hand: A(i, j) from each edge j -> i; a self loop of weight 2
    (improved) or 1 on every vertex that has none (an existing one keeps its weight)."""
    A = dense(ei, n, n, w, dtype=torch.float64)
    if normalize:
        if add_self_loops:
            has = torch.zeros(n, dtype=torch.bool)
            has[ei[0][ei[0] == ei[1]]] = True
            for v in range(n):
                if not has[v]:
                    A[v, v] = 2.0 if improved else 1.0
        deg = A.sum(1)
        dis = torch.where(deg > 0, deg.pow(-0.5), torch.zeros((), dtype=deg.dtype))
        A = dis[:, None] * A * dis[None, :]
    return A


@pytest.mark.parametrize("improved", [False, True])
@pytest.mark.parametrize("add_self_loops", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_gcnconv_against_dense(improved, add_self_loops, weighted):
    torch.manual_seed(0)
    n = 40
    ei = random_edges(7)
    w = (torch.rand(ei.shape[1], dtype=torch.float64) + 0.5).requires_grad_() if weighted else None
    conv = gnn.GCNConv(8, 5, improved=improved, add_self_loops=add_self_loops).double()
    with torch.no_grad():
        conv.bias.normal_()
    x = torch.randn(n, 8, dtype=torch.float64, requires_grad=True)
    out = conv(x, ei, w)
    G = torch.randn_like(out)
    (out * G).sum().backward()
    W, b = conv.lin.weight.detach().clone().requires_grad_(), conv.bias.detach().clone().requires_grad_()
    x2 = x.detach().clone().requires_grad_()
    w2 = None if w is None else w.detach().clone().requires_grad_()
    want = gcn_dense(ei, n, w2, improved, add_self_loops) @ (x2 @ W.t()) + b
    (want * G).sum().backward()
    torch.testing.assert_close(out, want)
    torch.testing.assert_close(x.grad, x2.grad)
    torch.testing.assert_close(conv.lin.weight.grad, W.grad)
    torch.testing.assert_close(conv.bias.grad, b.grad)
    if weighted:
        torch.testing.assert_close(w.grad, w2.grad)
    assert set(conv.state_dict()) == {"lin.weight", "bias"}


def test_gcnconv_cached_keeps_the_first_graph():
    torch.manual_seed(1)
    conv = gnn.GCNConv(4, 3, cached=True).double()
    x = torch.randn(40, 4, dtype=torch.float64)
    a, b = random_edges(8), random_edges(9)
    first = conv(x, a)
    torch.testing.assert_close(conv(x, b), first)
    fresh = gnn.GCNConv(4, 3).double()
    fresh.load_state_dict(conv.state_dict())
    torch.testing.assert_close(fresh(x, a), first)
    assert not torch.allclose(fresh(x, b), first)


def test_gcnconv_takes_sparse_adj_t():
    torch.manual_seed(2)
    ei = random_edges(10)
    conv = gnn.GCNConv(4, 3).double()
    x = torch.randn(40, 4, dtype=torch.float64)
    adj_t = dense(ei, 40, 40).to_sparse_csr()
    torch.testing.assert_close(conv(x, adj_t), conv(x, ei))


def sage_dense(ei, x_src, x_dst, conv, aggr):
    n_dst = x_dst.shape[0]
    M = dense(ei, n_dst, x_src.shape[0], dtype=x_src.dtype)
    h = torch.relu(x_src @ conv.lin.weight.t() + conv.lin.bias) if conv.project else x_src
    reduce = {"add": "sum"}.get(aggr, aggr)
    agg = oracle(M if reduce != "mean" else M, h, reduce, present=M != 0)
    if reduce == "mean":
        agg = (M @ h) / M.sum(1).clamp(min=1)[:, None]
    out = agg @ conv.lin_l.weight.t()
    if conv.lin_l.bias is not None:
        out = out + conv.lin_l.bias
    if conv.root_weight:
        out = out + x_dst @ conv.lin_r.weight.t()
    if conv.normalize:
        out = torch.nn.functional.normalize(out, p=2.0, dim=-1)
    return out


@pytest.mark.parametrize("aggr", ["mean", "max", "sum"])
@pytest.mark.parametrize("options", [{}, {"normalize": True}, {"root_weight": False}, {"project": True},
                                     {"bias": False}])
def test_sageconv_against_dense(aggr, options):
    torch.manual_seed(3)
    ei = random_edges(11)
    conv = gnn.SAGEConv(6, 4, aggr=aggr, **options).double()
    x = torch.randn(40, 6, dtype=torch.float64, requires_grad=True)
    out = conv(x, ei)
    G = torch.randn_like(out)
    (out * G).sum().backward()
    params = {k: p.detach().clone() for k, p in conv.named_parameters()}
    ref = gnn.SAGEConv(6, 4, aggr=aggr, **options).double()
    ref.load_state_dict(params)
    x2 = x.detach().clone().requires_grad_()
    want = sage_dense(ei, x2, x2, ref, aggr)
    (want * G).sum().backward()
    torch.testing.assert_close(out, want)
    torch.testing.assert_close(x.grad, x2.grad)
    for k, p in ref.named_parameters():
        torch.testing.assert_close(dict(conv.named_parameters())[k].grad, p.grad)
    names = {"lin_l.weight"} | ({"lin_l.bias"} if options.get("bias", True) else set()) | \
        ({"lin_r.weight"} if options.get("root_weight", True) else set()) | \
        ({"lin.weight", "lin.bias"} if options.get("project") else set())
    assert set(conv.state_dict()) == names


def test_sageconv_bipartite():
    torch.manual_seed(4)
    ei = torch.tensor([[0, 4, 4, 2, 3], [1, 0, 2, 2, 2]])
    conv = gnn.SAGEConv((5, 3), 2).double()
    xs, xd = torch.randn(5, 5, dtype=torch.float64), torch.randn(3, 3, dtype=torch.float64)
    torch.testing.assert_close(conv((xs, xd), ei), sage_dense(ei, xs, xd, conv, "mean"))


# --- against PyG -------------------------------------------------------------------------

def cora_edges(data_file):
    A = geblas.read_matrix_market(data_file("cora.mtx.gz"), dtype="float32")
    r, c, _ = A.tuples()
    return torch.stack([torch.from_numpy(np.asarray(c, np.int64)), torch.from_numpy(np.asarray(r, np.int64))]), A.nrows


def compare_with_pyg(ours, theirs, x, ei, *args):
    theirs.load_state_dict(ours.state_dict())
    x1, x2 = x.clone().requires_grad_(), x.clone().requires_grad_()
    a, b = ours(x1, ei, *args), theirs(x2, ei, *args)
    torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    G = torch.randn_like(a)
    (a * G).sum().backward()
    (b * G).sum().backward()
    torch.testing.assert_close(x1.grad, x2.grad, rtol=1e-5, atol=1e-5)
    mine, pyg = dict(ours.named_parameters()), dict(theirs.named_parameters())
    assert set(mine) == set(pyg)
    for k, p in mine.items():
        torch.testing.assert_close(p.grad, pyg[k].grad, rtol=1e-5, atol=1e-5)


@needs_pyg
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("improved", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_gcnconv_matches_pyg(device, improved, weighted):
    torch.manual_seed(5)
    ei = random_edges(12, device=device)
    w = torch.rand(ei.shape[1], device=device) + 0.5 if weighted else None
    x = torch.randn(40, 8, device=device)
    args = () if w is None else (w,)
    compare_with_pyg(gnn.GCNConv(8, 4, improved=improved).to(device),
                     pyg_nn.GCNConv(8, 4, improved=improved).to(device), x, ei, *args)


@needs_pyg
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("aggr", ["mean", "max"])
@pytest.mark.parametrize("options", [{}, {"normalize": True, "project": True}, {"root_weight": False}])
def test_sageconv_matches_pyg(device, aggr, options):
    torch.manual_seed(6)
    ei = random_edges(13, device=device)
    x = torch.randn(40, 8, device=device)
    compare_with_pyg(gnn.SAGEConv(8, 4, aggr=aggr, **options).to(device),
                     pyg_nn.SAGEConv(8, 4, aggr=aggr, **options).to(device), x, ei)


@pytest.mark.parametrize("device", DEVICES)
def test_layers_on_cora(device, data_file):
    ei, n = cora_edges(data_file)
    ei = ei.to(device)
    torch.manual_seed(7)
    x = torch.randn(n, 16, device=device)
    gcn = gnn.GCNConv(16, 7).to(device)
    sage = gnn.SAGEConv(16, 7, aggr="max").to(device)
    if pyg_nn is not None:
        compare_with_pyg(gcn, pyg_nn.GCNConv(16, 7).to(device), x, ei)
        compare_with_pyg(sage, pyg_nn.SAGEConv(16, 7, aggr="max").to(device), x, ei)
        return
    xd = x.double().cpu()
    eic = ei.cpu()
    want = gcn_dense(eic, n, None) @ (xd @ gcn.lin.weight.double().cpu().t()) + gcn.bias.double().cpu()
    torch.testing.assert_close(gcn(x, ei).double().cpu(), want, rtol=1e-5, atol=1e-5)
    ref = gnn.SAGEConv(16, 7, aggr="max").double()
    ref.load_state_dict({k: v.double().cpu() for k, v in sage.state_dict().items()})
    torch.testing.assert_close(sage(x, ei).double().cpu(), sage_dense(eic, xd, xd, ref, "max"), rtol=1e-5, atol=1e-5)


@needs_pyg
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("heads,concat", [(1, True), (3, True), (3, False)])
def test_gatconv_matches_pyg(device, heads, concat):
    # evaluation mode: the fused attention
    torch.manual_seed(8)
    ei = random_edges(14, device=device)
    x = torch.randn(40, 8, device=device)
    ours = gnn.GATConv(8, 4, heads=heads, concat=concat).to(device).eval()
    compare_with_pyg(ours, pyg_nn.GATConv(8, 4, heads=heads, concat=concat).to(device).eval(), x, ei)


@needs_pyg
@pytest.mark.parametrize("device", DEVICES)
def test_gatconv_dropout_path_matches_pyg(device):
    # training with attention dropout takes the unfused path (scores, edge softmax, an SpMM
    # per head); a dropout probability of 1e-12 drops nothing, so it must give PyG's
    # dropout-free result, gradients included
    torch.manual_seed(9)
    ei = random_edges(15, device=device)
    x = torch.randn(40, 8, device=device)
    ours = gnn.GATConv(8, 4, heads=2, dropout=1e-12).to(device).train()
    compare_with_pyg(ours, pyg_nn.GATConv(8, 4, heads=2).to(device).train(), x, ei)


@pytest.mark.parametrize("device", DEVICES)
def test_gatconv_against_dense(device):
    # the fused and the unfused paths against a dense softmax over each row's neighbours and itself
    torch.manual_seed(10)
    ei = random_edges(16, device=device)
    n, heads, C = 40, 2, 3
    x = torch.randn(n, 5, device=device)
    conv = gnn.GATConv(5, C, heads=heads).to(device)
    with torch.no_grad():
        xp = (x @ conv.lin.weight.t()).view(n, heads, C).double().cpu()
        el = (xp * conv.att_dst.double().cpu()).sum(-1)
        er = (xp * conv.att_src.double().cpu()).sum(-1)
        M = dense(ei.cpu(), n, n) != 0
        M.fill_diagonal_(True)
        s = torch.nn.functional.leaky_relu(el.t().unsqueeze(2) + er.t().unsqueeze(1), 0.2)  # heads x n x n
        s = torch.where(M.unsqueeze(0), s, torch.full((), -torch.inf, dtype=s.dtype))
        want = torch.einsum("hij,jhc->ihc", torch.softmax(s, -1), xp).reshape(n, heads * C) + conv.bias.double().cpu()
        for mode, p in (("eval", 0.0), ("train", 1e-12)):
            conv.dropout = p
            conv.train(mode == "train")
            got = conv(x, ei).double().cpu()
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5, msg=f"{mode} path")
