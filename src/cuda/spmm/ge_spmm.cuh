// GE-SpMM (Huang, Dai, Yu, Wang, Yang: "GE-SpMM: General-purpose Sparse Matrix-Matrix
// Multiplication on GPUs for Graph Neural Networks") on plain CSR with any semiring: a
// warp per row of A; the warp copies 32 entries of the row into shared memory with one
// coalesced load (coalesced row caching, CRC), then every lane walks the cached entries
// and reads B at its own columns, so reads of B are coalesced across the warp. With a
// coarsening factor CF > 1 each lane owns CF columns 32 apart (coarse-grained warp
// merging, CWM): the cached row is reused CF times and CF loads of B are in flight.
// crc.cu instantiates CF = 1, cwm.cu the policy's CF; the kernel is in ge_spmm_kernel.cuh
// (shared with the run-time semiring compiler), this file holds the host launch.
#pragma once

#include "cuda/check.cuh"
#include "cuda/spmm/ge_spmm_kernel.cuh"
#include "cuda/spmm/ops.cuh"

namespace geblas::detail::cuda::spmm::ge {

template <int CF>
void run_ge(const SpmmProblem& p, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  with_ops(p, [&]<class Ops, bool RowMajor>(Ops ops) {
    const LaunchShape s = ge_spmm_shape(p.m, p.n, CF);
    ge_spmm_kernel<Ops, CF, RowMajor>
        <<<dim3(s.grid_x, s.grid_y), GePolicy::block_threads, 0, stream>>>(operands<typename Ops::T, RowMajor>(p), ops);
    GEBLAS_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace geblas::detail::cuda::spmm::ge
