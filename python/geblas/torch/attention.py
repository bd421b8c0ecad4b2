"""geblas.torch's attention: the edge softmax and the fused GAT aggregation as autograd
functions over geblas's kernels, and a functional GAT layer built from them.

Conventions: A is a geblas.Matrix, a geblas.torch.Graph or a graph Graph takes (an
edge_index, a torch sparse tensor ...: built once and cached; its values are not read);
row i of A aggregates over its stored columns j, so A(i, j) means "j is a neighbour of i"
and messages flow from j to i. In PyG's terms an edge (j -> i) of
edge_index = [sources, targets] is the entry A(i, j). Per-edge tensors are in A's CSR
order (row by row, columns ascending within a row).

``edge_softmax(A, values)``: values (nnz,) or (nnz, H); each row's (and head's) softmax
over its stored entries (geblas.softmax_rows; a row of -inf gives zeros).

``gat_attention(A, el, er, V, negative_slope)``: with el, er (n, H) and V (n, H, F) or
(n, H * F), Y_i^h = sum_j alpha_ij^h V_j^h where alpha^h is the softmax over row i of
leaky_relu(el_i^h + er_j^h); Y has V's shape. One fused geblas kernel each way; the
forward keeps only alpha (nnz x H) for the backward.

``gat_conv(A, X, W, att_src, att_dst, bias, heads, concat, negative_slope,
add_self_loops)``: PyG's GATConv (eval mode, no dropout) on the same weights: x' = X W'
per head (W is PyG's lin.weight, heads * C x in_channels), alpha_src = (x' * att_src).sum(-1)
scores the source j of an edge and alpha_dst = (x' * att_dst).sum(-1) its target i, so
el = alpha_dst (the row term) and er = alpha_src (the column term); concat=True gives
(n, heads * C), False the mean over heads (n, C); then + bias. add_self_loops=True (PyG's
default) first removes A's diagonal entries and adds every (i, i), as GATConv does; the
matrix with the loops is kept on a geblas.Matrix A, so repeated layers build it once.

Streams: each call runs on torch's current stream of the tensors' device, as geblas.torch's
spmm does.
"""

import torch

import geblas as _g
from .. import _geblas

_capsule_of = getattr(torch.utils.dlpack, "to_dlpack", None)


def _dl(t):
    # A DLPack capsule for the bindings (a tensor that requires grad goes through
    # __dlpack__, which refuses it).
    return t if _capsule_of is None or t.requires_grad else _capsule_of(t)


def _stream(device):
    if device.type != "cuda" or not torch.cuda.is_available():
        return None
    return _g._torch_stream_handle(device)


def _matrix(A, name):
    """A as a geblas.Matrix: a geblas.torch.Graph's, or the cached Graph of a raw graph
    (an edge_index, a torch sparse tensor, ...: built once, see geblas.torch.graph)."""
    if isinstance(A, _g.Matrix):
        return A
    from .graph import Graph, cached_graph

    try:
        return A.matrix if isinstance(A, Graph) else cached_graph(A, None, "rows", torch.float32, pattern=True).matrix
    except (TypeError, AttributeError) as e:
        raise _g.DomainMismatch(f"geblas.torch.{name}: A must be a geblas.Matrix or a graph geblas.torch.Graph "
                                f"takes, got {type(A).__name__} ({e})")


def _check_tensor(x, name, op, device, dtype=None):
    if not isinstance(x, torch.Tensor) or x.layout != torch.strided:
        raise _g.DomainMismatch(f"geblas.torch.{op}: {name} must be a dense torch tensor")
    if x.device != device:
        raise _g.DeviceMismatch(f"geblas.torch.{op}: {name} is on {x.device} but A is on {device}")
    if dtype is not None and x.dtype != dtype:
        raise _g.DomainMismatch(f"geblas.torch.{op}: {name} is {x.dtype}, expected {dtype}")
    if x.dtype not in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        raise _g.DomainMismatch(f"geblas.torch.{op}: {name} must be floating point, got {x.dtype}")


# --- edge softmax ---------------------------------------------------------------------------


def _softmax_columns(m, x, dp=None):
    """softmax_rows over A's pattern of each column of x (nnz, H), or its backward."""
    # detached: a backward gets its saved output (p) back as a tensor that requires grad,
    # which DLPack refuses to export
    x = x.detach()
    dp = None if dp is None else dp.detach()
    out = torch.empty_like(x)
    stream = _stream(x.device)
    for h in range(x.shape[1]):
        xs = x[:, h].contiguous()
        o = torch.empty_like(xs)
        _geblas._edge_softmax(m, _dl(xs), _dl(o), None if dp is None else _dl(dp[:, h].contiguous()), stream)
        out[:, h] = o
    return out


class _EdgeSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, values, m):
        x = values.detach()
        two_d = x.dim() == 2
        if not two_d:
            x = x.unsqueeze(1)
        p = _softmax_columns(m, x)
        ctx.m, ctx.two_d = m, two_d
        ctx.save_for_backward(p)
        return p if two_d else p.squeeze(1)

    @staticmethod
    def backward(ctx, grad):
        (p,) = ctx.saved_tensors
        g = grad.contiguous() if ctx.two_d else grad.unsqueeze(1).contiguous()
        ds = _softmax_columns(ctx.m, p, dp=g)
        return (ds if ctx.two_d else ds.squeeze(1)), None


def edge_softmax(A, values):
    """Softmax of per-edge values over each row of A (see the module's text)."""
    m = _matrix(A, "edge_softmax")
    device = torch.device(m.device)
    _check_tensor(values, "values", "edge_softmax", device)
    if values.dim() not in (1, 2) or values.shape[0] != m.nvals:
        raise _g.DimensionMismatch(f"geblas.torch.edge_softmax: values must be (nnz,) or (nnz, H) with nnz = "
                                   f"{m.nvals} (A's entries), got {tuple(values.shape)}")
    return _EdgeSoftmax.apply(values, m)


