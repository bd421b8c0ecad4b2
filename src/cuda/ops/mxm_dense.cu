// Products with a dense left operand on the GPU, simple kernels for the less common
// forms of mxm (the sampled product with a sparse C is sddmm.cu). Dense x dense: 16 x 16 output tiles with the operand
// tiles staged in shared memory. Dense x sparse: B is transposed (B', n x k, sorted rows) and each T(i, j) folds row j
// of B' against row i of A, so no atomics are needed. The semiring is chosen at run time (runtime_ops.cuh), so each
// kernel is compiled once per type; T is row-major and an entry with no term holds the identity.
#include "core/derived_cache.hpp"
#include "core/trace.hpp"
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "cuda/ops/runtime_ops.cuh"
#include "geblas/detail/nan_rule.hpp"

namespace geblas::detail::cuda::ops {
namespace {

// 16 x 16 tiles: 256 threads, one output entry each; the plain shared-memory GEMM
// shape. Not tuned (dense x dense is not on any hot path of geblas).
struct DenseTilePolicy {
  static constexpr int tile = 16;
};

template <class V>
__global__ void dense_dense_kernel(DenseView<V> A, DenseView<V> B, DenseView<V> T, RtSemiring sr, Index tiles_j) {
  constexpr int TS = DenseTilePolicy::tile;
  __shared__ V as[TS][TS];
  __shared__ V bs[TS][TS];
  const Index ti = blockIdx.x / tiles_j, tj = blockIdx.x % tiles_j;
  const Index i = ti * TS + threadIdx.y, j = tj * TS + threadIdx.x;
  const Index kdim = A.ncols;
  bool has = false;
  V acc = monoid_identity<V>(sr.add);
  for (Index k0 = 0; k0 < kdim; k0 += TS) {
    const Index ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    as[threadIdx.y][threadIdx.x] = (i < A.nrows && ka < kdim) ? A(i, ka) : V{};
    bs[threadIdx.y][threadIdx.x] = (kb < kdim && j < B.ncols) ? B(kb, j) : V{};
    __syncthreads();
    const int kmax = kdim - k0 < TS ? static_cast<int>(kdim - k0) : TS;
    for (int k = 0; k < kmax; ++k) {
      const V x = binop_apply<V>(sr.mul, as[threadIdx.y][k], bs[k][threadIdx.x]);
      acc = has ? monoid_apply<V>(sr.add, acc, x) : first_term(sr.add, x);
      has = true;
    }
    __syncthreads();
  }
  if (i < T.nrows && j < T.ncols) T(i, j) = acc;
}

template <class V>
void dense_sparse_typed(DenseStorage& T, const DenseStorage& A, const SparseStorage& Bt, RtSemiring sr,
                        cudaStream_t s) {
  const DenseView<V> a = dense_view<V>(A), t = dense_view<V>(T);
  const Index* bro = Bt.row_offsets.as<Index>();
  const ColIndex* bci = Bt.col_indices.as<ColIndex>();
  const V* bv = Bt.values.as<V>();
  const Index n = T.ncols;
  for_each(T.nrows * n, s, [=] __device__(Index idx) {
    const Index i = idx / n, j = idx % n;
    bool has = false;
    V acc = monoid_identity<V>(sr.add);
    for (Index p = bro[j]; p < bro[j + 1]; ++p) {
      const V x = binop_apply<V>(sr.mul, a(i, bci[p]), bv[p]);
      acc = has ? monoid_apply<V>(sr.add, acc, x) : first_term(sr.add, x);
      has = true;
    }
    t(i, j) = acc;
  });
}

}  // namespace

void mxm_dense_dense(DenseStorage& T, const DenseStorage& A, const DenseStorage& B, SemiringId s) {
  Ctx c(A.device);
  current_dispatch().variant = "tiled";
  if (T.nrows == 0 || T.ncols == 0) return;
  constexpr int TS = DenseTilePolicy::tile;
  const Index ti = (T.nrows + TS - 1) / TS, tj = (T.ncols + TS - 1) / TS;
  if (ti * tj > 0x7fffffff) throw InvalidValue("mxm(dense x dense) on cuda: output too large for one launch");
  const RtSemiring sr = rt_semiring(s);
  visit_type(A.type, [&]<class V>() {
    dense_dense_kernel<V><<<static_cast<unsigned>(ti * tj), dim3(TS, TS), 0, c.stream>>>(
        dense_view<V>(A), dense_view<V>(B), dense_view<V>(T), sr, tj);
  });
  GEBLAS_CUDA_CHECK_LAUNCH();
}

void mxm_dense_sparse(DenseStorage& T, const DenseStorage& A, const SparseStorage& B, SemiringId s) {
  Ctx c(A.device);
  // B' from B's derived cache: a graph multiplied from the left again and again (a
  // dense feature block times a sparse adjacency) is transposed once.
  const std::shared_ptr<const SparseStorage> Bt = cached_transpose(B);
  const RtSemiring sr = rt_semiring(s);
  visit_type(A.type, [&]<class V>() { dense_sparse_typed<V>(T, A, *Bt, sr, c.stream); });
  current_dispatch().variant = "dot_bt";
}

}  // namespace geblas::detail::cuda::ops
