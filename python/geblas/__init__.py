"""geblas: GraphBLAS-style semiring sparse linear algebra on the CPU and CUDA GPUs.

The objects are ``geblas.Matrix`` (sparse, CSR) and ``geblas.Vector`` (dense or sparse);
dense operands are plain arrays: NumPy arrays, or any object with ``__dlpack__`` (torch
tensors, CuPy arrays), which geblas reads and writes in place, without copies. A result
comes back in the kind of the array operands (NumPy in, NumPy out; torch in, torch
out); with geblas objects only, as NumPy on the CPU and as torch tensors on a GPU.

``geblas.sddmm(X, Y, pattern)`` is the sampled product: <x_i, y_j> (any semiring) at the
entries of the Matrix ``pattern`` only (``mxm`` of two arrays into a Matrix ``out=`` with
a sparse mask is the same product); ``scale=alpha`` or ``leaky_relu=slope`` applies that
op to each entry as it is written (on the CPU and the GPU).

Operations keep the names of the C++ API (mxm, mxv, vxm, ewise_add, ewise_mult, apply,
select, reduce, transpose, extract, extract_column, assign, convert) and take its
options as keywords: mask=, accum=, replace=, structural_mask=, complement_mask=,
transpose_a=, transpose_b=, out=. Bad input raises a geblas.Error subclass that is also
the matching built-in (ValueError, IndexError, TypeError, MemoryError, OSError, ...),
carrying the C++ message. geblas.torch holds the autograd SpMM for PyTorch.

Semirings defined at run time: ``s = geblas.Semiring("max", "a + b", dtype="float32")``
or ``geblas.Semiring("a < b ? a : b", "a + b", dtype="int32", identity=2147483647)``, then
``geblas.mxm(A, B, s)`` for sparse A and dense B: NVRTC compiles the tuned GPU kernels for
it on first use (cached in memory and on disk), the CPU interprets the same expressions.
"""

import functools as _functools
import operator as _operator
import os as _os
import re as _re
import sys as _sys

import numpy as _np

from . import _geblas
from ._geblas import (  # noqa: F401  (the public names)
    DeviceMismatch,
    DimensionMismatch,
    DomainMismatch,
    Error,
    ExecutionError,
    Exported,
    IndexOutOfBounds,
    InvalidIndex,
    InvalidObject,
    InvalidValue,
    IoError,
    Matrix,
    NotImplementedError,
    OutOfMemory,
    ParseError,
    Semiring,
    Vector,
    cuda_compiled,
    cuda_device_count,
    jit_cache_directory,
    jit_clear_memory_cache,
    jit_variants,
    read_matrix_market_header,
    reset_transfer_counts,
    transfer_counts,
    write_matrix_market,
)

__version__ = _geblas.__version__

# The built-in semirings' names and the stored value types' names, from the library's
# tables (the module reads them from libgeblas).
SEMIRINGS = _geblas.SEMIRINGS
TYPES = _geblas.TYPES

# --- argument checks ----------------------------------------------------------------------------
# pybind11 answers an argument of the wrong type with a plain TypeError ("incompatible function
# arguments") that names no argument. Every function of the extension goes through
# _named_type_errors, which turns that into a DomainMismatch (a geblas.Error and a TypeError)
# naming the first argument whose type does not fit the signature pybind11 documents.

# What each type of a pybind11 signature accepts, and how the message calls it.
_SIGNATURE_TYPES = {
    "geblas._geblas.Matrix": (lambda v: isinstance(v, Matrix), "a geblas.Matrix"),
    "geblas._geblas.Vector": (lambda v: isinstance(v, Vector), "a geblas.Vector"),
    "str": (lambda v: isinstance(v, str), "a str"),
    "bool": (lambda v: isinstance(v, (bool, _np.bool_)), "a bool"),
    "int": (lambda v: hasattr(type(v), "__index__"), "an int"),
    "float": (lambda v: not isinstance(v, (str, bytes)) and
              (hasattr(type(v), "__float__") or hasattr(type(v), "__index__")), "a number"),
}


