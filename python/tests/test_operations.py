# The operations against NumPy / SciPy references, entry by entry.
import numpy as np
import pytest
import scipy.sparse as sp

import geblas

# NumPy references of the add monoids (ufunc, identity for float) and multiply operators
# that the library's semirings are made of; the semirings themselves come from the
# library's one table (name, add, multiply, types), so a semiring added there is swept
# here as soon as its operators have a reference.
ADD = {
    "plus": (np.add, 0.0),
    "max": (np.maximum, -np.inf),
    "min": (np.minimum, np.inf),
}
MUL = {
    "times": np.multiply,
    "plus": np.add,
    "min": np.minimum,
    "max": np.maximum,
    "pair": lambda a, b: np.ones_like(a * b),
    "second": lambda a, b: b + 0 * a,
}

# The library's semirings that the float sweep below does not take, and the test that
# checks each instead.
CHECKED_APART = {
    "lor_land": "test_mxm_lor_land_bool (bool only)",
    "any_second": "test_mxm_any_second_picks_a_neighbour (any one of the terms)",
}

# semiring name -> (add ufunc, multiply, identity for float)
SEMIRINGS = {name: (ADD[add][0], MUL[mul], ADD[add][1])
             for name, add, mul, _ in geblas._geblas._SEMIRING_TABLE
             if name not in CHECKED_APART and add in ADD and mul in MUL}


def test_every_library_semiring_has_a_reference():
    assert [row[0] for row in geblas._geblas._SEMIRING_TABLE] == list(geblas.SEMIRINGS)
    for name, add, mul, types in geblas._geblas._SEMIRING_TABLE:
        if name in CHECKED_APART:
            continue
        assert add in ADD and mul in MUL, f"{name}: no NumPy reference for its add '{add}' or multiply '{mul}'"
        assert {"float32", "float64"} <= set(types), f"{name} is swept in float but computes on {types}"
    assert set(geblas.SEMIRINGS) == set(SEMIRINGS) | set(CHECKED_APART)
    assert not set(SEMIRINGS) & set(CHECKED_APART)


def test_mxm_lor_land_bool(rng):
    S = sp.random(50, 40, density=0.1, format="csr", random_state=rng)
    S.data[:] = 1
    A = geblas.Matrix.from_scipy(sp.csr_array(S.astype(bool)))
    X = rng.random((40, 7)) < 0.3
    Y = geblas.mxm(A, X, semiring="lor_land")
    want = (S.astype(np.int64) @ X.astype(np.int64)) > 0
    np.testing.assert_array_equal(np.asarray(Y), want)


def test_mxm_any_second_picks_a_neighbour(rng):
    S = sp.csr_array(random_csr(rng, 50, 40, 0.1))
    X = rng.permutation(40 * 6).reshape(40, 6).astype(np.float64)  # distinct values
    Y = np.asarray(geblas.mxm(geblas.Matrix.from_scipy(S), X, semiring="any_second"))
    for i in range(S.shape[0]):
        cols = S.indices[S.indptr[i]:S.indptr[i + 1]]
        for j in range(X.shape[1]):
            if len(cols):
                assert Y[i, j] in set(X[cols, j]), (i, j)
            else:
                assert Y[i, j] == 0, (i, j)  # the any monoid's identity


def reference_spmm(S, X, semiring):
    """Y(i,:) = add over stored A(i,k) of mul(A(i,k), X(k,:)); identity for empty rows."""
    add, mul, identity = SEMIRINGS[semiring]
    S = sp.csr_array(S)
    Y = np.full((S.shape[0], X.shape[1]), identity, dtype=np.float64)
    for i in range(S.shape[0]):
        lo, hi = S.indptr[i], S.indptr[i + 1]
        if hi > lo:
            terms = mul(S.data[lo:hi, None].astype(np.float64), X[S.indices[lo:hi]].astype(np.float64))
            Y[i] = add.reduce(terms, axis=0)
    return Y


def random_csr(rng, m, n, density, dtype=np.float64):
    S = sp.random(m, n, density=density, format="csr", random_state=rng)
    S.data = (S.data * 4 - 1).astype(dtype)
    return sp.csr_array(S)


