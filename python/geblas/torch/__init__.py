"""geblas.torch: geblas's semiring SpMM as a PyTorch autograd function, for graph neural
network aggregation.

``spmm(A, X, reduce)`` computes Y(i, :) = reduce over the stored A(i, j) of A(i, j) * X(j, :)
with reduce in "sum" (plus_times), "mean" (the sum divided by the row's entry count),
"max" (max_times) and "min" (min_times); rows without entries give 0, as torch_sparse
does. A is a geblas.Matrix (values fixed), a geblas.torch.Graph, or a graph as PyG and DGL
hold it (an edge_index with optional edge_weight, a torch sparse CSR / CSC / COO tensor,
a torch_sparse SparseTensor, a PyG EdgeIndex: geblas.torch.graph says how each is
oriented and cached; values and edge weights may require a gradient with reduce="sum");
X a dense tensor on A's device. geblas.torch.nn holds PyG's GCNConv and SAGEConv on it.

Backward: dX = A' grad for sum and mean (one SpMM through A's cached transpose); for max
and min each grad(i, f), times A(i, j), goes to the neighbour j that won the forward (the
smallest j on a tie), recorded in the forward. For float32 on a GPU the forward records it
for free: one kernel writes the winning column beside each value, and the backward is one
kernel that adds each gradient at its column (looking A(i, j) up where A's values are not
all 1). On the CPU, when A's values are all 1, every X(j, f) is packed with j into one
int64 key ordered like the float, and one int64 max_min (min_max) SpMM over A yields the
value and its argument together; otherwise the winner is found after the forward by
comparing every edge's term with the result (O(nnz x f) memory, like PyG's gather +
scatter). The gradient of A's
values (sum only) is the SDDMM grad . X' sampled at A's pattern: geblas's sampled product
(one kernel on a GPU) for the types it has, torch by edge chunks for float16 / bfloat16.

``sddmm(A, X, Y)`` is that product on its own: s_e = <X(row_e, :), Y(col_e, :)> for every
stored entry e of A, a 1-D tensor in A's CSR order (the attention scores of a graph
layer), with gradients dX = S_grad Y and dY = S_grad' X (two SpMMs over A's pattern with
the gradient as values); ``scale=`` or ``leaky_relu=`` fuses that op into the forward.

Streams: every geblas call here runs on torch's current stream of the tensors' device
(geblas::cuda::StreamGuard), so it is ordered with the torch work before and after it
like any torch operation, without host synchronisation; the usual torch rules for work
on several streams apply (torch.cuda.Stream.wait_stream, Tensor.record_stream).
"""

import torch

import geblas as _g
from .. import _geblas

_REDUCES = ("sum", "mean", "max", "min")
# Edge chunk of the torch-side SDDMM and arg search: bounds the E x F temporaries to about
# this many elements (256 MB of float32).
_EDGE_CHUNK_ELEMENTS = 1 << 26


# A tensor as a DLPack capsule for the bindings: torch.utils.dlpack.to_dlpack is one C call,
# where the binding's own Tensor.__dlpack__ call runs its Python-level checks (a few
# microseconds per tensor). A tensor that requires grad still goes the __dlpack__ way, which
# refuses it as before (geblas's products are not differentiable inside a backward).
_capsule_of = getattr(torch.utils.dlpack, "to_dlpack", None)


def _to_dlpack(t):
    return t if _capsule_of is None or t.requires_grad else _capsule_of(t)


_cuda_usable = None  # torch.cuda.is_available(), asked on the first CUDA tensor


def _on_stream(device):
    """The calls of a with block on torch's current stream of `device`."""
    return _g._TorchStreams([], devices=[str(device)])


def _stream(device):
    """torch's current stream of `device` (a torch.device) as an integer handle for the
    bindings that take one (_spmm, _spmm_arg), None on the CPU: what _on_stream's with
    block gives them, without its Python objects."""
    global _cuda_usable
    if device.type != "cuda":
        return None
    if _cuda_usable is None:
        _cuda_usable = torch.cuda.is_available()
    return _g._torch_stream_handle(device) if _cuda_usable else None