def _signature_parameters(fn):
    """[(name, type)] from the first line of a pybind11 docstring, [] when there is none."""
    first = (fn.__doc__ or "").split("\n", 1)[0]
    m = _re.match(r"\w+\((.*)\)\s*->", first)
    if not m:
        return []
    params, depth, cur = [], 0, ""
    for ch in m.group(1) + ",":
        if ch == "," and depth == 0:
            name, _, rest = cur.strip().partition(":")
            params.append((name.strip(), rest.split("=", 1)[0].strip()))
            cur = ""
            continue
        depth += ch in "[("
        depth -= ch in "])"
        cur += ch
    return params


def _named_type_errors(fn):
    params = _signature_parameters(fn)
    name = fn.__name__

    @_functools.wraps(fn)
    def run(*args, **kw):
        try:
            return fn(*args, **kw)
        except TypeError as e:
            if isinstance(e, Error) or "incompatible function arguments" not in str(e):
                raise
            given = dict(zip((p for p, _ in params), args))
            given.update(kw)
            for pname, ptype in params:
                accepts, what = _SIGNATURE_TYPES.get(ptype, (None, None))
                if pname in given and accepts is not None and not accepts(given[pname]):
                    got = type(given[pname]).__name__
                    raise DomainMismatch(f"{name}: {pname} must be {what}, got {got}") from None
            raise DomainMismatch(f"{name}: the arguments do not fit its signature ({e})") from None
    return run


for _name in dir(_geblas):
    _fn = getattr(_geblas, _name)
    if type(_fn).__name__ == "builtin_function_or_method":
        setattr(_geblas, _name, _named_type_errors(_fn))
read_matrix_market_header = _geblas.read_matrix_market_header
write_matrix_market = _geblas.write_matrix_market
transfer_counts = _geblas.transfer_counts


def _int_arg(x, what):
    """x as an int (anything with __index__: int, numpy integers), else DomainMismatch naming it."""
    try:
        return _operator.index(x)
    except TypeError:
        raise DomainMismatch(f"{what} must be an integer, got {type(x).__name__}") from None


def _shape_arg(shape, what):
    try:
        rows, cols = shape
    except (TypeError, ValueError):
        raise DomainMismatch(f"{what} must be a pair of integers, got {shape!r}") from None
    return _int_arg(rows, what), _int_arg(cols, what)


def _index_array(x, what):
    """x as a contiguous int64 array; DomainMismatch naming it for anything but integers (a
    float 0.5 is never truncated to 0), InvalidIndex for unsigned values beyond int64."""
    a = _np.asarray(x)
    if a.size == 0:
        return _np.zeros(0, _np.int64)
    if a.dtype.kind not in "iu":
        raise DomainMismatch(f"{what} must be integers, got an array of {a.dtype}")
    if a.dtype.kind == "u" and a.max() > _np.iinfo(_np.int64).max:
        raise InvalidIndex(f"{what}: index {a.max()} does not fit int64")
    return _np.ascontiguousarray(a, dtype=_np.int64)


def _path_arg(path, what):
    """A file name from a str or os.PathLike; DomainMismatch for anything else (None must not
    open a file named 'None')."""
    if not isinstance(path, (str, _os.PathLike)):
        raise DomainMismatch(f"{what} must be a str or os.PathLike, got {type(path).__name__}")
    return _os.fsdecode(path)



# --- names of dtypes and devices -------------------------------------------------------------

def _dtype_name(dtype):
    """'float32' for 'float32', numpy.float32, numpy.dtype('f4') or torch.float32."""
    if dtype is None or isinstance(dtype, str):
        return dtype
    text = str(dtype)
    if text.startswith("torch."):
        return text[len("torch."):]
    return _np.dtype(dtype).name


def _device_name(device):
    if device is None:
        return "cpu"
    text = str(device)  # torch.device prints as "cuda:0" / "cpu"
    return text


def default_device():
    """'cuda:0' when a GPU is usable, else 'cpu'."""
    return _geblas.default_device()


def synchronize(device="cuda:0"):
    """Waits until the work geblas queued on `device` is done (no-op on the CPU): geblas's
    own stream, or torch's current stream when torch is imported (the stream the package
    runs its calls on then)."""
    with _TorchStreams([], devices=[_device_name(device)]):
        _geblas.synchronize(_device_name(device))


def current_stream(device="cuda:0"):
    """The CUDA stream (an integer handle) that geblas calls on `device` from this thread
    run on: torch's current stream when torch is imported, else geblas's own."""
    with _TorchStreams([], devices=[_device_name(device)]):
        return _geblas.current_stream(_device_name(device))


