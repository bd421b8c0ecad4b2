// row_split's kernel and launch shape (the variant's description is in row_split.cu).
// Included by row_split.cu and, through NVRTC, by the run-time semiring compiler
// (src/cuda/jit/), so a run-time semiring runs this very kernel.
#pragma once

#include "cuda/spmm/warp_row.cuh"

namespace geblas::detail::cuda::spmm {

struct RowSplitPolicy {
  // 8 warps (rows) per block; launch-granularity only, the warps are independent.
  static constexpr int block_threads = 256;
  // Loads of B issued per entry slot before any is consumed.
  static constexpr int unroll = 4;
};

template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(RowSplitPolicy::block_threads)
    row_split_kernel(Operands<typename Ops::Stored, RowMajor> op, Ops ops, int log_w) {
  wait_for_prior_grid();  // launched early (early_launch.cuh): the previous kernel's writes first
  allow_dependent_launch();
  const Index row = static_cast<Index>(blockIdx.x) * (RowSplitPolicy::block_threads / 32) + (threadIdx.x >> 5);
  if (row >= op.m) return;  // the whole warp leaves together
  const int lane = threadIdx.x & 31;
  const Index beg = op.ro[row], end = op.ro[row + 1];
  for_each_tile<V>(ops, op.n, log_w, lane, [&](Index j, bool active, typename Ops::T(&acc)[V]) {
    warp_row<RowSplitPolicy::unroll>(op, ops, beg, end, j, active, log_w, acc);
    if (active && (lane >> log_w) == 0) write_row(op, ops, row, j, beg == end, acc);
  });
}

// The grid of a row_split launch: a warp per row, column tiles of V << log_w columns
// as the slow dimension.
inline LaunchShape row_split_shape(Index m, Index n, int v) {
  return tile_grid(m, RowSplitPolicy::block_threads / 32, n, v, log2_of(tile_lanes(n, v)));
}

}  // namespace geblas::detail::cuda::spmm
