"""Graphs as PyG and DGL users hold them, made into geblas matrices once.

A ``Graph`` is the aggregation matrix of an edge list or a sparse tensor, built once
(sorted, coalesced, validated) and kept: ``spmm(graph, X)`` then costs what a call on a
geblas.Matrix costs. ``spmm`` also takes the raw inputs (an ``edge_index``, a torch sparse
CSR / CSC / COO tensor, a torch_sparse ``SparseTensor``, a PyG ``EdgeIndex``) and keeps
the Graph it builds in a cache keyed on the input object (weakly: the entry goes with the
object) and checked against the object's version counter (``Tensor._version``, bumped by
every in-place change), so that a mutated tensor is built again and an unchanged one never.

Orientation: the aggregation matrix M has one row per vertex that aggregates,
Y(i, :) = reduce over M(i, j) of M(i, j) * X(j, :).
- ``edge_index`` (2 x E, PyG's COO; a DGLGraph's edges() alike): messages flow source edge_index[0] -> target
  edge_index[1]; ``aggregate="rows"`` (the default, PyG's flow "source_to_target") makes
  M(target, source), ``aggregate="columns"`` M(source, target) (PyG's "target_to_source").
- a sparse matrix S (torch sparse, SparseTensor): ``"rows"`` takes M = S (S is PyG's
  ``adj_t``: rows aggregate, as torch.sparse.mm(S, X)); ``"columns"`` takes M = S'
  (S the adjacency with S(j, i) for an edge j -> i).

Duplicate edges are summed into one entry (the weight of a repeated unweighted edge is
its multiplicity), so sum and mean give what PyG's scatter gives (mean divides by the
multiplicity degree); max and min of a graph with repeated edges are refused.
"""

import weakref

import torch

import geblas as _g
from .. import _geblas

_AGGREGATES = ("rows", "columns")


def _stream_guard(device):
    return _g._TorchStreams([], devices=[str(device)])


def _version(t):
    try:
        return t._version
    except (AttributeError, RuntimeError):
        return None


def _is_sparse_tensor(obj):
    """torch_sparse.SparseTensor, recognised without importing torch_sparse."""
    return type(obj).__module__.startswith("torch_sparse") and hasattr(obj, "coo") and hasattr(obj, "sparse_sizes")


def _is_dgl_graph(obj):
    """dgl.DGLGraph (one edge type), recognised without importing dgl."""
    return type(obj).__module__.startswith("dgl") and hasattr(obj, "edges") and hasattr(obj, "num_dst_nodes")


def _sizes(num_nodes, what):
    """(n_src, n_dst) from an int, a pair (PyG's size) or None."""
    if num_nodes is None:
        return None
    if isinstance(num_nodes, (tuple, list)):
        if len(num_nodes) != 2:
            raise _g.InvalidValue(f"{what}: num_nodes must be an int or a pair (num_src, num_dst), got {num_nodes!r}")
        pair = tuple(int(n) for n in num_nodes)
    else:
        pair = (int(num_nodes), int(num_nodes))
    if min(pair) < 0:
        raise _g.InvalidValue(f"{what}: num_nodes must not be negative, got {num_nodes!r}")
    return pair


