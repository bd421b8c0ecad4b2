"""Graph convolution layers that stand in for PyG's, with geblas.torch.spmm aggregating.

GCNConv, SAGEConv and GATConv take PyG's constructor arguments, hold PyG's parameters under PyG's
names (a PyG layer's state_dict loads into them and back) and return what PyG's layers
return for forward(x, edge_index, ...). edge_index is PyG's (2 x E, messages from
edge_index[0] to edge_index[1]) or a sparse adjacency in PyG's adj_t orientation (a torch
sparse tensor or a torch_sparse SparseTensor whose rows aggregate).

Everything derived from a graph (its CSR, GCN's self loops and normalisation) is built on
the first forward and kept with the graph object (geblas.torch.graph.object_cache): later
forwards on the same, unchanged edge_index cost one SpMM, whatever ``cached`` says.
``cached=True`` keeps PyG's meaning: the first graph's normalisation is used for every
later call, whatever graph is passed.
"""

import torch
import torch.nn.functional as F

import geblas as _g
from . import spmm
from .attention import edge_softmax, gat_conv, with_self_loops
from .graph import Graph, cached_graph, object_cache, source_versions


def _edges(edge_index, what):
    """(edge_index as 2 x E int64, values or None) of a dense edge_index or a sparse adj_t."""
    if isinstance(edge_index, torch.Tensor) and edge_index.layout == torch.strided:
        if edge_index.dim() != 2 or edge_index.shape[0] != 2:
            raise _g.DimensionMismatch(f"{what}: edge_index must be 2 x E, has shape {tuple(edge_index.shape)}")
        if edge_index.dtype not in (torch.int64, torch.int32):
            raise _g.DomainMismatch(f"{what}: edge_index must be int64, is {edge_index.dtype}")
        return edge_index.as_subclass(torch.Tensor).to(torch.int64), None
    rows, cols, values, _ = Graph.from_sparse(edge_index, what)
    return torch.stack([cols, rows]), values  # adj_t(target, source)


def gcn_norm(edge_index, edge_weight, num_nodes, improved=False, add_self_loops=True, dtype=torch.float32):
    """PyG's gcn_norm on an edge list: every vertex without a self loop gets one of weight
    2 (improved) or 1, an existing self loop keeps its weight; deg(i) = the weight sum of
    the edges into i; each edge j -> i is weighted deg(j)^-1/2 w deg(i)^-1/2 (0 where a
    degree is 0). Returns (edge_index, edge_weight)."""
    E = edge_index.shape[1]
    w = torch.ones(E, dtype=dtype, device=edge_index.device) if edge_weight is None else edge_weight
    if add_self_loops:
        fill = 2.0 if improved else 1.0
        mask = edge_index[0] != edge_index[1]
        loop = torch.arange(num_nodes, device=edge_index.device)
        loop_w = torch.full((num_nodes,), fill, dtype=w.dtype, device=w.device)
        loop_w[edge_index[0][~mask]] = w[~mask]
        edge_index = torch.cat([edge_index[:, mask], torch.stack([loop, loop])], 1)
        w = torch.cat([w[mask], loop_w])
    deg = torch.zeros(num_nodes, dtype=w.dtype, device=w.device).index_add(0, edge_index[1], w)
    dis = deg.pow(-0.5)
    dis = dis.masked_fill(torch.isinf(dis), 0)
    return edge_index, dis[edge_index[0]] * w * dis[edge_index[1]]


