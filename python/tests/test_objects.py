# Matrix and Vector: conversions to and from SciPy / NumPy, zero-copy borrowing,
# Matrix Market I/O, properties.
import numpy as np
import pytest
import scipy.sparse as sp

import geblas

# The library's stored types that SciPy holds too; the others, and why they are left out.
NOT_IN_SCIPY = {"float16": "scipy.sparse has no float16 matrices", "bfloat16": "NumPy has no bfloat16"}
DTYPES = [t for t in geblas.TYPES if t not in NOT_IN_SCIPY]


def test_types_come_from_the_library():
    assert set(NOT_IN_SCIPY) <= set(geblas.TYPES)
    assert [row[0] for row in geblas._geblas._TYPE_TABLE] == list(geblas.TYPES)
    for name, size, every_operation in geblas._geblas._TYPE_TABLE:
        # each name is a dtype geblas takes, of the size it says
        assert geblas.Matrix(2, 3, dtype=name).dtype == name
        assert geblas.Vector(4, dtype=name).dtype == name
        if name != "bfloat16":
            assert np.dtype(name).itemsize == size, name
        # the 16-bit floating types are storage types (docs/TYPES.md), the rest computed on
        assert every_operation == (name not in ("float16", "bfloat16")), name
    with pytest.raises(TypeError) as e:
        geblas.Matrix(2, 2, dtype="complex64")
    assert isinstance(e.value, geblas.DomainMismatch)
    assert all(t in str(e.value) for t in geblas.TYPES), str(e.value)


def random_scipy(rng, m, n, density, dtype):
    A = sp.random(m, n, density=density, format="csr", random_state=rng, dtype=np.float64)
    A.data = (A.data * 10 - 3).astype(dtype) if dtype != "bool" else (A.data > 0.2)
    A.eliminate_zeros()
    return sp.csr_array(A)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scipy_round_trip(rng, dtype):
    S = random_scipy(rng, 37, 53, 0.1, dtype)
    A = geblas.Matrix.from_scipy(S)
    assert A.shape == (37, 53) and A.nrows == 37 and A.ncols == 53
    assert A.nvals == S.nnz
    assert A.dtype == dtype and A.device == "cpu"
    B = A.to_scipy()
    assert isinstance(B, sp.csr_array)
    assert B.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(B.toarray(), S.toarray())
    np.testing.assert_array_equal(A.to_dense(), S.toarray())


def test_scipy_formats_and_duplicates(rng):
    # COO with duplicates: SciPy sums them, and so does from_scipy.
    rows = np.array([0, 0, 1, 2, 2]); cols = np.array([1, 1, 0, 2, 0]); vals = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    C = sp.coo_array((vals, (rows, cols)), shape=(3, 3))
    A = geblas.Matrix.from_scipy(C)
    np.testing.assert_array_equal(A.to_dense(), C.toarray())
    assert A.nvals == 4
    # csr_matrix (the old class), csc, unsorted indices
    M = sp.csr_matrix(np.array([[0, 2.0, 1.0], [3.0, 0, 0]]))
    np.testing.assert_array_equal(geblas.Matrix.from_scipy(M.tocsc()).to_dense(), M.toarray())
    U = sp.csr_array((np.array([1.0, 2.0]), np.array([2, 0]), np.array([0, 2])), shape=(1, 3))
    assert not U.has_sorted_indices
    np.testing.assert_array_equal(geblas.Matrix.from_scipy(U).to_dense(), U.toarray())


def test_from_scipy_dtype_conversion(rng):
    S = random_scipy(rng, 10, 10, 0.3, "float64")
    A = geblas.Matrix.from_scipy(S, dtype="float32")
    assert A.dtype == "float32"
    np.testing.assert_allclose(A.to_dense(), S.toarray().astype(np.float32))
    assert geblas.Matrix.from_scipy(S, dtype=np.float64).dtype == "float64"


