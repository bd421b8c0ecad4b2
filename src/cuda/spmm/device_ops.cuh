// The device-side pieces every SpMM kernel shares: typed operands, stored <-> compute
// conversions, vector loads and stores, warp shuffles. Kept apart from ops.cuh (which
// adds the host-side choice of operators) so that NVRTC can compile the kernels from the
// same files for run-time semirings (rtc_shim.cuh, src/cuda/jit/).
#pragma once

#include "cuda/spmm/rtc_shim.cuh"

namespace geblas::detail::cuda::spmm {

// Typed pointers and strides of a problem. With RowMajor the column strides are 1 at
// compile time, so consecutive columns are consecutive addresses (vector loads).
template <class T, bool RowMajor>
struct Operands {
  Index m, n;
  const Index* __restrict__ ro;
  const ColIndex* __restrict__ ci;
  const T* __restrict__ av;
  const T* __restrict__ B;
  T* __restrict__ C;
  Index bs, bc, cs, cc;  // row and column strides of B and C
  bool accumulate;
  unsigned b_row_bytes;  // bs in bytes, below 4 GiB (operands() checks)

  __device__ __forceinline__ const T* b_at(Index k, Index j) const { return B + k * bs + (RowMajor ? j : j * bc); }
  // b_at(k, j) for an entry's column k, in nnz_split's inner loop: the lane's column
  // offset does not depend on the entry (the compiler keeps it out of the loop), and k
  // rows of b_row_bytes are one 32 x 32 -> 64-bit multiply, where k * bs in 64 bits took
  // a 64-bit multiply, a shift and two adds per entry. Written in PTX: the C++ form of the
  // widening product became a 64-bit multiply again once the compiler had hoisted the
  // widened stride. H200 (docs/notes/spmm-tuning.md):
  // nnz_split 4-7% faster at N = 128 and 512 (ego-Twitter, email-Enron, soc-Slashdot0902,
  // R-MAT 20); in team_row (row_split, row_pieces, row_group) it made the code 11-17%
  // shorter but row_pieces 11% slower at N = 32 (geomean of 12 graphs), so team_row and
  // merge_path (whose loop unrolled half as far with it) keep b_at.
  __device__ __forceinline__ const T* b_entry(ColIndex k, Index j) const {
    const char* column = reinterpret_cast<const char*>(B + (RowMajor ? j : j * bc));
    unsigned long long offset;
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(offset) : "r"(static_cast<unsigned>(k)), "r"(b_row_bytes));
    return reinterpret_cast<const T*>(column + offset);
  }
  __device__ __forceinline__ T* c_at(Index i, Index j) const { return C + i * cs + (RowMajor ? j : j * cc); }
};

// Programmatic dependent launch (sm_90 on): a kernel that consumes another's output is
// launched with the programmatic-serialization attribute, so that its blocks are
// scheduled while the producer's last ones still run instead of after the launch gap
// (a few microseconds, the size of a whole small product); wait_for_prior_grid() holds
// it until the producer has finished and its writes are visible. The producer lets it
// start as soon as each of its blocks is running (allow_dependent_launch). Both are
// no-ops without the attribute and below sm_90.
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// Stored <-> compute conversions. The identity for the five computed types (the same
// code as without them); half and bfloat16 widen exactly and narrow rounding to nearest
// even (NaN stays NaN, overflow becomes infinity, as geblas::half's host conversion).
template <class T, class Stored>
__device__ __forceinline__ T widen(Stored x) {
  if constexpr (std::is_same_v<T, Stored>) return x;
  else if constexpr (std::is_same_v<Stored, __half>) return __half2float(x);
  else return __bfloat162float(x);
}

template <class Stored, class T>
__device__ __forceinline__ Stored narrow(T x) {
  if constexpr (std::is_same_v<T, Stored>) return x;
  else if constexpr (std::is_same_v<Stored, __half>) return __float2half_rn(x);
  else return __float2bfloat16_rn(x);
}

// V stored values to V compute values; 16-bit pairs convert as one 32-bit register.
template <class T, class Stored, int V>
__device__ __forceinline__ void widen_vec(const Stored (&in)[V], T (&out)[V]) {
  if constexpr (std::is_same_v<T, Stored> || V % 2 != 0) {
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = widen<T>(in[v]);
  } else {
#pragma unroll
    for (int v = 0; v < V; v += 2) {
      float2 f;
      if constexpr (std::is_same_v<Stored, __half>) {
        __half2 h;
        std::memcpy(&h, &in[v], 4);
        f = __half22float2(h);
      } else {
        __nv_bfloat162 h;
        std::memcpy(&h, &in[v], 4);
        f = __bfloat1622float2(h);
      }
      out[v] = f.x;
      out[v + 1] = f.y;
    }
  }
}