class Graph:
    """The aggregation matrix of a graph, built once for geblas.torch.spmm and the
    geblas.torch.nn layers.

    Graph(source, num_nodes=None, edge_weight=None, aggregate="rows", dtype=None, ptr=None, batch=None)

    source: an edge_index (2 x E int64 / int32 tensor, or a PyG EdgeIndex), a DGLGraph (its
    edges(): source -> destination, as an edge_index), a torch sparse CSR / CSC / COO tensor
    or a torch_sparse SparseTensor (see the module docstring for the orientation).
    num_nodes: for an edge_index, the vertex count (an int, or PyG's pair
    (num_src, num_dst) for a bipartite graph); default the largest index + 1 (or the
    EdgeIndex's sparse size, or ptr[-1] / batch.numel()). edge_weight: one weight per edge
    of source, in its order (an edge_index only; a sparse tensor carries its values). The
    matrix holds the weights as given; one that requires a gradient is also mapped into the
    CSR order again at every spmm call (``values(edge_weight)``), so its gradient flows. dtype: the value type (the
    weight's, else float32); X must have it. ptr / batch: PyG's Batch vectors of a
    block-diagonal batch whose edge_index already carries the per-graph offsets: they
    give num_nodes and are checked to keep every edge inside its graph. ``Graph.batch``
    makes the batch from a list of graphs. pattern: a sparse source's structure only
    (every value 1).

    Attributes: matrix (geblas.Matrix), shape (rows, columns of M), device, dtype, nvals,
    duplicates (whether edges were repeated), slot (int64, the CSR position of each input
    edge), ptr (the batch's vertex offsets or None).
    """

    def __init__(self, source, num_nodes=None, edge_weight=None, aggregate="rows", dtype=None, ptr=None,
                 batch=None, pattern=False):
        what = "geblas.torch.Graph"
        if aggregate not in _AGGREGATES:
            raise _g.InvalidValue(f"{what}: aggregate must be one of {_AGGREGATES}, got {aggregate!r}")
        self.aggregate = aggregate
        self._fixed = None  # (weakref to a fixed edge_weight, its version, its Matrix)
        self.ptr = None
        if ptr is not None or batch is not None:
            ptr = self._batch_ptr(ptr, batch, what)
            if num_nodes is None:
                num_nodes = int(ptr[-1])
        if _is_dgl_graph(source):
            src, dst = source.edges()
            if num_nodes is None:
                num_nodes = (source.num_src_nodes(), source.num_dst_nodes())
            source = torch.stack([src, dst])
        if isinstance(source, torch.Tensor) and source.layout == torch.strided:
            rows, cols, weight, shape = self._from_edge_index(source, num_nodes, edge_weight, what)
            self._own_values = False
        else:
            if edge_weight is not None:
                raise _g.InvalidValue(f"{what}: a sparse matrix carries its own values; pass them in it, "
                                      "not as edge_weight")
            rows, cols, weight, shape = self.from_sparse(source, what)
            edge_weight = None if pattern else weight
            self._own_values = edge_weight is not None
        if edge_weight is not None and not self._own_values:
            if not isinstance(edge_weight, torch.Tensor) or edge_weight.dim() != 1 or \
                    edge_weight.numel() != rows.numel():
                raise _g.DimensionMismatch(f"{what}: edge_weight must be a 1-D tensor of the {rows.numel()} edges")
            if edge_weight.device != rows.device:
                raise _g.DeviceMismatch(f"{what}: edge_weight is on {edge_weight.device} but the edges on "
                                        f"{rows.device}")
            if not edge_weight.is_floating_point():
                raise _g.DomainMismatch(f"{what}: edge_weight must be floating point, is {edge_weight.dtype}")
        self.dtype = dtype if dtype is not None else (edge_weight.dtype if edge_weight is not None else torch.float32)
        self.device = rows.device
        self.shape = shape
        if ptr is not None:
            self._check_blocks(rows, cols, ptr, what)
            self.ptr = ptr
        self._build(rows, cols)
        # The matrix holds the weights as they are now; weights that require a gradient
        # are mapped again at every call (operand), so that the gradient reaches them.
        self.weighted = edge_weight is not None
        self._grad_weight = edge_weight if edge_weight is not None and edge_weight.requires_grad else None
        fixed = None if edge_weight is None else self.values(edge_weight.detach())
        self.matrix = self._make_matrix(fixed if fixed is not None else self._counts, validate=True)
        self._fix_degrees(self.matrix)

    # ----- construction -----

    @staticmethod
    def _batch_ptr(ptr, batch, what):
        if ptr is None:
            if not isinstance(batch, torch.Tensor) or batch.dim() != 1:
                raise _g.DimensionMismatch(f"{what}: batch must be a 1-D tensor of graph ids")
            counts = torch.bincount(batch) if batch.numel() else batch.new_zeros(0)
            if batch.numel() and bool((batch[1:] < batch[:-1]).any()):
                raise _g.InvalidValue(f"{what}: batch must be sorted (PyG's Batch numbers vertices graph by graph)")
            ptr = torch.cat([counts.new_zeros(1), torch.cumsum(counts, 0)])
        if not isinstance(ptr, torch.Tensor) or ptr.dim() != 1 or ptr.numel() < 1:
            raise _g.DimensionMismatch(f"{what}: ptr must be a 1-D tensor of graph offsets starting at 0")
        ptr = ptr.to(torch.int64)
        if int(ptr[0]) != 0 or bool((ptr[1:] < ptr[:-1]).any()):
            raise _g.InvalidValue(f"{what}: ptr must start at 0 and not decrease")
        return ptr

    def _check_blocks(self, rows, cols, ptr, what):
        if self.shape[0] != self.shape[1] or int(ptr[-1]) != self.shape[0]:
            raise _g.DimensionMismatch(f"{what}: ptr ends at {int(ptr[-1])} but the graph has shape {self.shape}")
        if rows.numel():
            p = ptr.to(rows.device)
            if bool((torch.searchsorted(p, rows, right=True) != torch.searchsorted(p, cols, right=True)).any()):
                raise _g.InvalidValue(f"{what}: an edge joins two graphs of the batch (ptr)")

    @staticmethod
    def _from_edge_index(ei, num_nodes, edge_weight, what):
        if ei.dim() != 2 or ei.shape[0] != 2:
            raise _g.DimensionMismatch(f"{what}: edge_index must be 2 x E, has shape {tuple(ei.shape)}")
        if ei.dtype not in (torch.int64, torch.int32):
            raise _g.DomainMismatch(f"{what}: edge_index must be int64 (or int32), is {ei.dtype}")
        sizes = _sizes(num_nodes, what)
        if sizes is None and type(ei) is not torch.Tensor and hasattr(ei, "sparse_size"):
            # PyG's EdgeIndex: (num source, num target), where it knows them
            try:
                s = ei.sparse_size()
                if s[0] is not None and s[1] is not None:
                    sizes = (int(s[0]), int(s[1]))
            except (RuntimeError, TypeError, AttributeError):
                sizes = None
        if type(ei) is not torch.Tensor:
            ei = ei.as_subclass(torch.Tensor)  # EdgeIndex: plain tensor arithmetic from here
        src, dst = ei[0].to(torch.int64), ei[1].to(torch.int64)
        E = src.numel()
        if E:
            lo = int(torch.minimum(src.min(), dst.min()))
            if lo < 0:
                raise _g.InvalidIndex(f"{what}: edge_index holds a negative vertex {lo}")
            hs, hd = int(src.max()), int(dst.max())
        else:
            hs = hd = -1
        if sizes is None:
            n = max(hs, hd) + 1
            sizes = (n, n)
        if hs >= sizes[0] or hd >= sizes[1]:
            raise _g.InvalidIndex(f"{what}: edge_index holds vertex {max(hs, hd)} but num_nodes is {sizes}")
        return dst, src, edge_weight, (sizes[1], sizes[0])

    @staticmethod
    def from_sparse(S, what="geblas.torch.Graph"):
        """(rows, cols, values or None, shape) of a torch sparse tensor or SparseTensor."""
        if _is_sparse_tensor(S):
            r, c, v = S.coo()
            n, m = S.sparse_sizes()
            return r.to(torch.int64), c.to(torch.int64), v, (int(n), int(m))
        if not isinstance(S, torch.Tensor):
            raise _g.DomainMismatch(f"{what}: expected an edge_index, a torch sparse tensor, a SparseTensor or "
                                    f"a PyG EdgeIndex, got {type(S).__name__}")
        if S.dim() != 2 or S.dense_dim() != 0:
            raise _g.DimensionMismatch(f"{what}: a sparse matrix must be 2-D without dense dimensions, has shape "
                                       f"{tuple(S.shape)}")
        if S.layout == torch.sparse_coo:
            S = S.coalesce()
            idx = S.indices()
            return idx[0], idx[1], S.values(), tuple(S.shape)
        if S.layout == torch.sparse_csr:
            ptr, c = S.crow_indices(), S.col_indices()
            r = torch.repeat_interleave(torch.arange(S.shape[0], device=ptr.device), torch.diff(ptr),
                                        output_size=c.numel())
            return r, c.to(torch.int64), S.values(), tuple(S.shape)
        if S.layout == torch.sparse_csc:
            ptr, r = S.ccol_indices(), S.row_indices()
            c = torch.repeat_interleave(torch.arange(S.shape[1], device=ptr.device), torch.diff(ptr),
                                        output_size=r.numel())
            return r.to(torch.int64), c, S.values(), tuple(S.shape)
        raise _g.DomainMismatch(f"{what}: sparse layout {S.layout} is not supported (COO, CSR, CSC)")

    def _build(self, rows, cols):
        """The CSR of M(rows, cols) (after the orientation), duplicates merged."""
        if self.aggregate == "columns":
            rows, cols = cols, rows
            self.shape = (self.shape[1], self.shape[0])
        nrows, ncols = self.shape
        device = rows.device
        E = rows.numel()
        self.nedges = E
        if E:
            key = rows * ncols + cols  # < 2^62: both dimensions are below 2^31
            sorted_key, order = torch.sort(key, stable=True)
            uniq, inverse, counts = torch.unique_consecutive(sorted_key, return_inverse=True, return_counts=True)
            self.nvals = uniq.numel()
            self.duplicates = self.nvals != E
            self.slot = torch.empty(E, dtype=torch.int64, device=device)
            self.slot[order] = inverse
            self._order = None if self.duplicates else order
            r, c = uniq // ncols, uniq % ncols
            self._counts = counts.to(self.dtype)
            row_counts = torch.bincount(r, minlength=nrows)
        else:
            self.nvals, self.duplicates = 0, False
            self.slot = torch.empty(0, dtype=torch.int64, device=device)
            self._order = self.slot
            c = self.slot
            self._counts = torch.empty(0, dtype=self.dtype, device=device)
            row_counts = torch.zeros(nrows, dtype=torch.int64, device=device)
        self.indptr = torch.zeros(nrows + 1, dtype=torch.int64, device=device)
        self.indptr[1:] = torch.cumsum(row_counts, 0)
        self.cols32 = c.to(torch.int32)

    def _make_matrix(self, values, validate=False):
        with _stream_guard(self.device):
            return _geblas._matrix_from_csr(self.shape[0], self.shape[1], self.indptr, self.cols32,
                                            values.detach().contiguous(), validate, False)

    def _fix_degrees(self, matrix):
        """Mean divides by the multiplicity degree (what PyG's scatter mean counts)."""
        if not self.duplicates:
            return
        from . import _graph_of
        g, _ = _graph_of(matrix)
        counts = torch.zeros(self.shape[0], dtype=torch.int64, device=self.device)
        counts.index_add_(0, torch.repeat_interleave(torch.arange(self.shape[0], device=self.device),
                                                     torch.diff(self.indptr), output_size=self.nvals),
                          self._counts.to(torch.int64))
        g.degree = counts.clamp(min=1)
        g._degree_columns = {}

    @classmethod
    def batch(cls, graphs, aggregate="rows", dtype=None):
        """One block-diagonal Graph of many small graphs, so that one launch serves them
        all. graphs: a list of (edge_index, num_nodes) or (edge_index, num_nodes,
        edge_weight) or objects with .edge_index, .num_nodes (and .edge_weight), each
        numbered from 0. The result's ptr holds the vertex offsets: graph k's vertices are
        rows ptr[k] .. ptr[k+1] - 1 of X and of the output."""
        pieces, weights, sizes = [], [], []
        for g in graphs:
            if isinstance(g, (tuple, list)):
                ei, n, w = (tuple(g) + (None,))[:3]
            else:
                ei, n, w = g.edge_index, g.num_nodes, getattr(g, "edge_weight", None)
            if not isinstance(ei, torch.Tensor) or ei.dim() != 2 or ei.shape[0] != 2:
                raise _g.DimensionMismatch("geblas.torch.Graph.batch: every edge_index must be a 2 x E tensor")
            n = int(n)
            if ei.numel() and (int(ei.min()) < 0 or int(ei.max()) >= n):
                raise _g.InvalidIndex(f"geblas.torch.Graph.batch: graph {len(sizes)} has a vertex outside 0..{n - 1}")
            pieces.append(ei.as_subclass(torch.Tensor).to(torch.int64))
            weights.append(w)
            sizes.append(n)
        if not pieces:
            raise _g.InvalidValue("geblas.torch.Graph.batch: no graphs")
        if any(w is None for w in weights) and not all(w is None for w in weights):
            raise _g.InvalidValue("geblas.torch.Graph.batch: give edge weights for every graph or for none")
        device = pieces[0].device
        ptr = torch.zeros(len(sizes) + 1, dtype=torch.int64)
        ptr[1:] = torch.cumsum(torch.tensor(sizes, dtype=torch.int64), 0)
        offsets = ptr[:-1].to(device)
        ei = torch.cat([p + offsets[k] for k, p in enumerate(pieces)], 1)
        w = None if weights[0] is None else torch.cat(weights)
        g = cls(ei, num_nodes=int(ptr[-1]), edge_weight=w, aggregate=aggregate, dtype=dtype)
        g.ptr = ptr.to(device)
        return g

    # ----- use -----

    def values(self, edge_weight):
        """edge_weight (one per input edge, in the input's order) in the CSR order of the
        matrix, repeated edges summed; differentiable."""
        if not isinstance(edge_weight, torch.Tensor) or edge_weight.dim() != 1 or \
                edge_weight.numel() != self.nedges:
            raise _g.DimensionMismatch(f"geblas.torch.Graph: edge_weight must be a 1-D tensor of the graph's "
                                       f"{self.nedges} edges")
        if edge_weight.device != self.device:
            raise _g.DeviceMismatch(f"geblas.torch.Graph: edge_weight is on {edge_weight.device} but the graph "
                                    f"on {self.device}")
        if edge_weight.dtype != self.dtype and not edge_weight.is_floating_point():
            raise _g.DomainMismatch(f"geblas.torch.Graph: edge_weight must be floating point, is {edge_weight.dtype}")
        w = edge_weight.to(self.dtype)
        if self._order is not None:
            return w[self._order]
        return torch.zeros(self.nvals, dtype=w.dtype, device=w.device).index_add(0, self.slot, w)

    def operand(self, edge_weight=None):
        """(matrix, values) for geblas.torch.spmm: the matrix, and the CSR-ordered values
        to use in place of its own when they need a gradient (else None)."""
        if edge_weight is None:
            if self._grad_weight is not None:
                return self.matrix, self.values(self._grad_weight)
            return self.matrix, None
        if self._own_values:
            raise _g.InvalidValue("geblas.torch.spmm: the sparse matrix carries its own values; edge_weight "
                                  "would replace them")
        if edge_weight.requires_grad and torch.is_grad_enabled():
            return self.matrix, self.values(edge_weight)
        f = self._fixed
        if f is not None and f[0]() is edge_weight and f[1] == _version(edge_weight):
            return f[2], None
        m = self._make_matrix(self.values(edge_weight))
        self._fix_degrees(m)
        try:
            self._fixed = (weakref.ref(edge_weight), _version(edge_weight), m)
        except TypeError:
            self._fixed = None
        return m, None