def test_from_csr_borrows_arrays(rng):
    S = random_scipy(rng, 20, 30, 0.2, "float32")
    indptr = S.indptr.astype(np.int64)
    indices = S.indices.astype(np.int32)
    values = S.data.copy()
    A = geblas.Matrix.from_csr(indptr, indices, values, S.shape)
    ro, ci, va = A._data_ptrs()
    assert ro == indptr.ctypes.data and ci == indices.ctypes.data and va == values.ctypes.data
    assert A.borrowed
    # the matrix sees the arrays: a change of a value shows in its products
    X = np.ones((30, 1), np.float32)
    before = geblas.mxm(A, X)
    values *= 2
    A.clear_cache()
    np.testing.assert_allclose(geblas.mxm(A, X), 2 * before, rtol=1e-6)
    # copy=True owns its memory
    B = geblas.Matrix.from_csr(indptr, indices, values, S.shape, copy=True)
    assert not B.borrowed and B._data_ptrs()[2] != values.ctypes.data
    # int32 indptr and int64 indices are converted (copies), the values still borrowed
    C = geblas.Matrix.from_csr(S.indptr.astype(np.int32), S.indices.astype(np.int64), values, S.shape)
    assert C._data_ptrs()[2] == values.ctypes.data
    np.testing.assert_array_equal(C.to_dense(), A.to_dense())


def test_borrowed_arrays_outlive_python_names(rng):
    S = random_scipy(rng, 50, 50, 0.1, "float64")
    A = geblas.Matrix.from_csr(S.indptr.astype(np.int64), S.indices.astype(np.int32), S.data.copy(), S.shape)
    import gc
    gc.collect()  # the temporaries above are referenced only by A
    np.testing.assert_array_equal(A.to_dense(), S.toarray())


def test_from_coo_and_dense(rng):
    A = geblas.Matrix.from_coo([0, 1, 1], [2, 0, 0], [1.0, 2.0, 5.0], (2, 3), dup="plus")
    np.testing.assert_array_equal(A.to_dense(), [[0, 0, 1], [7, 0, 0]])
    with pytest.raises(geblas.InvalidValue):
        geblas.Matrix.from_coo([0, 1, 1], [2, 0, 0], [1.0, 2.0, 5.0], (2, 3))
    D = rng.standard_normal((6, 4)) * (rng.random((6, 4)) < 0.4)
    B = geblas.Matrix.from_dense(D)
    assert B.nvals == np.count_nonzero(D)
    np.testing.assert_array_equal(B.to_dense(), D)
    r, c, v = B.tuples()
    np.testing.assert_array_equal(D[r, c], v)


def test_empty_and_new_matrix():
    A = geblas.Matrix(4, 5, dtype="int64")
    assert A.nvals == 0 and A.shape == (4, 5) and A.dtype == "int64"
    np.testing.assert_array_equal(A.to_dense(), np.zeros((4, 5)))
    S = A.to_scipy()
    assert S.shape == (4, 5) and S.nnz == 0
    assert "4 x 5" in repr(A)


def test_dup_and_astype(rng):
    S = random_scipy(rng, 8, 8, 0.4, "float64")
    A = geblas.Matrix.from_scipy(S)
    B = A.dup()
    assert B._data_ptrs()[2] != A._data_ptrs()[2]
    F = A.astype("float32")
    assert F.dtype == "float32"
    np.testing.assert_allclose(F.to_dense(), S.toarray().astype(np.float32))
    np.testing.assert_array_equal(A.T.to_dense(), S.toarray().T)


def test_vector_round_trips(rng):
    x = rng.standard_normal(17)
    v = geblas.Vector.from_numpy(x)
    assert v.size == 17 and v.nvals == 17 and v.is_dense and v.dtype == "float64"
    np.testing.assert_array_equal(v.to_numpy(), x)
    w = geblas.Vector.from_tuples(10, [7, 2], [1.5, -2.0])
    assert w.nvals == 2 and not w.is_dense
    np.testing.assert_array_equal(w.to_numpy(fill=9), [9, 9, -2, 9, 9, 9, 9, 1.5, 9, 9])
    i, val = w.tuples()
    np.testing.assert_array_equal(i, [2, 7])
    np.testing.assert_array_equal(val, [-2.0, 1.5])
    e = geblas.Vector(5, dtype="int32")
    assert e.nvals == 0 and e.dtype == "int32"
    np.testing.assert_array_equal(e.to_numpy(), np.zeros(5))
    assert "size=5" in repr(e)