# --- the fused GAT aggregation ----------------------------------------------------------------


class _GatAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, el, er, V, m, negative_slope):
        n, H = el.shape
        el, er = el.detach().contiguous(), er.detach().contiguous()
        Vf = V.detach().reshape(n, -1).contiguous()
        Y = torch.empty_like(Vf)
        alpha = torch.empty((m.nvals, H), dtype=Vf.dtype, device=Vf.device)
        _geblas._gat_attention(m, _dl(el), _dl(er), _dl(Vf), _dl(Y), _dl(alpha), float(negative_slope),
                               _stream(Vf.device))
        ctx.m, ctx.slope, ctx.v_shape = m, float(negative_slope), V.shape
        ctx.save_for_backward(el, er, Vf, alpha)
        ctx.mark_non_differentiable(alpha)
        return Y.reshape(V.shape), alpha

    @staticmethod
    def backward(ctx, grad, _grad_alpha):
        el, er, Vf, alpha = (t.detach() for t in ctx.saved_tensors)
        dY = grad.detach().reshape(Vf.shape).contiguous()
        dV = torch.empty_like(Vf)
        d_el = torch.empty_like(el)
        d_er = torch.empty_like(er)
        _geblas._gat_attention_backward(ctx.m, _dl(el), _dl(er), _dl(Vf), _dl(alpha), _dl(dY), _dl(dV), _dl(d_el),
                                        _dl(d_er), ctx.slope, _stream(Vf.device))
        return d_el, d_er, dV.reshape(ctx.v_shape), None, None


def gat_attention(A, el, er, V, negative_slope=0.2, return_alpha=False):
    """The fused GAT aggregation (see the module's text); with return_alpha, also alpha
    (nnz, H) in A's CSR order (not differentiable)."""
    m = _matrix(A, "gat_attention")
    device = torch.device(m.device)
    for x, name in ((el, "el"), (er, "er"), (V, "V")):
        _check_tensor(x, name, "gat_attention", device, dtype=el.dtype)
    if el.dtype not in (torch.float32, torch.float64):
        raise _g.DomainMismatch(f"geblas.torch.gat_attention: float32 or float64 only, got {el.dtype}")
    n = m.nrows
    if el.dim() != 2 or el.shape != er.shape or el.shape[0] != n:
        raise _g.DimensionMismatch(f"geblas.torch.gat_attention: el and er must both be (n, H) with n = {n}, got "
                                   f"{tuple(el.shape)} and {tuple(er.shape)}")
    H = el.shape[1]
    if V.shape[0] != n or not (V.dim() == 3 and V.shape[1] == H or V.dim() == 2 and V.shape[1] % H == 0):
        raise _g.DimensionMismatch(f"geblas.torch.gat_attention: V must be (n, H, F) or (n, H * F) with n = {n}, "
                                   f"H = {H}, got {tuple(V.shape)}")
    Y, alpha = _GatAttention.apply(el, er, V, m, negative_slope)
    return (Y, alpha) if return_alpha else Y


# --- the GAT layer ---------------------------------------------------------------------------


def with_self_loops(m):
    """m's pattern without its diagonal, plus every (i, i): what GATConv aggregates over."""
    cached = getattr(m, "_geblas_self_loops", None)
    if cached is not None:
        return cached
    indptr, indices, _ = (torch.utils.dlpack.from_dlpack(e) for e in m._csr())
    n = m.nrows
    device = indptr.device
    rows = torch.repeat_interleave(torch.arange(n, device=device), torch.diff(indptr))
    cols = indices.to(torch.int64)
    keep = rows != cols
    rows = torch.cat([rows[keep], torch.arange(n, device=device)])
    cols = torch.cat([cols[keep], torch.arange(n, device=device)])
    key = rows * m.ncols + cols
    order = torch.argsort(key)
    rows, cols = rows[order], cols[order]
    new_indptr = torch.zeros(n + 1, dtype=torch.int64, device=device)
    new_indptr[1:] = torch.cumsum(torch.bincount(rows, minlength=n), 0)
    values = torch.ones(cols.numel(), dtype=torch.float32, device=device)
    with _g._TorchStreams([], devices=[str(device)]):
        loops = _geblas._matrix_from_csr(n, m.ncols, new_indptr, cols.to(torch.int32), values, False, True)
    try:
        m._geblas_self_loops = loops
    except AttributeError:
        pass
    return loops


def gat_conv(A, X, W, att_src, att_dst, bias=None, heads=1, concat=True, negative_slope=0.2, add_self_loops=True):
    """PyG GATConv's forward (eval mode) on geblas's fused attention; see the module's text."""
    m = _matrix(A, "gat_conv")
    if m.nrows != m.ncols:
        raise _g.DimensionMismatch(f"geblas.torch.gat_conv: A must be square, got {m.nrows} x {m.ncols}")
    if add_self_loops:
        m = with_self_loops(m)
    n = X.shape[0]
    xp = (X @ W.t()).reshape(n, heads, -1)
    C = xp.shape[2]
    a_src = att_src.reshape(1, heads, C)
    a_dst = att_dst.reshape(1, heads, C)
    er = (xp * a_src).sum(-1)  # the source j of edge (j -> i): A's column
    el = (xp * a_dst).sum(-1)  # its target i: A's row
    out = gat_attention(m, el, er, xp, negative_slope)
    out = out.reshape(n, heads * C) if concat else out.mean(dim=1)
    if bias is not None:
        out = out + bias
    return out
