"""Run-time semirings from Python (geblas.Semiring): the same text on the CPU and, where a
GPU is present, the GPU; built-in names against the built-in semirings; expression adds
with their identity against NumPy oracles; errors."""

import numpy as np
import pytest
import scipy.sparse as sp

import geblas


def random_case(m=60, k=50, n=7, seed=3, dtype=np.float32):
    rng = np.random.default_rng(seed)
    A = sp.random(m, k, density=0.08, random_state=seed, format="csr", dtype=np.float64)
    A.data = rng.integers(-3, 4, size=A.nnz).astype(np.float64)
    A = A.astype(dtype)
    B = rng.integers(-3, 4, size=(k, n)).astype(dtype)
    return A, B


def oracle(A, B, add, mul, identity):
    """Row by row, in CSR order: add(acc, mul(a, b)) from the identity."""
    A = A.tocsr()
    out = np.full((A.shape[0], B.shape[1]), identity, dtype=B.dtype)
    for i in range(A.shape[0]):
        for p in range(A.indptr[i], A.indptr[i + 1]):
            j, a = A.indices[p], A.data[p]
            out[i] = add(out[i], mul(a, B[j]))
    return out


def devices():
    ds = ["cpu"]
    if geblas.cuda_compiled() and geblas.cuda_device_count() > 0:
        ds.append("cuda:0")
    return ds


@pytest.mark.parametrize("device", devices())
def test_names_equal_the_builtin_semirings(device):
    A, B = random_case()
    Ag = geblas.Matrix.from_scipy(A, device=device)
    # Every built-in of the library's table that computes on float32, named by its parts
    # (the any monoid picks any one term: no exact comparison, and no run-time name).
    builtins = [(add, mul, name) for name, add, mul, types in geblas._geblas._SEMIRING_TABLE
                if "float32" in types and add != "any"]
    assert len(builtins) >= 3
    for add, mul, builtin in builtins:
        s = geblas.Semiring(add, mul, dtype="float32")
        got = geblas.mxm(Ag, B if device == "cpu" else _to(B, device), s)
        want = np.asarray(geblas.mxm(geblas.Matrix.from_scipy(A), B, builtin))
        np.testing.assert_array_equal(_host(got), want, err_msg=f"{add}.{mul} on {device}")


@pytest.mark.parametrize("device", devices())
def test_expressions_against_numpy(device):
    A, B = random_case(dtype=np.int32)
    s = geblas.Semiring("a < b ? a : b", "a + b", dtype="int32", identity=2147483647)
    want = oracle(A, B, np.minimum, lambda a, b: a + b, np.int32(2147483647))
    Ag = geblas.Matrix.from_scipy(A, device=device)
    got = geblas.mxm(Ag, B if device == "cpu" else _to(B, device), s)
    np.testing.assert_array_equal(_host(got), want)
    # a multiply of several float operations, each rounded on its own
    Af, Bf = random_case(seed=5)
    s = geblas.Semiring("max", "a * b - 0.5f * fabs(a)", dtype="float32")
    want = oracle(Af, Bf, np.maximum, lambda a, b: np.float32(a) * b - np.float32(0.5) * np.float32(abs(a)),
                  np.float32(-np.inf))
    Ag = geblas.Matrix.from_scipy(Af, device=device)
    got = geblas.mxm(Ag, Bf if device == "cpu" else _to(Bf, device), s)
    np.testing.assert_array_equal(_host(got), want)


def test_semiring_object():
    s = geblas.Semiring("plus", "1", dtype="int64")
    assert s.dtype == "int64"
    assert "plus" in s.name and "1" in s.name
    assert "geblas.Semiring(" in repr(s)
    assert "struct" in s.cuda_source() or "__device__" in s.cuda_source()
    # the variants NVRTC compiles exist only in a build with CUDA
    assert ("row_split" in geblas.jit_variants()) == geblas.cuda_compiled()
    assert isinstance(geblas.jit_cache_directory(), str)


def test_out_and_counting_semiring():
    A, B = random_case(dtype=np.int64)
    B = np.abs(B)
    s = geblas.Semiring("plus", "1", dtype="int64")  # (plus, pair): entries per row
    out = np.full((A.shape[0], B.shape[1]), 99, dtype=np.int64)
    r = geblas.mxm(geblas.Matrix.from_scipy(A), B, s, out=out)
    assert r is out
    counts = np.diff(A.tocsr().indptr)
    np.testing.assert_array_equal(out, np.repeat(counts[:, None], B.shape[1], axis=1))


def test_errors():
    with pytest.raises(geblas.InvalidValue, match="identity"):
        geblas.Semiring("a + b", "a * b", dtype="float32")  # an expression add without identity
    with pytest.raises(geblas.InvalidValue, match="column"):
        geblas.Semiring("max", "a + * b", dtype="float32")
    with pytest.raises(geblas.DomainMismatch, match="no_such_type"):
        geblas.Semiring("max", "a + b", dtype="no_such_type")
    with pytest.raises(geblas.InvalidValue, match="terminal"):
        geblas.Semiring("max", "a + b", dtype="float32", terminal=0)
    storage_only = [name for name, _, every_operation in geblas._geblas._TYPE_TABLE if not every_operation]
    assert storage_only
    for dtype in storage_only:  # no 16-bit run-time semirings: the error says what to do instead
        with pytest.raises(geblas.NotImplementedError, match=dtype + ".*convert"):
            geblas.Semiring("max", "a + b", dtype=dtype)
    A, B = random_case()
    A = geblas.Matrix.from_scipy(A)
    s = geblas.Semiring("max", "a + b", dtype="float32")
    with pytest.raises(geblas.NotImplementedError, match="sparse"):
        geblas.mxm(B, B.T.copy(), s)  # dense x dense
    with pytest.raises(geblas.DomainMismatch):
        geblas.mxm(geblas.convert(A, "float64"), B.astype(np.float64), s)
    with pytest.raises(geblas.InvalidValue, match="semiring"):
        geblas.mxm(A, B, 42)
    with pytest.raises(geblas.NotImplementedError, match="CUDA"):
        geblas.mxm(A, B, geblas.Semiring("max", "__fmaf_rn(a, b, 1.0f)", dtype="float32", cuda=True))


def _to(x, device):
    import torch  # the GPU tests run where torch is (the GPU machine)
    return torch.from_numpy(x).to(device.replace("cuda:0", "cuda"))


def _host(x):
    if hasattr(x, "cpu"):
        return x.cpu().numpy()
    return np.asarray(x)