# geblas's names of torch's value types, as _g._dtype_name gives them (memoised: str() of a
# torch dtype costs about a microsecond).
_dtype_names = {}


def _dtype_name(dtype):
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = _g._dtype_name(dtype)
    return name


class _Graph:
    """What spmm needs of A, built once per geblas.Matrix (kept on it) or per call for a
    torch sparse tensor: the geblas matrix and torch views of its CSR arrays, and what
    every call asks of them (shape, value type, degrees as a feature type), so that a call
    reads Python attributes instead of asking the binding or converting again.

    For a torch sparse tensor (a new _Graph every call) the arrays are made on first use
    only: a sum or mean needs none of the edge arrays, and making them costs three copies
    of A's arrays, a handful of torch operations and, for `rows`, a host synchronisation."""

    # Attributes made by _arrays() and _rows() on first use (see __getattr__).
    _ARRAYS = frozenset(("indptr", "cols32", "cols", "values", "degree", "empty_rows"))

    def __init__(self, matrix, values_tensor=None, lazy=False):
        self.matrix = matrix
        self.nrows, self.ncols, self.dtype = matrix.nrows, matrix.ncols, matrix.dtype
        self.device = torch.device(matrix.device)
        if values_tensor is not None:
            self.values = values_tensor
        self._unit = None
        self._keys = {}
        self._degree_columns = {}
        if not lazy:
            self._arrays()
            self._rows()

    def _arrays(self):
        indptr, indices, values = (torch.utils.dlpack.from_dlpack(e) for e in self.matrix._csr())
        self.indptr = indptr
        self.cols32 = indices
        self.cols = indices.to(torch.int64)
        counts = torch.diff(indptr)
        if "values" not in self.__dict__:
            self.values = values
        self.degree = counts.clamp(min=1)
        self.empty_rows = (counts == 0).unsqueeze(1)

    def _rows(self):
        # output_size: the entry count is known, so torch needs no host read of the total.
        self.rows = torch.repeat_interleave(torch.arange(self.nrows, device=self.device), torch.diff(self.indptr),
                                            output_size=self.cols32.numel())

    def __getattr__(self, name):
        # Only for attributes not set yet: the lazily made arrays of a torch sparse A.
        if name in _Graph._ARRAYS:
            self._arrays()
        elif name == "rows":
            self._rows()
        else:
            raise AttributeError(f"'_Graph' object has no attribute '{name}'")
        return self.__dict__[name]

    def degree_column(self, dtype):
        """The row degrees (at least 1) as an n x 1 tensor of `dtype`, the divisor of mean."""
        d = self._degree_columns.get(dtype)
        if d is None:
            d = self._degree_columns[dtype] = self.degree.to(dtype).unsqueeze(1)
        return d

    def unit(self):
        """True when every stored value is 1 (then max/min may pack the argument)."""
        if self._unit is None:
            self._unit = bool((self.values == 1).all().item()) if self.values.numel() else True
        return self._unit

    def key_matrix(self, reduce):
        """A as int64 with every value the identity of the semiring's multiply-side min /
        max, so that max_min / min_max return the packed keys unchanged."""
        if reduce not in self._keys:
            big = torch.iinfo(torch.int64).max if reduce == "max" else torch.iinfo(torch.int64).min
            with _on_stream(self.device):
                m = _geblas.convert(self.matrix, "int64")
                self._keys[reduce] = _geblas.apply(m, "second", big)
        return self._keys[reduce]


def _graph_of(A, values=None):
    if isinstance(A, _g.Matrix):
        g = getattr(A, "_geblas_torch_graph", None)
        if g is None:
            g = _Graph(A)
            A._geblas_torch_graph = g
        if values is None:
            return g, None
        # A's pattern with other values (e.g. learned edge weights): the same index arrays,
        # borrowed, and the caller's values in place.
        _check_values(values, g.cols.numel(), g.device)
        return _with_values(g, values), values
    raise _g.DomainMismatch(f"geblas.torch.spmm: A must be a geblas.Matrix or a graph geblas.torch.Graph takes, "
                            f"got {type(A).__name__}")


