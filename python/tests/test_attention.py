# softmax_rows (geblas.softmax_rows, its backward, the edge softmax binding) and the fused
# GAT aggregation: the bindings on the CPU against NumPy loops (no torch needed), and
# geblas.torch's edge_softmax / gat_attention / gat_conv against a plain-torch dense
# implementation (forward and gradients, float64) and, where torch_geometric is
# installed, against PyG's GATConv on the same weights; on the CPU and, where usable, a GPU.
import numpy as np
import pytest
import scipy.sparse as sp

import geblas
from geblas import _geblas


def random_pattern(rng, n, m, density=0.05, long_row=None, long_len=0):
    S = sp.random(n, m, density=density, format="lil", random_state=np.random.RandomState(int(rng.integers(1 << 30))))
    for i in range(0, n, 5):
        S[i, :] = 0  # empty rows
    if long_row is not None:
        cols = rng.choice(m, size=long_len, replace=False)
        S[long_row, cols] = 1.0
    S = sp.csr_array(S)
    S.sort_indices()
    return S


def np_softmax_rows(indptr, x):
    out = np.zeros_like(x, dtype=np.float64)
    for i in range(len(indptr) - 1):
        v = x[indptr[i]:indptr[i + 1]].astype(np.float64)
        if v.size == 0:
            continue
        mx = v.max()
        if np.isneginf(mx):
            continue  # a row of -inf: zeros
        e = np.exp(v - mx)
        out[indptr[i]:indptr[i + 1]] = e / e.sum()
    return out


def with_values(S, values):
    T = S.copy()
    T.data = values
    return T


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-13), ("float32", 2e-6)])
def test_softmax_rows_matches_numpy(rng, dtype, tol):
    S = random_pattern(rng, 200, 3000, long_row=3, long_len=2500)
    x = rng.uniform(-1000, 1000, S.nnz)  # exp overflows without the shift
    x[::11] = -np.inf
    row = 7  # a row of -inf only: zeros
    x[S.indptr[row]:S.indptr[row + 1]] = -np.inf
    S = with_values(S, x.astype(dtype))
    P = geblas.softmax_rows(geblas.Matrix.from_scipy(S))
    indptr, indices, values = P.csr()
    assert np.array_equal(indptr, S.indptr) and np.array_equal(indices, S.indices)
    want = np_softmax_rows(S.indptr, S.data)
    np.testing.assert_allclose(values, want, rtol=tol, atol=tol)
    assert np.all(values[S.indptr[row]:S.indptr[row + 1]] == 0)


def test_softmax_rows_nan_and_16bit(rng):
    S = sp.csr_array(np.array([[1.0, np.nan, 0.0], [2.0, 0.0, 3.0]]))
    S.data[S.data == 0] = 0.5  # keep every entry stored
    P = geblas.softmax_rows(geblas.Matrix.from_scipy(S))
    v = P.csr()[2]
    assert np.all(np.isnan(v[:2])) and not np.any(np.isnan(v[2:]))
    h = geblas.softmax_rows(geblas.Matrix.from_scipy(S).astype("float16"))
    assert h.dtype == "float16"


def test_softmax_rows_backward_matches_numpy(rng):
    S = random_pattern(rng, 150, 400)
    S = with_values(S, rng.standard_normal(S.nnz))
    P = geblas.softmax_rows(geblas.Matrix.from_scipy(S))
    p = P.csr()[2]
    g = rng.standard_normal(S.nnz)
    dS = geblas.softmax_rows_backward(P, geblas.Matrix.from_scipy(with_values(S, g)))
    want = np.zeros_like(p)
    for i in range(S.shape[0]):
        s = slice(S.indptr[i], S.indptr[i + 1])
        want[s] = p[s] * (g[s] - np.dot(p[s], g[s]))
    np.testing.assert_allclose(dS.csr()[2], want, rtol=1e-12, atol=1e-14)
    # the edge-value binding: the same forward and backward on 1-D arrays
    out = np.empty(S.nnz)
    _geblas._edge_softmax(geblas.Matrix.from_scipy(S), S.data.copy(), out, None, None)
    np.testing.assert_allclose(out, p, rtol=1e-14)
    _geblas._edge_softmax(geblas.Matrix.from_scipy(S), p.copy(), out, g, None)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-14)


def test_softmax_rows_errors():
    A = geblas.Matrix.from_scipy(sp.csr_array(np.array([[1, 2], [0, 3]], dtype=np.int32)))
    with pytest.raises(geblas.DomainMismatch):
        geblas.softmax_rows(A)
    P = geblas.Matrix.from_scipy(sp.csr_array(np.array([[1.0, 2.0], [0.0, 3.0]])))
    Q = geblas.Matrix.from_scipy(sp.csr_array(np.array([[1.0, 0.0], [2.0, 3.0]])))
    with pytest.raises(geblas.InvalidValue):
        geblas.softmax_rows_backward(P, Q)  # same count, other row lengths
    with pytest.raises(geblas.DimensionMismatch):
        _geblas._edge_softmax(P, np.ones(2), np.empty(2), None, None)


