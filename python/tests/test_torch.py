# geblas with PyTorch: torch tensors in and out without copies (data pointers compared),
# geblas.torch.spmm forward against dense references and its gradients through
# torch.autograd.gradcheck in double precision; the GPU half runs where CUDA is usable.
import numpy as np
import pytest
import scipy.sparse as sp

import geblas

torch = pytest.importorskip("torch")
import geblas.torch as gt  # noqa: E402

REDUCES = ["sum", "mean", "max", "min"]
gpu = pytest.mark.skipif(not (torch.cuda.is_available() and geblas.cuda_device_count() > 0),
                         reason="needs a CUDA GPU usable by torch and geblas")


def random_graph(seed, n=30, m=None, density=0.15, unit=False, dtype=np.float64):
    rng = np.random.default_rng(seed)
    m = m or n
    S = sp.random(n, m, density=density, format="csr", random_state=rng)
    S.data = np.ones_like(S.data) if unit else (S.data * 2 - 0.5)
    S = S.tolil()
    S[3, :] = 0  # an empty row
    S = sp.csr_array(S.tocsr())
    S.eliminate_zeros()
    S.data = S.data.astype(dtype)
    return S


def reference(S, X, reduce):
    """Dense torch reference: rows without entries give 0."""
    D = torch.from_numpy(S.toarray()).to(X.dtype)
    present = torch.from_numpy(S.toarray() != 0)
    if reduce in ("sum", "mean"):
        Y = D @ X
        if reduce == "mean":
            Y = Y / present.sum(1).clamp(min=1).unsqueeze(1).to(X.dtype)
        return Y
    terms = D.unsqueeze(2) * X.unsqueeze(0)
    fill = -torch.inf if reduce == "max" else torch.inf
    terms = torch.where(present.unsqueeze(2), terms, torch.full((), fill, dtype=X.dtype))
    Y = terms.amax(1) if reduce == "max" else terms.amin(1)
    return torch.where(present.any(1, keepdim=True), Y, torch.zeros((), dtype=X.dtype))


def torch_csr(S, device="cpu", index_dtype=torch.int64):
    return torch.sparse_csr_tensor(torch.from_numpy(S.indptr).to(index_dtype),
                                   torch.from_numpy(S.indices).to(index_dtype),
                                   torch.from_numpy(S.data), size=S.shape, device=device)


# --- CPU ---------------------------------------------------------------------------------

def test_mxm_with_torch_tensors_is_zero_copy():
    S = random_graph(1, dtype=np.float32)
    A = geblas.Matrix.from_scipy(S)
    X = torch.randn(30, 8)
    assert geblas._geblas._dense_view(X) == X.data_ptr()
    e = geblas._geblas.mxm(A, X)
    p = e.data_ptr
    Y = torch.utils.dlpack.from_dlpack(e)
    assert Y.data_ptr() == p
    Y2 = geblas.mxm(A, X, semiring="max_times")
    assert isinstance(Y2, torch.Tensor)
    torch.testing.assert_close(Y, torch.from_numpy(S @ X.numpy()))
    out = torch.empty(30, 8)
    assert geblas.mxm(A, X, out=out) is out
    torch.testing.assert_close(out, Y)


