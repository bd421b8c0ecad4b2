// Sparse matrix times vector over a semiring on the GPU, the inner step of PageRank,
// SSSP and BFS. Pull (t = M u): a group of `lanes` threads per row of M folds the row
// into one value and shuffles the partial results together (CSR-vector SpMV with a group
// size picked from the mean row length). Push (t = M' u for a sparse frontier u): one
// warp per frontier entry scatters its row of M' into a dense t with atomics on the
// semiring's add. Both are templates over the built-in semiring, so add and multiply
// inline; both produce t in the dense + presence form of VectorResult. (PageRank's fused
// iteration lives in src/cuda/graph/pagerank.cu.)
#include <algorithm>
#include <string>
#include <type_traits>

#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "geblas/detail/nan_rule.hpp"

namespace geblas::detail::cuda::ops {
namespace {

// Group size of the pull kernel: the smallest power of two >= the mean row length,
// capped at a warp. Not tuned by measurement yet; this is the usual CSR-vector rule
// (a group about as wide as a row keeps lanes busy without serial tails).
struct PullPolicy {
  static constexpr int threads = 256;
  static constexpr int max_lanes = 32;
};
// One warp per frontier entry; 256 threads (8 entries) per block, as LaunchPolicy.
struct PushPolicy {
  static constexpr int threads = 256;
};

// Whether the kernels must load M's values: the matrix is mul()'s first operand for
// mxv and its second for vxm (u_first), so only a multiply that reads neither operand
// (plus_pair) lets them skip the load.
template <class S>
constexpr bool reads_matrix() {
  return semiring_reads_a<S>() || semiring_reads_b<S>();
}

// A partial result: `has` says whether any term contributed, so that the first term is
// taken as it is (the `any` monoid's identity is not neutral).
template <class S, class T>
__device__ inline void fold(bool& has, T& acc, bool other_has, T other) {
  if (other_has) {
    acc = has ? S::add(acc, other) : first_term_for<S>(other);
    has = true;
  }
}

template <class T>
__device__ inline T shfl_down(T v, int off, int width) {
  if constexpr (std::is_same_v<T, bool>) return __shfl_down_sync(0xffffffffu, static_cast<int>(v), off, width) != 0;
  else return __shfl_down_sync(0xffffffffu, v, off, width);
}

template <class S, class T>
__global__ void pull_kernel(Index m, const Index* ro, const ColIndex* ci, const T* av, const T* u,
                            const std::uint8_t* u_present, bool u_first, MaskView mask, T* t, std::uint8_t* present,
                            int lanes) {
  const Index gid = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = static_cast<int>(gid % lanes);
  const Index stride_rows = Index(gridDim.x) * blockDim.x / lanes;
  // Groups never straddle warps (lanes divides 32); the loop runs while any group of the
  // warp has a row, so that every lane takes part in the shuffles.
  const Index warp_first = (gid - threadIdx.x % 32) / lanes;
  for (Index i = gid / lanes, w0 = warp_first; w0 < m; i += stride_rows, w0 += stride_rows) {
    const bool live = i < m && mask.allows(i, 0);
    bool has = false;
    T acc = S::identity();
    if (live) {
      for (Index p = ro[i] + lane; p < ro[i + 1]; p += lanes) {
        const ColIndex k = ci[p];
        if (u_present && !u_present[k]) continue;
        T a = T(1);
        if constexpr (reads_matrix<S>()) a = av[p];
        const T x = u[k];
        fold<S>(has, acc, true, u_first ? S::mul(x, a) : S::mul(a, x));
      }
    }
    for (int off = lanes / 2; off > 0; off /= 2) {
      const bool oh = __shfl_down_sync(0xffffffffu, static_cast<int>(has), off, lanes) != 0;
      const T ov = shfl_down(acc, off, lanes);
      fold<S>(has, acc, oh, ov);
    }
    if (lane == 0 && i < m) {
      t[i] = acc;
      present[i] = live && has;
    }
  }
}

template <class S, class T>
__device__ inline void atomic_add_to(T* addr, std::uint8_t* present, T x) {
  using Add = typename S::add_monoid;
  if constexpr (Add::id == MonoidId::any) {
    if (atomic_claim_byte(present)) *addr = x;  // the first term wins
    return;
  } else {
    if constexpr (Add::id == MonoidId::plus && !std::is_same_v<T, bool>) {
      if constexpr (std::is_same_v<T, std::int64_t>)
        atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(x));
      else if constexpr (std::is_same_v<T, std::int32_t>)
        atomicAdd(addr, x);
      else
        atomicAdd(addr, x);
    } else {
      atomic_update(addr, [x](T old) { return S::add(old, x); });
    }
    if (!*present) *present = 1;  // every writer stores the same byte
  }
}

template <class S, class T>
__global__ void push_kernel(Index nfront, const ColIndex* fidx, const T* fval, const Index* ro, const ColIndex* ci,
                            const T* av, bool u_first, MaskView mask, T* t, std::uint8_t* present) {
  const int lane = threadIdx.x % 32;
  const Index warp = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const Index warps = Index(gridDim.x) * blockDim.x / 32;
  for (Index e = warp; e < nfront; e += warps) {
    const ColIndex k = fidx[e];
    const T x = fval[e];
    for (Index p = ro[k] + lane; p < ro[k + 1]; p += 32) {
      const ColIndex i = ci[p];
      if (!mask.allows(i, 0)) continue;
      T a = T(1);
      if constexpr (reads_matrix<S>()) a = av[p];
      atomic_add_to<S>(t + i, present + i, u_first ? S::mul(x, a) : S::mul(a, x));
    }
  }
}

template <class S, class T>
void init_identity(T* t, Index m, cudaStream_t s) {
  for_each(m, s, [=] __device__(Index i) { t[i] = S::identity(); });
}

}  // namespace

