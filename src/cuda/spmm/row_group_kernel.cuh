// row_group's kernel and launch shape (the variant's description is in row_group.cu),
// shared with the run-time semiring compiler (src/cuda/jit/) as row_split_kernel.cuh is.
#pragma once

#include "cuda/spmm/group_row.cuh"

namespace geblas::detail::cuda::spmm {

struct RowGroupPolicy {
  // Launch granularity only: the groups are independent.
  static constexpr int block_threads = 256;
  // Loads of B issued per lane before any is consumed.
  static constexpr int unroll = 4;
};

template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(RowGroupPolicy::block_threads)
    row_group_kernel(Operands<typename Ops::Stored, RowMajor> op, Ops ops, int log_w) {
  wait_for_prior_grid();  // launched early (early_launch.cuh): the previous kernel's writes first
  allow_dependent_launch();
  const Index row = (static_cast<Index>(blockIdx.x) * RowGroupPolicy::block_threads + threadIdx.x) >> log_w;
  if (row >= op.m) return;  // the whole group leaves together
  const unsigned gmask = group_mask(log_w);
  const int g_lane = threadIdx.x & ((1 << log_w) - 1);
  const Index beg = op.ro[row], end = op.ro[row + 1];
  for_each_tile<V>(ops, op.n, log_w, g_lane, [&](Index j, bool active, typename Ops::T(&acc)[V]) {
    group_row<RowGroupPolicy::unroll>(op, ops, beg, end, j, active, log_w, gmask, acc);
    if (active) write_row(op, ops, row, j, beg == end, acc);
  });
}

// The grid of a row_group launch: 256 / W rows per block, column tiles as the slow dimension.
inline LaunchShape row_group_shape(Index m, Index n, int v) {
  const int log_w = log2_of(tile_lanes(n, v));
  return tile_grid(m, RowGroupPolicy::block_threads >> log_w, n, v, log_w);
}

}  // namespace geblas::detail::cuda::spmm