# The Graphs that spmm built for raw inputs: id(input) -> (weakref to it, {key: (versions, Graph)}).
# Nothing kept here may alias the input (no view of it, not its values): torch keeps a
# tensor's Python object alive while a view of it lives, so the weak reference would never
# die and the entry would stay for good.
# Keyed by id with the weak reference checked (tensors compare elementwise, so they cannot be
# dictionary keys); the weak reference's callback drops the entry with the object. Nothing
# is stored on the input itself, so that copying or saving it carries no geblas objects.
_cache = {}


def _forget(key, ref):
    e = _cache.get(key)
    if e is not None and e[0] is ref:
        del _cache[key]


def source_versions(obj):
    if _is_sparse_tensor(obj):
        r, c, v = obj.coo()
        return (_version(r), _version(c), None if v is None else _version(v), id(v))
    if _is_dgl_graph(obj):  # a DGLGraph changes by adding or removing edges and vertices
        return (obj.num_edges(), obj.num_src_nodes(), obj.num_dst_nodes())
    if isinstance(obj, torch.Tensor) and obj.layout != torch.strided:
        # _values(): the stored values of a COO tensor, coalesced or not
        return (_version(obj), _version(obj._values() if obj.layout == torch.sparse_coo else obj.values()))
    return (_version(obj),)


