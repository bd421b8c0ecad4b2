// The inner loop row_split and row_pieces share: a whole warp computes one tile of
// columns of one row of C from a contiguous range of that row's entries. The warp is cut
// into E = 32 / W entry slots of W lanes; the W lanes of a slot cover W * V columns with
// 16-byte loads of B, and the E slots work on E different entries at once, so small N
// still keeps every lane busy. The warp loads 32 entries (column, value) with one
// coalesced access (GE-SpMM's row caching, held in registers and broadcast by shuffles),
// then issues U loads of B per slot before consuming any, so U * E loads are in flight
// per warp instead of one dependent chain. The slots' partial results are combined with
// the semiring's add at the end (butterfly shuffles). Values are loaded as Ops::Stored
// (8 per 16-byte load for half and bfloat16) and widened to Ops::T in registers just
// before they are used, so the loads in flight hold packed 16-bit values.
#pragma once

#include "cuda/spmm/device_ops.cuh"

namespace geblas::detail::cuda::spmm {

// Lanes per entry slot: the narrowest power of two whose lanes, V columns each, cover N.
inline int slot_lanes(Index n, int v) {
  int w = 1;
  while (w < 32 && static_cast<Index>(w) * v < n) w *= 2;
  return w;
}
inline int log2_of(int x) {
  int l = 0;
  while ((1 << l) < x) ++l;
  return l;
}

// A kernel's grid and its lanes per slot (or group) as log2, computed by the host code
// of the built-in variants and of run-time semirings alike.
struct LaunchShape {
  unsigned grid_x, grid_y;
  int log_w;
};

template <class T>
__device__ __forceinline__ T shfl_xor(T x, int mask) {
  if constexpr (std::is_same_v<T, bool>) return __shfl_xor_sync(0xffffffffu, static_cast<int>(x), mask) != 0;
  else if constexpr (sizeof(T) == 8 && std::is_integral_v<T>) return static_cast<T>(__shfl_xor_sync(0xffffffffu, static_cast<long long>(x), mask));
  else return __shfl_xor_sync(0xffffffffu, x, mask);
}

// A load that reads L2 (not this SM's L1), for partial rows other warps wrote.
template <class T>
__device__ __forceinline__ T load_shared_l2(const T* p) {
  if constexpr (std::is_same_v<T, bool>) return *reinterpret_cast<const volatile unsigned char*>(p) != 0;
  else return *static_cast<const volatile T*>(p);
}

// acc (+)= sum over entries [beg, end) of A(row, k) (x) B(k, j .. j+V). Every lane of the
// warp must call it with the same beg, end (warp-uniform trip counts); `active` says
// whether the lane's columns are inside N. On return every lane of a slot column holds
// the full result for its columns (all slots agree).
template <int U, class Ops, int V, bool RowMajor>
__device__ __forceinline__ void warp_row(const Operands<typename Ops::Stored, RowMajor>& op, const Ops& ops, Index beg,
                                         Index end, Index j, bool active, int log_w, typename Ops::T (&acc)[V]) {
  using T = typename Ops::T;
  using Stored = typename Ops::Stored;
  const int lane = threadIdx.x & 31;
  const int slot = lane >> log_w;
  const int slots = 32 >> log_w;
  for (Index base = beg; base < end; base += 32) {
    const Index idx = base + lane;
    ColIndex c = 0;
    T a = T(1);
    if (idx < end) {
      c = op.ci[idx];
      if constexpr (Ops::reads_a) a = widen<T>(op.av[idx]);
    }
    const int count = static_cast<int>(end - base < 32 ? end - base : 32);
    for (int t0 = 0; t0 < count; t0 += slots * U) {
      Stored b[U][V];
      T aa[U];
      bool ok[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int e = t0 + u * slots + slot;
        ok[u] = e < count && active;
        const ColIndex cc = __shfl_sync(0xffffffffu, c, e & 31);
        aa[u] = shfl(0xffffffffu, a, e & 31);
        if (ok[u]) load_vec<Stored, V>(op.b_at(cc, j), b[u]);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (ok[u]) {
          T bu[V];
          widen_vec(b[u], bu);
#pragma unroll
          for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], ops.mul(aa[u], bu[v]));
        }
    }
  }
  for (int off = 1 << log_w; off < 32; off <<= 1)
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], shfl_xor(acc[v], off));
}

// Writes a finished row tile: identity for a row without entries (unless accumulating,
// which leaves it), C (+) acc when accumulating, else acc; rounded once to Ops::Stored.
template <class Ops, int V, bool RowMajor>
__device__ __forceinline__ void write_row(const Operands<typename Ops::Stored, RowMajor>& op, const Ops& ops, Index row,
                                          Index j, bool empty, typename Ops::T (&acc)[V]) {
  using T = typename Ops::T;
  using Stored = typename Ops::Stored;
  Stored* c = op.c_at(row, j);
  if (empty) {
    if (op.accumulate) return;
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = ops.empty_value();
  } else if (op.accumulate) {
    if constexpr (RowMajor) {
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = ops.add(widen<T>(c[v]), acc[v]);
    } else {
      acc[0] = ops.add(widen<T>(*c), acc[0]);
    }
  }
  if constexpr (std::is_same_v<T, Stored>) {
    store_vec<T, V>(c, acc);
  } else {
    Stored out[V];
    narrow_vec(acc, out);
    store_vec<Stored, V>(c, out);
  }
}

// The fold of a cut row inside a product kernel (row_pieces_fused, the fused nnz_split
// shapes). Every lane of the warp that wrote one of the row's partial rows for this column
// tile calls it with the tile's counter: the warp that counts last (fence, then count: the
// other partial rows are then visible to it) adds the row's `pieces` partial rows from
// `first` in order, writes C (the `writer` lanes, one per column group), and resets the
// counter for the next call.
template <class Ops, int V, bool RowMajor>
__device__ __forceinline__ void fold_if_last(const Operands<typename Ops::Stored, RowMajor>& op, const Ops& ops,
                                             unsigned* count, Index row, int first, int pieces, Index j, bool writer,
                                             const typename Ops::T* partial) {
  using T = typename Ops::T;
  const int lane = threadIdx.x & 31;
  __threadfence();
  __syncwarp();
  unsigned arrived = 0;
  if (lane == 0) arrived = atomicAdd(count, 1u);
  arrived = __shfl_sync(0xffffffffu, arrived, 0);
  if (arrived != static_cast<unsigned>(pieces - 1)) return;
  __threadfence();
  if (writer) {
    const T* q = partial + static_cast<Index>(first) * op.n + j;
    T acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = load_shared_l2(q + v);
    for (int k = 1; k < pieces; ++k)
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], load_shared_l2(q + static_cast<Index>(k) * op.n + v));
    write_row(op, ops, row, j, false, acc);
  }
  if (lane == 0) *count = 0;
}

}  // namespace geblas::detail::cuda::spmm