@pytest.mark.parametrize("semiring", sorted(SEMIRINGS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mxm_sparse_dense_every_semiring(rng, semiring, dtype):
    S = random_csr(rng, 60, 45, 0.08, dtype)
    S[5] = 0  # an empty row: the identity
    S = sp.csr_array(S)
    S.eliminate_zeros()
    A = geblas.Matrix.from_scipy(S)
    X = rng.standard_normal((45, 7)).astype(dtype)
    Y = geblas.mxm(A, X, semiring=semiring)
    assert isinstance(Y, np.ndarray) and Y.dtype == dtype and Y.shape == (60, 7)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(Y, reference_spmm(S, X, semiring), rtol=tol, atol=tol)


def test_mxm_positional_semiring_and_fortran_order(rng):
    S = random_csr(rng, 30, 20, 0.2, np.float32)
    A = geblas.Matrix.from_scipy(S)
    X = np.asfortranarray(rng.standard_normal((20, 5)).astype(np.float32))
    np.testing.assert_allclose(geblas.mxm(A, X, "max_times"), reference_spmm(S, X, "max_times"), rtol=1e-6)
    np.testing.assert_allclose(A @ np.ascontiguousarray(X), S @ X, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_mxm_integers(rng, dtype):
    S = random_csr(rng, 25, 25, 0.2)
    S.data = np.round(S.data * 5).astype(dtype)
    A = geblas.Matrix.from_scipy(S)
    X = rng.integers(-5, 5, size=(25, 3)).astype(dtype)
    np.testing.assert_array_equal(geblas.mxm(A, X), (S @ X).astype(dtype))


def test_mxm_sparse_sparse(rng):
    S, T = random_csr(rng, 40, 30, 0.1), random_csr(rng, 30, 50, 0.1)
    C = geblas.mxm(geblas.Matrix.from_scipy(S), geblas.Matrix.from_scipy(T))
    assert isinstance(C, geblas.Matrix) and C.shape == (40, 50)
    ref = (S @ T).tocsr()
    np.testing.assert_allclose(C.to_dense(), ref.toarray(), rtol=1e-12, atol=1e-12)
    # the pattern is the structural product (no dropped cancellations in the reference)
    pattern = (abs(S) @ abs(T)).toarray() != 0
    np.testing.assert_array_equal(C.to_scipy().toarray() != 0, pattern)


def test_mxm_mask_accum_out(rng):
    S = random_csr(rng, 20, 15, 0.3)
    A = geblas.Matrix.from_scipy(S)
    X = rng.standard_normal((15, 4))
    M = rng.random((20, 4)) < 0.5
    C0 = rng.standard_normal((20, 4))
    C = C0.copy()
    r = geblas.mxm(A, X, out=C, mask=M, accum="plus")
    assert r is C
    expected = np.where(M, C0 + S @ X, C0)
    np.testing.assert_allclose(C, expected, rtol=1e-12, atol=1e-12)
    # complemented mask with replace: outside the mask cleared to the identity (0)
    C = C0.copy()
    geblas.mxm(A, X, out=C, mask=M, complement_mask=True, replace=True)
    np.testing.assert_allclose(C, np.where(~M, S @ X, 0.0), rtol=1e-12, atol=1e-12)
    # sparse mask on a sparse product
    Mk = geblas.Matrix.from_scipy(random_csr(rng, 20, 20, 0.3))
    P = geblas.mxm(A, geblas.Matrix.from_scipy(S.T.tocsr()), mask=Mk, structural_mask=True)
    full = S @ S.T
    np.testing.assert_allclose(P.to_dense(), np.where(Mk.to_dense() != 0, full.toarray(), 0), atol=1e-12)


def test_mxm_transpose_options(rng):
    S = random_csr(rng, 20, 15, 0.3)
    A = geblas.Matrix.from_scipy(S)
    X = rng.standard_normal((20, 3))
    np.testing.assert_allclose(geblas.mxm(A, X, transpose_a=True), S.T @ X, rtol=1e-12, atol=1e-12)
    D = rng.standard_normal((4, 20))
    np.testing.assert_allclose(geblas.mxm(D, A), D @ S, rtol=1e-12, atol=1e-12)
    E = rng.standard_normal((4, 6))
    F = rng.standard_normal((6, 5))
    np.testing.assert_allclose(geblas.mxm(E, F), E @ F, rtol=1e-12, atol=1e-12)


def test_mxv_vxm(rng):
    S = random_csr(rng, 30, 25, 0.2)
    A = geblas.Matrix.from_scipy(S)
    u = rng.standard_normal(25)
    np.testing.assert_allclose(geblas.mxv(A, u), S @ u, rtol=1e-12, atol=1e-12)
    v = rng.standard_normal(30)
    np.testing.assert_allclose(geblas.vxm(v, A), S.T @ v, rtol=1e-12, atol=1e-12)
    # a sparse frontier pushes; the output is a sparse Vector with exactly the reached rows
    f = geblas.Vector.from_tuples(25, [3], [1.0])
    w = geblas.mxv(A, f, "plus_times")
    assert isinstance(w, geblas.Vector)
    col = S[:, [3]].toarray().ravel()
    idx, vals = w.tuples()
    np.testing.assert_array_equal(idx, np.nonzero(col)[0])
    np.testing.assert_allclose(vals, col[col != 0])
    # out= a NumPy vector, in place
    out = np.zeros(30)
    assert geblas.mxv(A, u, out=out) is out
    np.testing.assert_allclose(out, S @ u, rtol=1e-12, atol=1e-12)


def test_ewise(rng):
    S, T = random_csr(rng, 20, 20, 0.2), random_csr(rng, 20, 20, 0.2)
    A, B = geblas.Matrix.from_scipy(S), geblas.Matrix.from_scipy(T)
    np.testing.assert_allclose(geblas.ewise_add(A, B).to_dense(), (S + T).toarray())
    np.testing.assert_allclose(geblas.ewise_mult(A, B).to_dense(), S.multiply(T).toarray())
    U = geblas.ewise_add(A, B, "max")
    d = np.where((S.toarray() != 0) & (T.toarray() != 0), np.maximum(S.toarray(), T.toarray()), S.toarray() + T.toarray())
    np.testing.assert_allclose(U.to_dense(), d)
    x, y = rng.standard_normal((5, 6)), rng.standard_normal((5, 6))
    np.testing.assert_allclose(geblas.ewise_mult(x, y, "minus"), x - y)
    a, b = rng.standard_normal(9), rng.standard_normal(9)
    np.testing.assert_allclose(geblas.ewise_add(a, b, "times"), a * b)


def test_apply_select_reduce(rng):
    S = random_csr(rng, 25, 25, 0.3)
    A = geblas.Matrix.from_scipy(S)
    np.testing.assert_allclose(geblas.apply(A, "abs").to_dense(), abs(S).toarray())
    np.testing.assert_allclose(geblas.apply(A, "times", 3).to_dense(), 3 * S.toarray())
    L = geblas.select(A, "tril", -1)
    np.testing.assert_array_equal(L.to_dense(), sp.tril(S, -1).toarray())
    G = geblas.select(A, "value_gt", 0.5)
    np.testing.assert_array_equal(G.to_dense(), np.where(S.toarray() > 0.5, S.toarray(), 0))
    assert geblas.reduce(A) == pytest.approx(S.sum())
    assert geblas.reduce(A, "max") == pytest.approx(S.data.max())
    np.testing.assert_allclose(geblas.reduce(A, "plus", axis=1), S.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(geblas.reduce(A, "plus", axis=0), S.sum(axis=0), rtol=1e-12)
    x = rng.standard_normal((4, 3))
    np.testing.assert_allclose(geblas.apply(x, "ainv"), -x)
    np.testing.assert_allclose(geblas.transpose(x), x.T)
    assert geblas.reduce(x, "min") == pytest.approx(x.min())


def test_extract_assign_convert(rng):
    S = random_csr(rng, 12, 10, 0.4)
    A = geblas.Matrix.from_scipy(S)
    rows, cols = [3, 0, 7], [9, 1]
    E = geblas.extract(A, rows, cols)
    np.testing.assert_array_equal(E.to_dense(), S.toarray()[np.ix_(rows, cols)])
    c = geblas.extract_column(A, 4)
    np.testing.assert_array_equal(c.to_numpy(), S.toarray()[:, 4])
    C = geblas.Matrix(12, 10, dtype="float64")
    geblas.assign(C, 2.5, [1, 2], [3])
    expected = np.zeros((12, 10))
    expected[[1, 2], 3] = 2.5
    np.testing.assert_array_equal(C.to_dense(), expected)
    w = np.zeros(6)
    geblas.assign(w, 1.0, [0, 5])
    np.testing.assert_array_equal(w, [1, 0, 0, 0, 0, 1])
    I = geblas.convert(A, "int32")
    assert I.dtype == "int32"
    np.testing.assert_array_equal(I.to_dense(), np.trunc(S.toarray()).astype(np.int32))
    f = geblas.convert(rng.standard_normal((3, 3)), np.float32)
    assert f.dtype == np.float32


def test_real_graph_spmm(data_file, rng):
    import scipy.io
    path = data_file("cora.mtx.gz")
    S = sp.csr_array(scipy.io.mmread(str(path))).astype(np.float32)
    A = geblas.read_matrix_market(path)
    X = rng.standard_normal((S.shape[1], 16)).astype(np.float32)
    np.testing.assert_allclose(geblas.mxm(A, X), S @ X, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(geblas.mxm(A, X, semiring="max_times"), reference_spmm(S, X, "max_times"), rtol=1e-6)


def test_sddmm_scores_on_the_pattern(rng):
    # s_ij = <x_i, y_j> at the pattern's entries only, every entry checked against NumPy
    X, Y = rng.standard_normal((30, 8)), rng.standard_normal((25, 8))
    P = random_csr(rng, 30, 25, 0.2)
    S = geblas.sddmm(X, Y, geblas.Matrix.from_scipy(P))
    assert isinstance(S, geblas.Matrix) and S.shape == (30, 25)
    got = S.to_scipy().tocoo()
    want = P.tocoo()
    assert got.nnz == want.nnz
    np.testing.assert_array_equal(np.stack([got.row, got.col]), np.stack([want.row, want.col]))
    np.testing.assert_allclose(got.data, np.einsum("ek,ek->e", X[want.row], Y[want.col]), rtol=1e-12)
    # another semiring, Y as k x n, and mxm into a Matrix out= (the same product)
    T = geblas.sddmm(X, Y.T.copy(), geblas.Matrix.from_scipy(P), "max_plus", transpose_b=False).to_scipy().tocoo()
    np.testing.assert_allclose(T.data, (X[want.row] + Y[want.col]).max(axis=1), rtol=1e-12)
    out = geblas.Matrix.from_scipy(sp.csr_matrix((30, 25)))
    r = geblas.mxm(X, Y, out=out, mask=geblas.Matrix.from_scipy(P), structural_mask=True, transpose_b=True)
    assert r is out
    np.testing.assert_allclose(out.to_scipy().tocoo().data, got.data, rtol=1e-12)


def test_sddmm_fused_ops(rng):
    # scale= and leaky_relu= applied to each computed entry, against NumPy on every entry
    X, Y = rng.standard_normal((40, 16)), rng.standard_normal((35, 16))
    P = random_csr(rng, 40, 35, 0.25)
    want = P.tocoo()
    dots = np.einsum("ek,ek->e", X[want.row], Y[want.col])
    assert (dots < 0).any() and (dots > 0).any()
    M = geblas.Matrix.from_scipy(P)
    got = geblas.sddmm(X, Y, M, scale=0.25).to_scipy().tocoo()
    np.testing.assert_array_equal(np.stack([got.row, got.col]), np.stack([want.row, want.col]))
    np.testing.assert_allclose(got.data, 0.25 * dots, rtol=1e-12)
    got = geblas.sddmm(X, Y, M, leaky_relu=0.2).to_scipy().tocoo()
    np.testing.assert_allclose(got.data, np.where(dots < 0, 0.2 * dots, dots), rtol=1e-12)
    # float32, and an integer product with an integral alpha (exact)
    got = geblas.sddmm(X.astype(np.float32), Y.astype(np.float32), M, leaky_relu=0.5).to_scipy().tocoo()
    np.testing.assert_allclose(got.data, np.where(dots < 0, 0.5 * dots, dots), rtol=1e-5, atol=1e-5)
    Xi, Yi = rng.integers(-3, 4, (40, 16)).astype(np.int32), rng.integers(-3, 4, (35, 16)).astype(np.int32)
    got = geblas.sddmm(Xi, Yi, M, scale=-3).to_scipy().tocoo()
    np.testing.assert_array_equal(got.data, -3 * np.einsum("ek,ek->e", Xi[want.row].astype(np.int64),
                                                           Yi[want.col].astype(np.int64)))
    with pytest.raises(geblas.InvalidValue):
        geblas.sddmm(Xi, Yi, M, scale=0.5)  # not exact in int32
    with pytest.raises(geblas.InvalidValue):
        geblas.sddmm(X, Y, M, scale=2.0, leaky_relu=0.1)


def test_sddmm_refuses_what_it_cannot_do(rng):
    X, Y = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    P = geblas.Matrix.from_scipy(random_csr(rng, 4, 5, 0.5))
    with pytest.raises(geblas.InvalidValue):
        geblas.sddmm(X, Y, P, mask=P)
    with pytest.raises(geblas.InvalidValue):
        geblas.sddmm(geblas.Matrix.from_scipy(random_csr(rng, 4, 3, 0.5)), Y, P)
    with pytest.raises(geblas.DimensionMismatch):
        geblas.sddmm(X, rng.standard_normal((5, 2)), P)