def test_from_torch_csr_borrows():
    S = random_graph(2, dtype=np.float32)
    T = torch_csr(S, index_dtype=torch.int32)
    A = geblas.Matrix.from_torch(T)
    ro, ci, va = A._data_ptrs()
    assert ci == T.col_indices().data_ptr() and va == T.values().data_ptr()
    T64 = torch_csr(S)
    B = geblas.Matrix.from_torch(T64)
    assert B._data_ptrs()[0] == T64.crow_indices().data_ptr() and B._data_ptrs()[2] == T64.values().data_ptr()
    np.testing.assert_array_equal(B.to_dense(), S.toarray())
    np.testing.assert_array_equal(A.to_torch().to_dense().numpy(), S.toarray())


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_spmm_forward(reduce, unit, dtype):
    S = random_graph(3, n=40, m=25, unit=unit, dtype=np.float32 if dtype == torch.float32 else np.float64)
    X = torch.randn(25, 6, dtype=dtype)
    for A in (geblas.Matrix.from_scipy(S), torch_csr(S)):
        # without a gradient (max/min: the plain SpMM) and with one (the argument recorded)
        for x in (X, X.clone().requires_grad_()):
            Y = gt.spmm(A, x, reduce)
            torch.testing.assert_close(Y.detach(), reference(S, X, reduce))


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_spmm_max_ties_go_to_smallest_neighbour(reduce):
    # Every neighbour holds the same value: the gradient goes to the smallest column.
    S = random_graph(4, n=20, unit=True, dtype=np.float32)
    X = torch.ones(20, 3, requires_grad=True)
    gt.spmm(geblas.Matrix.from_scipy(S), X, reduce).sum().backward()
    expected = np.zeros((20, 3), np.float32)
    for i in range(20):
        cols = S.indices[S.indptr[i]:S.indptr[i + 1]]
        if len(cols):
            expected[cols.min()] += 1
    np.testing.assert_array_equal(X.grad.numpy(), expected)


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_spmm_packed_and_search_paths_agree(reduce):
    S = random_graph(5, n=50, unit=True, dtype=np.float32)
    X = torch.randn(50, 9, requires_grad=True)
    A = geblas.Matrix.from_scipy(S)
    Y = gt.spmm(A, X, reduce)  # unit values, float32: the packed int64 path
    G = torch.randn_like(Y)
    (dx_packed,) = torch.autograd.grad(Y, X, G)
    A2 = geblas.Matrix.from_scipy(S)
    g2, _ = gt._graph_of(A2)
    g2._unit = False  # force the search path
    Y2 = gt.spmm(A2, X, reduce)
    (dx_search,) = torch.autograd.grad(Y2, X, G)
    torch.testing.assert_close(Y, Y2, rtol=0, atol=0)
    torch.testing.assert_close(dx_packed, dx_search, rtol=0, atol=0)


@pytest.mark.parametrize("reduce", REDUCES)
def test_spmm_gradcheck_x(reduce):
    S = random_graph(6, n=12, m=10, density=0.3)
    A = geblas.Matrix.from_scipy(S)
    X = torch.randn(10, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: gt.spmm(A, x, reduce), (X,), eps=1e-6, atol=1e-7)


def test_spmm_gradcheck_values():
    S = random_graph(7, n=12, m=10, density=0.3)
    A = geblas.Matrix.from_scipy(S)
    vals = torch.from_numpy(S.data.copy()).requires_grad_()
    X = torch.randn(10, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v, x: gt.spmm(A, x, "sum", values=v), (vals, X), eps=1e-6, atol=1e-7)
    # a torch sparse tensor's own values
    crow, col = torch.from_numpy(S.indptr).long(), torch.from_numpy(S.indices).long()
    f = lambda v, x: gt.spmm(torch.sparse_csr_tensor(crow, col, v, size=S.shape), x, "sum", values=v)  # noqa: E731
    assert torch.autograd.gradcheck(f, (vals, X), eps=1e-6, atol=1e-7)


