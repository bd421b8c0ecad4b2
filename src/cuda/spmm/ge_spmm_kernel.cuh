// GE-SpMM's kernel (the algorithm is described in ge_spmm.cuh), its policy and its launch
// grid, shared by ge_spmm.cu (CF: the variants' coarsening, variants.hpp) and the run-time
// semiring compiler (src/cuda/jit/), which compiles this file with NVRTC, as
// row_split_kernel.cuh is, so a run-time semiring runs this very kernel.
#pragma once

#include "cuda/spmm/warp_row.cuh"  // LaunchShape

namespace geblas::detail::cuda::spmm::ge {

struct GePolicy {
  // 4 warps per block, as in the paper's kernels; not tuned on the H100/H200 (the
  // dispatcher never picks crc/cwm on the shared graphs, docs/notes/spmm-tuning.md).
  static constexpr int block_threads = 128;
  static constexpr int warps = block_threads / 32;
  static constexpr int unroll = 4;  // cached entries consumed per unrolled step
};

template <class Ops, int CF, bool RowMajor>
__global__ void __launch_bounds__(GePolicy::block_threads)
    ge_spmm_kernel(Operands<typename Ops::T, RowMajor> op, Ops ops) {
  using T = typename Ops::T;
  __shared__ ColIndex s_col[GePolicy::warps][32];
  __shared__ T s_val[GePolicy::warps][32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const Index row = static_cast<Index>(blockIdx.x) * GePolicy::warps + warp;
  if (row >= op.m) return;  // the whole warp leaves together
  const Index beg = op.ro[row], end = op.ro[row + 1];
  constexpr Index tile_width = 32 * CF;
  for (Index tile = blockIdx.y; tile * tile_width < op.n; tile += gridDim.y) {
    const Index j0 = tile * tile_width + lane;
    T acc[CF];
#pragma unroll
    for (int c = 0; c < CF; ++c) acc[c] = ops.identity();
    for (Index base = beg; base < end; base += 32) {
      const Index idx = base + lane;
      if (idx < end) {
        s_col[warp][lane] = op.ci[idx];
        s_val[warp][lane] = Ops::reads_a ? op.av[idx] : T(1);
      }
      __syncwarp();
      const int count = static_cast<int>(end - base < 32 ? end - base : 32);
#pragma unroll GePolicy::unroll
      for (int t = 0; t < count; ++t) {
        const ColIndex k = s_col[warp][t];
        const T a = s_val[warp][t];
        const T* b = op.b_at(k, 0);
#pragma unroll
        for (int c = 0; c < CF; ++c) {
          const Index j = j0 + 32 * c;
          if (j < op.n) acc[c] = ops.add(acc[c], ops.mul(a, RowMajor ? b[j] : b[j * op.bc]));
        }
      }
      __syncwarp();  // the next tile overwrites the cache
    }
#pragma unroll
    for (int c = 0; c < CF; ++c) {
      const Index j = j0 + 32 * c;
      if (j >= op.n) continue;
      T* out = op.c_at(row, j);
      if (beg == end) {
        if (!op.accumulate) *out = ops.empty_value();
      } else {
        *out = op.accumulate ? ops.add(*out, acc[c]) : acc[c];
      }
    }
  }
}

// The grid of a launch: a warp per row, GePolicy::warps rows per block; column tiles of
// 32 * CF columns (one column per lane and coarsening step) as grid y, capped (the kernel
// loops over the tiles).
inline LaunchShape ge_spmm_shape(Index m, Index n, int cf) {
  const Index tiles = (n + 32 * cf - 1) / (32 * cf);
  return {grid_limit((m + GePolicy::warps - 1) / GePolicy::warps), static_cast<unsigned>(tiles < 65535 ? tiles : 65535),
          5};
}

}  // namespace geblas::detail::cuda::spmm::ge
