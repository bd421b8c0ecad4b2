// merge_path's launcher (the algorithm is described in merge_path.cu): the slicing, the
// workspace layout and the two launches, for the built-in kernels and run-time semirings'
// alike (kernels of merge_path_kernel.cuh: the merge, then the fix-up of carries).
#pragma once

#include "cuda/spmm/early_launch.cuh"
#include "cuda/spmm/merge_path_kernel.cuh"
#include "cuda/spmm/problem.hpp"

namespace geblas::detail::cuda::spmm {

inline MergeSlicing merge_path_slicing(const SpmmProblem& p) {
  return merge_path_slicing(p.m, p.nnz, p.n, p.value_bytes());
}

// Kernel 0 is merge_path_kernel, kernel 1 merge_fixup_kernel; both start after the
// previous kernel (they do not wait for it themselves). `workspace` holds
// merge_path_workspace_bytes of the slicing.
template <class Kernels>
void launch_merge_path(const SpmmProblem& p, int v, const Kernels& k, void* workspace, cudaStream_t stream) {
  using T = typename Kernels::Compute;
  const MergeSlicing s = merge_path_slicing(p);
  Index* const carry_row = static_cast<Index*>(workspace);
  T* const carry = reinterpret_cast<T*>(static_cast<char*>(workspace) + merge_path_carry_offset(s.slices));
  const LaunchShape g = merge_path_shape(s.slices, p.n, v);
  const Index nnz = p.nnz, items = s.items, slices = s.slices;
  const int group = 1 << g.log_w, log_group = g.log_w;
  k.template launch<0>(Start::serialized, dim3(g.grid_x, g.grid_y), MergePathPolicy::block_threads, stream, nnz, items,
                       slices, group, log_group, carry_row, carry);
  k.template launch<1>(Start::serialized, dim3(merge_fixup_blocks(slices)), MergePathPolicy::fixup_threads, stream,
                       slices, static_cast<const Index*>(carry_row), static_cast<const T*>(carry));
}

}  // namespace geblas::detail::cuda::spmm