def test_spmm_errors():
    S = random_graph(8, dtype=np.float32)
    A = geblas.Matrix.from_scipy(S)
    with pytest.raises(ValueError, match="not contiguous"):
        gt.spmm(A, torch.randn(8, 30).t(), "sum")
    with pytest.raises(TypeError):
        gt.spmm(A, torch.randn(30, 4, dtype=torch.float64), "sum")
    with pytest.raises(ValueError):
        gt.spmm(A, torch.randn(29, 4), "sum")
    with pytest.raises(ValueError, match="reduce"):
        gt.spmm(A, torch.randn(30, 4), "prod")
    with pytest.raises(NotImplementedError):
        gt.spmm(A, torch.randn(30, 4), "max", values=torch.ones(A.nvals, requires_grad=True))
    with pytest.raises(TypeError):
        geblas.mxm(A, torch.randn(30, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match="not contiguous"):
        geblas.mxm(A, torch.randn(30, 8)[:, ::2])
    # a transposed tensor is Fortran-ordered: used in place as a column-major matrix
    Xt = torch.randn(4, 30).t()
    torch.testing.assert_close(geblas.mxm(A, Xt), torch.from_numpy(S @ Xt.numpy()))


# --- GPU ---------------------------------------------------------------------------------

@gpu
def test_cuda_zero_copy_in_and_out():
    S = random_graph(9, n=300, density=0.02, dtype=np.float32)
    A = geblas.Matrix.from_scipy(S).to("cuda:0")
    assert A.device == "cuda:0"
    X = torch.randn(300, 32, device="cuda")
    assert geblas._geblas._dense_view(X) == X.data_ptr()
    e = geblas._geblas.mxm(A, X)
    p = e.data_ptr
    Y = torch.utils.dlpack.from_dlpack(e)
    assert Y.device.type == "cuda" and Y.data_ptr() == p
    torch.testing.assert_close(Y.cpu(), torch.from_numpy(S @ X.cpu().numpy()), rtol=1e-5, atol=1e-5)
    Z = geblas.mxm(A, X, semiring="max_times")
    assert isinstance(Z, torch.Tensor) and Z.is_cuda
    out = torch.empty(300, 32, device="cuda")
    assert geblas.mxm(A, X, out=out) is out and out.data_ptr() == out.data_ptr()
    torch.testing.assert_close(out, Y)
    # a CUDA CSR tensor is used in place
    T = torch_csr(S, device="cuda")
    B = geblas.Matrix.from_torch(T)
    assert B.device == "cuda:0"
    assert B._data_ptrs()[0] == T.crow_indices().data_ptr() and B._data_ptrs()[2] == T.values().data_ptr()
    torch.testing.assert_close(geblas.mxm(B, X), Y)


@gpu
def test_cuda_device_mismatch_raises():
    S = random_graph(10, dtype=np.float32)
    A = geblas.Matrix.from_scipy(S).to("cuda:0")
    with pytest.raises(ValueError) as e:
        geblas.mxm(A, torch.randn(30, 4))
    assert isinstance(e.value, geblas.DeviceMismatch)
    with pytest.raises(ValueError):
        geblas.mxm(A, np.ones((30, 4), np.float32))
    with pytest.raises(ValueError):
        gt.spmm(A, torch.randn(30, 4), "sum")


@gpu
@pytest.mark.parametrize("reduce", REDUCES)
def test_cuda_spmm_matches_cpu(reduce):
    S = random_graph(11, n=500, m=400, density=0.01, unit=(reduce in ("max", "min")), dtype=np.float32)
    Xc = torch.randn(400, 64, requires_grad=True)
    Xg = Xc.detach().cuda().requires_grad_()
    Yc = gt.spmm(geblas.Matrix.from_scipy(S), Xc, reduce)
    Yg = gt.spmm(geblas.Matrix.from_scipy(S).to("cuda:0"), Xg, reduce)
    torch.testing.assert_close(Yg.cpu(), Yc, rtol=1e-5, atol=1e-5)
    G = torch.randn_like(Yc)
    (dc,) = torch.autograd.grad(Yc, Xc, G)
    (dg,) = torch.autograd.grad(Yg, Xg, G.cuda())
    torch.testing.assert_close(dg.cpu(), dc, rtol=1e-5, atol=1e-5)


@gpu
@pytest.mark.parametrize("reduce", REDUCES)
def test_cuda_gradcheck(reduce):
    S = random_graph(12, n=12, m=10, density=0.3)
    A = geblas.Matrix.from_scipy(S).to("cuda:0")
    X = torch.randn(10, 4, dtype=torch.float64, device="cuda", requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: gt.spmm(A, x, reduce), (X,), eps=1e-6, atol=1e-7)
    if reduce == "sum":
        v = torch.from_numpy(S.data.copy()).cuda().requires_grad_()
        assert torch.autograd.gradcheck(lambda v_, x: gt.spmm(A, x, "sum", values=v_), (v, X), eps=1e-6, atol=1e-7)


@gpu
def test_cuda_algorithms_return_torch():
    S = random_graph(13, n=200, density=0.03)
    A = geblas.Matrix.from_scipy(S)
    G = A.to("cuda:0")
    r = geblas.pagerank(G)
    assert isinstance(r, torch.Tensor) and r.is_cuda
    np.testing.assert_allclose(r.cpu().numpy(), geblas.pagerank(A), atol=1e-10)
    np.testing.assert_array_equal(geblas.bfs(G, 0).cpu().numpy(), geblas.bfs(A, 0))
    np.testing.assert_array_equal(geblas.connected_components(G).cpu().numpy(), geblas.connected_components(A))


@gpu
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_cuda_16bit_spmm(dtype):
    S = random_graph(14, n=256, density=0.05, dtype=np.float32)
    A = geblas.Matrix.from_scipy(S).to("cuda:0")
    X = torch.randn(256, 64, device="cuda")
    Y32 = geblas.mxm(A, X)
    Y16 = geblas.mxm(A.astype(str(dtype).split(".")[1]), X.to(dtype))
    assert Y16.dtype == dtype
    torch.testing.assert_close(Y16.float(), Y32, rtol=2e-2, atol=5e-2)


# --- streams (GPU) ------------------------------------------------------------------------
# geblas runs every call on torch's current stream: work queued before a call on that
# stream is seen by it, and no host synchronisation is needed on either side.

def _slow_input(X_host, stream):
    """X_host on the GPU, written on `stream` only after ~50 ms of sleep queued on it: a
    call that does not wait for the stream reads the zeros that are there first."""
    X = torch.zeros(X_host.shape, dtype=X_host.dtype, device="cuda")
    src = X_host.to("cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(100_000_000)
        X.copy_(src)
    # src dies on return while the copy still waits on `stream`: without this, torch's
    # allocator hands src's memory to the next tensor of its size on the default stream
    # (a gradient of X's shape), and the delayed copy reads that tensor instead.
    src.record_stream(stream)
    return X


@gpu
@pytest.mark.parametrize("reduce", REDUCES)
def test_spmm_runs_on_a_non_default_torch_stream(reduce):
    S = random_graph(41, n=400, m=300, density=0.05, unit=True, dtype=np.float32)
    X_host = torch.from_numpy(np.random.default_rng(42).integers(-4, 5, (300, 40)).astype(np.float32))
    want = reference(S, X_host, reduce)
    A = geblas.Matrix.from_scipy(S, device="cuda:0")
    s = torch.cuda.Stream()
    X = _slow_input(X_host, s)
    with torch.cuda.stream(s):
        assert geblas.current_stream("cuda:0") == s.cuda_stream
        Y = gt.spmm(A, X, reduce)
        got = Y.cpu()  # on s: after the product
    assert torch.equal(got, want)


@gpu
def test_spmm_needs_no_host_synchronisation(monkeypatch):
    S = random_graph(43, n=300, density=0.05, unit=True, dtype=np.float32)
    X_host = torch.from_numpy(np.random.default_rng(44).integers(-4, 5, (300, 16)).astype(np.float32))
    G_host = torch.from_numpy(np.random.default_rng(45).integers(-3, 4, (300, 16)).astype(np.float32))
    A = geblas.Matrix.from_scipy(S, device="cuda:0")
    At = torch.from_numpy(S.toarray()).t().contiguous()
    s = torch.cuda.Stream()
    X = _slow_input(X_host, s)
    G = G_host.to("cuda")
    # Builds A's caches (its transpose for the backward): a host wait once per matrix.
    warm = X_host.to("cuda").requires_grad_(True)
    gt.spmm(A, warm, "sum").backward(G)

    def refuse(*args, **kwargs):
        raise AssertionError("a host synchronisation was made")

    monkeypatch.setattr(torch.cuda, "synchronize", refuse)
    monkeypatch.setattr(torch.cuda.Stream, "synchronize", refuse)
    monkeypatch.setattr(torch.cuda.Event, "synchronize", refuse)
    monkeypatch.setattr(geblas._geblas, "synchronize", refuse)
    before = geblas.transfer_counts()
    with torch.cuda.stream(s):
        Xg = X.clone().requires_grad_(True)
        Y = gt.spmm(A, Xg, "sum")
        Y.backward(G)
        after = geblas.transfer_counts()  # no copy to the host inside geblas either
        got_y, got_dx = Y.detach().cpu(), Xg.grad.cpu()
    monkeypatch.undo()
    assert after["device_to_host_copies"] == before["device_to_host_copies"]
    assert torch.equal(got_y, reference(S, X_host, "sum"))
    assert torch.equal(got_dx, At @ G_host)


@gpu
def test_results_exported_on_one_stream_wait_for_it_on_another():
    S = random_graph(47, n=200, density=0.05, dtype=np.float32)
    X_host = torch.from_numpy(np.random.default_rng(48).integers(-4, 5, (200, 8)).astype(np.float32))
    A = geblas.Matrix.from_scipy(S, device="cuda:0")
    s = torch.cuda.Stream()
    X = _slow_input(X_host, s)
    with torch.cuda.stream(s), geblas._TorchStreams([X]):
        # The raw binding, so that the result stays an Exported made on s; the package's
        # wrappers enter _TorchStreams themselves (without it the product would be queued
        # on geblas's own stream, which does not wait for s).
        r = geblas._geblas.mxm(A, X)
    # Taken on the default stream: __dlpack__ waits for s before handing the data over.
    Y = torch.utils.dlpack.from_dlpack(r)
    want = torch.from_numpy(S.toarray()) @ X_host
    assert torch.allclose(Y.cpu(), want, rtol=1e-6, atol=1e-5)


def check_gpu_equals_cpu(S, X_host, G_host, reduce):
    """Forward and backward of gt.spmm on the CPU and on cuda:0 give the same values and
    the same gradients, and the GPU's values are the dense reference's."""
    results = []
    for device in ("cpu", "cuda:0"):
        A = geblas.Matrix.from_scipy(S, device=device)
        # A copy per device, so that X is a leaf there: X_host.to("cpu") is X_host itself,
        # and a requires_grad X_host would make the cuda copy a non-leaf without .grad.
        X = X_host.to(device, copy=True).requires_grad_(True)
        Y = gt.spmm(A, X, reduce)
        Y.backward(G_host.to(device))
        results.append((Y.detach().cpu(), X.grad.cpu()))
    (y_cpu, dx_cpu), (y_gpu, dx_gpu) = results
    assert torch.equal(y_gpu, reference(S, X_host, reduce))
    assert torch.equal(y_gpu, y_cpu)
    assert torch.equal(dx_gpu, dx_cpu)


@gpu
@pytest.mark.parametrize("reduce", ["max", "min"])
@pytest.mark.parametrize("F", [1, 7, 32, 130])
def test_max_min_kernel_on_gpu_matches_the_packed_path(reduce, F):
    # Integer features in a small range: most outputs are ties. The GPU forward (float32
    # kernel with its argument) and the CPU forward (int64 packed keys) must agree on every
    # value and send every gradient to the same neighbour.
    S = random_graph(51 + F, n=300, density=0.06, unit=True, dtype=np.float32)
    X_host = torch.from_numpy(np.random.default_rng(52).integers(-2, 3, (300, F)).astype(np.float32))
    G_host = torch.from_numpy(np.random.default_rng(53).integers(1, 5, (300, F)).astype(np.float32))
    check_gpu_equals_cpu(S, X_host, G_host, reduce)


@gpu
@pytest.mark.parametrize("reduce", ["max", "min"])
@pytest.mark.parametrize("F", [4, 33])
def test_max_min_kernel_with_hub_rows_matches_the_packed_path(reduce, F):
    # Rows of 2000-3000 entries: the GPU kernel cuts them into pieces and folds the pieces'
    # winners; ties across pieces must still go to the smallest neighbour, and every
    # gradient to the same neighbour as the CPU's packed path.
    n = 3000
    rng = np.random.default_rng(71 + F)
    S = sp.random(n, n, density=0.004, format="lil", random_state=rng)
    for hub, fill in ((0, 0.9), (5, 0.7), (n - 1, 0.95)):
        S[hub, rng.random(n) < fill] = 1.0
    S = sp.csr_array(S.tocsr())
    S.data = np.ones_like(S.data, dtype=np.float32)
    X_host = torch.from_numpy(rng.integers(-3, 4, (n, F)).astype(np.float32))
    G_host = torch.from_numpy(rng.integers(1, 5, (n, F)).astype(np.float32))
    check_gpu_equals_cpu(S, X_host, G_host, reduce)


@gpu
@pytest.mark.parametrize("reduce", ["max", "min"])
@pytest.mark.parametrize("F", [4, 33])
def test_max_min_kernel_with_weights_matches_the_search_path(reduce, F):
    # Integer weights (some negative) and features: many ties, and every product and sum
    # exact, so the GPU kernel (argument, then weights looked up in the backward) and the
    # CPU's search path must agree exactly.
    rng = np.random.default_rng(91 + F)
    S = random_graph(92 + F, n=300, density=0.05, unit=True, dtype=np.float32)
    S.data = rng.choice(np.array([-2, -1, 1, 2, 3], dtype=np.float32), S.data.size)
    X_host = torch.from_numpy(rng.integers(-2, 3, (300, F)).astype(np.float32))
    G_host = torch.from_numpy(rng.integers(1, 5, (300, F)).astype(np.float32))
    check_gpu_equals_cpu(S, X_host, G_host, reduce)


@gpu
def test_spmm_arg_with_outputs_off_16_byte_alignment():
    # Y and arg 4 bytes past an aligned address: the kernel must not take its 16-byte
    # stores there, and the result is the same.
    S = random_graph(81, n=200, density=0.05, unit=True, dtype=np.float32)
    A = geblas.Matrix.from_scipy(S, device="cuda:0")
    X = torch.from_numpy(np.random.default_rng(82).integers(-2, 3, (200, 32)).astype(np.float32)).cuda()
    Y0, arg0 = torch.empty((200, 32), device="cuda"), torch.empty((200, 32), dtype=torch.int32, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream  # ordered with the torch reads below
    geblas._geblas._spmm_arg(A, X, Y0, arg0, "max", stream)
    Y1 = torch.empty(200 * 32 + 1, device="cuda")[1:].view(200, 32)
    arg1 = torch.empty(200 * 32 + 1, dtype=torch.int32, device="cuda")[1:].view(200, 32)
    geblas._geblas._spmm_arg(A, X, Y1, arg1, "max", stream)
    assert torch.equal(Y0, Y1) and torch.equal(arg0, arg1)
    assert torch.equal(Y0.cpu(), reference(S, X.cpu(), "max"))


@gpu
def test_spmm_arg_scatter_refuses_bad_operands():
    arg = torch.zeros((20, 4), dtype=torch.int32, device="cuda")
    grad = torch.ones((20, 4), device="cuda")
    dx = torch.empty((10, 4), device="cuda")
    scatter = geblas._geblas._spmm_arg_scatter
    with pytest.raises(geblas.DomainMismatch):
        scatter(arg.to(torch.int64), grad, dx)
    with pytest.raises(geblas.DimensionMismatch):
        scatter(arg, grad[:19], dx)
    with pytest.raises(geblas.DimensionMismatch):
        scatter(arg, grad, torch.empty((10, 5), device="cuda"))
    with pytest.raises(geblas.DeviceMismatch):
        scatter(arg, grad.cpu(), dx)
    S = random_graph(63, n=10, density=0.3, dtype=np.float32)
    with pytest.raises(geblas.DimensionMismatch):  # A must be 20 x 10 as arg and dX
        scatter(arg, grad, dx, None, geblas.Matrix.from_scipy(S, device="cuda:0"))
    with pytest.raises(geblas.DeviceMismatch):
        scatter(arg, grad, dx, None, geblas.Matrix.from_scipy(sp.csr_array(sp.random(20, 10, density=0.3,
                                                                                        dtype=np.float32))))
    scatter(arg, grad, dx, torch.cuda.current_stream().cuda_stream)
    want = torch.zeros((10, 4))
    want[0] = 20
    assert torch.equal(dx.cpu(), want)


@gpu
def test_spmm_arg_refuses_bad_operands():
    S = random_graph(61, n=20, density=0.2, unit=True, dtype=np.float32)
    A = geblas.Matrix.from_scipy(S, device="cuda:0")
    X = torch.ones((20, 4), device="cuda")
    Y = torch.empty((20, 4), device="cuda")
    with pytest.raises(geblas.DomainMismatch):
        geblas._geblas._spmm_arg(A, X, Y, torch.empty((20, 4), dtype=torch.int64, device="cuda"), "max")
    with pytest.raises(geblas.DimensionMismatch):
        geblas._geblas._spmm_arg(A, X, Y, torch.empty((19, 4), dtype=torch.int32, device="cuda"), "max")
    with pytest.raises(geblas.InvalidValue):
        geblas._geblas._spmm_arg(A, X, Y, torch.empty((20, 4), dtype=torch.int32, device="cuda"), "sum")


def sddmm_reference(S, X, Y):
    """Dense torch oracle: (X Y') at S's entries, in S's CSR order."""
    coo = S.tocoo()
    D = X @ Y.t()
    # S is CSR with sorted rows: tocoo() lists its entries in CSR order
    return D[torch.from_numpy(coo.row).long().to(X.device), torch.from_numpy(coo.col).long().to(X.device)]


def _sddmm_case(device, dtype, seed=5):
    S = random_graph(seed, n=40, m=35, density=0.2)
    X = torch.randn(40, 12, dtype=dtype, device=device)
    Y = torch.randn(35, 12, dtype=dtype, device=device)
    return S, X, Y


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=gpu)])
@pytest.mark.parametrize("pattern", ["matrix", "torch_csr"])
def test_sddmm_forward(device, pattern):
    S, X, Y = _sddmm_case(device, torch.float32)
    A = geblas.Matrix.from_scipy(S).to("cuda:0" if device == "cuda" else "cpu") if pattern == "matrix" \
        else torch_csr(S, device=device)
    want = sddmm_reference(S, X.double(), Y.double())
    got = gt.sddmm(A, X, Y)
    assert got.shape == (S.nnz,) and got.device.type == device and got.dtype == torch.float32
    torch.testing.assert_close(got.double(), want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gt.sddmm(A, X, Y, scale=0.125).double(), 0.125 * want, rtol=1e-5, atol=1e-5)
    lrelu = torch.where(want < 0, 0.2 * want, want)
    torch.testing.assert_close(gt.sddmm(A, X, Y, leaky_relu=0.2).double(), lrelu, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=gpu)])
