// GE-SpMM (Huang, Dai, Yu, Wang, Yang: "GE-SpMM: General-purpose Sparse Matrix-Matrix
// Multiplication on GPUs for Graph Neural Networks") on plain CSR with any semiring: a
// warp per row of A; the warp copies 32 entries of the row into shared memory with one
// coalesced load (coalesced row caching, CRC), then every lane walks the cached entries
// and reads B at its own columns, so reads of B are coalesced across the warp. With a
// coarsening factor CF > 1 each lane owns CF columns 32 apart (coarse-grained warp
// merging, CWM): the cached row is reused CF times and CF loads of B are in flight.
// The variants crc (CF = 1) and cwm (CF = 2) are lines of variants.hpp; the kernel is in
// ge_spmm_kernel.cuh (shared with the run-time semiring compiler), this file holds the
// family's launcher, for the built-in kernels (ge_spmm.cu) and run-time semirings' alike.
#pragma once

#include "cuda/spmm/early_launch.cuh"
#include "cuda/spmm/ge_spmm_kernel.cuh"
#include "cuda/spmm/ops.cuh"

namespace geblas::detail::cuda::spmm::ge {

// One launch of ge_spmm_kernel<Ops, CF, RowMajor> (taking op, ops), CF the variant's
// coarsening. Launched after the previous kernel: this kernel does not wait for it.
template <class Kernels>
void launch_ge(const SpmmVariant& v, const SpmmProblem& p, const Kernels& k, cudaStream_t stream) {
  const LaunchShape s = ge_spmm_shape(p.m, p.n, v.shape.coarsening);
  k.template launch<0>(Start::serialized, dim3(s.grid_x, s.grid_y), GePolicy::block_threads, stream);
}

}  // namespace geblas::detail::cuda::spmm::ge