void mxv_pull(const MxvArgs& args) {
  const SparseStorage& A = *args.A;
  Ctx c(A.device);
  const Index m = A.nrows;
  VectorResult r = dense_result(m, A.type, true, c);
  DenseVec u = densify(*args.u, c);
  const MaskView mask = args.mask ? mask_view(*args.mask) : MaskView{};
  const double mean = m ? static_cast<double>(A.nvals) / static_cast<double>(m) : 0.0;
  int lanes = 1;
  while (lanes < PullPolicy::max_lanes && lanes < mean) lanes *= 2;
  if (args.record) {
    args.record->variant = "csr_vector";
    args.record->reason = std::to_string(lanes) + " lanes per row (mean row " + std::to_string(mean).substr(0, 6) +
                          ")" + (args.u->dense ? "" : ", sparse u densified") + (args.mask ? ", masked rows skipped" : "");
  }
  if (m == 0) {
    *args.t = std::move(r);
    return;
  }
  const Index threads_needed = m * lanes;
  const unsigned grid = blocks_for(threads_needed, PullPolicy::threads);
  visit_type(A.type, [&]<class T>() {
    with_semiring<T>(args.semiring, [&]<class S>() {
      pull_kernel<S, T><<<grid, PullPolicy::threads, 0, c.stream>>>(
          m, A.row_offsets.as<Index>(), A.col_indices.as<ColIndex>(), A.values.as<T>(),
          static_cast<const T*>(u.values), u.present, args.u_first, mask, r.t.values.as<T>(),
          r.present.as<std::uint8_t>(), lanes);
      GEBLAS_CUDA_CHECK_LAUNCH();
    });
  });
  *args.t = std::move(r);
}

void mxv_push(const MxvArgs& args) {
  const SparseStorage& At = *args.A;  // M', n x m
  Ctx c(At.device);
  const Index m = At.ncols;
  VectorResult r = dense_result(m, At.type, true, c);
  const MaskView mask = args.mask ? mask_view(*args.mask) : MaskView{};
  if (args.record) {
    args.record->variant = "warp_scatter";
    args.record->reason = "frontier of " + std::to_string(args.u->nvals) + " entries, atomics on the add";
  }
  if (m > 0) GEBLAS_CUDA_CHECK(cudaMemsetAsync(r.present.data(), 0, r.present.bytes(), c.stream));
  // A dense u (every entry in the frontier) is compacted first so the kernel reads indices.
  VectorStorage compacted;
  const VectorStorage* u = args.u;
  if (u->dense) {
    compacted = compact_vector(u->size, u->values.data(), nullptr, u->type, c);
    u = &compacted;
  }
  visit_type(At.type, [&]<class T>() {
    with_semiring<T>(args.semiring, [&]<class S>() {
      init_identity<S, T>(r.t.values.as<T>(), m, c.stream);
      if (u->nvals == 0) return;
      const unsigned grid = blocks_for(u->nvals * 32, PushPolicy::threads);
      push_kernel<S, T><<<grid, PushPolicy::threads, 0, c.stream>>>(
          u->nvals, u->indices.as<ColIndex>(), u->values.as<T>(), At.row_offsets.as<Index>(),
          At.col_indices.as<ColIndex>(), At.values.as<T>(), args.u_first, mask, r.t.values.as<T>(),
          r.present.as<std::uint8_t>());
      GEBLAS_CUDA_CHECK_LAUNCH();
    });
  });
  *args.t = std::move(r);
}

}  // namespace geblas::detail::cuda::ops