def _check_values(values, nvals, device):
    if not isinstance(values, torch.Tensor) or values.dim() != 1 or values.numel() != nvals:
        raise _g.DimensionMismatch(f"geblas.torch.spmm: values must be a 1-D tensor of A's {nvals} entries")
    if values.device != device:
        raise _g.DeviceMismatch(f"geblas.torch.spmm: values are on {values.device} but A is on {device}")


def _check_dense(X, g):
    if not isinstance(X, torch.Tensor) or X.layout != torch.strided:
        raise _g.DomainMismatch(f"geblas.torch.spmm: X must be a dense torch tensor, got {type(X).__name__}")
    if X.dim() != 2:
        raise _g.DimensionMismatch(f"geblas.torch.spmm: X must be 2-D, has shape {tuple(X.shape)}")
    if X.device != g.device:
        raise _g.DeviceMismatch(f"geblas.torch.spmm: X is on {X.device} but A is on {g.device}; "
                                "geblas makes no hidden copies")
    if X.shape[0] != g.ncols:
        raise _g.DimensionMismatch(f"geblas.torch.spmm: A is {g.nrows} x {g.ncols} but X has "
                                   f"{X.shape[0]} rows")


def _spmm_plain(g, X, semiring, transpose=False):
    """Y = A (+).(x) X (or A' ...) through geblas, into a fresh torch tensor (no copies).
    One binding call on torch's current stream; the tensors go in as DLPack capsules."""
    n = g.ncols if transpose else g.nrows
    Y = torch.empty((n, X.shape[1]), dtype=X.dtype, device=X.device)
    _geblas._spmm(g.matrix, _to_dlpack(X), _to_dlpack(Y), semiring, transpose, _stream(X.device))
    return Y


def _orderable(x):
    """float32 -> int32 whose signed order is the float order."""
    b = x.view(torch.int32)
    return torch.where(b >= 0, b, b ^ 0x7FFFFFFF)


def _from_orderable(k):
    return torch.where(k >= 0, k, k ^ 0x7FFFFFFF).view(torch.float32)


def _max_packed(g, X, reduce):
    """Value and argument of the max / min in one int64 SpMM (A unit-valued, X float32)."""
    n = X.shape[0]
    j = torch.arange(n, device=X.device, dtype=torch.int64).unsqueeze(1)
    # Low 32 bits: larger wins for max, smaller for min; both pick the smallest j on a tie.
    low = (2**31 - 1 - j) if reduce == "max" else j
    keys = (_orderable(X.contiguous()).to(torch.int64) << 32) | low
    P = torch.empty((g.nrows, X.shape[1]), dtype=torch.int64, device=X.device)
    key_matrix = g.key_matrix(reduce)
    _geblas._spmm(key_matrix, _to_dlpack(keys), _to_dlpack(P), "max_min" if reduce == "max" else "min_max", False,
                  _stream(X.device))
    empty = P == (torch.iinfo(torch.int64).min if reduce == "max" else torch.iinfo(torch.int64).max)
    low_out = P & 0xFFFFFFFF
    arg = (2**31 - 1 - low_out) if reduce == "max" else low_out
    Y = _from_orderable((P >> 32).to(torch.int32))
    Y = torch.where(empty, torch.zeros((), dtype=Y.dtype, device=Y.device), Y)
    arg = torch.where(empty, torch.full((), -1, dtype=torch.int64, device=arg.device), arg)
    weight = None  # unit values
    return Y, arg, weight


def _max_kernel(g, X, reduce):
    """Value and argument of the max / min from geblas's float32 kernel that writes the
    winning column beside each value (float32 on a GPU, any values): the smallest column
    on a tie, as _max_packed; -0 and +0 tie here (float comparison) where the packed keys
    order -0 below +0."""
    n = g.nrows
    Y = torch.empty((n, X.shape[1]), dtype=X.dtype, device=X.device)
    arg = torch.empty((n, X.shape[1]), dtype=torch.int32, device=X.device)
    _geblas._spmm_arg(g.matrix, _to_dlpack(X.contiguous()), _to_dlpack(Y), _to_dlpack(arg), reduce,
                      _stream(X.device))
    return Y, arg, None  # int32; rows without entries: Y = 0, arg = -1


