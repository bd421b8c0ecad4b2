// merge_path's kernels (the variant's description is in merge_path.cu), its policy and the
// host arithmetic of a launch (slicing, workspace layout, grids). Shared with the run-time
// semiring compiler (src/cuda/jit/), which compiles this file with NVRTC, as
// row_split_kernel.cuh is, so a run-time semiring runs these very kernels.
#pragma once

#include "cuda/spmm/warp_row.cuh"  // tile_lanes, tile_grid

namespace geblas::detail::cuda::spmm {

struct MergePathPolicy {
  static constexpr int block_threads = 256;
  static constexpr int unroll = 4;
  // Merge items (rows + entries) per lane group, not tuned: smaller slices balance better
  // but cost more carries and searches. On the H200 merge_path was 1.1-9x slower than
  // row_pieces on every shared graph (each slice walks its rows one after another).
  static constexpr Index items_per_group = 256;
  // Carries take (slices x N) values; slices grow so that they stay under this size.
  static constexpr std::size_t max_carry_bytes = std::size_t{64} << 20;
  static constexpr int fixup_threads = 128;  // 4 slices x 32 columns per block
};

struct MergeSlicing {
  Index items = 0;  // merge items per slice
  Index slices = 0;
};

// The slices of the merge of m row ends with nnz entries for N columns of value_bytes each.
inline MergeSlicing merge_path_slicing(Index m, Index nnz, Index n, std::size_t value_bytes) {
  MergeSlicing s;
  const Index total = m + nnz;
  const std::size_t per_value = static_cast<std::size_t>(n > 0 ? n : 1) * value_bytes;
  const auto max_slices = static_cast<Index>(MergePathPolicy::max_carry_bytes / per_value);
  s.items = MergePathPolicy::items_per_group;
  if (max_slices > 0 && (total + s.items - 1) / s.items > max_slices) s.items = (total + max_slices - 1) / max_slices;
  s.slices = total == 0 ? 0 : (total + s.items - 1) / s.items;
  return s;
}

// The workspace: each slice's carried row (an Index, -1 for none), padded to 256 bytes,
// then each slice's carry (N values).
inline std::size_t merge_path_carry_offset(Index slices) {
  return ((static_cast<std::size_t>(slices) * sizeof(Index) + 255) / 256) * 256;
}
inline std::size_t merge_path_workspace_bytes(const MergeSlicing& s, Index n, std::size_t value_bytes) {
  return merge_path_carry_offset(s.slices) +
         static_cast<std::size_t>(s.slices) * static_cast<std::size_t>(n) * value_bytes;
}

// The grid of the product kernel: a lane group (log_w: its width as log2) per slice, column
// tiles as the slow dimension; and the fix-up's blocks (4 slices each).
inline LaunchShape merge_path_shape(Index slices, Index n, int v) {
  const int log_group = log2_of(tile_lanes(n, v));
  return tile_grid(slices, MergePathPolicy::block_threads >> log_group, n, v, log_group);
}
inline unsigned merge_fixup_blocks(Index slices) {
  constexpr Index per_block = MergePathPolicy::fixup_threads / 32;
  return grid_limit((slices + per_block - 1) / per_block);
}

// The merge coordinate (rows finished, entries consumed) on diagonal d.
__device__ __forceinline__ void merge_search(const Index* __restrict__ ro, Index m, Index nnz, Index d, Index& i,
                                             Index& j) {
  Index lo = d > nnz ? d - nnz : 0, hi = d < m ? d : m;
  while (lo < hi) {
    const Index pivot = (lo + hi) >> 1;
    if (ro[pivot + 1] <= d - pivot - 1) lo = pivot + 1;
    else hi = pivot;
  }
  i = lo;
  j = d - lo;
}

// acc (+)= A(row, entries [from, to)) x B(:, j .. j+V), the group sharing its loads.
template <class Ops, int V, bool RowMajor>
__device__ __forceinline__ void merge_accumulate_range(const Operands<typename Ops::T, RowMajor>& op, const Ops& ops,
                                                       Index from, Index to, Index j, bool active, int group,
                                                       int g_lane, unsigned gmask, typename Ops::T (&acc)[V]) {
  using T = typename Ops::T;
  for (Index base = from; base < to; base += group) {
    const Index idx = base + g_lane;
    ColIndex c = 0;
    T a = T(1);
    if (idx < to) {
      c = op.ci[idx];
      if constexpr (Ops::reads_a) a = op.av[idx];
    }
    const int count = static_cast<int>(to - base < group ? to - base : group);
#pragma unroll MergePathPolicy::unroll
    for (int t = 0; t < count; ++t) {
      const ColIndex cc = __shfl_sync(gmask, c, t, group);
      const T aa = shfl(gmask, a, t, group);
      if (active) {
        T b[V];
        load_vec<T, V>(op.b_at(cc, j), b);
#pragma unroll
        for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], ops.mul(aa, b[v]));
      }
    }
  }
}