def object_cache(obj):
    """The dictionary kept for obj while it lives (None when obj takes no weak
    reference): geblas.torch's Graphs of obj and what the nn layers derive from it, each
    value stored as (source_versions(obj), value) and valid while those match."""
    k = id(obj)
    entry = _cache.get(k)
    if entry is not None and entry[0]() is obj:
        return entry[1]
    try:
        ref = weakref.ref(obj, lambda r, k=k: _forget(k, r))
    except TypeError:
        return None
    d = {}
    _cache[k] = (ref, d)
    return d


def cached_graph(obj, num_nodes=None, aggregate="rows", dtype=torch.float32, pattern=False):
    """The Graph of obj (an edge_index, sparse tensor, SparseTensor or EdgeIndex), built on
    the first call and kept while obj lives and is not changed in place. pattern: obj's
    structure with every value 1 (a sparse obj's own values left out)."""
    if isinstance(obj, Graph):
        return obj
    key = ("graph", aggregate, None if num_nodes is None else _sizes(num_nodes, "geblas.torch.spmm"), dtype, pattern)
    versions = source_versions(obj)
    graphs = object_cache(obj)
    if graphs is not None:
        hit = graphs.get(key)
        if hit is not None and hit[0] == versions:
            return hit[1]
    g = Graph(obj, num_nodes=num_nodes, aggregate=aggregate, dtype=dtype, pattern=pattern)
    g._grad_weight = None  # values that require a gradient are read from obj at every call
    if graphs is not None:
        graphs[key] = (versions, g)
    return g


def source_values(obj):
    """The values of a sparse obj, in the order Graph read them, when they require a
    gradient (read anew at every call, so that the gradient reaches obj and a step of the
    optimiser is seen), else None."""
    if _is_sparse_tensor(obj):
        v = obj.storage.value()
        return v if v is not None and v.requires_grad else None
    if isinstance(obj, torch.Tensor) and obj.layout != torch.strided and obj.requires_grad:
        return (obj.coalesce() if obj.layout == torch.sparse_coo else obj).values()
    return None