class GCNConv(torch.nn.Module):
    """PyG's GCNConv: out = D^-1/2 (A + I) D^-1/2 (x W') + bias (Kipf and Welling 2017),
    parameters lin.weight (out x in, Glorot) and bias (zeros)."""

    def __init__(self, in_channels, out_channels, improved=False, cached=False, add_self_loops=True,
                 normalize=True, bias=True):
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.improved, self.cached, self.add_self_loops, self.normalize = improved, cached, add_self_loops, normalize
        self.lin = torch.nn.Linear(in_channels, out_channels, bias=False)
        if bias:
            self.bias = torch.nn.Parameter(torch.empty(out_channels))
        else:
            self.register_parameter("bias", None)
        self._cached_operand = None
        self.reset_parameters()

    def reset_parameters(self):
        torch.nn.init.xavier_uniform_(self.lin.weight)
        if self.bias is not None:
            torch.nn.init.zeros_(self.bias)
        self._cached_operand = None

    def _operand(self, edge_index, edge_weight, n, dtype):
        """(A, values) for spmm: the normalised matrix, or its pattern with the values."""
        what = "geblas.torch.nn.GCNConv"
        if not self.normalize:
            if isinstance(edge_index, torch.Tensor) and edge_index.layout == torch.strided:
                g = cached_graph(edge_index, n, "rows", dtype)
                return g.operand(edge_weight)
            if edge_weight is not None:
                raise _g.InvalidValue(f"{what}: a sparse adj_t carries its own values; edge_weight must be None")
            return cached_graph(edge_index, None, "rows", None).operand()
        cache = object_cache(edge_index)
        key = ("gcn", self.improved, self.add_self_loops, n, dtype)
        versions = source_versions(edge_index)
        hit = cache.get(key) if cache is not None else None
        if hit is None or hit[0] != versions:
            ei, values = _edges(edge_index, what)
            if values is not None and edge_weight is not None:
                raise _g.InvalidValue(f"{what}: a sparse adj_t carries its own values; edge_weight must be None")
            looped, norm = gcn_norm(ei, None if values is None else values.detach().to(dtype), n, self.improved,
                                    self.add_self_loops, dtype)
            pattern = Graph(looped, num_nodes=n, dtype=dtype)
            fixed = pattern._make_matrix(pattern.values(norm), validate=False)
            pattern._fix_degrees(fixed)
            # a copy: ei may be a view of edge_index, which must not outlive it (object_cache)
            hit = (versions, (ei.clone(), pattern, fixed))
            if cache is not None:
                cache[key] = hit
        ei, pattern, fixed = hit[1]
        if edge_weight is None:
            return fixed, None
        _, norm = gcn_norm(ei, edge_weight.to(dtype), n, self.improved, self.add_self_loops, dtype)
        return pattern.matrix, pattern.values(norm)

    def forward(self, x, edge_index, edge_weight=None):
        if self.normalize and self.cached and self._cached_operand is not None:
            A, values = self._cached_operand
        else:
            A, values = self._operand(edge_index, edge_weight, x.shape[0], x.dtype)
            if self.normalize and self.cached:
                self._cached_operand = (A, None if values is None else values.detach())
        h = self.lin(x).contiguous()
        out = spmm(A, h, "sum", values=values)
        if self.bias is not None:
            out = out + self.bias
        return out

    def __repr__(self):
        return f"{self.__class__.__name__}({self.in_channels}, {self.out_channels})"


class SAGEConv(torch.nn.Module):
    """PyG's SAGEConv (Hamilton et al. 2017): out = lin_l(aggr_{j -> i} x_j) + lin_r(x_i),
    aggr 'mean', 'max', 'min' or 'sum' ('add'), optionally L2-normalised; project=True
    first maps the source features through lin (with a ReLU). Edge values are ignored, as
    PyG ignores them. x may be a pair (x_source, x_target) for a bipartite graph."""

    _AGGRS = {"mean": "mean", "max": "max", "min": "min", "sum": "sum", "add": "sum"}

    def __init__(self, in_channels, out_channels, aggr="mean", normalize=False, root_weight=True, project=False,
                 bias=True):
        super().__init__()
        if aggr not in self._AGGRS:
            raise _g.InvalidValue(f"geblas.torch.nn.SAGEConv: aggr must be one of {tuple(self._AGGRS)}, got {aggr!r}")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.aggr, self.normalize, self.root_weight, self.project = aggr, normalize, root_weight, project
        pair = (in_channels, in_channels) if isinstance(in_channels, int) else tuple(in_channels)
        if project:
            self.lin = torch.nn.Linear(pair[0], pair[0], bias=True)
        self.lin_l = torch.nn.Linear(pair[0], out_channels, bias=bias)
        if root_weight:
            self.lin_r = torch.nn.Linear(pair[1], out_channels, bias=False)

    def reset_parameters(self):
        for m in (getattr(self, "lin", None), self.lin_l, getattr(self, "lin_r", None)):
            if m is not None:
                m.reset_parameters()

    def forward(self, x, edge_index, size=None):
        if isinstance(x, torch.Tensor):
            x = (x, x)
        if self.project:
            x = (F.relu(self.lin(x[0])), x[1])
        src, dst = x
        if isinstance(edge_index, torch.Tensor) and edge_index.layout == torch.strided:
            n_dst = dst.shape[0] if dst is not None else (size[1] if size is not None else src.shape[0])
            n_src = size[0] if size is not None else src.shape[0]
            g = cached_graph(edge_index, (n_src, n_dst), "rows", src.dtype)
        else:
            g = cached_graph(edge_index, None, "rows", src.dtype, pattern=True)
        out = spmm(g, src.contiguous(), self._AGGRS[self.aggr])
        out = self.lin_l(out)
        if self.root_weight and dst is not None:
            out = out + self.lin_r(dst)
        if self.normalize:
            out = F.normalize(out, p=2.0, dim=-1)
        return out

    def __repr__(self):
        return f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, aggr={self.aggr})"