def _max_search(g, X, reduce):
    """Value through geblas; the winning edge found by comparing each edge's term with it."""
    Y = _spmm_plain(g, X, "max_times" if reduce == "max" else "min_times")
    Y.masked_fill_(g.empty_rows, 0)
    E, F = g.cols.numel(), X.shape[1]
    big = torch.iinfo(torch.int64).max
    best = torch.full((g.nrows, F), big, dtype=torch.int64, device=X.device)
    vals = g.values.to(X.dtype)
    chunk = max(1, _EDGE_CHUNK_ELEMENTS // max(F, 1))
    for s in range(0, E, chunk):
        e = torch.arange(s, min(E, s + chunk), device=X.device)
        term = vals[e].unsqueeze(1) * X[g.cols[e]]
        hit = term == Y[g.rows[e]]
        cand = torch.where(hit, e.unsqueeze(1).expand(-1, F), torch.full((), big, device=X.device))
        best.scatter_reduce_(0, g.rows[e].unsqueeze(1).expand(-1, F), cand, reduce="amin")
    found = best != big
    edge = torch.where(found, best, torch.zeros((), dtype=torch.int64, device=X.device))
    arg = torch.where(found, g.cols[edge], torch.full((), -1, dtype=torch.int64, device=X.device))
    weight = torch.where(found, vals[edge], torch.zeros((), dtype=X.dtype, device=X.device))
    return Y, arg, weight


# The value types geblas's sampled product computes in (its 16-bit types are SpMM-only).
_SDDMM_DTYPES = (torch.float32, torch.float64, torch.int32, torch.int64)


def _sddmm_values(g, G, X, **fused):
    """s_e = sum_f G(row_e, f) X(col_e, f) at A's entries by geblas's sampled product (G and
    X contiguous, of one type; A's pattern is the mask, its values and type are not read),
    as a tensor in A's CSR order, on torch's stream."""
    nan = float("nan")
    v = _geblas._sddmm_values(_to_dlpack(G), _to_dlpack(X), g.matrix, fused.get("scale", nan),
                              fused.get("leaky_relu", nan), _stream(G.device))
    return torch.utils.dlpack.from_dlpack(v)


def _sddmm(g, G, X):
    """d values(e) = sum_f G(row_e, f) X(col_e, f): geblas's sampled product where it has
    the type; torch by edge chunks for float16 / bfloat16, which geblas computes only in
    SpMM."""
    if G.dtype in _SDDMM_DTYPES and G.dtype == X.dtype:
        return _sddmm_values(g, G.contiguous(), X.contiguous())
    E, F = g.cols.numel(), X.shape[1]
    out = torch.empty(E, dtype=X.dtype, device=X.device)
    chunk = max(1, _EDGE_CHUNK_ELEMENTS // max(F, 1))
    for s in range(0, E, chunk):
        e = slice(s, min(E, s + chunk))
        out[e] = (G[g.rows[e]] * X[g.cols[e]]).sum(1)
    return out


def _forward(g, Xd, reduce, record_arg):
    """Y of SpMM.forward and what its backward needs: (Y, saved tensors, unit)."""
    if reduce in ("sum", "mean"):
        Y = _spmm_plain(g, Xd, "plus_times")
        if reduce == "mean":
            Y.div_(g.degree_column(Y.dtype))  # Y is this call's own tensor
        return Y, (Xd,), None
    if not record_arg:
        # No gradient wanted (inference): the plain max_times / min_times SpMM, as fast
        # as a sum; the argument is recorded only when a backward will need it.
        Y = _spmm_plain(g, Xd, "max_times" if reduce == "max" else "min_times")
        Y.masked_fill_(g.empty_rows, 0)
        return Y, None, True  # SpMM.forward saves two empty tensors
    if Xd.dtype == torch.float32 and Xd.is_cuda:
        Y, arg, _ = _max_kernel(g, Xd, reduce)
        # unit: the backward needs no look-up of A's values
        return Y, (arg, torch.empty(0)), g.unit()
    if g.unit() and Xd.dtype == torch.float32:
        Y, arg, weight = _max_packed(g, Xd, reduce)
    else:
        Y, arg, weight = _max_search(g, Xd, reduce)
    return Y, (arg, weight if weight is not None else torch.empty(0)), weight is None


class SpMM(torch.autograd.Function):
    """Semiring SpMM with the gradients described in the module docstring."""

    @staticmethod
    def forward(ctx, values, X, g, reduce, record_arg):
        # `values` is A's values tensor when its gradient is wanted (sum), else None; it is
        # an argument so that autograd routes its gradient.
        Y, saved, unit = _forward(g, X.detach(), reduce, record_arg)
        ctx.save_for_backward(*(saved or (torch.empty(0), torch.empty(0))))
        if unit is not None:
            ctx.unit = unit
        ctx.g, ctx.reduce = g, reduce
        ctx.nrows_x = X.shape[0]
        return Y

    @staticmethod
    def backward(ctx, grad):
        g, reduce = ctx.g, ctx.reduce
        grad = grad.contiguous()
        d_values = d_x = None
        if reduce in ("sum", "mean"):
            (Xd,) = ctx.saved_tensors
            G = grad if reduce == "sum" else grad / g.degree_column(grad.dtype)
            if ctx.needs_input_grad[1]:
                d_x = _spmm_plain(g, G, "plus_times", transpose=True)
            if ctx.needs_input_grad[0]:
                d_values = _sddmm(g, G, Xd)
        else:
            arg, weight = ctx.saved_tensors
            if ctx.needs_input_grad[1] and arg.dtype == torch.int32:
                # _max_kernel's argument: zero fill, weights and scatter in one geblas call
                d_x = torch.empty((ctx.nrows_x, grad.shape[1]), dtype=grad.dtype, device=grad.device)
                _geblas._spmm_arg_scatter(_to_dlpack(arg), _to_dlpack(grad), _to_dlpack(d_x), _stream(grad.device),
                                          None if ctx.unit else g.matrix)
            elif ctx.needs_input_grad[1]:
                contrib = grad if ctx.unit else grad * weight
                contrib = torch.where(arg >= 0, contrib, torch.zeros((), dtype=grad.dtype, device=grad.device))
                d_x = torch.zeros((ctx.nrows_x, grad.shape[1]), dtype=grad.dtype, device=grad.device)
                d_x.scatter_add_(0, arg.clamp(min=0), contrib)
        return d_values, d_x, None, None, None


def _operand(A, X, reduce, values, edge_weight, num_nodes, aggregate):
    """A geblas.Matrix and its values for spmm from any input Graph takes (the Graph
    built once: see geblas.torch.graph)."""
    if isinstance(A, Graph):
        if num_nodes is not None or (aggregate is not None and aggregate != A.aggregate):
            raise _g.InvalidValue("geblas.torch.spmm: num_nodes and aggregate belong to the Graph; "
                                  "pass them when it is made")
        graph = A
    else:
        # a sparse matrix has its values' type; an edge list takes X's
        sparse = (isinstance(A, torch.Tensor) and A.layout != torch.strided) or _graph_module._is_sparse_tensor(A)
        dtype = X.dtype if not sparse and isinstance(X, torch.Tensor) else None
        graph = _cached_graph(A, num_nodes, aggregate or "rows", dtype)
    if graph.duplicates and reduce in ("max", "min"):
        raise _g.NotImplementedError(f"geblas.torch.spmm: reduce={reduce!r} over repeated edges; remove the "
                                     "duplicates first (torch_geometric.utils.coalesce)")
    if values is not None and edge_weight is not None:
        raise _g.InvalidValue("geblas.torch.spmm: pass edge_weight (in the edges' order) or values (in CSR "
                              "order), not both")
    if values is not None:
        # a Graph's values are in its CSR order; a raw input's in its own entry order
        return graph.matrix, (values if isinstance(A, Graph) else graph.values(values))
    fresh = None if isinstance(A, Graph) else _source_values(A)
    if fresh is not None:
        return graph.matrix, graph.values(fresh)
    return graph.operand(edge_weight)


def spmm(A, X, reduce="sum", values=None, *, edge_weight=None, num_nodes=None, aggregate=None):
    """Y = reduce_j A(i, j) * X(j, :) with gradients for X (every reduce) and, for
    reduce="sum", for A's values: those of a torch sparse A, or `values` (a 1-D tensor of
    A's nvals entries in CSR order, e.g. learned edge weights) used in place of A's (for a
    torch sparse A: in the order of A.values(); for an edge_index: edge_weight's order).

    A: a geblas.Matrix, a geblas.torch.Graph, or what Graph takes (an edge_index with
    optional edge_weight (one per edge, in edge_index's order) and num_nodes, a torch
    sparse CSR / CSC / COO tensor, a torch_sparse SparseTensor, a PyG EdgeIndex), whose
    Graph is built on the first call and cached while the input is alive and unchanged;
    aggregate="rows" (default) or "columns" names the side that aggregates (see
    geblas.torch.graph)."""
    if reduce not in _REDUCES:
        raise _g.InvalidValue(f"geblas.torch.spmm: reduce must be one of {_REDUCES}, got {reduce!r}")
    if not isinstance(A, _g.Matrix):
        A, values = _operand(A, X, reduce, values, edge_weight, num_nodes, aggregate)
    elif edge_weight is not None or num_nodes is not None or aggregate not in (None, "rows"):
        raise _g.InvalidValue("geblas.torch.spmm: edge_weight, num_nodes and aggregate are for edge lists and "
                              "sparse tensors; a geblas.Matrix is used as it is (values= replaces its values)")
    g, values = _graph_of(A, values)
    _check_dense(X, g)
    if g.dtype != _dtype_name(X.dtype):
        raise _g.DomainMismatch(f"geblas.torch.spmm: X is {X.dtype} but A is {g.dtype}")
    if not X.is_contiguous():
        raise _g.InvalidValue("geblas.torch.spmm: X is not contiguous; geblas uses tensors in place and makes "
                              "no hidden copy: pass X.contiguous()")
    if values is not None and values.requires_grad and reduce != "sum":
        raise _g.NotImplementedError("geblas.torch.spmm: the gradient of A's values is implemented for "
                                     "reduce='sum' only")
    if values is not None and not values.requires_grad:
        values = None
    # Inside forward the grad mode is always off; whether a backward can come is known here.
    record_arg = torch.is_grad_enabled() and X.requires_grad
    if not record_arg and (values is None or not torch.is_grad_enabled()):
        # Nothing to differentiate (inference, or X and A's values both fixed): the forward
        # alone, without autograd.Function.apply's graph bookkeeping (several microseconds
        # a call). Its result is what apply returns then: a tensor without grad_fn.
        return _forward(g, X.detach() if X.requires_grad else X, reduce, False)[0]
    return SpMM.apply(values, X, g, reduce, record_arg)


class _Sddmm(torch.autograd.Function):
    """s = <X(row_e, :), Y(col_e, :)> at A's entries, with the SpMM gradients."""

    @staticmethod
    def forward(ctx, X, Y, g, fused):
        Xd, Yd = X.detach(), Y.detach()
        S = _sddmm_values(g, Xd, Yd, **fused)
        ctx.save_for_backward(Xd, Yd, S if fused else torch.empty(0))
        ctx.g, ctx.fused = g, fused
        return S

    @staticmethod
    def backward(ctx, grad):
        Xd, Yd, S = ctx.saved_tensors
        g = ctx.g
        grad = grad.contiguous()
        # the fused op's derivative: alpha for scale; for leaky ReLU the slope where the
        # output is negative (sddmm takes a positive slope when a gradient is wanted, so
        # the output has its input's sign)
        if "scale" in ctx.fused:
            grad = grad * ctx.fused["scale"]
        elif "leaky_relu" in ctx.fused:
            slope = ctx.fused["leaky_relu"]
            grad = torch.where(S < 0, grad * slope, grad)
        d_x = d_y = None
        hg = _with_values(g, grad)
        if ctx.needs_input_grad[0]:
            d_x = _spmm_plain(hg, Yd, "plus_times")
        if ctx.needs_input_grad[1]:
            d_y = _spmm_plain(hg, Xd, "plus_times", transpose=True)
        return d_x, d_y, None, None


def _with_values(g, values):
    """A _Graph of g's pattern with `values` (1-D, A's CSR order) as its values: the same
    index arrays, borrowed, and the caller's values in place."""
    with _on_stream(values.device):
        m = _geblas._matrix_from_csr(g.nrows, g.ncols, g.indptr, g.cols32, values.detach(), False, False)
    h = _Graph.__new__(_Graph)
    h.__dict__.update(g.__dict__)  # the pattern's arrays and degrees are shared
    h.matrix, h.values, h._unit, h._keys = m, values.detach(), None, {}
    h.dtype = m.dtype
    return h


def sddmm(A, X, Y, scale=None, leaky_relu=None):
    """s_e = f(<X(row_e, :), Y(col_e, :)>) for every stored entry e = (row_e, col_e) of A
    (a geblas.Matrix, a geblas.torch.Graph or what Graph takes; its values are not read), as a
    1-D tensor in A's CSR order; f is the identity, scale (s * alpha) or leaky_relu (the
    negative slope). X is nrows(A) x F and Y ncols(A) x F, dense on A's device, of one
    type geblas's sampled product has (float32, float64, int32, int64); gradients flow to
    X and Y (dX = S_grad Y, dY = S_grad' X, geblas SpMMs)."""
    if scale is not None and leaky_relu is not None:
        raise _g.InvalidValue("geblas.torch.sddmm: scale= and leaky_relu= are one fused op each; give one")
    if not isinstance(A, _g.Matrix):  # a raw graph's Graph, built once and cached
        dtype = getattr(X, "dtype", None)
        A = A.matrix if isinstance(A, Graph) else _cached_graph(A, None, "rows", dtype, pattern=True).matrix
    g, _ = _graph_of(A)
    for name, T, n in (("X", X, g.nrows), ("Y", Y, g.ncols)):
        if not isinstance(T, torch.Tensor) or T.layout != torch.strided or T.dim() != 2:
            raise _g.DimensionMismatch(f"geblas.torch.sddmm: {name} must be a 2-D dense tensor")
        if T.device != g.device:
            raise _g.DeviceMismatch(f"geblas.torch.sddmm: {name} is on {T.device} but A is on {g.device}")
        if T.shape[0] != n:
            raise _g.DimensionMismatch(f"geblas.torch.sddmm: A is {g.nrows} x {g.ncols} but {name} has "
                                       f"{T.shape[0]} rows (want {n})")
    if X.shape[1] != Y.shape[1]:
        raise _g.DimensionMismatch(f"geblas.torch.sddmm: X has {X.shape[1]} columns but Y has {Y.shape[1]}")
    if X.dtype != Y.dtype or X.dtype not in _SDDMM_DTYPES:
        raise _g.DomainMismatch(f"geblas.torch.sddmm: X and Y must share one of {_SDDMM_DTYPES}, got "
                                f"{X.dtype} and {Y.dtype}")
    fused = {}
    if scale is not None:
        fused["scale"] = float(scale)
    if leaky_relu is not None:
        fused["leaky_relu"] = float(leaky_relu)
    X, Y = X.contiguous(), Y.contiguous()
    if torch.is_grad_enabled() and (X.requires_grad or Y.requires_grad):
        if leaky_relu is not None and not leaky_relu > 0:
            raise _g.InvalidValue("geblas.torch.sddmm: the gradient through leaky_relu= needs a positive slope "
                                  f"(the output's sign then tells the input's), got {leaky_relu}")
        return _Sddmm.apply(X, Y, g, fused)
    return _sddmm_values(g, X.detach(), Y.detach(), **fused)


# The attention functions (edge softmax, the fused GAT aggregation, the GAT layer).
from .attention import edge_softmax, gat_attention, gat_conv  # noqa: E402,F401

from . import graph as _graph_module  # noqa: E402
from .graph import Graph, cached_graph as _cached_graph, source_values as _source_values  # noqa: E402