def test_matrix_market_round_trip(rng, tmp_path):
    S = random_scipy(rng, 30, 20, 0.15, "float64")
    A = geblas.Matrix.from_scipy(S)
    path = tmp_path / "a.mtx"
    geblas.write_matrix_market(str(path), A)
    B = geblas.read_matrix_market(path, dtype="float64")
    np.testing.assert_array_equal(B.to_dense(), S.toarray())
    h = geblas.read_matrix_market_header(str(path))
    assert (h["nrows"], h["ncols"], h["format"]) == (30, 20, "coordinate")
    # compressed, and read back as float32
    gz = tmp_path / "a.mtx.gz"
    geblas.write_matrix_market(str(gz), A)
    C = geblas.read_matrix_market(gz)
    assert C.dtype == "float32"
    np.testing.assert_allclose(C.to_dense(), S.toarray().astype(np.float32))


def test_read_real_graph_matches_scipy(data_file):
    import scipy.io
    path = data_file("karate.mtx.gz")
    A = geblas.read_matrix_market(path, dtype="float64")
    S = sp.csr_array(scipy.io.mmread(str(path)))
    assert A.shape == S.shape and A.nvals == S.nnz
    np.testing.assert_array_equal(A.to_dense(), S.toarray())


def test_dlpack_export_is_zero_copy(rng):
    S = random_scipy(rng, 12, 9, 0.3, "float32")
    A = geblas.Matrix.from_scipy(S)
    X = rng.standard_normal((9, 4)).astype(np.float32)
    e = geblas._geblas.mxm(A, X)
    assert isinstance(e, geblas.Exported) and e.shape == (12, 4) and e.device == "cpu"
    p = e.data_ptr
    y = e.numpy()
    assert y.ctypes.data == p
    np.testing.assert_allclose(y, S @ X, rtol=1e-5, atol=1e-5)
    # NumPy borrows input arrays in place too
    assert geblas._geblas._dense_view(X) == X.ctypes.data


def test_dlpack_capsules_are_taken_in_place(rng):
    # geblas.torch hands its tensors over as DLPack capsules (torch.utils.dlpack.to_dlpack)
    # to the one-call binding _spmm; NumPy's __dlpack__ gives the same kind of capsule.
    S = random_scipy(rng, 12, 9, 0.3, "float32")
    A = geblas.Matrix.from_scipy(S)
    X = rng.standard_normal((9, 4)).astype(np.float32)
    assert geblas._geblas._dense_view(X.__dlpack__()) == X.ctypes.data
    Y = np.full((12, 4), np.nan, np.float32)
    geblas._geblas._spmm(A, X.__dlpack__(), Y.__dlpack__(), "plus_times", False, None)
    np.testing.assert_allclose(Y, S @ X, rtol=1e-5, atol=1e-5)
    G = rng.standard_normal((12, 4)).astype(np.float32)
    Z = np.empty((9, 4), np.float32)
    geblas._geblas._spmm(A, G, Z.__dlpack__(), "plus_times", True, None)  # A' G; arrays work too
    np.testing.assert_allclose(Z, S.T @ G, rtol=1e-5, atol=1e-5)
    W = np.empty((12, 4), np.float32)
    geblas._geblas._spmm(A, X, W, "max_times", False, None)
    np.testing.assert_array_equal(W, geblas.mxm(A, X, semiring="max_times"))
    used = X.__dlpack__()
    geblas._geblas._dense_view(used)
    with pytest.raises(geblas.InvalidValue, match="unused DLPack"):
        geblas._geblas._dense_view(used)  # a capsule is taken once
    with pytest.raises(geblas.DimensionMismatch):
        geblas._geblas._spmm(A, X[:, 0].copy(), Y, "plus_times", False, None)
    with pytest.raises(geblas.DimensionMismatch):
        geblas._geblas._spmm(A, X, np.empty((11, 4), np.float32), "plus_times", False, None)
    with pytest.raises(geblas.InvalidValue, match="unknown semiring"):
        geblas._geblas._spmm(A, X, Y, "plus_nothing", False, None)
    with pytest.raises(geblas.InvalidValue, match="read-only"):
        Y.flags.writeable = False
        geblas._geblas._spmm(A, X, Y, "plus_times", False, None)


def test_cuda_device_queries():
    assert isinstance(geblas.cuda_compiled(), bool)
    assert geblas.cuda_device_count() >= 0
    assert geblas.default_device() in ("cpu", "cuda:0")