def np_gat(S, el, er, V, slope, dY):
    """Forward and backward of the GAT aggregation, loops over A's rows in float64."""
    n, H = el.shape
    F = V.shape[1] // H
    Y = np.zeros_like(V)
    alpha = np.zeros((S.nnz, H))
    dV, d_el, d_er = np.zeros_like(V), np.zeros_like(el), np.zeros_like(er)
    for i in range(n):
        s_ = slice(S.indptr[i], S.indptr[i + 1])
        cols = S.indices[s_]
        if cols.size == 0:
            continue
        for h in range(H):
            s = el[i, h] + er[cols, h]
            e = np.where(s > 0, s, s * slope)
            a = np.exp(e - e.max())
            a /= a.sum()
            alpha[s_, h] = a
            Vh = V[cols, h * F:(h + 1) * F]
            Y[i, h * F:(h + 1) * F] = a @ Vh
            dy = dY[i, h * F:(h + 1) * F]
            da = Vh @ dy
            ds = a * (da - np.dot(a, da)) * np.where(s > 0, 1.0, slope)
            d_el[i, h] = ds.sum()
            np.add.at(d_er[:, h], cols, ds)
            np.add.at(dV[:, h * F:(h + 1) * F], cols, np.outer(a, dy))
    return Y, alpha, dV, d_el, d_er


