// The launcher of the SpMM families that are one kernel launch over the rows of A, with no
// plan and no workspace, and that take every 16-bit problem (row_split, row_group). Their
// kernels stay in their own headers, shared with the run-time semiring compiler; a family
// is its kernel, its launch shape and its block size (RowKernelShape), and the launch
// below serves the built-in kernels and run-time semirings' alike.
#pragma once

#include <cstddef>
#include <string>

#include "cuda/spmm/early_launch.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/row_group_kernel.cuh"
#include "cuda/spmm/row_split_kernel.cuh"

namespace geblas::detail::cuda::spmm {

struct RowKernelShape {
  LaunchShape (*shape)(Index m, Index n, int v);
  int block_threads;
};
inline RowKernelShape row_kernel_shape(Family f) {
  if (f == Family::row_group) return {row_group_shape, RowGroupPolicy::block_threads};
  return {row_split_shape, RowSplitPolicy::block_threads};
}

// One launch of the family's kernel (taking op, ops, log_w) with v values per lane.
template <class Kernels>
void launch_rows(const SpmmVariant& variant, const SpmmProblem& p, int v, const Kernels& k, cudaStream_t stream) {
  const RowKernelShape r = row_kernel_shape(variant.family);
  const LaunchShape s = r.shape(p.m, p.n, v);
  const int log_w = s.log_w;
  k.template launch<0>(Start::early, dim3(s.grid_x, s.grid_y), r.block_threads, stream, log_w);
}

// The family's FamilyOps over its built-in kernel, Kernel::fn<Ops, V, RowMajor>().
template <class Kernel>
struct RowFamily {
  static bool can_implement(const SpmmVariant& v, const SpmmProblem& p, std::string* why) {
    return takes_16bit(p, Takes16::all, v.name, why);
  }
  static std::size_t workspace_bytes(const SpmmVariant&, const SpmmProblem&) { return 0; }
  static void run(const SpmmVariant& v, const SpmmProblem& p, void*, cudaStream_t stream) {
    if (p.m == 0 || p.n == 0) return;
    with_vector_ops<Takes16::all>(p, [&]<class Ops, int V, bool RowMajor>(Ops ops) {
      const auto op = operands<typename Ops::Stored, RowMajor>(p);
      launch_rows(v, p, V, built_kernels(op, ops, Kernel::template fn<Ops, V, RowMajor>()), stream);
    });
  }
  static constexpr FamilyOps ops{can_implement, workspace_bytes, run};
};

}  // namespace geblas::detail::cuda::spmm
