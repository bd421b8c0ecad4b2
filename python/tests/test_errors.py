# Bad input from Python raises an exception that is both a geblas.Error subclass and the
# matching built-in, with the C++ message; nothing crashes.
import numpy as np
import pytest
import scipy.sparse as sp

import geblas


@pytest.fixture
def A(rng):
    return geblas.Matrix.from_scipy(sp.random(10, 8, density=0.3, format="csr", random_state=rng, dtype=np.float32))


def test_wrong_dtype(A, rng):
    X = rng.standard_normal((8, 3))  # float64 against a float32 matrix
    with pytest.raises(TypeError) as e:
        geblas.mxm(A, X)
    assert isinstance(e.value, geblas.DomainMismatch) and isinstance(e.value, geblas.Error)
    assert "float64" in str(e.value) and "float32" in str(e.value)
    with pytest.raises(TypeError, match="uint8"):
        geblas.mxm(A, np.ones((8, 3), np.uint8))
    with pytest.raises(TypeError, match="complex"):
        geblas.mxm(A, np.ones((8, 3), np.complex64))
    with pytest.raises(TypeError):
        geblas.Matrix(3, 3, dtype="float128")


def test_non_contiguous(A, rng):
    X = rng.standard_normal((8, 6)).astype(np.float32)[:, ::2]
    with pytest.raises(ValueError, match="not contiguous"):
        geblas.mxm(A, X)
    with pytest.raises(ValueError, match="not contiguous"):
        geblas.mxv(A, rng.standard_normal(16).astype(np.float32)[::2])


def test_shape_mismatch(A, rng):
    with pytest.raises(ValueError) as e:
        geblas.mxm(A, np.ones((7, 3), np.float32))
    assert isinstance(e.value, geblas.DimensionMismatch)
    assert "inner dimensions" in str(e.value)
    with pytest.raises(ValueError):
        geblas.mxm(A, np.ones((8, 3), np.float32), out=np.zeros((9, 3), np.float32))
    with pytest.raises(ValueError):
        geblas.mxm(A, np.ones((2, 8, 3), np.float32))
    with pytest.raises(ValueError):
        geblas.mxv(A, np.ones(3, np.float32))


def test_int64_indices_beyond_int32():
    indptr = np.array([0, 1], np.int64)
    with pytest.raises(IndexError, match="int32"):
        geblas.Matrix.from_csr(indptr, np.array([2**31 + 5], np.int64), np.ones(1, np.float32), (1, 2**31 - 1))
    with pytest.raises(IndexError):
        geblas.Matrix.from_csr(indptr, np.array([-1], np.int64), np.ones(1, np.float32), (1, 4))
    with pytest.raises(IndexError):
        geblas.Matrix.from_csr(indptr, np.array([4], np.int32), np.ones(1, np.float32), (1, 4))
    with pytest.raises(ValueError):
        geblas.Matrix(2**31, 2)


def test_malformed_csr():
    with pytest.raises(ValueError):  # unsorted columns
        geblas.Matrix.from_csr(np.array([0, 2], np.int64), np.array([3, 1], np.int32), np.ones(2), (1, 4))
    with pytest.raises(ValueError):  # indptr length
        geblas.Matrix.from_csr(np.array([0, 2], np.int64), np.array([0, 1], np.int32), np.ones(2), (3, 4))
    with pytest.raises(ValueError):  # values length
        geblas.Matrix.from_csr(np.array([0, 2], np.int64), np.array([0, 1], np.int32), np.ones(3), (1, 4))
    with pytest.raises(TypeError):  # float indices
        geblas.Matrix.from_csr(np.array([0, 2.0]), np.array([0, 1], np.int32), np.ones(2), (1, 4))


def test_unknown_names(A):
    X = np.ones((8, 2), np.float32)
    with pytest.raises(ValueError, match="semiring"):
        geblas.mxm(A, X, semiring="max_plus_times")
    with pytest.raises(ValueError, match="binary operator"):
        geblas.mxm(A, X, accum="plux")
    with pytest.raises(ValueError, match="monoid"):
        geblas.reduce(A, "sum")
    with pytest.raises(ValueError, match="unary"):
        geblas.apply(A, "negate")
    with pytest.raises(ValueError, match="device"):
        A.to("gpu")
    with pytest.raises(TypeError, match="unexpected keyword"):
        geblas.mxm(A, X, masks=None)


def test_algorithm_errors(A, rng):
    with pytest.raises(ValueError):
        geblas.pagerank(A)  # not square
    S = geblas.Matrix.from_scipy(sp.random(5, 5, density=0.5, format="csr", random_state=rng))
    with pytest.raises(IndexError):
        geblas.bfs(S, 5)
    with pytest.raises(ValueError):
        geblas.pagerank(S, damping=1.5)
    with pytest.raises(TypeError, match="float32"):
        geblas.pagerank(S.astype("int32"))


def test_io_errors(tmp_path):
    with pytest.raises(OSError) as e:
        geblas.read_matrix_market(tmp_path / "missing.mtx")
    assert isinstance(e.value, geblas.IoError)
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n")
    with pytest.raises(ValueError) as e:
        geblas.read_matrix_market(bad)
    assert "bad.mtx" in str(e.value)


def test_read_only_out_and_mixed_kinds(A, rng):
    out = np.zeros((10, 2), np.float32)
    out.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        geblas.mxm(A, np.ones((8, 2), np.float32), out=out)
    with pytest.raises(ValueError):
        geblas.ewise_add(A, np.ones((10, 8), np.float32))
    with pytest.raises(ValueError):
        geblas.mxm(A, [[1.0]])


def test_exported_is_single_use(A):
    e = geblas._geblas.mxm(A, np.ones((8, 2), np.float32))
    e.__dlpack__()
    with pytest.raises(ValueError, match="already"):
        e.numpy()