// V compute values to V stored values, rounded once; 16-bit pairs with one paired convert.
template <class Stored, class T, int V>
__device__ __forceinline__ void narrow_vec(const T (&in)[V], Stored (&out)[V]) {
  if constexpr (std::is_same_v<T, Stored> || V % 2 != 0) {
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = narrow<Stored>(in[v]);
  } else {
#pragma unroll
    for (int v = 0; v < V; v += 2) {
      if constexpr (std::is_same_v<Stored, __half>) {
        const __half2 h = __floats2half2_rn(in[v], in[v + 1]);
        std::memcpy(&out[v], &h, 4);
      } else {
        const __nv_bfloat162 h = __floats2bfloat162_rn(in[v], in[v + 1]);
        std::memcpy(&out[v], &h, 4);
      }
    }
  }
}

// V consecutive values from p (16-byte loads for V * sizeof(T) == 16; the caller checks
// alignment). Read-only path: B is never written by the kernel.
template <class T, int V>
__device__ __forceinline__ void load_vec(const T* p, T (&out)[V]) {
  if constexpr (V * sizeof(T) == 16) {
    const int4 x = __ldg(reinterpret_cast<const int4*>(p));
    std::memcpy(out, &x, 16);
  } else if constexpr (V * sizeof(T) == 8) {
    const int2 x = __ldg(reinterpret_cast<const int2*>(p));
    std::memcpy(out, &x, 8);
  } else if constexpr (V * sizeof(T) == 32) {
    // two 16-byte loads (row_pieces_wide: 8 float columns per lane)
    const int4 x = __ldg(reinterpret_cast<const int4*>(p)), y = __ldg(reinterpret_cast<const int4*>(p) + 1);
    std::memcpy(out, &x, 16);
    std::memcpy(reinterpret_cast<char*>(out) + 16, &y, 16);
  } else {
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = p[v];
  }
}

template <class T, int V>
__device__ __forceinline__ void store_vec(T* p, const T (&in)[V]) {
  if constexpr (V * sizeof(T) == 16) {
    int4 x;
    std::memcpy(&x, in, 16);
    *reinterpret_cast<int4*>(p) = x;
  } else if constexpr (V * sizeof(T) % 16 == 0) {
    // float partial rows of 16-bit problems (V = 8): 16-byte stores, p 32-byte aligned
#pragma unroll
    for (int q = 0; q < static_cast<int>(V * sizeof(T) / 16); ++q) {
      int4 x;
      std::memcpy(&x, reinterpret_cast<const char*>(in) + 16 * q, 16);
      reinterpret_cast<int4*>(p)[q] = x;
    }
  } else if constexpr (V * sizeof(T) == 8) {
    int2 x;
    std::memcpy(&x, in, 8);
    *reinterpret_cast<int2*>(p) = x;
  } else {
#pragma unroll
    for (int v = 0; v < V; ++v) p[v] = in[v];
  }
}

// acc (+)= a (x) b over V columns: one loaded row of B, widened to Ops::T as it is used.
template <class Ops, int V>
__device__ __forceinline__ void multiply_add(const Ops& ops, const typename Ops::T& a,
                                             const typename Ops::Stored (&b)[V], typename Ops::T (&acc)[V]) {
  typename Ops::T bw[V];
  widen_vec(b, bw);
#pragma unroll
  for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], ops.mul(a, bw[v]));
}

// __shfl_sync for every value type geblas stores (bool and 64-bit integers included).
template <class T>
__device__ __forceinline__ T shfl(unsigned mask, T x, int src, int width = 32) {
  if constexpr (std::is_same_v<T, bool>) return __shfl_sync(mask, static_cast<int>(x), src, width) != 0;
  else if constexpr (sizeof(T) == 8 && std::is_integral_v<T>) return static_cast<T>(__shfl_sync(mask, static_cast<long long>(x), src, width));
  else return __shfl_sync(mask, x, src, width);
}

inline unsigned grid_limit(Index x) { return static_cast<unsigned>(x < 1 ? 1 : x); }

}  // namespace geblas::detail::cuda::spmm
