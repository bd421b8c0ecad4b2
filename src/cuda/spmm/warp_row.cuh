// The inner loop row_split and row_pieces share (and, through team_row, row_group's
// group_row.cuh): a whole warp computes one tile of columns of one row of C from a
// contiguous range of that row's entries. The warp is cut
// into E = 32 / W entry slots of W lanes; the W lanes of a slot cover W * V columns with
// 16-byte loads of B, and the E slots work on E different entries at once, so small N
// still keeps every lane busy. The warp loads 32 entries (column, value) with one
// coalesced access (GE-SpMM's row caching, held in registers and broadcast by shuffles),
// then issues U loads of B per slot before consuming any, so U * E loads are in flight
// per warp instead of one dependent chain. The slots' partial results are combined with
// the semiring's add at the end (butterfly shuffles). Values are loaded as Ops::Stored
// (8 per 16-byte load for half and bfloat16) and widened to Ops::T in registers just
// before they are used, so the loads in flight hold packed 16-bit values. Also the
// column tiling and launch grid of every kernel built on it.
#pragma once

#include "cuda/spmm/device_ops.cuh"

namespace geblas::detail::cuda::spmm {

// Lanes per column tile: the narrowest power of two (at most a warp) whose lanes, V
// columns each, cover N. The width of an entry slot (row_split, row_pieces, nnz_split,
// the CUDA-core windows) and of a lane group (row_group, merge_path) alike.
inline int tile_lanes(Index n, int v) {
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

// The column tiles of N, V << log_w columns each.
inline Index tile_count(Index n, int v, int log_w) {
  const Index tile_width = static_cast<Index>(v) << log_w;
  return (n + tile_width - 1) / tile_width;
}

// The grid of a kernel that takes `items` work items (rows, pieces, units), per_block of
// them per block, with the column tiles as the slow dimension (so that one column slice
// of B stays in L2 at a time); grid y is capped, the kernels loop over the tiles.
inline LaunchShape tile_grid(Index items, Index per_block, Index n, int v, int log_w) {
  const Index tiles = tile_count(n, v, log_w);
  return {grid_limit((items + per_block - 1) / per_block), static_cast<unsigned>(tiles < 65535 ? tiles : 65535), log_w};
}

// body(j, active, acc) for each column tile of the block (blockIdx.y, then every
// gridDim.y-th): j is the lane's first column (V of them; the lane's place in the tile is
// lane mod 1 << log_w), `active` whether j lies inside N, acc set to the identity.
template <int V, class Ops, class Body>
__device__ __forceinline__ void for_each_tile(const Ops& ops, Index n, int log_w, int lane, Body&& body) {
  using T = typename Ops::T;
  const Index tile_width = static_cast<Index>(V) << log_w;
  for (Index tile = blockIdx.y; tile * tile_width < n; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(lane & ((1 << log_w) - 1)) * V;
    T acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = ops.identity();
    body(j, j < n, acc);
  }
}

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

// acc (+)= sum over entries [beg, end) of A(row, k) (x) B(k, j .. j+V), computed by a
// team of `team` lanes (a power of two, at most a warp; `mask` names them) that loads
// `team` entries per coalesced access and broadcasts them by shuffles. The team is cut
// into `slots` entry slots (this lane's is `slot`) that take every slots-th entry, U
// loads of B each before any is consumed. Every lane of the team must call it with the
// same beg, end; `active` says whether the lane's columns are inside N. The test per
// entry stays even in whole groups: a path without it (4 of 14 PTX instructions per entry
// fewer) made short-row graphs up to 12% slower at N = 32 (H200; docs/notes/spmm-tuning.md).
template <int U, class Ops, int V, bool RowMajor>
__device__ __forceinline__ void team_row(const Operands<typename Ops::Stored, RowMajor>& op, const Ops& ops, Index beg,
                                         Index end, Index j, bool active, int team, unsigned mask, int slots, int slot,
                                         typename Ops::T (&acc)[V]) {
  using T = typename Ops::T;
  using Stored = typename Ops::Stored;
  const int team_lane = threadIdx.x & (team - 1);
  for (Index base = beg; base < end; base += team) {
    const Index idx = base + team_lane;
    ColIndex c = 0;
    T a = T(1);
    if (idx < end) {
      c = op.ci[idx];
      if constexpr (Ops::reads_a) a = widen<T>(op.av[idx]);
    }
    const int count = static_cast<int>(end - base < team ? end - base : team);
    for (int t0 = 0; t0 < count; t0 += slots * U) {
      Stored b[U][V];
      T aa[U];
      bool ok[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int e = t0 + u * slots + slot;
        ok[u] = e < count && active;
        const ColIndex cc = __shfl_sync(mask, c, e & (team - 1), team);
        aa[u] = shfl(mask, a, e & (team - 1), team);
        if (ok[u]) load_vec<Stored, V>(op.b_at(cc, j), b[u]);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (ok[u]) multiply_add(ops, aa[u], b[u], acc);
    }
  }
}

// team_row over the whole warp, cut into E = 32 / W entry slots of W lanes; the slots'
// partial results are combined with the semiring's add at the end (butterfly shuffles),
// so on return every lane of a slot column holds the full result for its columns.
template <int U, class Ops, int V, bool RowMajor>
__device__ __forceinline__ void warp_row(const Operands<typename Ops::Stored, RowMajor>& op, const Ops& ops, Index beg,
                                         Index end, Index j, bool active, int log_w, typename Ops::T (&acc)[V]) {
  const int lane = threadIdx.x & 31;
  team_row<U>(op, ops, beg, end, j, active, 32, 0xffffffffu, 32 >> log_w, lane >> log_w, acc);
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

// The fold of a cut row inside a product kernel (the fused nnz_split shapes). Every lane
// of the warp that wrote one of the row's partial rows for this column tile calls it with
// the tile's counter: the warp that counts last (fence, then count: the other partial
// rows are then visible to it) adds the row's `pieces` partial rows from `first` in
// order, writes C (the `writer` lanes, one per column group), and resets the counter for
// the next call.
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
