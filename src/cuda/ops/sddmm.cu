// The sampled dense x dense product (SDDMM) on the GPU: T(i, j) = f(<op(A) row i, op(B)
// column j>) at the entries of a sparse mask, the attention-score kernel of graph layers.
// A group of lanes (4 to 32, sized to the feature width k) computes one mask entry: each
// lane folds a strided share of the k terms and the group combines the partial folds by
// shuffles. The mask's entries are handed out in order, so the groups of a warp work on
// neighbouring entries of one row and its row of op(A) is read from L1 after the first.
// float plus_times with both vectors contiguous (A row-major, B row-major read as B'; the
// score case) is a typed kernel with float4 loads and fused multiply-adds; every other
// semiring, type and layout runs the same shape with the semiring chosen at run time
// (runtime_ops.cuh) and the operands read in place through strided views (no copy).
#include <cstdint>
#include <string>

#include "core/trace.hpp"
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "cuda/ops/runtime_ops.cuh"
#include "geblas/detail/nan_rule.hpp"

namespace geblas::detail::cuda::ops {
namespace {

// Launch tuning of the sampled product, by feature width k. Lanes per mask entry: enough
// that one step of the group covers the row in float4 loads (k / 4 lanes) up to a whole
// warp; a smaller group keeps more entries in flight at small k, where a warp per entry
// would leave most lanes idle. Chosen from the shape of the work, not yet measured on a
// GPU (bench/sddmm/bench_sddmm.cpp times it against cuSPARSE).
struct SddmmPolicy {
  static constexpr int threads = 256;
  static constexpr Index max_blocks = Index{1} << 16;  // grid-stride beyond this
  struct Width {
    Index k_max;
    int lanes;
  };
  static constexpr Width widths[] = {{16, 4}, {32, 8}, {64, 16}, {Index{1} << 62, 32}};
  static constexpr int lanes_for(Index k) {
    for (const Width& w : widths)
      if (k <= w.k_max) return w.lanes;
    return 32;
  }
};

// The mask's entries as the kernels read them: a value mask drops the entries whose value
// is zero (they are skipped here and compacted away after).
struct SampleView {
  const Index* ro;
  const ColIndex* ci;
  Index nrows, nvals;
  bool structural;
  TypeId type;
  const void* values;
  __device__ bool keeps(Index p) const { return structural || value_nonzero(type, values, p); }
};

// The row of mask entry p, searched forward from `lo`, a row at or before it: galloping
// steps first, so that the next entry of the same or a near row (the common case, one
// step of a group) costs one or two reads instead of a binary search over every row.
__device__ inline Index row_from(const Index* ro, Index nrows, Index p, Index lo) {
  Index step = 1, hi = lo + 1;
  while (hi < nrows && ro[hi] <= p) {  // ro[lo] <= p throughout
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  return row_of_entry(ro, hi < nrows ? hi : nrows, p, lo);
}

// The lanes of the calling thread's group within its warp, for the shuffles.
template <int G>
__device__ inline unsigned group_lanes() {
  if constexpr (G == 32) return 0xffffffffu;
  else return ((1u << G) - 1u) << ((threadIdx.x % 32) / G * G);
}

template <class V>
__device__ inline V shfl_xor(unsigned lanes, V x, int offset) {
  if constexpr (sizeof(V) == 1) return static_cast<V>(__shfl_xor_sync(lanes, static_cast<int>(x), offset));
  else return __shfl_xor_sync(lanes, x, offset);
}

// float plus_times, op(A)'s rows at a + i * lda and op(B)'s columns at b + j * ldb, both
// contiguous; VEC = 4 when k and both strides are multiples of 4 (16-byte aligned rows).
template <int G, int VEC>
__global__ void __launch_bounds__(SddmmPolicy::threads)
    dot_kernel(SampleView s, const float* __restrict__ a, Index lda, const float* __restrict__ b, Index ldb, Index k,
               float* __restrict__ out, SampledOp::Kind kind, float alpha) {
  const int lane = static_cast<int>(threadIdx.x % G);
  const unsigned lanes = group_lanes<G>();
  const Index groups = Index(gridDim.x) * (SddmmPolicy::threads / G);
  Index i = 0;
  for (Index p = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / G; p < s.nvals; p += groups) {
    i = row_from(s.ro, s.nrows, p, i);  // p only grows: the last row is a lower bound
    if (!s.keeps(p)) continue;          // the same for the whole group
    const float* ar = a + i * lda;
    const float* br = b + static_cast<Index>(s.ci[p]) * ldb;
    float acc = 0.0f;
    if constexpr (VEC == 4) {
      for (Index q = Index(lane) * 4; q < k; q += G * 4) {
        const float4 x = __ldg(reinterpret_cast<const float4*>(ar + q));
        const float4 y = __ldg(reinterpret_cast<const float4*>(br + q));
        acc = fmaf(x.x, y.x, acc);
        acc = fmaf(x.y, y.y, acc);
        acc = fmaf(x.z, y.z, acc);
        acc = fmaf(x.w, y.w, acc);
      }
    } else {
      for (Index q = lane; q < k; q += G) acc = fmaf(__ldg(ar + q), __ldg(br + q), acc);
    }
    for (int off = G / 2; off > 0; off /= 2) acc += __shfl_xor_sync(lanes, acc, off);
    if (lane == 0) out[p] = SampledOp::apply<float>(kind, alpha, acc);
  }
}

// op(X) of a dense view: the transpose reads the same data in the other layout.
template <class V>
DenseView<const V> op_view(const DenseStorage& X, bool transposed) {
  const Layout other = X.layout == Layout::row_major ? Layout::col_major : Layout::row_major;
  if (!transposed) return {X.nrows, X.ncols, X.ld, X.layout, X.data.as<V>()};
  return {X.ncols, X.nrows, X.ld, other, X.data.as<V>()};
}

// Any built-in semiring and type: lane l folds the terms l, l + G, ... from its first
// (first_term's NaN rule, as the other sparse-output kernels), then the group merges the
// lanes that have a term. Exact for integers, min and max whatever the split.
template <class V, int G>
__global__ void __launch_bounds__(SddmmPolicy::threads)
    fold_kernel(SampleView s, DenseView<const V> a, DenseView<const V> b, RtSemiring sr, V* __restrict__ out,
                SampledOp::Kind kind, V alpha) {
  const int lane = static_cast<int>(threadIdx.x % G);
  const unsigned lanes = group_lanes<G>();
  const Index groups = Index(gridDim.x) * (SddmmPolicy::threads / G);
  const Index k = a.ncols;
  Index i = 0;
  for (Index p = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / G; p < s.nvals; p += groups) {
    i = row_from(s.ro, s.nrows, p, i);
    if (!s.keeps(p)) continue;
    const Index j = s.ci[p];
    bool has = false;
    V acc = monoid_identity<V>(sr.add);
    for (Index q = lane; q < k; q += G) {
      const V x = binop_apply<V>(sr.mul, a(i, q), b(q, j));
      acc = has ? monoid_apply<V>(sr.add, acc, x) : first_term(sr.add, x);
      has = true;
    }
    for (int off = G / 2; off > 0; off /= 2) {
      const V other = shfl_xor<V>(lanes, acc, off);
      const bool other_has = __shfl_xor_sync(lanes, static_cast<int>(has), off) != 0;
      if (other_has) acc = has ? monoid_apply<V>(sr.add, acc, other) : other;
      has = has || other_has;
    }
    if (lane == 0) out[p] = SampledOp::apply<V>(kind, alpha, acc);
  }
}

unsigned grid_for(Index nvals, int lanes) {
  const Index per_block = SddmmPolicy::threads / lanes;
  Index blocks = (nvals + per_block - 1) / per_block;
  if (blocks > SddmmPolicy::max_blocks) blocks = SddmmPolicy::max_blocks;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

// Calls f.template operator()<G>() with the policy's lane count as a constant.
template <class F>
void with_lanes(int lanes, F&& f) {
  switch (lanes) {
    case 4: return f.template operator()<4>();
    case 8: return f.template operator()<8>();
    case 16: return f.template operator()<16>();
    default: return f.template operator()<32>();
  }
}

// The entries of a value mask that hold a nonzero, with the values computed for them.
template <class V>
SparseStorage kept_samples(const SparseStorage& M, const RawBuffer& values, TypeId type, const SampleView sv,
                           const Ctx& c) {
  return kept_entries<V>(M, values.as<V>(), type, c, [=] __device__(Index p) { return sv.keeps(p); });
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

void mxm_sampled(SparseStorage& T, const DenseStorage& A, const DenseStorage& B, SemiringId s, const Options& o,
                 const SampledOp& f) {
  Ctx c(A.device);
  const SparseStorage& M = *o.mask.sparse();
  const Index m = o.transpose_a ? A.ncols : A.nrows, n = o.transpose_b ? B.nrows : B.ncols;
  const Index kdim = o.transpose_a ? A.nrows : A.ncols;
  DispatchRecord& rec = current_dispatch();
  if (kdim == 0 || M.nvals == 0) {
    // no inner terms: no entry has a term, so the product has none
    T = new_sparse(m, n, 0, A.type, c.device);
    GEBLAS_CUDA_CHECK(
        cudaMemsetAsync(T.row_offsets.data(), 0, static_cast<std::size_t>(m + 1) * sizeof(Index), c.stream));
    rec.variant = "empty";
    rec.reason = kdim == 0 ? "inner dimension 0: no entry has a term" : "the mask has no entries";
    return;
  }
  const bool structural = o.mask.structural();
  const SampleView sv{
      M.row_offsets.as<Index>(), M.col_indices.as<ColIndex>(), m, M.nvals, structural, M.type, M.values.data()};
  // A structural mask's entries are T's: the values are written into T in place. A value
  // mask's go to a temporary that the compaction reads.
  RawBuffer dropped;
  if (structural) {
    T = new_sparse(m, n, M.nvals, A.type, c.device);
    GEBLAS_CUDA_CHECK(cudaMemcpyAsync(T.row_offsets.data(), M.row_offsets.data(),
                                      static_cast<std::size_t>(m + 1) * sizeof(Index), cudaMemcpyDeviceToDevice,
                                      c.stream));
    GEBLAS_CUDA_CHECK(cudaMemcpyAsync(T.col_indices.data(), M.col_indices.data(),
                                      static_cast<std::size_t>(M.nvals) * sizeof(ColIndex), cudaMemcpyDeviceToDevice,
                                      c.stream));
  } else {
    dropped = temp_bytes(M.nvals, size_of(A.type), c.device);
  }
  RawBuffer& values = structural ? T.values : dropped;
  const int lanes = SddmmPolicy::lanes_for(kdim);
  const unsigned grid = grid_for(M.nvals, lanes);

  // op(A)'s rows and op(B)'s columns are contiguous in the score case (A row-major, B
  // row-major and transposed) and its mirror images.
  const bool a_rows = (A.layout == Layout::row_major) != o.transpose_a;
  const bool b_cols = (B.layout == Layout::col_major) != o.transpose_b;
  const bool typed = A.type == TypeId::float32 && s == SemiringId::plus_times && a_rows && b_cols;
  std::string how;
  if (typed) {
    const float* a = A.data.as<float>();
    const float* b = B.data.as<float>();
    const bool vec = kdim % 4 == 0 && A.ld % 4 == 0 && B.ld % 4 == 0 && aligned16(a) && aligned16(b);
    float* out = values.as<float>();
    const auto alpha = static_cast<float>(f.alpha);
    with_lanes(lanes, [&]<int G>() {
      if (vec)
        dot_kernel<G, 4><<<grid, SddmmPolicy::threads, 0, c.stream>>>(sv, a, A.ld, b, B.ld, kdim, out, f.kind, alpha);
      else
        dot_kernel<G, 1><<<grid, SddmmPolicy::threads, 0, c.stream>>>(sv, a, A.ld, b, B.ld, kdim, out, f.kind, alpha);
    });
    GEBLAS_CUDA_CHECK_LAUNCH();
    rec.variant = "group_dot";
    how = vec ? "float4 loads" : "scalar loads (k or a stride not a multiple of 4)";
  } else {
    const RtSemiring sr = rt_semiring(s);
    visit_type(A.type, [&]<class V>() {
      const DenseView<const V> a = op_view<V>(A, o.transpose_a), b = op_view<V>(B, o.transpose_b);
      V* out = values.as<V>();
      const V alpha = static_cast<V>(f.alpha);
      with_lanes(lanes, [&]<int G>() {
        fold_kernel<V, G><<<grid, SddmmPolicy::threads, 0, c.stream>>>(sv, a, b, sr, out, f.kind, alpha);
      });
      GEBLAS_CUDA_CHECK_LAUNCH();
    });
    rec.variant = "group_fold";
    how = std::string(semiring_info(s).name) + " chosen at run time";
  }

  if (!structural) visit_type(A.type, [&]<class V>() { T = kept_samples<V>(M, dropped, A.type, sv, c); });
  rec.reason = "k=" + std::to_string(kdim) + ", " + std::to_string(lanes) + " lanes per mask entry, " + how + ", " +
               (a_rows ? "op(A) rows contiguous" : "op(A) read strided in place") + ", " +
               (b_cols ? "op(B) columns contiguous" : "op(B) read strided in place") + ", " +
               (structural ? "structural mask" : "value mask (zero entries dropped)") + sampled_op_note(f);
}

}  // namespace geblas::detail::cuda::ops