# --- results: NumPy or torch ------------------------------------------------------------------

def _is_torch(x):
    module = type(x).__module__
    return (module == "torch" or module.startswith("torch.")) and hasattr(x, "__dlpack__")


def _flavor(items):
    """'torch' if any operand is a torch tensor, 'numpy' if any is a NumPy array, else None."""
    flavor = None
    for x in items:
        if x is None or isinstance(x, (Matrix, Vector)):
            continue
        if _is_torch(x):
            return "torch"
        if isinstance(x, _np.ndarray):
            flavor = "numpy"
    return flavor


def _cuda_devices(items):
    """The CUDA devices of a call's torch tensors and geblas objects."""
    devices = set()
    for x in items:
        if x is None:
            continue
        if _is_torch(x):
            if x.device.type == "cuda":
                devices.add(str(x.device))
        elif isinstance(x, (Matrix, Vector)) and x.device != "cpu":
            devices.add(x.device)
    return devices


# torch's current stream of a device as an integer handle: torch._C._cuda_getCurrentRawStream
# answers in well under a microsecond where torch.cuda.current_stream(device).cuda_stream
# builds a torch.device and a Stream object (several microseconds a call). Resolved on the
# first call after torch has initialised CUDA (before that, current_stream initialises it).
_raw_stream = None


def _torch_stream_handle(device):
    """torch's current stream on `device` ('cuda:N', or a torch.device of type cuda)."""
    global _raw_stream
    index = device.index if not isinstance(device, str) else (int(device[5:]) if device[:5] == "cuda:" else None)
    if _raw_stream is None:
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is None or not torch.cuda.is_initialized():
            return torch.cuda.current_stream(torch.device(device)).cuda_stream
        _raw_stream = raw
    if index is None:  # 'cuda': torch's current device, as torch.device('cuda') means
        import torch
        return torch.cuda.current_stream(torch.device(device)).cuda_stream
    return _raw_stream(index)


_torch_cuda_usable = None  # torch.cuda.is_available(), asked once torch is imported


def _torch_has_cuda():
    global _torch_cuda_usable
    if _torch_cuda_usable is None:
        import torch
        _torch_cuda_usable = torch.cuda.is_available()
    return _torch_cuda_usable


class _TorchStreams:
    """Runs the geblas calls of a with block on torch's current stream of every CUDA device
    the operands are on, so that they are ordered with the torch work before and after
    them without host synchronisation. Without torch imported, geblas keeps its own
    streams (geblas results handed to torch later wait for them in __dlpack__)."""

    __slots__ = ("_scopes",)

    def __init__(self, items, devices=()):
        self._scopes = []
        if "torch" not in _sys.modules:  # first: a NumPy call pays nothing more
            return
        devices = _cuda_devices(items) | {d for d in devices if d != "cpu"}
        if not devices or not _torch_has_cuda():  # a CPU-only torch: geblas keeps its own streams
            return
        for d in sorted(devices):
            self._scopes.append(_geblas._StreamScope(d, _torch_stream_handle(d)))

    def __enter__(self):
        entered = []
        try:
            for s in self._scopes:
                s.__enter__()
                entered.append(s)
        except BaseException:
            for s in reversed(entered):
                s.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        for s in reversed(self._scopes):
            s.__exit__(None, None, None)
        return False


def _on_torch_streams(fn, *arg_names):
    """fn with its calls run on torch's current streams (_TorchStreams) of the CUDA devices
    of its positional arguments and of the keyword arguments named."""
    @_functools.wraps(fn)
    def run(*args, **kw):
        with _TorchStreams(list(args) + [kw.get(k) for k in arg_names]):
            return fn(*args, **kw)
    return run


def _result(r, flavor):
    """An Exported buffer as a NumPy array or torch tensor, without copying."""
    if not isinstance(r, Exported):
        return r
    if flavor == "numpy" or (flavor is None and r.device == "cpu" and r.dtype != "bfloat16"):
        return r.numpy()
    try:
        import torch
    except ImportError:
        if r.device == "cpu":
            return r.numpy()
        return r  # still usable through __dlpack__ (CuPy, JAX)
    return torch.utils.dlpack.from_dlpack(r)


