# Graph algorithms against independent references: a NumPy power iteration, SciPy's
# csgraph (BFS levels, Dijkstra, components) and trace(A^3) / 6 for triangles.
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.csgraph as csg

import geblas


def pagerank_reference(S, damping=0.85, tol=1e-12, iters=1000):
    """Power iteration with dangling mass spread uniformly (networkx's definition)."""
    n = S.shape[0]
    P = sp.csr_array((S != 0).astype(np.float64))
    out = np.asarray(P.sum(axis=1)).ravel()
    r = np.full(n, 1.0 / n)
    for _ in range(iters):
        share = np.divide(r, out, out=np.zeros(n), where=out > 0)
        new = damping * (P.T @ share) + (damping * r[out == 0].sum() + 1 - damping) / n
        if np.abs(new - r).sum() < tol:
            return new
        r = new
    return r


def symmetric_graph(rng, n, density):
    S = sp.random(n, n, density=density, format="csr", random_state=rng)
    S = ((S + S.T) != 0).astype(np.float64)
    S.setdiag(0)
    S.eliminate_zeros()
    return sp.csr_array(S)


def bfs_levels_reference(S, source):
    d = csg.shortest_path(S, unweighted=True, indices=source)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def test_pagerank_random(rng):
    S = sp.csr_array(sp.random(200, 200, density=0.02, format="csr", random_state=rng))
    A = geblas.Matrix.from_scipy(S, dtype="float64")
    r, info = geblas.pagerank(A, tolerance=1e-12, max_iterations=1000, info=True)
    assert isinstance(r, np.ndarray) and r.shape == (200,) and r.dtype == np.float64
    assert info["converged"]
    np.testing.assert_allclose(r, pagerank_reference(S), atol=1e-9)
    assert r.sum() == pytest.approx(1.0)


def test_pagerank_float32_default(rng):
    S = sp.csr_array(sp.random(100, 100, density=0.05, format="csr", random_state=rng))
    r = geblas.pagerank(geblas.Matrix.from_scipy(S, dtype=np.float32))
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, pagerank_reference(S), atol=2e-5)


def test_personalized_pagerank(rng):
    S = symmetric_graph(rng, 60, 0.08)
    A = geblas.Matrix.from_scipy(S)
    R = geblas.pagerank(A, seeds=[[0], [1, 2]], tolerance=1e-12, max_iterations=1000)
    assert R.shape == (60, 2)
    np.testing.assert_allclose(R.sum(axis=0), [1, 1], atol=1e-9)
    # column 0: the fixed point of r = d P' r + (1 - d) e_0 (no dangling vertices here
    # unless isolated; handled by the teleport to the seed)
    out = np.asarray(S.sum(axis=1)).ravel()
    r = np.zeros(60); r[0] = 1
    e = np.zeros(60); e[0] = 1
    for _ in range(2000):
        share = np.divide(r, out, out=np.zeros(60), where=out > 0)
        r = 0.85 * (S.T @ share) + (0.85 * r[out == 0].sum() + 0.15) * e
    np.testing.assert_allclose(R[:, 0], r, atol=1e-8)


# The stored types every operation computes on, and the storage-only ones (16-bit), from
# the library's table.
COMPUTED = [name for name, _, every_operation in geblas._geblas._TYPE_TABLE if every_operation]
STORAGE_ONLY = [name for name, _, every_operation in geblas._geblas._TYPE_TABLE if not every_operation]


@pytest.mark.parametrize("dtype", COMPUTED)
def test_bfs(rng, dtype):
    S = sp.csr_array(sp.random(150, 150, density=0.015, format="csr", random_state=rng))
    A = geblas.Matrix.from_scipy(S, dtype=dtype)
    levels, parents = geblas.bfs(A, 3, parents=True)
    assert levels.dtype == np.int64
    np.testing.assert_array_equal(levels, bfs_levels_reference(S, 3))
    # parents: a reached vertex's parent is its smallest in-neighbour on the level above
    D = S.toarray() != 0
    for v in range(150):
        if levels[v] <= 0:
            assert parents[v] == (3 if v == 3 else -1)
            continue
        candidates = [u for u in range(150) if D[u, v] and levels[u] == levels[v] - 1]
        assert parents[v] == min(candidates)
    multi = geblas.bfs(A, [0, 3, 7])
    assert multi.shape == (150, 3)
    for k, s in enumerate([0, 3, 7]):
        np.testing.assert_array_equal(multi[:, k], bfs_levels_reference(S, s))


