// GE-SpMM (Huang, Dai, Yu, Wang, Yang: "GE-SpMM: General-purpose Sparse Matrix-Matrix
// Multiplication on GPUs for Graph Neural Networks") on plain CSR with any semiring: a
// warp per row of A; the warp copies 32 entries of the row into shared memory with one
// coalesced load (coalesced row caching, CRC), then every lane walks the cached entries
// and reads B at its own columns, so reads of B are coalesced across the warp. With a
// coarsening factor CF > 1 each lane owns CF columns 32 apart (coarse-grained warp
// merging, CWM): the cached row is reused CF times and CF loads of B are in flight.
// crc.cu instantiates CF = 1, cwm.cu the policy's CF.
#pragma once

#include "cuda/check.cuh"
#include "cuda/spmm/ops.cuh"

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

template <int CF>
void run_ge(const SpmmProblem& p, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  with_ops(p, [&]<class Ops, bool RowMajor>(Ops ops) {
    const Index tiles = (p.n + 32 * CF - 1) / (32 * CF);
    const dim3 grid(grid_limit((p.m + GePolicy::warps - 1) / GePolicy::warps),
                    static_cast<unsigned>(tiles < 65535 ? tiles : 65535));
    ge_spmm_kernel<Ops, CF, RowMajor>
        <<<grid, GePolicy::block_threads, 0, stream>>>(operands<typename Ops::T, RowMajor>(p), ops);
    GEBLAS_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace geblas::detail::cuda::spmm::ge