template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(MergePathPolicy::block_threads)
    merge_path_kernel(Operands<typename Ops::T, RowMajor> op, Ops ops, Index nnz, Index items, Index slices, int group,
                      int log_group, Index* __restrict__ carry_row, typename Ops::T* __restrict__ carry) {
  using T = typename Ops::T;
  const int lane = threadIdx.x & 31;
  const int g_lane = lane & (group - 1);
  const unsigned gmask = group == 32 ? 0xffffffffu : (((1u << group) - 1u) << (lane & ~(group - 1)));
  const Index slice = static_cast<Index>(blockIdx.x) * (blockDim.x >> log_group) + (threadIdx.x >> log_group);
  if (slice >= slices) return;
  const Index total = op.m + nnz;
  const Index d0 = slice * items, d1 = d0 + items < total ? d0 + items : total;
  Index i0, j0, i1, j1;
  merge_search(op.ro, op.m, nnz, d0, i0, j0);
  merge_search(op.ro, op.m, nnz, d1, i1, j1);
  const Index tile_width = static_cast<Index>(group) * V;
  for (Index tile = blockIdx.y; tile * tile_width < op.n; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(g_lane) * V;
    const bool active = j < op.n;
    Index k = j0;
    for (Index i = i0; i < i1; ++i) {  // rows that end in this slice
      const Index end = op.ro[i + 1];
      T acc[V];
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = ops.identity();
      merge_accumulate_range<Ops, V, RowMajor>(op, ops, k, end, j, active, group, g_lane, gmask, acc);
      if (active) {
        T* c = op.c_at(i, j);
        const bool empty = op.ro[i] == end;
        if (!(empty && op.accumulate)) {
          if (empty) {
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] = ops.empty_value();
          } else if (op.accumulate) {
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] = ops.add(RowMajor ? c[v] : *c, acc[v]);
          }
          store_vec<T, V>(c, acc);
        }
      }
      k = end;
    }
    // The unfinished start of row i1, if the slice holds any of its entries: a carry.
    const bool carries = i1 < op.m && k < j1;
    if (carries) {
      T acc[V];
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = ops.identity();
      merge_accumulate_range<Ops, V, RowMajor>(op, ops, k, j1, j, active, group, g_lane, gmask, acc);
      if (active) store_vec<T, V>(carry + slice * op.n + j, acc);
    }
    if (tile == blockIdx.y && blockIdx.y == 0 && g_lane == 0) carry_row[slice] = carries ? i1 : -1;
  }
}

// Folds each run of carries of one row into C, in slice order; a block handles 4
// slices x 32 columns, looping over the columns.
template <class Ops, bool RowMajor>
__global__ void __launch_bounds__(MergePathPolicy::fixup_threads)
    merge_fixup_kernel(Operands<typename Ops::T, RowMajor> op, Ops ops, Index slices,
                       const Index* __restrict__ carry_row, const typename Ops::T* __restrict__ carry) {
  using T = typename Ops::T;
  const Index s = static_cast<Index>(blockIdx.x) * (MergePathPolicy::fixup_threads / 32) + (threadIdx.x >> 5);
  if (s >= slices) return;
  const Index r = carry_row[s];
  if (r < 0 || (s > 0 && carry_row[s - 1] == r)) return;  // no carry, or not the first of its run
  for (Index j = threadIdx.x & 31; j < op.n; j += 32) {
    T acc = carry[s * op.n + j];
    for (Index t = s + 1; t < slices && carry_row[t] == r; ++t) acc = ops.add(acc, carry[t * op.n + j]);
    T* c = op.c_at(r, j);
    *c = ops.add(*c, acc);
  }
}

}  // namespace geblas::detail::cuda::spmm