@pytest.mark.parametrize("H,F", [(1, 1), (2, 7), (8, 16), (1, 64)])
def test_gat_binding_matches_numpy(rng, H, F):
    n = 120
    S = random_pattern(rng, n, n, density=0.06, long_row=4, long_len=100)
    A = geblas.Matrix.from_scipy(S)
    el, er = rng.standard_normal((n, H)), rng.standard_normal((n, H))
    V, dY = rng.standard_normal((n, H * F)), rng.standard_normal((n, H * F))
    want = np_gat(S, el, er, V, 0.2, dY)
    Y, alpha = np.empty((n, H * F)), np.empty((S.nnz, H))
    _geblas._gat_attention(A, el, er, V, Y, alpha, 0.2, None)
    np.testing.assert_allclose(Y, want[0], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(alpha, want[1], rtol=1e-12, atol=1e-14)
    dV, d_el, d_er = np.empty_like(V), np.empty_like(el), np.empty_like(er)
    _geblas._gat_attention_backward(A, el, er, V, alpha, dY, dV, d_el, d_er, 0.2, None)
    for got, w in zip((dV, d_el, d_er), want[2:]):
        np.testing.assert_allclose(got, w, rtol=1e-11, atol=1e-12)


def test_gat_binding_errors(rng):
    S = random_pattern(rng, 10, 10, density=0.3)
    A = geblas.Matrix.from_scipy(S)
    el = np.zeros((10, 2))
    with pytest.raises(geblas.DimensionMismatch):  # 5 columns are not 2 heads
        _geblas._gat_attention(A, el, el, np.zeros((10, 5)), np.empty((10, 5)), np.empty((S.nnz, 2)), 0.2, None)
    with pytest.raises(geblas.DomainMismatch):
        _geblas._gat_attention(A, el.astype(np.float32), el, np.zeros((10, 4)), np.empty((10, 4)),
                               np.empty((S.nnz, 2)), 0.2, None)


# --- torch --------------------------------------------------------------------------------

def _torch():
    return pytest.importorskip("torch", reason="torch is not installed: geblas.torch's attention is not tested")


def _devices():
    try:
        import torch
    except ImportError:
        return ["cpu"]
    usable = torch.cuda.is_available() and geblas.cuda_device_count() > 0
    return ["cpu", pytest.param("cuda:0", marks=pytest.mark.skipif(not usable, reason="no usable CUDA device"))]


def dense_gat(mask, el, er, V, slope):
    """Plain-torch GAT aggregation over a dense n x n pattern (rows without entries: 0)."""
    import torch
    n, H = el.shape
    s = el.unsqueeze(1) + er.unsqueeze(0)  # (i, j, h)
    e = torch.nn.functional.leaky_relu(s, slope)
    e = e.masked_fill(~mask.unsqueeze(2), float("-inf"))
    a = torch.softmax(e, dim=1)
    a = torch.where(mask.any(1).view(n, 1, 1), a, torch.zeros_like(a))
    Vh = V.reshape(n, H, -1)
    return torch.einsum("ijh,jhf->ihf", a, Vh).reshape(V.shape)


def torch_graph(rng, n, device, density=0.08):
    import torch
    S = random_pattern(rng, n, n, density=density)
    A = geblas.Matrix.from_scipy(S).to(device)
    mask = torch.tensor(S.toarray() != 0, device=device)
    return S, A, mask


@pytest.mark.parametrize("device", _devices())
@pytest.mark.parametrize("H,F", [(1, 1), (2, 7), (8, 16)])
def test_gat_attention_matches_dense_torch(rng, device, H, F):
    torch = _torch()
    import geblas.torch as gt
    n = 90
    S, A, mask = torch_graph(rng, n, device)
    g = torch.Generator().manual_seed(int(rng.integers(1 << 30)))
    el, er = (torch.randn(n, H, generator=g, dtype=torch.float64).to(device).requires_grad_() for _ in range(2))
    V = torch.randn(n, H, F, generator=g, dtype=torch.float64).to(device).requires_grad_()
    Y = gt.gat_attention(A, el, er, V, 0.2)
    W = dense_gat(mask, el, er, V, 0.2)
    assert Y.shape == V.shape
    torch.testing.assert_close(Y, W, rtol=1e-10, atol=1e-10)
    dY = torch.randn(Y.shape, generator=g, dtype=torch.float64).to(device)
    got = torch.autograd.grad(Y, (el, er, V), dY)
    want = torch.autograd.grad(W, (el, er, V), dY)
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("device", _devices())
def test_edge_softmax_matches_dense_torch(rng, device):
    torch = _torch()
    import geblas.torch as gt
    n = 80
    S, A, mask = torch_graph(rng, n, device)
    rows = torch.repeat_interleave(torch.arange(n), torch.from_numpy(np.diff(S.indptr))).to(device)
    cols = torch.from_numpy(S.indices.astype(np.int64)).to(device)
    for shape in [(S.nnz,), (S.nnz, 3)]:
        x = torch.randn(shape, dtype=torch.float64, device=device, requires_grad=True)
        p = gt.edge_softmax(A, x)
        dense = torch.full((n, n) + tuple(shape[1:]), float("-inf"), dtype=torch.float64, device=device)
        dense = dense.index_put((rows, cols), x)
        q = torch.softmax(dense, dim=1)[rows, cols]
        torch.testing.assert_close(p, q, rtol=1e-12, atol=1e-12)
        w = torch.randn(shape, dtype=torch.float64, device=device)
        torch.testing.assert_close(torch.autograd.grad(p, x, w)[0], torch.autograd.grad(q, x, w)[0],
                                   rtol=1e-10, atol=1e-12)


def dense_gat_conv(mask, X, W, att_src, att_dst, bias, heads, concat, slope):
    import torch
    n = X.shape[0]
    mask = mask.clone()
    mask.fill_diagonal_(True)  # add_self_loops
    xp = (X @ W.t()).reshape(n, heads, -1)
    er = (xp * att_src.reshape(1, heads, -1)).sum(-1)
    el = (xp * att_dst.reshape(1, heads, -1)).sum(-1)
    out = dense_gat(mask, el, er, xp, slope)
    out = out.reshape(n, -1) if concat else out.mean(1)
    return out + bias


@pytest.mark.parametrize("device", _devices())
@pytest.mark.parametrize("heads,concat", [(1, True), (4, True), (3, False)])
def test_gat_conv_matches_dense_torch_and_pyg(rng, device, heads, concat):
    torch = _torch()
    import geblas.torch as gt
    n, fin, C = 70, 12, 5
    S, A, mask = torch_graph(rng, n, device)
    g = torch.Generator().manual_seed(int(rng.integers(1 << 30)))

    def param(*shape):
        return torch.randn(*shape, generator=g, dtype=torch.float64).to(device).requires_grad_()
    X, W = param(n, fin), param(heads * C, fin)
    att_src, att_dst = param(1, heads, C), param(1, heads, C)
    bias = param(heads * C if concat else C)
    out = gt.gat_conv(A, X, W, att_src, att_dst, bias, heads=heads, concat=concat, negative_slope=0.2)
    want = dense_gat_conv(mask, X, W, att_src, att_dst, bias, heads, concat, 0.2)
    torch.testing.assert_close(out, want, rtol=1e-10, atol=1e-10)
    params = (X, W, att_src, att_dst, bias)
    for a, b in zip(torch.autograd.grad(out.sum(), params), torch.autograd.grad(want.sum(), params)):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)

    try:
        from torch_geometric.nn import GATConv
    except ImportError:
        return  # PyG not installed: the dense reference above is the check
    conv = GATConv(fin, C, heads=heads, concat=concat, negative_slope=0.2, add_self_loops=True, bias=True).to(device)
    conv = conv.double().eval()
    lin = conv.lin if getattr(conv, "lin", None) is not None else conv.lin_src
    with torch.no_grad():
        lin.weight.copy_(W)
        conv.att_src.copy_(att_src)
        conv.att_dst.copy_(att_dst)
        conv.bias.copy_(bias)
    # A(i, j): j -> i, so PyG's edge_index holds (source j, target i) = (column, row).
    rows = np.repeat(np.arange(n), np.diff(S.indptr))
    edge_index = torch.tensor(np.stack([S.indices, rows]), dtype=torch.int64, device=device)
    torch.testing.assert_close(out, conv(X, edge_index), rtol=1e-5, atol=1e-5)