def _operation(fn):
    @_functools.wraps(fn)
    def run(*args, **kw):
        out = kw.get("out")
        items = (*args, out, kw.get("mask"))
        flavor = _flavor(items)
        streams = _TorchStreams(items) if "torch" in _sys.modules else None
        if streams is None or not streams._scopes:  # NumPy, the CPU, or no torch: no with block
            r = fn(*args, **kw)
            if r is None and out is not None:
                return out
            return _result(r, flavor)
        with streams:
            r = fn(*args, **kw)
            if r is None and out is not None:
                return out
            # Exported while on torch's stream: torch takes it without waiting.
            return _result(r, flavor)
    return run


mxm = _operation(_geblas.mxm)
sddmm = _operation(_geblas.sddmm)
mxv = _operation(_geblas.mxv)
vxm = _operation(_geblas.vxm)
ewise_add = _operation(_geblas.ewise_add)
ewise_mult = _operation(_geblas.ewise_mult)
apply = _operation(_geblas.apply)
select = _operation(_geblas.select)
reduce = _operation(_geblas.reduce)
transpose = _operation(_geblas.transpose)
extract = _operation(_geblas.extract)
extract_column = _operation(_geblas.extract_column)
gcn_aggregate = _operation(_geblas.gcn_aggregate)
sage_mean_aggregate = _operation(_geblas.sage_mean_aggregate)
sage_max_aggregate = _operation(_geblas.sage_max_aggregate)
softmax_rows = _operation(_geblas.softmax_rows)
softmax_rows_backward = _operation(_geblas.softmax_rows_backward)
gcn_normalize = _on_torch_streams(_geblas.gcn_normalize)
triangle_count = _on_torch_streams(_geblas.triangle_count)


def assign(C, A, rows=None, cols=None, **options):
    """C<mask>(rows, cols) = accum(C(rows, cols), A) in place (A a Matrix, Vector or scalar);
    returns C."""
    with _TorchStreams([C, A, options.get("mask")]):
        return _geblas.assign(C, A, rows, cols, **options)


def convert(A, dtype):
    """A copy of A with values of another type ('float32', numpy.float64, torch.float16...)."""
    flavor = _flavor([A])
    with _TorchStreams([A]):
        return _result(_geblas.convert(A, _dtype_name(dtype)), flavor)


# --- algorithms ---------------------------------------------------------------------------------

def pagerank(A, damping=0.85, tolerance=1e-6, max_iterations=100, weighted=False, seeds=None, info=False):
    """PageRank ranks of A's vertices (A(i, j): an edge i -> j) as a NumPy array (a torch
    tensor for a matrix on a GPU). seeds: a list of seed lists gives personalized PageRank,
    one column per list. info=True also returns {'iterations', 'converged', 'delta'}."""
    with _TorchStreams([A]):
        r = _geblas.pagerank(A, damping, tolerance, max_iterations, weighted, seeds, info)
        if info:
            return _result(r[0], None), r[1]
        return _result(r, None)


def bfs(A, source, parents=False, direction="automatic"):
    """BFS levels from `source` (int64, -1 where not reached); with parents=True also the
    parents (the smallest in-neighbour on the previous level). A list of sources gives
    n x k arrays, one column per source."""
    with _TorchStreams([A]):
        r = _geblas.bfs(A, source, parents, direction)
        if parents:
            return _result(r[0], None), _result(r[1], None)
        return _result(r, None)


def sssp(A, source, allow_negative=False):
    """Shortest-path distances from `source` (inf where unreachable); a list of sources
    gives an n x k array."""
    with _TorchStreams([A]):
        return _result(_geblas.sssp(A, source, allow_negative), None)


def connected_components(A):
    """Component labels (each vertex: the smallest vertex id of its component) of the
    undirected graph underlying A."""
    with _TorchStreams([A]):
        return _result(_geblas.connected_components(A), None)


def locality_order(A):
    """A vertex order that improves the locality of products by A (reverse Cuthill-McKee on
    A + A'): an int64 NumPy array with order[new] = old. Rename the vertices with it, e.g.
    P = S[order][:, order] for a SciPy matrix S, and read X[order] where X was meant. Gains
    where the ids carry no locality (docs/PERFORMANCE.md, "Locality order")."""
    with _TorchStreams([A]):
        return _result(_geblas.locality_order(A), "numpy")