def _glorot(t):
    """PyG's glorot: uniform in +-sqrt(6 / (fan_in + fan_out)) over the last two dimensions."""
    bound = (6.0 / (t.size(-2) + t.size(-1))) ** 0.5
    with torch.no_grad():
        t.uniform_(-bound, bound)


class GATConv(torch.nn.Module):
    """PyG's GATConv (Velickovic et al. 2018): per head h, x'_h = x W_h', alpha_ij^h = the
    softmax over row i of leaky_relu(att_dst_h . x'_h(i) + att_src_h . x'_h(j)), out_i^h =
    sum_j alpha_ij^h x'_h(j); heads concatenated (concat=True) or averaged, then + bias.
    Parameters as PyG names them: lin.weight (heads * out x in), att_src and att_dst
    (1 x heads x out), bias; Glorot and zeros as PyG initialises them. add_self_loops
    removes the graph's self loops and adds one per vertex, as GATConv does.

    Evaluation, or training without attention dropout, runs geblas's fused attention
    (geblas.torch.gat_conv: one kernel for the scores, the row softmax and the aggregation;
    the attention coefficients are the only edge-sized values kept). Training with
    dropout > 0 drops attention coefficients as PyG does, which the fused kernel cannot:
    there the scores, the edge softmax (geblas.torch.edge_softmax) and one sum SpMM per head
    with the dropped coefficients as values (gradients through them by geblas's sampled
    product) run as separate steps."""

    def __init__(self, in_channels, out_channels, heads=1, concat=True, negative_slope=0.2, dropout=0.0,
                 add_self_loops=True, bias=True):
        super().__init__()
        self.in_channels, self.out_channels, self.heads, self.concat = in_channels, out_channels, heads, concat
        self.negative_slope, self.dropout, self.add_self_loops = negative_slope, dropout, add_self_loops
        self.lin = torch.nn.Linear(in_channels, heads * out_channels, bias=False)
        self.att_src = torch.nn.Parameter(torch.empty(1, heads, out_channels))
        self.att_dst = torch.nn.Parameter(torch.empty(1, heads, out_channels))
        if bias:
            self.bias = torch.nn.Parameter(torch.empty(heads * out_channels if concat else out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        _glorot(self.lin.weight)
        _glorot(self.att_src)
        _glorot(self.att_dst)
        if self.bias is not None:
            torch.nn.init.zeros_(self.bias)

    def forward(self, x, edge_index):
        n = x.shape[0]
        if isinstance(edge_index, torch.Tensor) and edge_index.layout == torch.strided:
            g = cached_graph(edge_index, n, "rows", x.dtype, pattern=True)
        else:
            g = cached_graph(edge_index, None, "rows", x.dtype, pattern=True)
        if not (self.training and self.dropout > 0):
            return gat_conv(g.matrix, x, self.lin.weight, self.att_src, self.att_dst, self.bias, heads=self.heads,
                            concat=self.concat, negative_slope=self.negative_slope,
                            add_self_loops=self.add_self_loops)
        m = with_self_loops(g.matrix) if self.add_self_loops else g.matrix
        rows, cols = _entry_rows_cols(m)
        H, C = self.heads, self.out_channels
        xp = self.lin(x).view(n, H, C)
        el = (xp * self.att_dst).sum(-1)  # the target's (row's) term
        er = (xp * self.att_src).sum(-1)  # the source's (column's) term
        e = F.leaky_relu(el[rows] + er[cols], self.negative_slope)
        alpha = F.dropout(edge_softmax(m, e), p=self.dropout, training=True)
        out = torch.stack([spmm(m, xp[:, h, :].contiguous(), "sum", values=alpha[:, h].contiguous())
                           for h in range(H)], 1)
        out = out.reshape(n, H * C) if self.concat else out.mean(dim=1)
        if self.bias is not None:
            out = out + self.bias
        return out

    def __repr__(self):
        return f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, heads={self.heads})"


def _entry_rows_cols(m):
    """(row, column) of every stored entry of geblas.Matrix m in CSR order, int64, kept on m."""
    rc = getattr(m, "_geblas_entry_rows_cols", None)
    if rc is None:
        indptr, indices, _ = (torch.utils.dlpack.from_dlpack(e) for e in m._csr())
        rows = torch.repeat_interleave(torch.arange(m.nrows, device=indptr.device), torch.diff(indptr))
        rc = (rows, indices.to(torch.int64))
        try:
            m._geblas_entry_rows_cols = rc
        except AttributeError:
            pass
    return rc
