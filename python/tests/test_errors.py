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
    with pytest.raises(TypeError, match="unexpected keyword") as e:
        geblas.mxm(A, X, masks=None)
    assert isinstance(e.value, geblas.Error)


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


# --- arguments Python checks before C++ sees them -------------------------------------------

def _is_geblas(e, builtin):
    return isinstance(e, geblas.Error) and isinstance(e, builtin)


@pytest.mark.parametrize("bad", [[0.5], [1.0], np.array([0.5]), np.array([1.0], np.float32), ["0"], [None]])
def test_non_integer_indices_are_refused(bad):
    # Entries used to be truncated (0.5 stored at row 0).
    with pytest.raises((TypeError, ValueError)) as e:
        geblas.Matrix.from_coo(bad, [1], [1.0], (3, 3))
    assert isinstance(e.value, geblas.Error)
    assert "rows" in str(e.value) and "from_coo" in str(e.value)
    with pytest.raises((TypeError, ValueError)) as e:
        geblas.Matrix.from_coo([1], bad, [1.0], (3, 3))
    assert isinstance(e.value, geblas.Error) and "cols" in str(e.value)
    with pytest.raises((TypeError, ValueError)) as e:
        geblas.Vector.from_tuples(3, bad, [1.0])
    assert isinstance(e.value, geblas.Error) and "indices" in str(e.value)


def test_integer_indices_of_any_integer_dtype_still_work():
    for dt in (np.int8, np.int32, np.int64, np.uint16, np.uint64):
        A = geblas.Matrix.from_coo(np.array([0, 2], dt), np.array([1, 0], dt), [1.0, 2.0], (3, 3))
        assert A.tuples()[0].tolist() == [0, 2] and A.tuples()[1].tolist() == [1, 0]
    assert geblas.Matrix.from_coo([], [], np.array([], np.float32), (2, 2)).nvals == 0
    v = geblas.Vector.from_tuples(4, [3, 1], [1.0, 2.0])
    assert v.tuples()[0].tolist() == [1, 3]


def test_non_integer_shapes_and_sources_are_refused():
    A = geblas.Matrix.from_coo([0, 1], [1, 2], [1.0, 1.0], (3, 3))
    for call, name in [(lambda: geblas.Matrix.from_coo([0], [1], [1.0], (2.5, 3)), "shape"),
                       (lambda: geblas.Vector.from_tuples(2.5, [0], [1.0]), "size"),
                       (lambda: geblas.bfs(A, 0.5), "source"),
                       (lambda: geblas.sssp(A, 1.5), "source"),
                       (lambda: geblas.bfs(A, [0, 0.5]), "source"),
                       (lambda: geblas.pagerank(A, seeds=[[0.5]]), "seeds")]:
        with pytest.raises(TypeError) as e:
            call()
        assert _is_geblas(e.value, TypeError), e.value
        assert name in str(e.value), str(e.value)


@pytest.mark.parametrize("call, name", [
    (lambda A: geblas.bfs(A, None), "source"),
    (lambda A: geblas.sssp(A, None), "source"),
    (lambda A: geblas.bfs(None, 0), "A"),
    (lambda A: geblas.pagerank(None), "A"),
    (lambda A: geblas.pagerank(A, damping="high"), "damping"),
    (lambda A: geblas.pagerank(A, seeds=5), "seeds"),
    (lambda A: geblas.connected_components("graph"), "A"),
    (lambda A: geblas.triangle_count(None), "A"),
    (lambda A: geblas.mxv(A, np.ones(3, np.float32), semiring=None), "semiring"),
    (lambda A: geblas.extract(A, rows=[0.5]), "rows"),
    (lambda A: geblas.read_matrix_market(None), "path"),
    (lambda A: geblas.read_graph(None), "path"),
    (lambda A: geblas.read_matrix_market(3), "path"),
    (lambda A: geblas.write_matrix_market(None, A), "path"),
    (lambda A: geblas.Matrix.from_coo([0], [1], [1.0], (3, 3), dup=5), "dup"),
])
def test_wrong_argument_types_raise_geblas_errors(call, name):
    A = geblas.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 1.0, 1.0], (3, 3))
    with pytest.raises(TypeError) as e:
        call(A)
    assert isinstance(e.value, geblas.Error), f"{type(e.value).__name__}: {e.value}"
    assert "Unable to cast" not in str(e.value)
    assert name in str(e.value), str(e.value)


def test_none_where_an_array_is_needed():
    # An operand that is not an array keeps its ValueError (InvalidValue), naming it.
    A = geblas.Matrix.from_coo([0], [1], [1.0], (3, 3))
    with pytest.raises(ValueError) as e:
        geblas.mxm(A, None)
    assert isinstance(e.value, geblas.InvalidValue) and "B must be a NumPy array" in str(e.value)


def test_read_matrix_market_none_opens_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "None").write_text("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n")
    with pytest.raises(TypeError):
        geblas.read_matrix_market(None)  # not the file named 'None'


# --- borrowed CSR arrays changed in place ---------------------------------------------------

def test_clear_cache_validates_borrowed_arrays_again():
    indptr = np.array([0, 1, 2, 3], np.int64)
    indices = np.array([1, 2, 0], np.int32)
    values = np.ones(3, np.float32)
    A = geblas.Matrix.from_csr(indptr, indices, values, (3, 3), copy=False)
    X = np.ones((3, 2), np.float32)
    assert geblas.mxm(A, X).tolist() == [[1, 1]] * 3
    # A valid change in place: clear_cache accepts it and the product follows the arrays.
    values[:] = [1, 2, 3]
    indices[:] = [0, 2, 1]
    A.clear_cache()
    assert geblas.mxm(A, X).tolist() == [[1, 1], [2, 2], [3, 3]]
    # The reproduction: an index far out of range (used to crash the interpreter).
    indices[1] = 50_000_000
    with pytest.raises(IndexError) as e:
        A.clear_cache()
    assert isinstance(e.value, geblas.Error) and "50000000" in str(e.value)
    # The matrix now refuses every use, with the reason, instead of reading out of bounds.
    for use in (lambda: geblas.mxm(A, X), lambda: geblas.mxv(A, np.ones(3, np.float32)),
                lambda: geblas.pagerank(A), lambda: geblas.transpose(A), lambda: A.tuples(),
                lambda: geblas.mxm(geblas.Matrix.from_coo([0], [0], [1.0], (3, 3)), X, mask=A)):
        with pytest.raises(ValueError) as e:
            use()
        assert isinstance(e.value, geblas.InvalidObject) and "clear_cache" in str(e.value)
    # Repaired in place and checked again, it works again.
    indices[1] = 2
    A.clear_cache()
    assert geblas.mxm(A, X).tolist() == [[1, 1], [2, 2], [3, 3]]
    # Broken offsets are caught too.
    indptr[2] = 7
    with pytest.raises(ValueError) as e:
        A.clear_cache()
    assert isinstance(e.value, geblas.Error)