# --- I/O ---------------------------------------------------------------------------------------

def read_matrix_market(path, dtype="float32", device="cpu", duplicates=None, drop_zeros=False):
    """A Matrix Market file (plain or .gz) as a geblas.Matrix. duplicates: None (an error)
    or a binary operator name ('plus', 'max', 'first', 'second') to combine them."""
    return _geblas.read_matrix_market(_path_arg(path, "read_matrix_market: path"), _dtype_name(dtype),
                                      _device_name(device), duplicates, drop_zeros)


def read_graph(path, dtype="float32", device="cpu", undirected=False, base=0):
    """Any graph file geblas reads (Matrix Market, geblas binary, edge list, CSV)."""
    return _geblas.read_graph(_path_arg(path, "read_graph: path"), _dtype_name(dtype), _device_name(device),
                              undirected, base)


# --- Matrix and Vector: conversions ---------------------------------------------------------------

def _matrix_from_scipy(m, dtype=None, device="cpu", copy=True):
    """A geblas.Matrix from any scipy.sparse matrix or array (duplicates summed, as SciPy
    defines them). copy=False lets the matrix use SciPy's arrays in place where their
    types allow (int64 indptr, int32 indices)."""
    m = m.tocsr()
    if not m.has_canonical_format:
        m = m.copy()
        m.sum_duplicates()
    data = m.data if dtype is None else m.data.astype(_dtype_name(dtype), copy=False)
    A = _geblas._matrix_from_csr(m.shape[0], m.shape[1], m.indptr, m.indices, data, True, copy)
    device = _device_name(device)
    return A if device == "cpu" else A.to(device)


def _matrix_from_csr(indptr, indices, values, shape, validate=True, copy=False):
    """A Matrix over CSR arrays (NumPy, or torch/DLPack on any device), used in place when
    indptr is int64, indices int32 and nothing is copied (copy=False). After changing such
    arrays in place, call clear_cache() before the next use: it checks them again and, if
    they no longer form a valid matrix, raises and makes the matrix refuse every use until
    a later clear_cache() passes. validate=False skips the structure check (sorted, unique,
    in-range columns) for arrays known to be valid; on a GPU it saves a host copy."""
    nrows, ncols = _shape_arg(shape, "Matrix.from_csr: shape")
    with _TorchStreams([indptr, indices, values]):
        return _geblas._matrix_from_csr(nrows, ncols, indptr, indices, values, validate, copy)


def _matrix_from_coo(rows, cols, values, shape, dup=None, dtype=None, device="cpu"):
    """A Matrix from (row, col, value) tuples; duplicates are an error unless `dup` names a
    binary operator ('plus', 'max', 'first', ...) to combine them."""
    nrows, ncols = _shape_arg(shape, "Matrix.from_coo: shape")
    rows = _index_array(rows, "Matrix.from_coo: rows")
    cols = _index_array(cols, "Matrix.from_coo: cols")
    values = _np.ascontiguousarray(_np.asarray(values))
    if dtype is not None:
        values = values.astype(_dtype_name(dtype), copy=False)
    return _geblas._matrix_from_coo(nrows, ncols, rows, cols, values, dup, _device_name(device))


def _matrix_from_dense(array, dtype=None, device="cpu"):
    """A Matrix of the nonzero entries of a 2-D NumPy array."""
    a = _np.asarray(array)
    if a.ndim != 2:
        raise DimensionMismatch(f"Matrix.from_dense: the array must be 2-D, has shape {a.shape}")
    r, c = _np.nonzero(a)
    return _matrix_from_coo(r, c, a[r, c], a.shape, None, dtype, device)


def _matrix_from_torch(t, validate=True):
    """A Matrix over a torch sparse tensor's arrays (CSR used in place where the index
    types allow; COO is converted to CSR by torch first)."""
    import torch
    if t.layout == torch.sparse_coo:
        t = t.coalesce().to_sparse_csr()
    if t.layout != torch.sparse_csr:
        raise InvalidValue(f"Matrix.from_torch: expected a sparse CSR or COO tensor, got layout {t.layout}")
    return _matrix_from_csr(t.crow_indices(), t.col_indices(), t.values(), t.shape, validate=validate)


