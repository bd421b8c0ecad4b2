// The host side of the SpMM variants that are one kernel launch over the rows of A, with
// no plan and no workspace, and that take every 16-bit problem (row_split, row_group).
// They differ only in their kernel, its launch shape and its block size, which a small
// traits struct names; the kernels themselves stay in their own headers, shared with the
// run-time semiring compiler.
#pragma once

#include <cstddef>
#include <string>

#include "cuda/spmm/early_launch.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/warp_row.cuh"  // LaunchShape

namespace geblas::detail::cuda::spmm {

// Launch is a traits struct with
//   name:                            the variant's name (for can_implement's refusals);
//   block_threads:                   the kernel's block size (its policy's);
//   shape(m, n, v):                  the grid of a launch, a LaunchShape;
//   kernel<Ops, V, RowMajor>:        the kernel, taking (Operands, Ops, log_w).
template <class Launch>
struct RowLaunchVariant {
  static bool can_implement(const SpmmProblem& p, std::string* why) {
    return takes_16bit(p, Takes16::all, Launch::name, why);
  }

  static std::size_t workspace_bytes(const SpmmProblem&) { return 0; }

  static void run(const SpmmProblem& p, void*, cudaStream_t stream) {
    if (p.m == 0 || p.n == 0) return;
    with_vector_ops<Takes16::all>(
        p, [&]<class Ops, int V, bool RowMajor>(Ops ops) { launch<Ops, V, RowMajor>(p, ops, stream); });
  }

 private:
  template <class Ops, int V, bool RowMajor>
  static void launch(const SpmmProblem& p, Ops ops, cudaStream_t stream) {
    const LaunchShape s = Launch::shape(p.m, p.n, V);
    launch_early(Launch::template kernel<Ops, V, RowMajor>, dim3(s.grid_x, s.grid_y), Launch::block_threads, stream,
                 operands<typename Ops::Stored, RowMajor>(p), ops, s.log_w);
  }
};

}  // namespace geblas::detail::cuda::spmm