@pytest.mark.parametrize("fused", [{}, {"scale": 0.5}, {"leaky_relu": 0.1}])
def test_sddmm_gradients(device, fused):
    S, X, Y = _sddmm_case(device, torch.float64, seed=8)
    A = geblas.Matrix.from_scipy(S).to("cuda:0" if device == "cuda" else "cpu")
    X.requires_grad_()
    Y.requires_grad_()
    G = torch.randn(S.nnz, dtype=torch.float64, device=device)
    s = gt.sddmm(A, X, Y, **fused)
    dx, dy = torch.autograd.grad(s, (X, Y), G)
    # the oracle: the same function in dense torch ops, differentiated by autograd
    Xr, Yr = X.detach().clone().requires_grad_(), Y.detach().clone().requires_grad_()
    r = sddmm_reference(S, Xr, Yr)
    if "scale" in fused:
        r = r * fused["scale"]
    if "leaky_relu" in fused:
        r = torch.nn.functional.leaky_relu(r, fused["leaky_relu"])
    torch.testing.assert_close(s.detach(), r.detach(), rtol=1e-10, atol=1e-10)
    rdx, rdy = torch.autograd.grad(r, (Xr, Yr), G)
    torch.testing.assert_close(dx, rdx, rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(dy, rdy, rtol=1e-10, atol=1e-10)
    assert torch.autograd.gradcheck(lambda a, b: gt.sddmm(A, a, b, **fused),
                                    (X.detach().clone().requires_grad_(), Y.detach().clone().requires_grad_()))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=gpu)])
