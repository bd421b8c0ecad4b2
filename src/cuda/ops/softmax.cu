// Attention over the stored entries of each row on the GPU: the row softmax and its
// backward (a warp per row: lanes stride the row, warp shuffles combine), and the fused
// GAT aggregation (Velickovic et al. 2018). The GAT forward gives each row one warp:
// per head, a pass for the largest score and one for the sum of exponentials, then one
// walk of the row's columns in which each lane owns output columns c = h F + f of Y_i
// (consecutive lanes read consecutive V entries), recomputes alpha_ij^h for its head and
// accumulates alpha V_j; the lane with f = 0 writes alpha. The backward gives each
// (row, head) one warp; the sums over a column (dV, d_er) are atomic adds, which avoids
// building A's transpose and the permutation of alpha into its order per call (the
// price: float atomics make the rounding order vary between runs).
#include <cmath>

#include "core/trace.hpp"
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cuda::ops {
namespace {

// Launch shape of the warp-per-row kernels; not tuned (8 warps a block is the usual
// full-occupancy shape for memory-bound row kernels on Hopper).
struct AttentionPolicy {
  static constexpr int threads = 256;
  static constexpr int warps = threads / 32;
  // Output columns per lane in one walk of a row in the GAT forward: H F above
  // 32 * cols_per_lane takes several walks (registers grow with this).
  static constexpr int cols_per_lane = 4;
};

template <class T>
__device__ T warp_max(T v) {
  for (int off = 16; off > 0; off /= 2) {
    const T o = __shfl_xor_sync(0xffffffffu, v, off);
    v = o > v ? o : v;
  }
  return v;
}

template <class T>
__device__ T warp_sum(T v) {
  for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

template <class T>
__device__ T leaky(T x, T slope) {
  return x > T(0) ? x : x * slope;
}

// The shift that keeps every exp at most 1; with all -inf (no finite largest value) 0,
// so that every exp is 0 and the zero sum gives zeros.
template <class T>
__device__ T shift_of(T m) {
  return isinf(m) && m < T(0) ? T(0) : m;
}
template <class T>
__device__ T inverse_sum(T s) {
  return s == T(0) ? T(0) : T(1) / s;  // NaN stays NaN
}

__device__ Index warp_id() { return (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32; }

unsigned warp_blocks(Index warps_needed) { return blocks_for(warps_needed * 32, AttentionPolicy::threads); }

template <class T>
__global__ void softmax_rows_kernel(Index m, const Index* ro, const T* x, T* y) {
  const int lane = threadIdx.x % 32;
  for (Index i = warp_id(); i < m; i += Index(gridDim.x) * AttentionPolicy::warps) {
    const Index b = ro[i], e = ro[i + 1];
    T mx = -INFINITY;
    for (Index k = b + lane; k < e; k += 32) mx = x[k] > mx ? x[k] : mx;
    const T shift = shift_of(warp_max(mx));
    T sum = 0;
    for (Index k = b + lane; k < e; k += 32) sum += exp(x[k] - shift);
    const T inv = inverse_sum(warp_sum(sum));
    for (Index k = b + lane; k < e; k += 32) y[k] = exp(x[k] - shift) * inv;
  }
}

template <class T>
__global__ void softmax_rows_backward_kernel(Index m, const Index* ro, const T* p, const T* dp, T* y) {
  const int lane = threadIdx.x % 32;
  for (Index i = warp_id(); i < m; i += Index(gridDim.x) * AttentionPolicy::warps) {
    const Index b = ro[i], e = ro[i + 1];
    T dot = 0;
    for (Index k = b + lane; k < e; k += 32) dot += p[k] * dp[k];
    dot = warp_sum(dot);
    for (Index k = b + lane; k < e; k += 32) y[k] = p[k] * (dp[k] - dot);
  }
}

// Dynamic shared memory: per warp, each head's shift and inverse sum.
template <class T>
__global__ void gat_forward_kernel(Index n, Index H, Index F, T slope, const Index* ro, const ColIndex* ci, const T* el,
                                   const T* er, const T* V, T* Y, T* alpha) {
  extern __shared__ unsigned char smem[];
  constexpr int K = AttentionPolicy::cols_per_lane;
  T* norm = reinterpret_cast<T*>(smem) + (threadIdx.x / 32) * 2 * H;
  const int lane = threadIdx.x % 32;
  const Index HF = H * F;
  for (Index i = warp_id(); i < n; i += Index(gridDim.x) * AttentionPolicy::warps) {
    const Index b = ro[i], e = ro[i + 1];
    for (Index h = 0; h < H; ++h) {
      const T l = el[i * H + h];
      T mx = -INFINITY;
      for (Index k = b + lane; k < e; k += 32) {
        const T s = leaky(l + er[Index(ci[k]) * H + h], slope);
        mx = s > mx ? s : mx;
      }
      const T shift = shift_of(warp_max(mx));
      T sum = 0;
      for (Index k = b + lane; k < e; k += 32) sum += exp(leaky(l + er[Index(ci[k]) * H + h], slope) - shift);
      sum = warp_sum(sum);
      if (lane == 0) {
        norm[2 * h] = shift;
        norm[2 * h + 1] = inverse_sum(sum);
      }
    }
    __syncwarp();
    for (Index c0 = 0; c0 < HF; c0 += 32 * K) {
      T acc[K], l[K], shift[K], inv[K];
      Index head[K];
#pragma unroll
      for (int s = 0; s < K; ++s) {
        const Index c = c0 + lane + 32 * s;
        acc[s] = 0;
        head[s] = c < HF ? c / F : 0;
        l[s] = el[i * H + head[s]];
        shift[s] = norm[2 * head[s]];
        inv[s] = norm[2 * head[s] + 1];
      }
      for (Index k = b; k < e; ++k) {
        const Index j = ci[k];
#pragma unroll
        for (int s = 0; s < K; ++s) {
          const Index c = c0 + lane + 32 * s;
          if (c < HF) {
            const T a = exp(leaky(l[s] + er[j * H + head[s]], slope) - shift[s]) * inv[s];
            acc[s] += a * V[j * HF + c];
            if (c == head[s] * F) alpha[k * H + head[s]] = a;
          }
        }
      }
#pragma unroll
      for (int s = 0; s < K; ++s) {
        const Index c = c0 + lane + 32 * s;
        if (c < HF) Y[i * HF + c] = acc[s];
      }
    }
    __syncwarp();  // norm is rewritten for the warp's next row
  }
}

// One warp per (row, head); dV and d_er zeroed before the launch.
template <class T>
__global__ void gat_backward_kernel(Index n, Index H, Index F, T slope, const Index* ro, const ColIndex* ci,
                                    const T* el, const T* er, const T* V, const T* alpha, const T* dY, T* dV, T* d_el,
                                    T* d_er) {
  const int lane = threadIdx.x % 32;
  const Index HF = H * F;
  for (Index w = warp_id(); w < n * H; w += Index(gridDim.x) * AttentionPolicy::warps) {
    const Index i = w / H, h = w % H;
    const Index b = ro[i], e = ro[i + 1];
    const T* dy = dY + i * HF + h * F;
    T dot = 0;  // sum over the row of alpha d_alpha
    for (Index k = b + lane; k < e; k += 32) {
      const T* v = V + Index(ci[k]) * HF + h * F;
      T da = 0;
      for (Index f = 0; f < F; ++f) da += dy[f] * v[f];
      dot += alpha[k * H + h] * da;
    }
    dot = warp_sum(dot);
    const T l = el[i * H + h];
    T sum = 0;
    for (Index k = b + lane; k < e; k += 32) {
      const Index j = ci[k];
      const T* v = V + j * HF + h * F;
      T da = 0;
      for (Index f = 0; f < F; ++f) da += dy[f] * v[f];
      const T de = alpha[k * H + h] * (da - dot);
      const T ds = l + er[j * H + h] > T(0) ? de : de * slope;
      sum += ds;
      atomicAdd(d_er + j * H + h, ds);
    }
    sum = warp_sum(sum);
    if (lane == 0) d_el[i * H + h] = sum;
    // dV_j^h += alpha_ij^h dY_i^h, lanes over the features (coalesced atomics).
    for (Index k = b; k < e; ++k) {
      const T a = alpha[k * H + h];
      T* dv = dV + Index(ci[k]) * HF + h * F;
      for (Index f = lane; f < F; f += 32) atomicAdd(dv + f, a * dy[f]);
    }
  }
}

template <class F>
void visit_real(TypeId t, const char* op, F&& f) {
  if (t == TypeId::float32) f.template operator()<float>();
  else if (t == TypeId::float64) f.template operator()<double>();
  else throw DomainMismatch(std::string(op) + ": float32 or float64 values only");
}

}  // namespace

void softmax_rows(void* out, const SparseStorage& S) {
  current_dispatch().variant = "warp_per_row";
  if (S.nrows == 0 || S.nvals == 0) return;
  Ctx c(S.device);
  visit_real(S.type, "softmax_rows", [&]<class T>() {
    softmax_rows_kernel<T><<<warp_blocks(S.nrows), AttentionPolicy::threads, 0, c.stream>>>(
        S.nrows, S.row_offsets.as<Index>(), S.values.as<T>(), static_cast<T*>(out));
    GEBLAS_CUDA_CHECK_LAUNCH();
  });
}

void softmax_rows_backward(void* out, const SparseStorage& P, const void* dP) {
  current_dispatch().variant = "warp_per_row";
  if (P.nrows == 0 || P.nvals == 0) return;
  Ctx c(P.device);
  visit_real(P.type, "softmax_rows_backward", [&]<class T>() {
    softmax_rows_backward_kernel<T><<<warp_blocks(P.nrows), AttentionPolicy::threads, 0, c.stream>>>(
        P.nrows, P.row_offsets.as<Index>(), P.values.as<T>(), static_cast<const T*>(dP), static_cast<T*>(out));
    GEBLAS_CUDA_CHECK_LAUNCH();
  });
}

void gat_forward(const GatAttention& g) {
  current_dispatch().variant = "warp_per_row";
  const SparseStorage& A = *g.A;
  if (A.nrows == 0) return;
  Ctx c(A.device);
  visit_real(g.type, "gat_forward", [&]<class T>() {
    const std::size_t smem = std::size_t(AttentionPolicy::warps) * 2 * std::size_t(g.heads) * sizeof(T);
    int limit = 0;
    GEBLAS_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, A.device.ordinal()));
    if (smem > std::size_t(limit))
      throw NotImplemented("gat_attention on " + A.device.str() + ": " + std::to_string(g.heads) +
                           " heads need more shared memory than a block has");
    const auto kernel = gat_forward_kernel<T>;
    if (smem > 48 * 1024)
      GEBLAS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    kernel<<<warp_blocks(A.nrows), AttentionPolicy::threads, smem, c.stream>>>(
        A.nrows, g.heads, g.features, static_cast<T>(g.negative_slope), A.row_offsets.as<Index>(),
        A.col_indices.as<ColIndex>(), static_cast<const T*>(g.el), static_cast<const T*>(g.er),
        static_cast<const T*>(g.V), static_cast<T*>(g.Y), static_cast<T*>(g.alpha));
    GEBLAS_CUDA_CHECK_LAUNCH();
  });
}

void gat_backward(const GatAttention& g) {
  current_dispatch().variant = "warp_per_row_head_atomic";
  const SparseStorage& A = *g.A;
  if (A.nrows == 0) return;
  Ctx c(A.device);
  visit_real(g.type, "gat_backward", [&]<class T>() {
    const Index HF = g.heads * g.features;
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(g.dV, 0, std::size_t(A.ncols * HF) * sizeof(T), c.stream));
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(g.d_er, 0, std::size_t(A.ncols * g.heads) * sizeof(T), c.stream));
    gat_backward_kernel<T><<<warp_blocks(A.nrows * g.heads), AttentionPolicy::threads, 0, c.stream>>>(
        A.nrows, g.heads, g.features, static_cast<T>(g.negative_slope), A.row_offsets.as<Index>(),
        A.col_indices.as<ColIndex>(), static_cast<const T*>(g.el), static_cast<const T*>(g.er),
        static_cast<const T*>(g.V), static_cast<const T*>(g.alpha), static_cast<const T*>(g.dY), static_cast<T*>(g.dV),
        static_cast<T*>(g.d_el), static_cast<T*>(g.d_er));
    GEBLAS_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace geblas::detail::cuda::ops