def _matrix_csr(self):
    """(indptr int64, indices int32, values) as NumPy arrays (copied from the matrix)."""
    A = self if self.device == "cpu" else self.to("cpu")
    return tuple(e.numpy() for e in A._csr())


def _matrix_to_scipy(self):
    """A scipy.sparse.csr_array copy (from the GPU if the matrix is there)."""
    import scipy.sparse
    indptr, indices, values = _matrix_csr(self)
    return scipy.sparse.csr_array((values, indices, indptr), shape=self.shape)


def _matrix_to_dense(self, fill=0):
    """The matrix as a dense NumPy array; absent entries are `fill`."""
    indptr, indices, values = _matrix_csr(self)
    out = _np.full(self.shape, fill, dtype=values.dtype)
    rows = _np.repeat(_np.arange(self.nrows), _np.diff(indptr))
    out[rows, indices] = values
    return out


def _matrix_tuples(self):
    """(rows int64, cols int64, values) of the stored entries, row-major."""
    indptr, indices, values = _matrix_csr(self)
    return _np.repeat(_np.arange(self.nrows, dtype=_np.int64), _np.diff(indptr)), indices.astype(_np.int64), values


def _matrix_to_torch(self):
    """A torch sparse CSR tensor copy on the matrix's device (int64 indices)."""
    import torch
    with _TorchStreams([self]):
        indptr, indices, values = (torch.utils.dlpack.from_dlpack(e) for e in self._csr())
    return torch.sparse_csr_tensor(indptr, indices.to(torch.int64), values, size=self.shape)


# The methods that read or write device memory run on torch's stream too.
Matrix.to = _on_torch_streams(Matrix.to)
Matrix.dup = _on_torch_streams(Matrix.dup)
Matrix._csr = _on_torch_streams(Matrix._csr)
Matrix.from_scipy = staticmethod(_matrix_from_scipy)
Matrix.from_csr = staticmethod(_matrix_from_csr)
Matrix.from_coo = staticmethod(_matrix_from_coo)
Matrix.from_dense = staticmethod(_matrix_from_dense)
Matrix.from_torch = staticmethod(_matrix_from_torch)
Matrix.csr = _matrix_csr
Matrix.to_scipy = _matrix_to_scipy
Matrix.to_dense = _matrix_to_dense
Matrix.tuples = _matrix_tuples
Matrix.to_torch = _matrix_to_torch
Matrix.astype = lambda self, dtype: convert(self, dtype)
Matrix.T = property(lambda self: transpose(self), doc="The transpose (a new Matrix).")
Matrix.__matmul__ = lambda self, other: mxm(self, other)


def _vector_from_numpy(values, copy=True, device="cpu"):
    """A dense Vector holding a copy of a 1-D array (copy=False: the array in place)."""
    v = _geblas._vector_from_dense(values, copy)
    device = _device_name(device)
    return v if device == "cpu" else v.to(device)


def _vector_from_tuples(size, indices, values, dup=None, dtype=None, device="cpu"):
    """A sparse Vector from (index, value) pairs."""
    size = _int_arg(size, "Vector.from_tuples: size")
    indices = _index_array(indices, "Vector.from_tuples: indices")
    values = _np.ascontiguousarray(_np.asarray(values))
    if dtype is not None:
        values = values.astype(_dtype_name(dtype), copy=False)
    return _geblas._vector_from_tuples(size, indices, values, dup, _device_name(device))


def _vector_to_numpy(self, fill=0):
    """All entries as a NumPy array (a copy; absent entries are `fill`)."""
    v = self if self.device == "cpu" else self.to("cpu")
    return v._dense(fill).numpy()


def _vector_tuples(self):
    """(indices int64, values) of the present entries."""
    v = self if self.device == "cpu" else self.to("cpu")
    idx, vals = v._sparse_parts()
    return idx.numpy().astype(_np.int64), vals.numpy()


Vector.to = _on_torch_streams(Vector.to)
Vector.from_numpy = staticmethod(_vector_from_numpy)
Vector.from_dense = staticmethod(_vector_from_numpy)
Vector.from_tuples = staticmethod(_vector_from_tuples)
Vector.to_numpy = _vector_to_numpy
Vector.tuples = _vector_tuples
Vector.astype = lambda self, dtype: convert(self, dtype)