def test_spmm_values_gradient_through_geblas_sddmm(device):
    # SpMM's gradient of A's values is the sampled product grad . X' at A's pattern
    S = random_graph(9, n=30, m=25, density=0.2)
    T = torch_csr(S, device=device)
    v = T.values().clone().requires_grad_()
    X = torch.randn(25, 6, dtype=torch.float64, device=device)
    G = torch.randn(30, 6, dtype=torch.float64, device=device)
    (dv,) = torch.autograd.grad(gt.spmm(T, X, "sum", values=v), v, G)
    torch.testing.assert_close(dv, sddmm_reference(S, G, X), rtol=1e-10, atol=1e-10)


def test_sddmm_errors():
    S, X, Y = _sddmm_case("cpu", torch.float32)
    A = geblas.Matrix.from_scipy(S)
    with pytest.raises(geblas.DimensionMismatch):
        gt.sddmm(A, X[:-1], Y)
    with pytest.raises(geblas.DimensionMismatch):
        gt.sddmm(A, X, Y[:, :-1])
    with pytest.raises(geblas.DomainMismatch):
        gt.sddmm(A, X, Y.double())
    with pytest.raises(geblas.InvalidValue):
        gt.sddmm(A, X, Y, scale=2.0, leaky_relu=0.1)
    with pytest.raises(geblas.InvalidValue):
        gt.sddmm(A, X.requires_grad_(), Y, leaky_relu=0.0)