@pytest.mark.parametrize("dtype", STORAGE_ONLY)
def test_algorithms_refuse_the_storage_types(rng, dtype):
    A = geblas.Matrix.from_scipy(sp.csr_array(sp.random(20, 20, density=0.1, format="csr", random_state=rng)))
    A = A.astype(dtype)
    assert A.dtype == dtype
    for call in (lambda: geblas.bfs(A, 0), lambda: geblas.sssp(A, 0), lambda: geblas.pagerank(A),
                 lambda: geblas.connected_components(A), lambda: geblas.triangle_count(A)):
        with pytest.raises(TypeError) as e:
            call()
        assert isinstance(e.value, geblas.DomainMismatch) and f"A is {dtype}" in str(e.value), str(e.value)


def test_sssp(rng):
    S = sp.csr_array(sp.random(120, 120, density=0.03, format="csr", random_state=rng))
    A = geblas.Matrix.from_scipy(S, dtype="float64")
    d = geblas.sssp(A, 5)
    np.testing.assert_allclose(d, csg.dijkstra(S, indices=5), rtol=1e-12)
    D = geblas.sssp(A, [5, 9])
    np.testing.assert_allclose(D.T, csg.dijkstra(S, indices=[5, 9]), rtol=1e-12)


def test_connected_components_and_triangles(rng):
    S = symmetric_graph(rng, 300, 0.004)
    A = geblas.Matrix.from_scipy(S)
    labels = geblas.connected_components(A)
    count, ref = csg.connected_components(S, directed=False)
    # geblas labels each component by its smallest vertex
    smallest = np.array([np.flatnonzero(ref == ref[v]).min() for v in range(300)])
    np.testing.assert_array_equal(labels, smallest)
    assert len(np.unique(labels)) == count
    T = S.toarray()
    assert geblas.triangle_count(A) == round(np.trace(T @ T @ T) / 6)


def test_locality_order(rng):
    # a 30 x 30 grid with its ids scrambled: the order finds a band of at most 2 x 30 again
    k = 30
    G = sp.lil_array((k * k, k * k))
    for r in range(k):
        for c in range(k):
            v = r * k + c
            if c + 1 < k:
                G[v, v + 1] = G[v + 1, v] = 1
            if r + 1 < k:
                G[v, v + k] = G[v + k, v] = 1
    perm = rng.permutation(k * k)
    S = sp.csr_array(G.tocsr()[perm][:, perm])
    order = geblas.locality_order(geblas.Matrix.from_scipy(S))
    assert order.dtype == np.int64
    np.testing.assert_array_equal(np.sort(order), np.arange(k * k))
    P = sp.coo_array(S[order][:, order])
    assert np.abs(P.row - P.col).max() <= 2 * k
    S0 = sp.coo_array(S)
    assert np.abs(S0.row - S0.col).max() > 10 * k
    # the product by the renamed matrix is the product in the new order (integer values: exact)
    W = sp.csr_array(sp.random(200, 200, density=0.03, format="csr", random_state=rng))
    W.data = np.floor(W.data * 9) + 1
    X = np.floor(rng.random((200, 4)) * 9) - 4
    o = geblas.locality_order(geblas.Matrix.from_scipy(W))
    np.testing.assert_array_equal((W[o][:, o] @ X[o]), (W @ X)[o])
    with pytest.raises(geblas.DimensionMismatch):
        geblas.locality_order(geblas.Matrix.from_scipy(sp.csr_array(np.ones((2, 3)))))


@pytest.mark.parametrize("name", ["karate.mtx.gz", "email-Eu-core.mtx.gz", "power.mtx.gz"])
def test_real_graphs(data_file, name):
    path = data_file(name)
    S = sp.csr_array(scipy.io.mmread(str(path))).astype(np.float64)
    A = geblas.read_matrix_market(path, dtype="float64")
    np.testing.assert_allclose(geblas.pagerank(A, tolerance=1e-12, max_iterations=1000),
                               pagerank_reference(S), atol=1e-9)
    np.testing.assert_array_equal(geblas.bfs(A, 0), bfs_levels_reference(S, 0))
    U = sp.csr_array(((S + S.T) != 0).astype(np.float64))
    U.setdiag(0)
    U.eliminate_zeros()
    count, ref = csg.connected_components(U, directed=False)
    labels = geblas.connected_components(A)
    assert len(np.unique(labels)) == count
    first = {}
    for v, c in enumerate(ref):
        first.setdefault(c, v)
    np.testing.assert_array_equal(labels, [first[c] for c in ref])
    expected = int(round((U @ U).multiply(U).sum() / 6))
    assert geblas.triangle_count(A) == expected
